/**
 * ProxyServer in front of a real TypeMCP server process, over stdio and over HTTP, speaking
 * 2026-07-28 or the 2025-11-25 handshake to it, each with clients of both eras: every kind
 * of item, pages, progress, cancellation, log messages, the upstream's questions (two
 * elicitation rounds, sampling, roots), completion and list_changed. Every message the proxy
 * sends its clients is checked against the schema of their revision.
 */
import 'reflect-metadata';
import { ProxyServer } from '@typemcp/proxy';
import type { ProxyOptions } from '@typemcp/proxy';
import { createTestClient } from '@typemcp/testing';
import type { TestClient } from '@typemcp/testing';
import { startHttpUpstream, upstreamCommand } from './upstreams';
import { waitFor } from './waitFor';
import type { HttpUpstreamProcess } from './upstreams';

jest.setTimeout(60_000);

type Setup = { transport: 'stdio' | 'http'; era: 'auto' | '2025-11-25' };
const setups: Setup[] = [
  { transport: 'stdio', era: 'auto' },
  { transport: 'stdio', era: '2025-11-25' },
  { transport: 'http', era: 'auto' },
  { transport: 'http', era: '2025-11-25' },
];

const answers = {
  elicitation: async (params: { message: string }) => ({ action: 'accept' as const, content: params.message.startsWith('Your name') ? { name: 'Ada' } : { city: 'Paris' } }),
  sampling: async () => ({ role: 'assistant' as const, content: { type: 'text' as const, text: 'an old silent pond' }, model: 'fake' }),
  roots: [{ uri: 'file:///work/project', name: 'project' }],
};

describe.each(setups)('a proxy over $transport, speaking $era to the upstream', ({ transport, era }) => {
  let proxy: ProxyServer;
  let http: HttpUpstreamProcess | undefined;
  /** What reached the operator (onError): the upstream's log lines over stdio among them. */
  const reports: Array<{ what: string; data: unknown }> = [];

  beforeAll(async () => {
    http = transport === 'http' ? await startHttpUpstream() : undefined;
    const upstream: ProxyOptions['upstream'] = http ? { url: http.url } : upstreamCommand;
    proxy = new ProxyServer({ name: 'front', version: '1.0.0', upstream, upstreamProtocolVersion: era, onError: (what, data) => void reports.push({ what, data }) });
    await proxy.start();
  });

  afterAll(async () => {
    await proxy?.close();
    await http?.kill();
  });

  describe.each(['2025-11-25', '2026-07-28'])('with a %s client', (protocolVersion) => {
    let client: TestClient;
    beforeEach(async () => (client = await createTestClient(proxy, { protocolVersion, ...answers })));
    afterEach(async () => client.close());

    test('lists every item of every page, and serves each kind', async () => {
      const tools = await client.listTools();
      expect(tools).toHaveLength(261);
      expect(new Set(tools.map((t) => t.name)).size).toBe(261);
      expect(tools.find((t) => t.name === 'tool_249')).toMatchObject({ description: 'Generated tool 249', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } });
      expect(await client.callTool('tool_123', { text: 'hi' })).toMatchObject({ content: [{ type: 'text', text: 'tool_123:hi' }] });
      expect(await client.callTool('broken')).toMatchObject({ isError: true });
      expect(await client.getPrompt('explain', { topic: 'cursors' })).toMatchObject({ messages: [{ role: 'user', content: { type: 'text', text: 'Explain cursors' } }] });
      expect((await client.complete({ type: 'ref/prompt', name: 'explain' }, { name: 'topic', value: 'j' })).completion.values).toEqual(['json-rpc']);
      expect((await client.complete({ type: 'ref/resource', uri: 'notes://items/{id}' }, { name: 'id', value: '1' })).completion.values).toEqual(['1', '10']);
      expect((await client.listResources()).map((r) => r.uri)).toEqual(['notes://readme']);
      expect((await client.listResourceTemplates()).map((r) => r.uriTemplate)).toEqual(['notes://items/{id}']);
      expect(await client.readResource('notes://readme')).toMatchObject({ contents: [{ uri: 'notes://readme', mimeType: 'text/plain', text: 'read me' }] });
      expect((await client.readResource('notes://items/7')).contents[0]).toMatchObject({ uri: 'notes://items/7', text: '{"id":"7"}' });
    });

    test(`relays progress under the client token, and the upstream log messages of the call ${transport === 'stdio' ? 'to the operator (stdio does not say whose they are)' : 'to its client'}`, async () => {
      const progress: number[] = [];
      await client.setLogLevel('debug');
      const logs: unknown[] = [];
      client.onNotification('notifications/message', (params) => logs.push(params?.data));
      expect(await client.callTool('slow', { steps: 3, stepMs: 20 }, { onprogress: (update) => progress.push(update.progress) })).toMatchObject({ content: [{ type: 'text', text: 'counted to 3' }] });
      expect(progress).toEqual([1, 2, 3]);
      const reported = reports.length;
      await client.callTool('chatty');
      const heard = transport === 'stdio' ? () => reports.slice(reported).map((report) => report.data) : () => logs;
      await waitFor(() => heard().length >= 2);
      // The operator's log gets printable text: a string as it is, anything else as JSON.
      expect(heard()).toEqual(['debug line', transport === 'stdio' ? '{"note":"warning line"}' : { note: 'warning line' }]);
      if (transport === 'stdio') {
        expect(reports[reported].what).toMatch(/upstream logged \(debug\)/);
        expect(reports[reported + 1].what).toMatch(/upstream logged \(warning, "upstream"\)/);
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(logs).toEqual([]);
      }
    });

    test('a cancelled call is cancelled upstream', async () => {
      const before = Number(((await client.callTool('cancellations')).content[0] as { text: string }).text);
      const controller = new AbortController();
      const call = client.callTool('slow', { steps: 100, stepMs: 20 }, { signal: controller.signal, onprogress: () => controller.abort('enough') });
      await expect(call).rejects.toThrow(/cancelled/);
      await waitFor(async () => Number(((await client.callTool('cancellations')).content[0] as { text: string }).text) === before + 1);
    });

    test("relays the upstream's questions: two elicitation rounds, sampling, roots", async () => {
      expect(await client.callTool('interview')).toMatchObject({ content: [{ type: 'text', text: 'Ada from Paris' }] });
      expect(await client.callTool('haiku')).toMatchObject({ content: [{ type: 'text', text: 'an old silent pond' }] });
      expect(await client.callTool('where')).toMatchObject({ content: [{ type: 'text', text: 'file:///work/project' }] });
    });
  });

  test("relays the upstream's resource updates to the clients subscribed, in both eras", async () => {
    const handshake = await createTestClient(proxy, { protocolVersion: '2025-11-25' });
    const modern = await createTestClient(proxy, { protocolVersion: '2026-07-28' });
    await handshake.subscribe('notes://readme');
    const listening = await modern.listen({ resourceSubscriptions: ['notes://readme'] });
    const heard = [handshake.nextNotification('notifications/resources/updated'), modern.nextNotification('notifications/resources/updated')];
    expect(await handshake.callTool('touch')).toMatchObject({ content: [{ type: 'text', text: 'touched' }] });
    for (const notification of await Promise.all(heard)) expect(notification).toMatchObject({ uri: 'notes://readme' });
    await listening.close();
    await handshake.close();
    await modern.close();
  });

  test('relays list_changed: a tool the upstream gains reaches the clients', async () => {
    const client = await createTestClient(proxy, { protocolVersion: '2026-07-28' });
    const listening = await client.listen({ toolsListChanged: true });
    const name = `grown_${transport}_${era.replace(/-/g, '')}`;
    const changed = client.nextNotification('notifications/tools/list_changed');
    expect(await client.callTool('grow', { name })).toMatchObject({ content: [{ type: 'text', text: `added ${name}` }] });
    await changed;
    expect(await client.callTool(name)).toMatchObject({ content: [{ type: 'text', text: `${name} works` }] });
    await listening.close();
    await client.close();
  });
});
