import 'reflect-metadata';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProxyServer } from '@typemcp/proxy';

jest.setTimeout(30_000);

const listen = async (server: Server): Promise<string> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};
const stop = async (server: Server) => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
};

/** An upstream that redirects elsewhere must not get the proxy's credentials and bodies sent there. */
describe('an HTTP upstream that answers with a redirect', () => {
  it('is not followed: nothing reaches where it points, and the proxy reports where it points', async () => {
    const reached: IncomingHttpHeaders[] = [];
    const elsewhere = createServer((req, res) => {
      reached.push(req.headers);
      res.writeHead(500).end();
    });
    const target = await listen(elsewhere);
    const redirecting = createServer((_req, res) => res.writeHead(307, { location: `${target}/mcp` }).end());
    const url = `${await listen(redirecting)}/mcp`;
    const reports: string[] = [];
    const proxy = new ProxyServer({
      upstream: { url, headers: () => ({ 'x-api-key': 'secret-key', authorization: 'Bearer secret-token' }) },
      reconnect: { initialDelayMs: 50, maxDelayMs: 100 },
      onError: (what, error) => reports.push(`${what}: ${error instanceof Error ? error.message : String(error)}`),
    });
    try {
      void proxy.start().catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 800));
      expect(reached).toEqual([]);
      expect(reports.some((report) => report.includes(`answered with a redirect to ${target}/mcp, which the proxy does not follow`))).toBe(true);
    } finally {
      await proxy.close();
      await stop(redirecting);
      await stop(elsewhere);
    }
  });
});
