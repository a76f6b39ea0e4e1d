/** An upstream whose pages never end: the proxy stops, says why, and serves on. */
import 'reflect-metadata';
import path from 'node:path';
import { ProxyServer } from '@typemcp/proxy';
import { createTestClient } from '@typemcp/testing';
import { startHttpUpstream } from './upstreams';
import { waitFor } from './waitFor';

test('a cursor handed back twice, or more pages than maxPages, ends the list with a report instead of a loop', async () => {
  const reports: string[] = [];
  const proxy = new ProxyServer({
    upstream: { command: process.execPath, args: [path.join(__dirname, 'fixtures/endlessPages.js')] },
    maxPages: 25,
    onError: (what, error) => reports.push(`${what}: ${(error as Error).message}`),
  });
  await proxy.start();
  expect(reports).toHaveLength(2);
  expect(reports).toEqual(
    expect.arrayContaining([
      expect.stringContaining('tools/list: the upstream returned the cursor "same" twice; its pages would never end'),
      expect.stringContaining("prompts/list: the upstream's list did not end within 25 pages"),
    ]),
  );
  const client = await createTestClient(proxy);
  expect(await client.listTools()).toEqual([]);
  expect(await client.listPrompts()).toEqual([]);
  await client.close();
  await proxy.close();
});

test("the proxy's own requests carry the headers option too; an HTTP error with a body of its own fails the request at once", async () => {
  const upstream = await startHttpUpstream();
  // A front that wants a key: 401 with a JSON body that is not JSON-RPC.
  const keyed: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    if (headers.get('x-api-key') !== 'k-1') return new Response(JSON.stringify({ error: 'a key is needed' }), { status: 401, headers: { 'content-type': 'application/json' } });
    return fetch(input, init);
  };
  try {
    const reports: string[] = [];
    const keyless = new ProxyServer({ upstream: { url: upstream.url, fetch: keyed }, upstreamProtocolVersion: '2026-07-28', onError: (what, error) => reports.push(`${what}: ${(error as Error).message}`) });
    const started = Date.now();
    void keyless.start();
    await waitFor(() => reports.length > 0);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(reports[0]).toMatch(/HTTP 401/);
    await keyless.close();

    for (const upstreamProtocolVersion of ['2026-07-28', '2025-11-25']) {
      const proxy = new ProxyServer({ upstream: { url: upstream.url, fetch: keyed, headers: () => ({ 'x-api-key': 'k-1' }) }, upstreamProtocolVersion });
      try {
        await proxy.start();
        const client = await createTestClient(proxy);
        expect(await client.listTools()).toHaveLength(261);
        expect(JSON.parse(((await client.callTool('headers')).content[0] as { text: string }).text)).toEqual({ authorization: null, 'x-api-key': 'k-1' });
        await client.close();
      } finally {
        await proxy.close();
      }
    }
  } finally {
    await upstream.kill();
  }
});
