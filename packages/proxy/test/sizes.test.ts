/**
 * An HTTP upstream's answer is read up to `maxMessageBytes` (default 64 MiB), whether it comes
 * as JSON or as an SSE event: past it the request fails with a clear error, the body is
 * cancelled, and the proxy serves on (its other upstreams, the same upstream's next requests).
 */
import 'reflect-metadata';
import { gzipSync } from 'node:zlib';
import { McpServer } from '@typemcp/core';
import { ProxyServer } from '@typemcp/proxy';
import { createTestClient } from '@typemcp/testing';
import { answerParts, json, pump, startRawUpstream } from './rawUpstream';
import type { RawUpstream } from './rawUpstream';
import { fixtureCommand } from './upstreams';
import { waitFor } from './waitFor';

jest.setTimeout(30_000);

const MIB = 1024 * 1024;
const CAP = MIB;
const sse = (id: unknown, text: string) => `data: ${JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } })}\n\n`;

let raw: RawUpstream;
let proxy: ProxyServer;
let other: ProxyServer;
let gateway: McpServer;
const reports: string[] = [];

beforeAll(async () => {
  raw = await startRawUpstream({
    small: (id, res) => json(res, { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'small' }] } }),
    // A JSON answer of 4 MiB, streamed as the client reads it.
    big: async (id, res) => {
      const { head, tail } = answerParts(id);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(head);
      if (await pump(res, 'x'.repeat(64 * 1024), 4 * MIB)) res.end(tail);
    },
    // The same answer as one SSE event.
    bigEvent: async (id, res) => {
      const { head, tail } = answerParts(id);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${head}`);
      if (await pump(res, 'x'.repeat(64 * 1024), 4 * MIB)) res.end(`${tail}\n\n`);
    },
    // An answer just under the cap: read whole.
    fits: (id, res) => {
      const { head, tail } = answerParts(id, 'y'.repeat(CAP - 200));
      json(res, JSON.parse(head + tail));
    },
  });
  proxy = new ProxyServer({ name: 'raw', upstream: { url: raw.url, maxMessageBytes: CAP }, upstreamProtocolVersion: '2025-11-25', onError: (what, error) => void reports.push(`${what}: ${String((error as Error)?.message ?? error)}`) });
  other = new ProxyServer({ name: 'other', upstream: fixtureCommand('logs.ts'), onError: () => undefined });
  await Promise.all([proxy.start(), other.start()]);
  gateway = new McpServer({ name: 'gateway', version: '1.0.0' });
  gateway.mount(proxy, { namespace: 'raw' });
  gateway.mount(other, { namespace: 'other' });
});

afterAll(async () => {
  await gateway?.close();
  await proxy?.close();
  await other?.close();
  await raw?.close();
});

test("a JSON answer past maxMessageBytes fails that request with a clear error, the body cancelled; the gateway serves its other upstreams and the same upstream's next requests", async () => {
  const client = await createTestClient(gateway);
  try {
    await expect(client.callTool('raw_big')).rejects.toMatchObject({ code: -32603, message: expect.stringMatching(/answer to tools\/call is larger than 1048576 bytes \(maxMessageBytes\)/) });
    // The upstream is not left writing into a body nobody reads.
    await waitFor(() => raw.open.size === 0);
    expect(await client.callTool('raw_small')).toMatchObject({ content: [{ text: 'small' }] });
    expect(await client.callTool('other_wait', { ms: 1 })).toMatchObject({ content: [{ text: 'waited' }] });
    expect(((await client.callTool('raw_fits')).content[0] as { text: string }).text).toHaveLength(CAP - 200);
    expect(proxy.upstreamState).toBe('connected');
  } finally {
    await client.close();
  }
});

test('an SSE event past maxMessageBytes fails its request with the same error, and the proxy serves on', async () => {
  const client = await createTestClient(gateway);
  try {
    await expect(client.callTool('raw_bigEvent')).rejects.toMatchObject({ code: -32603, message: expect.stringMatching(/answer to tools\/call is larger than 1048576 bytes \(maxMessageBytes\)/) });
    await waitFor(() => raw.open.size === 0);
    expect(await client.callTool('raw_small')).toMatchObject({ content: [{ text: 'small' }] });
  } finally {
    await client.close();
  }
});

test('maxMessageBytes must be a positive integer', () => {
  expect(() => new ProxyServer({ upstream: { url: 'http://127.0.0.1:1/mcp', maxMessageBytes: 0 } })).toThrow(/maxMessageBytes/);
});

export { gzipSync, sse };
