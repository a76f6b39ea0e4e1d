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
const TOO_LARGE = /answer to tools\/call is larger than 1048576 bytes \(maxMessageBytes\)/;

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
    // A chunked JSON body that never ends.
    endless: (id, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(answerParts(id).head);
      void pump(res, 'z'.repeat(16 * 1024), Infinity);
    },
    // A body that never ends, a byte now and then: well under the cap.
    trickle: (id, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(answerParts(id).head);
      const timer = setInterval(() => res.write('.'), 20);
      res.on('close', () => clearInterval(timer));
    },
    // Content-Length promises more than the cap; a little is sent, and the connection is kept open.
    promisesTooMuch: (id, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(100 * CAP) });
      res.write(answerParts(id).head);
    },
    // Content-Length says less than is sent: the answer is cut short.
    saysTooLittle: (id, res) => {
      const { head, tail } = answerParts(id, 'w'.repeat(1000));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '40' });
      res.end(head + tail);
    },
    // 16 MiB of answer in 16 KiB of gzip.
    gzipBomb: (id, res) => {
      const { head, tail } = answerParts(id, 'x'.repeat(16 * MIB));
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync(head + tail));
    },
    // The same as one SSE event.
    sseGzipBomb: (id, res) => {
      const { head, tail } = answerParts(id, 'x'.repeat(16 * MIB));
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
      res.end(gzipSync(`data: ${head}${tail}\n\n`));
    },
    // An SSE line (not an event) that never ends: a comment.
    endlessComment: (_id, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': ');
      void pump(res, 'c'.repeat(16 * 1024), Infinity);
    },
  });
  proxy = new ProxyServer({ name: 'raw', upstream: { url: raw.url, maxMessageBytes: CAP }, upstreamProtocolVersion: '2025-11-25', upstreamTimeoutMs: 3000, onError: (what, error) => void reports.push(`${what}: ${String((error as Error)?.message ?? error)}`) });
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
    await expect(client.callTool('raw_big')).rejects.toMatchObject({ code: -32603, message: expect.stringMatching(TOO_LARGE) });
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
    await expect(client.callTool('raw_bigEvent')).rejects.toMatchObject({ code: -32603, message: expect.stringMatching(TOO_LARGE) });
    await waitFor(() => raw.open.size === 0);
    expect(await client.callTool('raw_small')).toMatchObject({ content: [{ text: 'small' }] });
  } finally {
    await client.close();
  }
});

test('maxMessageBytes must be a positive integer', () => {
  expect(() => new ProxyServer({ upstream: { url: 'http://127.0.0.1:1/mcp', maxMessageBytes: 0 } })).toThrow(/maxMessageBytes/);
});

describe('bodies an attacker would send', () => {
  test.each([
    ['a chunked JSON body that never ends', 'endless'],
    ['a Content-Length past the cap (refused before it is read)', 'promisesTooMuch'],
    ['a gzip bomb as JSON (the cap counts what is decompressed)', 'gzipBomb'],
    ['a gzip bomb as one SSE event', 'sseGzipBomb'],
    ['an SSE comment line that never ends', 'endlessComment'],
  ])('%s: refused at the cap, the connection let go, the upstream served on', async (_what, tool) => {
    const client = await createTestClient(gateway);
    try {
      const started = Date.now();
      await expect(client.callTool(`raw_${tool}`)).rejects.toMatchObject({ code: -32603, message: expect.stringMatching(TOO_LARGE) });
      // Well before upstreamTimeoutMs: the cap ended it.
      expect(Date.now() - started).toBeLessThan(2500);
      await waitFor(() => raw.open.size === 0);
      expect(await client.callTool('raw_small')).toMatchObject({ content: [{ text: 'small' }] });
    } finally {
      await client.close();
    }
  });

  test('a body that never ends, a byte now and then, ends with upstreamTimeoutMs: -32001, the connection let go', async () => {
    const client = await createTestClient(gateway);
    try {
      await expect(client.callTool('raw_trickle')).rejects.toMatchObject({ code: -32001 });
      await waitFor(() => raw.open.size === 0);
      expect(await client.callTool('raw_small')).toMatchObject({ content: [{ text: 'small' }] });
    } finally {
      await client.close();
    }
  });

  test('a Content-Length shorter than the body: the answer cut there is no answer; the upstream serves on', async () => {
    const client = await createTestClient(gateway);
    try {
      await expect(client.callTool('raw_saysTooLittle')).rejects.toMatchObject({ code: -32603, message: expect.stringMatching(/HTTP 200 without an answer/) });
      expect(await client.callTool('raw_small')).toMatchObject({ content: [{ text: 'small' }] });
    } finally {
      await client.close();
    }
  });
});
