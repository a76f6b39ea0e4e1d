/**
 * An HTTP upstream's answer that is not JSON-RPC (a 502 page of a load balancer, a stack trace)
 * may tell of the upstream's internals: the client hears the status only, the operator
 * (onError) the beginning of the body, with control characters escaped.
 */
import 'reflect-metadata';
import { ProxyServer } from '@typemcp/proxy';
import { createTestClient } from '@typemcp/testing';
import { json, startRawUpstream } from './rawUpstream';
import type { RawUpstream } from './rawUpstream';

let raw: RawUpstream;
let proxy: ProxyServer;
const reports: Array<{ what: string; detail: unknown }> = [];

const TRACE = 'Traceback (most recent call last): File "/srv/app/db.py", line 12, in connect: password=hunter2 host=db-internal.corp';

beforeAll(async () => {
  raw = await startRawUpstream({
    small: (id, res) => json(res, { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'small' }] } }),
    trace: (_id, res) => void res.writeHead(502, { 'content-type': 'text/html' }).end(`<html><body><pre>${TRACE}${'.'.repeat(1000)}</pre></body></html>`),
    plain: (_id, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('\u001b[2J\u001b]0;owned\u0007all good\u009b31m'),
    foreign: (_id, res) => json(res, { error: 'quota exceeded for tenant 42' }, 429),
  });
  proxy = new ProxyServer({ upstream: { url: raw.url }, upstreamProtocolVersion: '2025-11-25', onError: (what, detail) => void reports.push({ what, detail }) });
  await proxy.start();
});

afterAll(async () => {
  await proxy?.close();
  await raw?.close();
});

test("an upstream's HTTP error body reaches the operator only: the client hears the status", async () => {
  const client = await createTestClient(proxy);
  try {
    const refused = (await client.callTool('trace').catch((error: unknown) => error)) as { code?: number; message: string };
    expect(refused.code).toBe(-32603);
    expect(refused.message).toMatch(/The upstream answered HTTP 502$/);
    expect(refused.message).not.toMatch(/hunter2|Traceback|db-internal/);
    const report = reports.find((r) => r.what.includes('HTTP 502'));
    expect(report?.what).toMatch(/tools\/call/);
    expect(report?.detail).toEqual(expect.stringContaining('password=hunter2'));
    expect((report?.detail as string).length).toBeLessThanOrEqual(201);

    const foreign = (await client.callTool('foreign').catch((error: unknown) => error)) as { message: string };
    expect(foreign.message).toMatch(/The upstream answered HTTP 429$/);
    expect(reports.find((r) => r.what.includes('HTTP 429'))?.detail).toBe('{"error":"quota exceeded for tenant 42"}');

    // The same upstream serves on.
    expect(await client.callTool('small')).toMatchObject({ content: [{ text: 'small' }] });
  } finally {
    await client.close();
  }
});

test("a 200 that is not JSON-RPC: the client hears that, and the operator's log gets the body with its control characters escaped", async () => {
  const client = await createTestClient(proxy);
  try {
    const refused = (await client.callTool('plain').catch((error: unknown) => error)) as { message: string };
    expect(refused.message).toMatch(/The upstream answered HTTP 200 without an answer to the request$/);
    expect(refused.message).not.toMatch(/all good/);
    const detail = reports.find((r) => r.what.includes('HTTP 200'))?.detail as string;
    expect(detail).toBe('\\u001b[2J\\u001b]0;owned\\u0007all good\\u009b31m');
  } finally {
    await client.close();
  }
});
