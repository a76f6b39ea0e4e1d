import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { Client } from '@typemcp/client';
import type { CallToolResult, ClientTransport, Implementation, JsonObject, ListedPrompt, ListedResource, ListedResourceTemplate, ListedSkill, ListedTool } from '@typemcp/client';
import { StdioTransport } from '@typemcp/core';
import { HttpClientTransport } from './httpClient';
import { launchFor, start } from './launch';
import { UsageError } from './UsageError';

/**
 * Who the CLI's requests come from: over stdio a principal the server is started with (the
 * server's `listen({ transport: 'stdio' })` reads it from TYPEMCP_STDIO_PRINCIPAL), over a
 * URL the headers every request carries (a bearer token, others).
 */
export interface Caller {
  principal?: { subject: string; scopes: string[]; roles?: string[] };
  headers?: Record<string, string>;
}

/** Whether the entry is a server's URL rather than a file to start. */
export function isUrl(entry: string): boolean {
  return /^https?:\/\//i.test(entry);
}

/** A client talking to a server entry started with --stdio. */
export interface ServerConnection {
  client: ServerClient;
  close(): Promise<void>;
}

/** How long one request of a command may wait for its answer. */
const REQUEST_TIMEOUT_MS = 10_000;

/**
 * What the commands see of a server, over `Client` of @typemcp/client: what it said of itself
 * as the conversation began, and each listing whole (every page followed).
 */
export class ServerClient {
  constructor(readonly client: Client) {}

  get protocolVersion(): string {
    return this.client.protocolVersion;
  }

  get serverInfo(): Implementation {
    return this.client.serverInfo;
  }

  get serverCapabilities(): JsonObject {
    return this.client.serverCapabilities;
  }

  get instructions(): string | undefined {
    return this.client.instructions;
  }

  listTools(): Promise<ListedTool[]> {
    return this.client.listAllTools();
  }

  listResources(): Promise<ListedResource[]> {
    return this.client.listAllResources();
  }

  listResourceTemplates(): Promise<ListedResourceTemplate[]> {
    return this.client.listAllResourceTemplates();
  }

  listPrompts(): Promise<ListedPrompt[]> {
    return this.client.listAllPrompts();
  }

  /** Every skill of every `skills/list` page (Skills extension). */
  async listSkills(): Promise<ListedSkill[]> {
    const skills: ListedSkill[] = [];
    for await (const skill of this.client.iterate<ListedSkill>('skills/list', 'skills')) skills.push(skill);
    return skills;
  }

  callTool(name: string, args?: JsonObject): Promise<CallToolResult> {
    return this.client.callTool(name, args);
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/**
 * Connects a client over `transport`: the `initialize` handshake at the newest handshake-era
 * revision, or the one `--protocol` names (e.g. 2026-07-28, which has none), and that one only.
 */
async function connectClient(transport: ClientTransport, protocolVersion: string | undefined): Promise<ServerClient> {
  const client = await Client.connect(transport, { clientInfo: { name: 'typemcp-cli', version: '0' }, protocolVersion, strictVersion: true, requestTimeoutMs: REQUEST_TIMEOUT_MS });
  return new ServerClient(client);
}

/**
 * Starts `entry --stdio` and connects to it: the `initialize` handshake at the newest
 * handshake-era version, or with `protocolVersion` (e.g. 2026-07-28, which has none).
 */
export async function connectToEntry(entry: string, protocolVersion?: string, caller: Caller = {}): Promise<ServerConnection> {
  if (isUrl(entry)) {
    if (caller.principal) throw new UsageError('--principal applies to a server the command starts over stdio; for a URL give --token <bearer> or --header');
    return connectToUrl(new URL(entry), protocolVersion, caller.headers);
  }
  if (caller.headers) throw new UsageError('--token and --header apply to a URL; for a server the command starts give --principal <subject> --scopes a,b');
  const env = caller.principal ? { ...process.env, TYPEMCP_STDIO_PRINCIPAL: JSON.stringify(caller.principal) } : process.env;
  const child = start(launchFor(entry, ['--stdio']), ['pipe', 'pipe', 'pipe'], env);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const transport = new StdioTransport({ input: child.stdout!, output: child.stdin!, guardStdout: false });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  let client: ServerClient;
  try {
    client = await connectClient(transport as ClientTransport, protocolVersion || undefined);
  } catch (error) {
    // A server that died says why on stderr: that beats "connection closed".
    const exit = await Promise.race([exited, delay(1000).then(() => undefined)]);
    if (!exit) {
      await stop(child, exited);
      throw error;
    }
    const [code, signal] = exit;
    throw new Error(`the server exited (${signal ?? `code ${code}`}) before answering${stderr ? `:\n${stderr.trimEnd()}` : ''}`);
  }
  return {
    client,
    close: async () => {
      await client.close().catch(() => undefined);
      await stop(child, exited);
    },
  };
}

async function connectToUrl(url: URL, protocolVersion: string | undefined, headers: Record<string, string> | undefined): Promise<ServerConnection> {
  const transport = new HttpClientTransport(url, { headers, protocol: protocolVersion });
  const client = await connectClient(transport, protocolVersion || undefined);
  return { client, close: () => client.close().catch(() => undefined) };
}

/** Ends the child: its stdin is closed already; TERM after a grace period, KILL after another. */
async function stop(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.stdin?.end();
  await Promise.race([exited, delay(2000)]);
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  await Promise.race([exited, delay(2000)]);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** The caller named by --principal, --scopes, --roles, --token and --header. */
export function callerFrom(values: { principal?: unknown; scopes?: unknown; roles?: unknown; token?: unknown; header?: unknown }): Caller {
  const list = (value: unknown) => String(value).split(',').map((each) => each.trim()).filter(Boolean);
  if (values.principal === undefined && (values.scopes !== undefined || values.roles !== undefined)) throw new UsageError('--scopes and --roles belong to a principal: --principal <subject> --scopes a,b');
  const caller: Caller = {};
  if (values.principal !== undefined) {
    const subject = String(values.principal).trim();
    if (!subject) throw new UsageError('--principal needs a subject, e.g. --principal alice --scopes notes:read');
    caller.principal = { subject, scopes: values.scopes === undefined ? [] : list(values.scopes), ...(values.roles === undefined ? {} : { roles: list(values.roles) }) };
  }
  const headers: Record<string, string> = {};
  for (const header of (values.header as string[] | undefined) ?? []) {
    const colon = header.indexOf(':');
    // The header itself is not repeated: it may hold a secret.
    if (colon <= 0) throw new UsageError('--header must be "Name: value" (a name, a colon, the value)');
    headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
  }
  if (values.token !== undefined) headers.authorization = `Bearer ${String(values.token)}`;
  if (Object.keys(headers).length) caller.headers = headers;
  return caller;
}
