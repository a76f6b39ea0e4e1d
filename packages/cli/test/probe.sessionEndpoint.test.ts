/**
 * `typemcp dev --inspect`'s session endpoint and the CLI's --header/--token against an
 * attacker: web pages of other origins, DNS rebinding, preflights, large bodies, other
 * interfaces, hostile servers that redirect, and secrets in what the CLI prints.
 */
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { SessionEndpoint } from '../src/commands/sessionEndpoint';
import { callerFrom } from '../src/connect';
import { run } from '../src/run';
import { createOutput } from '../src/output';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A raw request (fetch cannot set Host, nor send what a browser would as it likes). */
function request(url: string, options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? 'GET', headers: options.headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      // An event stream stays open: its headers and first bytes tell enough.
      if (String(res.headers['content-type']).includes('text/event-stream')) {
        resolve({ status: res.statusCode!, headers: res.headers, body });
        return void res.destroy();
      }
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** What the session is given by the endpoint (the lines a client got through). */
function sessionInput(endpoint: SessionEndpoint): string[] {
  const lines: string[] = [];
  endpoint.input.setEncoding('utf8');
  endpoint.input.on('data', (chunk: string) => lines.push(...chunk.split('\n').filter(Boolean)));
  return lines;
}

const ping = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
const tick = (ms = 20) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the session endpoint of typemcp dev --inspect, attacked', () => {
  let endpoint: SessionEndpoint;
  let port: number;
  beforeEach(async () => {
    endpoint = await SessionEndpoint.listen();
    port = Number(new URL(endpoint.url).port);
  });
  afterEach(() => endpoint.close());

  it('refuses pages of other origins, "null" origins, and look-alikes of localhost, POST or GET', async () => {
    const input = sessionInput(endpoint);
    for (const origin of ['https://evil.example', 'null', 'http://localhost.evil.example', 'http://127.0.0.1.evil.example:80', 'file://', 'http://127.0.0.1:1@evil.example']) {
      const post = await request(endpoint.url, { method: 'POST', headers: { origin, 'content-type': 'text/plain' }, body: ping });
      expect(post.status).toBe(403);
      const get = await request(endpoint.url, { headers: { origin, accept: 'text/event-stream' } });
      expect(get.status).toBe(403);
    }
    await tick();
    expect(input).toEqual([]);
  });

  it('refuses DNS rebinding: a Host other than 127.0.0.1, localhost or [::1] on its port, even without an Origin', async () => {
    const input = sessionInput(endpoint);
    for (const host of [`evil.example:${port}`, 'evil.example', `127.0.0.1.evil.example:${port}`, `localhost:${port + 1}`]) {
      const get = await request(endpoint.url, { headers: { host, accept: 'text/event-stream' } });
      expect(get.status).toBe(403);
      const post = await request(endpoint.url, { method: 'POST', headers: { host, 'content-type': 'application/json' }, body: ping });
      expect(post.status).toBe(403);
    }
    await tick();
    expect(input).toEqual([]);
    // This machine's names still reach it.
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`]) {
      expect((await request(endpoint.url, { method: 'POST', headers: { host, 'content-type': 'application/json' }, body: ping })).status).toBe(202);
    }
  });

  it('gives a CORS preflight from another origin nothing that would let the page go on', async () => {
    for (const origin of ['https://evil.example', 'http://localhost:5173']) {
      const preflight = await request(endpoint.url, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,mcp-session-id' },
      });
      expect(preflight.status).toBeGreaterThanOrEqual(400);
      expect(Object.keys(preflight.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    }
  });

  it('refuses a body larger than 4 MiB before it reaches the session, and keeps serving', async () => {
    const input = sessionInput(endpoint);
    const huge = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/x', params: { data: 'x'.repeat(5 * 1024 * 1024) } });
    // 413, or the connection cut while the rest of the body was still being written.
    const outcome = await request(endpoint.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: huge }).then(
      (answer) => answer.status,
      (error: NodeJS.ErrnoException) => error.code,
    );
    expect([413, 'EPIPE', 'ECONNRESET']).toContain(outcome);
    await tick();
    expect(input).toEqual([]);
    expect((await request(endpoint.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: ping })).status).toBe(202);
    expect(input).toHaveLength(1);
  });

  it('listens on 127.0.0.1 only: not on ::1, nor on the machine’s other addresses', async () => {
    expect(new URL(endpoint.url).hostname).toBe('127.0.0.1');
    const others = Object.values(os.networkInterfaces())
      .flat()
      .filter((each) => each && !each.internal && each.family === 'IPv4')
      .map((each) => each!.address);
    for (const address of ['::1', ...others]) {
      const reached = await new Promise<boolean>((resolve) => {
        const socket = net.connect({ host: address, port, timeout: 1000 }, () => {
          socket.destroy();
          resolve(true);
        });
        socket.on('error', () => resolve(false));
        socket.on('timeout', () => {
          socket.destroy();
          resolve(false);
        });
      });
      expect({ address, reached }).toEqual({ address, reached: false });
    }
  });
});

describe('the CLI’s --token and --header, attacked', () => {
  /** Runs a command line in this process, collecting stdout and stderr. */
  async function runHere(argv: string[]) {
    let stdout = '';
    let stderr = '';
    const stream = { isTTY: false, write: (text: string) => ((stderr += text), true) } as unknown as NodeJS.WriteStream;
    const status = await run(argv, createOutput(stream, {}), (text) => (stdout += text));
    return { status, stdout, stderr };
  }

  async function listen(handler: http.RequestListener): Promise<{ server: http.Server; url: string }> {
    const server = http.createServer(handler);
    server.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp` };
  }

  const close = (server: http.Server) => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  };

  it('does not echo a malformed --header, which may hold a secret, in its usage error', () => {
    expect(() => callerFrom({ header: ['Authorization Bearer s3cr3t-value'] })).toThrow(/--header must be "Name: value"/);
    try {
      callerFrom({ header: ['Authorization Bearer s3cr3t-value'] });
    } catch (error) {
      expect((error as Error).message).not.toContain('s3cr3t-value');
    }
  });

  it('prints no token when the server cannot be reached, refuses it, or answers with an error', async () => {
    const refusing = await listen((req, res) => res.writeHead(401, { 'www-authenticate': 'Bearer realm="x"', 'content-type': 'text/plain' }).end('go away'));
    const gone = await listen(() => undefined);
    const goneUrl = gone.url;
    await close(gone.server);
    try {
      for (const url of [refusing.url, goneUrl]) {
        const result = await runHere(['inspect', url, '--token', 'tok-s3cr3t', '--header', 'X-Api-Key: key-s3cr3t']);
        expect(result.status).not.toBe(0);
        expect(result.stderr + result.stdout).not.toMatch(/s3cr3t/);
      }
    } finally {
      await close(refusing.server);
    }
  });

  it('does not follow a redirect to another origin with --header or --token', async () => {
    const elsewhere: http.IncomingHttpHeaders[] = [];
    const other = await listen((req, res) => {
      elsewhere.push(req.headers);
      res.writeHead(500).end();
    });
    const redirecting = await listen((req, res) => res.writeHead(307, { location: other.url.replace('127.0.0.1', 'localhost') }).end());
    try {
      const result = await runHere(['inspect', redirecting.url, '--token', 'tok-s3cr3t', '--header', 'X-Api-Key: key-s3cr3t']);
      expect(result.status).not.toBe(0);
      expect(result.stderr).toMatch(/redirect/i);
      expect(elsewhere).toEqual([]);
    } finally {
      await Promise.all([close(other.server), close(redirecting.server)]);
    }
  });
});
