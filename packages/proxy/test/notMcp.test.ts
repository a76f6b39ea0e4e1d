import 'reflect-metadata';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { ProxyServer } from '@typemcp/proxy';
import { createTestClient } from '@typemcp/testing';
import { runTsPath } from '../../../test-support/spawnServer';

jest.setTimeout(30_000);

/** What the proxy guide says of an upstream that answers something other than JSON-RPC. */
describe('an upstream that does not answer JSON-RPC', () => {
  it('over HTTP (a web page where the endpoint should be): start() waits, each attempt is reported with the start of the body, and it is tried again', async () => {
    const page = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>Welcome</html>'));
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', () => resolve()));
    const reports: string[] = [];
    const proxy = new ProxyServer({
      upstream: { url: `http://127.0.0.1:${(page.address() as AddressInfo).port}/mcp` },
      reconnect: { initialDelayMs: 50, maxDelayMs: 100 },
      onError: (what, error) => reports.push(`${what}: ${error instanceof Error ? error.message : String(error)}`),
    });
    try {
      let started = false;
      void proxy.start().then(() => (started = true), () => undefined);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(started).toBe(false);
      expect(['connecting', 'reconnecting']).toContain(proxy.upstreamState);
      expect(reports).toContainEqual(expect.stringContaining('the upstream answered initialize with HTTP 200 and no JSON-RPC answer; its body begins: <html>Welcome</html>'));
      // Tried again, and reported again: more than one attempt within the second.
      expect(reports.filter((report) => report.includes('the upstream could not be reached')).length).toBeGreaterThan(1);
    } finally {
      await proxy.close();
      page.closeAllConnections();
      await new Promise((resolve) => page.close(resolve));
    }
  });

  it('over stdio: lines that are not JSON-RPC (a banner on stdout) are passed over, and the rest is served', async () => {
    const fixture = path.join(__dirname, 'fixtures', 'described.ts');
    const proxy = new ProxyServer({
      upstream: { command: process.execPath, args: ['-r', runTsPath, '-e', `process.stdout.write('Welcome to the upstream!\\n[1, 2]\\n'); require(${JSON.stringify(fixture)});`], stderr: 'ignore' },
    });
    try {
      await proxy.start();
      const client = await createTestClient(proxy);
      expect((await client.callTool('ping')).content).toEqual([{ type: 'text', text: 'pong' }]);
      await client.close();
    } finally {
      await proxy.close();
    }
  });
});
