/**
 * Sign-in served by two replicas behind a round-robin front without stickiness, sharing their
 * state through RedisSignInStore (and their sessions through the redis plugin): on one
 * redis-server and on a three-master Redis Cluster. The official SDK v2 client
 * (examples/09-signin/test/fixtures/client.ts, in its own process) registers, headless Chromium
 * signs the user in and approves, and the front's log shows the code issued by one replica
 * (POST /oauth/consent) and redeemed at the other (POST /oauth/token). Then two refreshes with
 * one refresh token at once, one on each replica: exactly one wins, and the grant is revoked.
 */
import 'reflect-metadata';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { createServer, request as httpRequest } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Cluster, Redis } from 'ioredis';
import type { Browser } from 'playwright-core';
import { Context, McpServer, Scopes, Tool } from '@typemcp/core';
import { signIn } from '@typemcp/auth';
import type { Authenticate } from '@typemcp/auth';
import { redis, RedisSignInStore } from '@typemcp/redis';
import { launchChromium } from '../../../test-support/appsHost';
import { startRedisCluster } from '../../../test-support/redisCluster';
import type { RedisCluster } from '../../../test-support/redisCluster';
import { startRedis } from '../../../test-support/redisServer';
import type { RedisServer } from '../../../test-support/redisServer';
import { runTsPath } from '../../../test-support/spawnServer';

jest.setTimeout(90_000);

const CLIENT = path.resolve(__dirname, '..', '..', '..', 'examples', '09-signin', 'test', 'fixtures', 'client.ts');
const SECRET = 'the replicas share this secret, thirty-two characters or more';
const WAIT_MS = 20_000;

class Notes {
  @Tool({ description: 'Reads the notes of the signed-in user' })
  @Scopes('notes:read')
  read_notes(ctx: Context): string {
    return `notes of ${ctx.principal!.subject}`;
  }
}

/**
 * The app's login, as replicas share it: a cookie signed with a key every replica has (the
 * development login signs with a key of its process, which another replica cannot check).
 */
function sharedLogin(key: string): Authenticate {
  const sign = (user: string) => createHmac('sha256', key).update(user).digest('base64url');
  const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return async (request) => {
    const cookie = /(?:^|;\s*)login=(\w+)\.([\w-]+)/.exec(request.headers.get('cookie') ?? '');
    if (cookie !== null && cookie[2] === sign(cookie[1])) return { id: cookie[1] };
    const user = (await request.form()).get('username');
    if (request.method === 'POST' && user && /^\w+$/.test(user)) {
      return new Response(null, { status: 303, headers: { location: request.url, 'set-cookie': `login=${user}.${sign(user)}; Path=/; HttpOnly; SameSite=Lax` } });
    }
    const form = `<!doctype html><form method="post" action="${escape(request.url)}"><label>Username <input name="username"></label><button>Sign in</button></form>`;
    return new Response(form, { headers: { 'content-type': 'text/html; charset=utf-8' } });
  };
}

/** One request the front passed on: to which replica, and what came back. */
interface Passed {
  replica: string;
  method: string;
  path: string;
  status: number;
}

/** A reverse proxy sending each request to the next replica in turn: no stickiness, not even per connection. */
async function startFront(): Promise<{ origin: string; log: Passed[]; route(replicas: Array<{ name: string; port: number }>): void; close(): Promise<void> }> {
  const log: Passed[] = [];
  let replicas: Array<{ name: string; port: number }> = [];
  let next = 0;
  const server: Server = createServer((req, res) => {
    // The browser asks for it when it likes: answered here, it cannot shift the turns.
    if (req.url === '/favicon.ico') return void res.writeHead(404).end();
    const replica = replicas[next++ % replicas.length];
    const passed: Passed = { replica: replica.name, method: req.method!, path: new URL(req.url!, 'http://front').pathname, status: 0 };
    log.push(passed);
    const upstream = httpRequest({ host: '127.0.0.1', port: replica.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      passed.status = answer.statusCode!;
      res.writeHead(answer.statusCode!, answer.rawHeaders);
      answer.pipe(res);
    });
    upstream.on('error', (error) => res.headersSent || res.writeHead(502).end(error.message));
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    log,
    route: (to) => (replicas = to),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The SDK v2 command-line client (the 09-signin fixture) in a child process: JSON lines in, events out. */
class SdkClient {
  readonly events: Array<Record<string, unknown>> = [];
  private readonly listeners = new Set<() => void>();
  private nextId = 1;
  private stderr = '';

  constructor(readonly child: ChildProcess) {
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      this.events.push(JSON.parse(line) as Record<string, unknown>);
      for (const listener of this.listeners) listener();
    });
  }

  static start(serverUrl: string, protocol: string): SdkClient {
    const env = { ...process.env, SERVER_URL: serverUrl, PROTOCOL: protocol, CLIENT_NAME: 'Notes CLI on replicas', CLIENT_METADATA_URL: '' };
    return new SdkClient(spawn(process.execPath, ['-r', runTsPath, CLIENT], { env, stdio: ['pipe', 'pipe', 'pipe'] }));
  }

  waitFor(matches: (event: Record<string, unknown>) => boolean, from = 0): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.events.slice(from).find(matches);
        if (found === undefined) return;
        done();
        resolve(found);
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no such event from the SDK client within ${WAIT_MS} ms; it said ${JSON.stringify(this.events.slice(from))}; stderr: ${this.stderr}`));
      }, WAIT_MS);
      const done = () => {
        clearTimeout(timer);
        this.listeners.delete(check);
      };
      this.listeners.add(check);
      check();
    });
  }

  async send<T>(command: Record<string, unknown>): Promise<{ ok: boolean; result: T; error?: unknown }> {
    const id = this.nextId++;
    const replied = this.waitFor((event) => event.event === 'reply' && event.id === id);
    this.child.stdin!.write(`${JSON.stringify({ id, ...command })}\n`);
    return (await replied) as unknown as { ok: boolean; result: T; error?: unknown };
  }

  /** Ends its input (it closes and exits), SIGKILL if it lingers. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin!.end();
    const killer = setTimeout(() => this.child.pid !== undefined && process.kill(this.child.pid, 'SIGKILL'), 5_000);
    await exited;
    clearTimeout(killer);
  }
}

let browser: Browser;
let redisServer: RedisServer;
let redisCluster: RedisCluster;

beforeAll(async () => {
  [browser, redisServer, redisCluster] = await Promise.all([launchChromium(), startRedis(), startRedisCluster()]);
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await redisServer?.stop();
  await redisCluster?.stop();
});

describe.each([
  { on: 'one redis-server', protocol: '2025-11-25', connect: (): Redis => new Redis(redisServer.url) },
  { on: 'a three-master Redis Cluster', protocol: '2026-07-28', connect: (): Redis => new Cluster(redisCluster.nodes) as unknown as Redis },
])('two replicas on $on, round robin, the SDK client at $protocol', ({ on, protocol, connect }) => {
  let front: Awaited<ReturnType<typeof startFront>>;
  const servers: McpServer[] = [];
  const connections: Redis[] = [];
  let sdk: SdkClient;
  let tokens: { access_token: string; refresh_token: string };
  let clientId: string;

  beforeAll(async () => {
    front = await startFront();
    const replicas: Array<{ name: string; port: number }> = [];
    const keyPrefix = `replicas-${on.split(' ')[1]}:`;
    const replica = (name: string) => {
      // Each replica its own login function, connection, store and server: they share Redis and the secret only.
      const authenticate = sharedLogin(SECRET);
      const connection = connect();
      connections.push(connection);
      const server = new McpServer({ name: `notes-${name}`, version: '1.0.0', providers: [Notes], requestState: { secret: SECRET } });
      server.plugin(redis, { client: connection, keyPrefix, replicaId: name });
      server.plugin(signIn, { resource: `${front.origin}/mcp`, secret: SECRET, authenticate, store: new RedisSignInStore(connection, { keyPrefix }) });
      servers.push(server);
      return server;
    };
    for (const name of ['a', 'b']) {
      const { url } = await replica(name).listen({ transport: 'http', host: '127.0.0.1', port: 0, path: '/mcp', handleSignals: false });
      replicas.push({ name, port: Number(new URL(url).port) });
    }
    front.route(replicas);
    sdk = SdkClient.start(`${front.origin}/mcp`, protocol);
    await sdk.waitFor((event) => event.event === 'ready');
  });

  afterAll(async () => {
    await sdk?.stop();
    await front?.close();
    await Promise.all(servers.map((server) => server.close()));
    await Promise.all(connections.map((connection) => connection.quit().catch(() => connection.disconnect())));
  });

  it('completes the SDK client\'s sign-in with the code issued by one replica and redeemed at the other', async () => {
    const authorization = sdk.waitFor((event) => event.event === 'authorize');
    const connecting = sdk.send<{ protocolVersion: string }>({ command: 'connect' });
    const page = await browser.newPage();
    try {
      await page.goto(String((await authorization).url));
      await page.getByLabel('Username').fill('alice');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.locator('#scopes').waitFor({ timeout: WAIT_MS });
      await page.getByRole('button', { name: 'Approve' }).click();
      await page.locator('#done').waitFor({ timeout: WAIT_MS });
    } finally {
      await page.close();
    }
    expect(await connecting).toMatchObject({ ok: true, result: { protocolVersion: protocol } });
    expect(await sdk.send({ command: 'call', name: 'read_notes' })).toMatchObject({ ok: true, result: { content: [{ type: 'text', text: 'notes of alice' }] } });

    // In turn, a then b: the login form shown by one replica is posted to the other, the consent
    // page stored by one is answered at the other, and the code that answer issued is redeemed
    // at the first.
    expect(front.log.slice(0, 9).map(({ method, path, status, replica }) => `${method} ${path} ${status} ${replica}`)).toEqual([
      'POST /mcp 401 a',
      'GET /.well-known/oauth-protected-resource/mcp 200 b',
      'GET /.well-known/oauth-authorization-server 200 a',
      'POST /oauth/register 201 b',
      'GET /oauth/authorize 200 a',
      'POST /oauth/authorize 303 b',
      'GET /oauth/authorize 200 a',
      'POST /oauth/consent 303 b',
      'POST /oauth/token 200 a',
    ]);
    const mcp = front.log.slice(9);
    expect(mcp.every((passed) => passed.path === '/mcp' && passed.status < 300)).toBe(true);
    expect(new Set(mcp.map((passed) => passed.replica))).toEqual(new Set(['a', 'b']));

    const state = (await sdk.send<{ tokens: typeof tokens; clientInformation: { client_id: string } }>({ command: 'state' })).result;
    tokens = state.tokens;
    clientId = state.clientInformation.client_id;
  });

  it('lets one of two refreshes with one refresh token at once win, one on each replica, and revokes the grant', async () => {
    const form = (fields: Record<string, string>) => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields) });
    const refresh = (refreshToken: string) => fetch(`${front.origin}/oauth/token`, form({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }));
    const from = front.log.length;
    const answers = await Promise.all([refresh(tokens.refresh_token), refresh(tokens.refresh_token)]);
    expect(new Set(front.log.slice(from).map((passed) => passed.replica))).toEqual(new Set(['a', 'b']));
    const bodies = await Promise.all(answers.map(async (answer) => ({ status: answer.status, body: (await answer.json()) as Record<string, string> })));
    bodies.sort((x, y) => x.status - y.status);
    expect(bodies.map((answer) => answer.status)).toEqual([200, 400]);
    expect(bodies[1].body.error).toBe('invalid_grant');

    // The winner's new refresh token and the access tokens are refused now, by either replica.
    for (let i = 0; i < 2; i++) {
      const again = await refresh(bodies[0].body.refresh_token);
      expect({ status: again.status, body: await again.json() }).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'the grant was revoked; sign in again' } });
    }
    for (const accessToken of [tokens.access_token, bodies[0].body.access_token]) {
      const refused = await fetch(`${front.origin}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
      });
      await refused.body?.cancel();
      expect({ status: refused.status, challenge: refused.headers.get('www-authenticate') }).toMatchObject({ status: 401, challenge: expect.stringContaining('error="invalid_token"') });
    }
  });
});
