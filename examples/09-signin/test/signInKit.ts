/**
 * What the sign-in tests share: the child processes they start (by pid, stopped at the end),
 * the command-line client (fixtures/client.ts: the official SDK v2 client in its own process),
 * and the user in Chromium (the login and consent pages).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createServer as createTcpServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { BrowserContext, Page } from 'playwright-core';
import { runTsPath } from '../../../test-support/spawnServer';

const CLIENT = path.join(__dirname, 'fixtures', 'client.ts');
export const HANDSHAKE = '2025-11-25';
export const STATELESS = '2026-07-28';
/** Every wait for a process, a page or an event is bounded by this. */
export const WAIT_MS = 20_000;

// ---------------------------------------------------------------------------------------------
// The processes of a test

export interface ChildHandle {
  child: ChildProcess;
  /** Everything it wrote to stderr (and stdout, for `output: 'both'`), for failure messages. */
  stderr(): string;
  /** Stopped as a process group: it started children of its own (wrangler and workerd). */
  group: boolean;
}

/** Every child started, in order: `stopAll` stops them last first. */
const children: ChildHandle[] = [];

export function track(child: ChildProcess, options: { group?: boolean; output?: 'stderr' | 'both' } = {}): ChildHandle {
  let stderr = '';
  const collect = (chunk: string) => (stderr += chunk);
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', collect);
  if (options.output === 'both') {
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', collect);
  }
  const handle = { child, stderr: () => stderr, group: options.group ?? false };
  children.push(handle);
  return handle;
}

/** SIGTERM by pid (the group's, for a group), SIGKILL if it lingers; resolves once it exited. */
export async function stop({ child, group }: ChildHandle): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const target = group ? -child.pid : child.pid;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(target, 'SIGTERM');
  const killer = setTimeout(() => {
    if (child.exitCode === null && child.signalCode === null) process.kill(target, 'SIGKILL');
  }, 3_000);
  await exited;
  clearTimeout(killer);
  // The group's other members (workerd) may outlive its leader by a moment.
  if (group) {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** Stops every child this test started, the last started first. */
export async function stopAll(): Promise<void> {
  for (const handle of [...children].reverse()) await stop(handle);
}

/** A port free now: the child that gets it must know it before it listens (its origin names it). */
export async function freePort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A running notes server with sign-in. */
export interface NotesServer {
  origin: string;
  url: string;
  process: ChildHandle;
}

/** Resolves with the MCP URL once the example printed its banner ("serving MCP at <url>,"). */
export function bannerUrl(handle: ChildHandle, what: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start within ${WAIT_MS} ms: ${handle.stderr()}`)), WAIT_MS);
    handle.child.once('exit', (code) => reject(new Error(`${what} exited (${code}) before it served: ${handle.stderr()}`)));
    const check = () => {
      const match = /serving MCP at (\S+),/.exec(handle.stderr());
      if (match === null) return;
      clearTimeout(timer);
      resolve(match[1]!);
    };
    handle.child.stderr!.on('data', check);
    handle.child.stdout?.on('data', check);
    check();
  });
}

// ---------------------------------------------------------------------------------------------
// The command-line client, in its own process

export interface CliEvent {
  event: string;
  [key: string]: unknown;
}

export interface Reply<T = unknown> {
  ok: boolean;
  result: T;
  error?: { name: string; message: string; callback?: Record<string, string> };
}

export interface ToolResult {
  content: Array<{ type: string; text: string }>;
  isError?: boolean;
}

export interface ClientState {
  tokens: { access_token: string; refresh_token: string; scope: string; token_type: string };
  clientInformation: { client_id: string };
  tokensSaved: number;
  /** With --dpop: the thumbprint of the client's DPoP key. */
  dpopThumbprint?: string;
}

export class Cli {
  readonly events: CliEvent[] = [];
  private listeners: Array<() => void> = [];
  private nextId = 1;
  redirectUrl = '';
  /** Its metadata document's URL, when it names itself by one. */
  metadataUrl: string | undefined;

  private constructor(
    readonly process: ChildHandle,
    readonly label: string,
  ) {}

  /** Starts the client; with `metadataUrl` it names itself by that document, else it registers. */
  static async start(options: { server: Pick<NotesServer, 'url'>; protocol: string; name: string; caFile?: string; metadataUrl?: string; dpop?: boolean }): Promise<Cli> {
    const child = spawn(process.execPath, ['-r', runTsPath, CLIENT, ...(options.dpop ? ['--dpop'] : [])], {
      env: {
        ...process.env,
        SERVER_URL: options.server.url,
        PROTOCOL: options.protocol,
        CLIENT_NAME: options.name,
        CLIENT_METADATA_URL: options.metadataUrl ?? '',
        ...(options.caFile === undefined ? {} : { NODE_EXTRA_CA_CERTS: options.caFile }),
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const cli = new Cli(track(child), options.name);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      cli.events.push(JSON.parse(line) as CliEvent);
      for (const listener of cli.listeners) listener();
    });
    const ready = await cli.waitFor((event) => event.event === 'ready', 0);
    cli.redirectUrl = ready.redirectUrl as string;
    return cli;
  }

  /** The first event from `from` on that matches; fails after WAIT_MS, showing what came. */
  waitFor(matches: (event: CliEvent) => boolean, from = this.events.length): Promise<CliEvent> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.events.slice(from).find(matches);
        if (found === undefined) return;
        done();
        resolve(found);
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`${this.label}: no such event within ${WAIT_MS} ms; it said ${JSON.stringify(this.events.slice(from))}; stderr: ${this.process.stderr()}`));
      }, WAIT_MS);
      const done = () => {
        clearTimeout(timer);
        this.listeners = this.listeners.filter((listener) => listener !== check);
      };
      this.listeners.push(check);
      check();
    });
  }

  /** The next authorization URL the provider prints. */
  nextAuthorization(): Promise<string> {
    return handled(this.waitFor((event) => event.event === 'authorize').then((event) => event.url as string));
  }

  send<T = unknown>(command: Record<string, unknown>): Promise<Reply<T>> {
    const id = this.nextId++;
    const replied = this.waitFor((event) => event.event === 'reply' && event.id === id);
    this.process.child.stdin!.write(`${JSON.stringify({ id, ...command })}\n`);
    return handled(replied.then((event) => event as unknown as Reply<T>));
  }

  call(name: string, args: Record<string, unknown> = {}): Promise<Reply<ToolResult>> {
    return this.send<ToolResult>({ command: 'call', name, arguments: args });
  }

  async state(): Promise<ClientState> {
    return (await this.send<ClientState>({ command: 'state' })).result;
  }

  /** The SDK's HTTP requests from event `from` on, as `METHOD /path status`, with the JSON-RPC method or grant type. */
  requests(from: number, until = this.events.length): string[] {
    return this.events
      .slice(from, until)
      .filter((event) => event.event === 'http')
      .map((event) => `${String(event.method)} ${new URL(event.url as string).pathname} ${String(event.status)}${event.rpc ? ` ${String(event.rpc)}` : ''}${event.grantType ? ` ${String(event.grantType)}` : ''}`);
  }
}

/** A promise awaited later, perhaps never when the test failed first: its failure is not left unhandled. */
export function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

export const textOf = (reply: Reply<ToolResult>) => {
  if (!reply.ok) throw new Error(`the call failed: ${JSON.stringify(reply.error)}`);
  return reply.result.content.map((block) => block.text).join('');
};

// ---------------------------------------------------------------------------------------------
// The user, in Chromium

export interface ConsentSeen {
  clientName: string | null;
  domain: string | null;
  /** What the page says of the domain: verified (a metadata document's host) or only claimed. */
  standing: 'published at' | 'not verified' | 'unsaid';
  /** The scopes asked for now, as listed. */
  scopes: string[];
  /** The line naming what the user allowed before, if any. */
  alreadyAllowed: string | null;
}

export async function signInAs(page: Page, user: string): Promise<void> {
  await page.getByLabel('Username').fill(user);
  await page.getByLabel('Password').fill(user);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

export async function readConsent(page: Page): Promise<ConsentSeen> {
  await page.locator('#client-domain').waitFor({ timeout: WAIT_MS });
  const allowed = page.getByText('You already allowed it');
  return {
    clientName: await page.locator('#client-name').textContent(),
    domain: await page.locator('#client-domain').textContent(),
    standing: (await page.getByText('This application is published at').count()) > 0 ? 'published at' : (await page.getByText('not verified').count()) > 0 ? 'not verified' : 'unsaid',
    scopes: (await page.locator('#scopes li').allTextContents()).map((text) => text.trim()),
    alreadyAllowed: (await allowed.count()) > 0 ? await allowed.textContent() : null,
  };
}

/** Clicks Approve or Deny and waits until the browser is back at the client's redirect URI. */
export async function answer(page: Page, cli: Cli, decision: 'Approve' | 'Deny'): Promise<URL> {
  await page.getByRole('button', { name: decision }).click();
  await page.waitForURL((url) => url.href.startsWith(cli.redirectUrl), { timeout: WAIT_MS });
  return new URL(page.url());
}

/** Connects the client, signing `user` in through the login and consent pages; returns what the consent page showed. */
export async function signIn(cli: Cli, context: BrowserContext, user: string, protocol: string): Promise<{ consent: ConsentSeen; requests: string[] }> {
  const from = cli.events.length;
  const authorization = cli.nextAuthorization();
  const connecting = cli.send<{ protocolVersion: string }>({ command: 'connect' });
  const page = await context.newPage();
  try {
    await page.goto(await authorization);
    await signInAs(page, user);
    const consent = await readConsent(page);
    const back = await answer(page, cli, 'Approve');
    expect(back.searchParams.has('code')).toBe(true);
    expect(await page.locator('#done').textContent()).toBe('Signed in. You can close this window.');
    const connected = await connecting;
    expect(connected).toMatchObject({ ok: true, result: { protocolVersion: protocol } });
    return { consent, requests: cli.requests(from) };
  } finally {
    await page.close();
  }
}

/**
 * Steps the signed-in client up to notes:write through the 403: the consent page (the user is
 * still signed in) asks for notes:write only; resolves with add_note's reply.
 */
export async function stepUpAndAdd(cli: Cli, context: BrowserContext, note: string): Promise<{ reply: Reply<ToolResult>; consent: ConsentSeen; requests: string[] }> {
  const from = cli.events.length;
  const authorization = cli.nextAuthorization();
  const adding = cli.call('add_note', { text: note });
  const authorizeUrl = new URL(await authorization);
  expect(authorizeUrl.searchParams.get('scope')).toBe('notes:read notes:write');
  const page = await context.newPage();
  let consent: ConsentSeen;
  try {
    await page.goto(authorizeUrl.href);
    consent = await readConsent(page);
    await answer(page, cli, 'Approve');
  } finally {
    await page.close();
  }
  const reply = await adding;
  return { reply, consent, requests: cli.requests(from) };
}
