import 'reflect-metadata';
import { ProxyServer } from '@typemcp/proxy';
import { createTestClient } from '@typemcp/testing';
import { fixtureCommand, startHttpUpstream } from './upstreams';

jest.setTimeout(30_000);

describe("the upstream's title and instructions", () => {
  it('reach the clients of a proxy of a stdio upstream, in both eras', async () => {
    const proxy = new ProxyServer({ name: 'front', version: '1.0.0', upstream: fixtureCommand('described.ts') });
    await proxy.start();
    try {
      const handshake = await createTestClient(proxy);
      expect(handshake.serverInfo).toEqual({ name: 'front', version: '1.0.0', title: 'Described Upstream' });
      expect(handshake.instructions).toBe('Call ping to check the upstream is there.');
      await handshake.close();
      const modern = await createTestClient(proxy, { protocolVersion: '2026-07-28' });
      expect(modern.serverInfo).toMatchObject({ name: 'front', title: 'Described Upstream' });
      expect(modern.instructions).toBe('Call ping to check the upstream is there.');
      const called = await modern.callTool('ping');
      expect((called._meta as Record<string, { title?: string }>)['io.modelcontextprotocol/serverInfo'].title).toBe('Described Upstream');
      await modern.close();
    } finally {
      await proxy.close();
    }
  });

  it('reach them from an HTTP upstream; the proxy\'s own title and instructions come first', async () => {
    const upstream = await startHttpUpstream(0, 'described.ts');
    const proxy = new ProxyServer({ upstream: { url: upstream.url }, title: 'Front', instructions: 'Ask the front first.' });
    const plain = new ProxyServer({ upstream: { url: upstream.url } });
    try {
      await proxy.start();
      await plain.start();
      const own = await createTestClient(proxy);
      expect(own.serverInfo).toEqual({ name: 'proxy', version: '0.0.0', title: 'Front' });
      expect(own.instructions).toBe('Ask the front first.');
      await own.close();
      const mirrored = await createTestClient(plain);
      expect(mirrored.serverInfo).toEqual({ name: 'proxy', version: '0.0.0', title: 'Described Upstream' });
      expect(mirrored.instructions).toBe('Call ping to check the upstream is there.');
      await mirrored.close();
    } finally {
      await proxy.close();
      await plain.close();
      await upstream.kill();
    }
  });
});
