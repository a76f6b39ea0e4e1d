import { rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@typemcp/core';
import { fromOpenApi } from '@typemcp/openapi';
import type { OpenApiOptions } from '@typemcp/openapi';
import { createTestClient } from '@typemcp/testing';
import type { CallToolResult, TestClient } from '@typemcp/testing';

/** What an HTTP server saw of one request. */
export interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A node:http server on 127.0.0.1 (a free port) that records every request. */
export interface Http {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  readonly seen: Seen[];
  close(): Promise<void>;
}

export type Handler = (request: IncomingMessage, response: ServerResponse, body: string) => void;

/** The servers started and not closed yet. */
export const running: Http[] = [];

export async function startHttp(handle: Handler): Promise<Http> {
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      handle(request, response, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const http: Http = {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  running.push(http);
  return http;
}

export const json = (response: ServerResponse, value: unknown, status = 200) => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(value));
};
export const redirect = (response: ServerResponse, status: number, location: string) => {
  response.writeHead(status, { location, 'content-type': 'text/plain' });
  response.end(`moved to ${location}`);
};


const opened: Array<{ client: TestClient; server: McpServer }> = [];
/** Folders to remove after the test. */
export const dirs: string[] = [];

/** Closes the clients, servers and HTTP servers the test opened, and removes its folders: call it in afterEach. */
export async function cleanUp(): Promise<void> {
  await Promise.all(
    opened.splice(0).map(async ({ client, server }) => {
      await client.close();
      await server.close();
    }),
  );
  await Promise.all(running.splice(0).map((http) => http.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A client of the server `fromOpenApi(options)` makes; closed by cleanUp. */
export async function connect(options: OpenApiOptions): Promise<TestClient> {
  const server = await fromOpenApi(options);
  const client = await createTestClient(server);
  opened.push({ client, server });
  return client;
}

export const text = (result: CallToolResult) => (result.content as Array<{ text?: string }>).map((block) => block.text ?? '').join('\n');
const ok = { 200: { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } } };
export const get = (operationId: string, parameters: unknown[] = []) => ({ get: { operationId, parameters, responses: ok } });
export const post = (operationId: string, schema: unknown = { type: 'object' }) => ({
  post: { operationId, requestBody: { required: true, content: { 'application/json': { schema } } }, responses: ok },
});
export const document = (paths: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ openapi: '3.0.3', info: { title: 't', version: '1' }, paths, ...extra });
