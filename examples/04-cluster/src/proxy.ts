import http from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small round-robin HTTP proxy in front of the replicas, with no stickiness at all: each
 * request goes to the next replica, whatever session it belongs to. It streams answers through
 * as they come (SSE included), forwards every end-to-end header (Mcp-Session-Id,
 * Last-Event-ID, MCP-Protocol-Version…), and aborts the upstream request when the client goes
 * away.
 *
 * When a replica cannot be reached (the connection is refused or reset before the request got
 * through), the request is sent to the next replica and the unreachable one is left out for
 * `downForMs`. With `retryEmptyResponses` (default true) a request whose connection broke
 * before any byte of an answer came back is sent again too, as HAProxy's `retry-on
 * empty-response` or nginx's `proxy_next_upstream error non_idempotent` do: that is what
 * lets clients go on when a replica dies under them, at the risk of running a request twice
 * when a replica stopped after doing the work but before answering.
 */
export interface ProxyOptions {
  /** The replicas' base URLs (`http://127.0.0.1:3001`); paths are kept as the client sent them. */
  targets: string[];
  /** Port to listen on, 127.0.0.1 (default 0: a free one). */
  port?: number;
  host?: string;
  /** How long a replica that refused a connection is left out, in ms (default 2000). */
  downForMs?: number;
  /** Also retry requests that got no byte of an answer before their connection broke (default true). */
  retryEmptyResponses?: boolean;
  /** The largest request body buffered (to be able to send it again), in bytes (default 4 MiB). */
  maxBodyBytes?: number;
  /** Told of retries and of replicas going down and coming back. */
  onEvent?: (event: ProxyEvent) => void;
}

export type ProxyEvent =
  | { type: 'retry'; target: string; method: string; code: string }
  | { type: 'down'; target: string; until: number }
  | { type: 'up'; target: string };

/** What the proxy counts per replica. */
export interface TargetStats {
  target: string;
  /** Requests answered (or being answered) by this replica. */
  served: number;
  /** Requests sent to it, not finished. */
  inFlight: number;
  /** Of those, answers under way (headers sent) that are not long-lived streams (GET, subscriptions/listen). */
  answering: number;
  retried: number;
  down: boolean;
}

export interface Proxy {
  url: string;
  port: number;
  stats(): TargetStats[];
  /** Stops listening, ends every connection (streams included) and resolves. */
  close(): Promise<void>;
}

/** Headers that belong to one connection, not to the request (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);
/** The header naming the replica that answered: for diagnostics and tests. */
export const UPSTREAM_HEADER = 'x-proxy-upstream';

function endToEnd(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  const named = String(headers.connection ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name) && !named.includes(name)) out[name] = value;
  }
  return out;
}

interface Target {
  url: URL;
  label: string;
  downUntil: number;
  stats: TargetStats;
}

export async function startProxy(options: ProxyOptions): Promise<Proxy> {
  if (options.targets.length === 0) throw new Error('proxy: give at least one target');
  const downForMs = options.downForMs ?? 2000;
  const retryEmpty = options.retryEmptyResponses ?? true;
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const emit = options.onEvent ?? (() => undefined);
  const targets: Target[] = options.targets.map((raw) => {
    const url = new URL(raw);
    const label = url.host;
    return { url, label, downUntil: 0, stats: { target: label, served: 0, inFlight: 0, answering: 0, retried: 0, down: false } };
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 256 });
  let next = 0;

  /** The next replica in turn that is not left out; when all are, the one back soonest. */
  function pick(tried: Set<Target>): Target | undefined {
    const now = Date.now();
    for (let i = 0; i < targets.length; i++) {
      const target = targets[next++ % targets.length];
      if (tried.has(target)) continue;
      if (target.downUntil <= now) {
        if (target.stats.down) {
          target.stats.down = false;
          emit({ type: 'up', target: target.label });
        }
        return target;
      }
    }
    const left = targets.filter((t) => !tried.has(t)).sort((a, b) => a.downUntil - b.downUntil);
    return left[0];
  }

  function markDown(target: Target): void {
    target.downUntil = Date.now() + downForMs;
    if (!target.stats.down) {
      target.stats.down = true;
      emit({ type: 'down', target: target.label, until: target.downUntil });
    }
  }

  function fail(res: ServerResponse, status: number, message: string): void {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message } }));
  }

  function forward(req: IncomingMessage, res: ServerResponse, body: Buffer, tried: Set<Target>): void {
    const target = pick(tried);
    if (!target) return fail(res, 502, 'Bad gateway: no replica could be reached');
    tried.add(target);
    const longLived = req.method === 'GET' || req.headers['mcp-method'] === 'subscriptions/listen';
    const stats = target.stats;
    stats.inFlight++;
    let connected = false;
    let answered = false;
    let finished = false;
    const done = () => {
      if (finished) return;
      finished = true;
      stats.inFlight--;
      if (answered && !longLived) stats.answering--;
    };
    const headers = endToEnd(req.headers);
    if (body.length > 0 || req.method === 'POST') headers['content-length'] = body.length;
    const upstream = http.request({
      host: target.url.hostname,
      port: target.url.port,
      method: req.method,
      path: req.url,
      headers,
      agent,
    });
    upstream.on('socket', (socket) => {
      if (!socket.connecting) connected = true;
      else socket.once('connect', () => (connected = true));
    });
    upstream.on('response', (answer) => {
      answered = true;
      stats.served++;
      if (!longLived) stats.answering++;
      const out = endToEnd(answer.headers);
      out[UPSTREAM_HEADER] = target.label;
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, out);
      // SSE: the headers now, then every chunk as it comes (pipe writes each one at once).
      if (String(answer.headers['content-type']).includes('text/event-stream')) res.flushHeaders();
      answer.pipe(res);
      answer.on('end', done);
      // The replica went away mid-answer: the client sees its stream break (and may resume it).
      answer.on('aborted', () => {
        done();
        res.destroy();
      });
      answer.on('error', () => {
        done();
        res.destroy();
      });
    });
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      done();
      if (answered || res.destroyed) {
        res.destroy();
        return;
      }
      const code = error.code ?? 'ERROR';
      // Not connected: nothing reached the replica. Connected on a fresh socket and reset before
      // any answer: the replica is going away. Either way it sits out a while.
      const reused = (upstream as { reusedSocket?: boolean }).reusedSocket === true;
      if (!connected || !reused) markDown(target);
      if (!connected || retryEmpty) {
        if (tried.size < targets.length) {
          stats.retried++;
          emit({ type: 'retry', target: target.label, method: req.method ?? '', code });
          forward(req, res, body, tried);
          return;
        }
      }
      fail(res, 502, `Bad gateway: the replica failed (${code})`);
    });
    // The client went away: so does the upstream request (a stream's replica sees it close).
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
      done();
    });
    upstream.end(body);
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBody) {
        req.destroy();
        return fail(res, 413, 'Request body too large');
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (size <= maxBody) forward(req, res, Buffer.concat(chunks), new Set());
    });
    req.on('error', () => res.destroy());
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    stats: () => targets.map((t) => ({ ...t.stats, down: t.downUntil > Date.now() })),
    close: async () => {
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeAllConnections();
      agent.destroy();
      await closed;
    },
  };
}

/** `node proxy.js`: TARGETS (comma-separated base URLs) and PORT from the environment; prints `LISTENING <port>`. */
async function main(): Promise<void> {
  const targets = (process.env.TARGETS ?? '').split(',').filter(Boolean);
  const proxy = await startProxy({ targets, port: Number(process.env.PORT ?? 0) });
  process.stdout.write(`LISTENING ${proxy.port}\n`);
  const stop = () => void proxy.close().finally(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  if (process.env.CLOSE_ON_STDIN_END === '1') {
    process.stdin.on('end', stop);
    process.stdin.resume();
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`proxy: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
