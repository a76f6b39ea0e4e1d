import type { AddressInfo } from 'node:net';
import { DefinitionError } from '../errors';
import { writeStderr } from '../platform';
import type { Principal } from '../protocol';
import { createNodeHandler } from '../transports/http/node';
import { StdioTransport } from '../transports/StdioTransport';
import type { HttpListenOptions, ListenAddress, StdioListenOptions } from './options';
import type { ServerRuntime } from './ServerRuntime';

/** Servers whose close runs on SIGINT and SIGTERM, and the handler that does it (installed once). */
const closeOnSignal = new Set<ServerRuntime>();
let onSignal: ((signal: NodeJS.Signals) => void) | undefined;
/** How many requests each server's HTTP listeners are still answering (POSTs whose answer is not written). */
const inFlight = new Map<ServerRuntime, () => number>();

/** The variable `typemcp --principal` sets: the caller of a stdio connection, as JSON (`{ subject, scopes, roles? }`). */
const STDIO_PRINCIPAL_VARIABLE = 'TYPEMCP_STDIO_PRINCIPAL';

/** Serves one client over stdin and stdout; the process ends when stdin closes and in-flight requests finished. */
export async function listenStdio(server: ServerRuntime, options: StdioListenOptions): Promise<void> {
  if (options.transport !== 'stdio') {
    throw new DefinitionError('INVALID_OPTION', `McpServer.listen: unknown transport ${JSON.stringify((options as { transport: unknown }).transport)}; use 'stdio' or 'http'`);
  }
  const { principal, ...transportOptions } = options;
  const transport = new StdioTransport(transportOptions);
  // stdio carries no credentials: whoever starts the process says who the caller is (the
  // variable, set by `typemcp --principal`), else the option, else the authentication.
  await server.connect(transport, { principal: principalFromEnvironment() ?? principal ?? server.authentication?.localPrincipal });
  if (options.handleSignals ?? true) closeOnSignals(server);
}

/** Serves Streamable HTTP (and the legacy HTTP+SSE transport) on a node:http server of its own. */
export async function listenHttp(server: ServerRuntime, options: HttpListenOptions): Promise<ListenAddress> {
  const { host = '127.0.0.1', port = 3000, path = '/mcp' } = options;
  const handler = server.addHttpHandler((runtime) => createNodeHandler(runtime, { ...options, path }));
  // node:http is loaded only by servers that listen over HTTP.
  const { createServer }: typeof import('node:http') = require('node:http');
  let answering = 0;
  const http = createServer((req, res) => {
    // A POST is a request in flight until its answer (JSON or a stream) is written; GET streams are not.
    if (req.method === 'POST') {
      answering++;
      res.once('close', () => answering--);
    }
    void handler(req, res);
  });
  const counted = inFlight.get(server);
  inFlight.set(server, () => answering + (counted?.() ?? 0));
  server.sessions.addListener({
    stop: () => new Promise<void>((resolve) => http.close(() => resolve())),
    drop: () => http.closeAllConnections(),
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', (error: NodeJS.ErrnoException) => reject(listenError(error, host, port)));
    http.listen(port, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  if (options.handleSignals ?? true) closeOnSignals(server);
  const address = http.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { host: address.address, port: address.port, url: `http://${shownHost}:${address.port}${path}` };
}

/** A file's bytes, its path resolved from the process's folder (so a failure names the whole path). */
export function readLocalFile(file: string): Uint8Array {
  const fs: typeof import('node:fs') = require('node:fs');
  const path: typeof import('node:path') = require('node:path');
  return fs.readFileSync(path.resolve(file));
}

/** A failure to listen in words that say what to do, with the system's `code` kept (`EADDRINUSE`, `EACCES`, …). */
function listenError(error: NodeJS.ErrnoException, host: string, port: number): Error {
  const where = `${host}:${port}`;
  const message =
    error.code === 'EADDRINUSE'
      ? `Cannot listen on ${where}: the port is already in use. Stop the process that listens there, or choose another port.`
      : error.code === 'EACCES'
        ? `Cannot listen on ${where}: not allowed to use this port (ports below 1024 need privileges). Choose another port.`
        : error.code === 'EADDRNOTAVAIL'
          ? `Cannot listen on ${where}: this machine has no address ${host}.`
          : `Cannot listen on ${where}: ${error.message}`;
  return Object.assign(new Error(message, { cause: error }), { code: error.code });
}

/** Closes the server cleanly and ends the process on SIGINT or SIGTERM; undone when the server closes. */
function closeOnSignals(server: ServerRuntime): void {
  if (closeOnSignal.has(server)) return;
  closeOnSignal.add(server);
  server.onClosing(() => {
    closeOnSignal.delete(server);
    inFlight.delete(server);
    if (closeOnSignal.size === 0 && onSignal) {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      onSignal = undefined;
    }
  });
  if (onSignal) return;
  onSignal = (signal) => {
    const waiting = [...closeOnSignal].reduce((sum, each) => sum + (inFlight.get(each)?.() ?? 0), 0);
    // An idle server ends at once; one still answering says what it waits for (at most a few seconds).
    if (waiting > 0) writeStderr(`${signal}: waiting for ${waiting} request${waiting === 1 ? '' : 's'} in flight to finish (at most 5 s) before exiting`);
    void Promise.all([...closeOnSignal].map((each) => each.close())).finally(() => process.exit(0));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

/** The principal in TYPEMCP_STDIO_PRINCIPAL, when it is set. */
function principalFromEnvironment(): Principal | undefined {
  const text = process.env[STDIO_PRINCIPAL_VARIABLE];
  if (!text) return undefined;
  let value: { subject?: unknown; scopes?: unknown; roles?: unknown; claims?: unknown };
  try {
    value = JSON.parse(text) as typeof value;
  } catch (error) {
    throw new DefinitionError('INVALID_OPTION', `${STDIO_PRINCIPAL_VARIABLE} is not JSON: ${(error as Error).message}`);
  }
  const strings = (list: unknown) => Array.isArray(list) && list.every((each) => typeof each === 'string');
  if (typeof value?.subject !== 'string' || !value.subject || (value.scopes !== undefined && !strings(value.scopes)) || (value.roles !== undefined && !strings(value.roles))) {
    throw new DefinitionError('INVALID_OPTION', `${STDIO_PRINCIPAL_VARIABLE} must be {"subject":"…","scopes":["…"],"roles":["…"]}`);
  }
  return {
    subject: value.subject,
    scopes: (value.scopes as string[] | undefined) ?? [],
    ...(value.roles === undefined ? {} : { roles: value.roles as string[] }),
    claims: { sub: value.subject, ...(typeof value.claims === 'object' && value.claims !== null ? value.claims : {}) },
  };
}
