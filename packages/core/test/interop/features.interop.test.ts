import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { connectSdkClient } from '../../../../test-support/sdkClient';
import { stdioServerParams } from '../../../../test-support/spawnServer';
import { expectValidServerMessages } from '../../../../test-support/specSchema';

const fixture = path.join(__dirname, 'fixtures', 'featuresServer.ts');

const channels: Array<[string, () => Promise<Transport>]> = [
  ['stdio', async () => new StdioClientTransport(stdioServerParams(fixture))],
  [
    'in-memory',
    async () => {
      // A fresh copy of the fixture module per test, so each gets its own server.
      let server!: typeof import('./fixtures/featuresServer').server;
      jest.isolateModules(() => {
        server = require('./fixtures/featuresServer').server;
      });
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide as never);
      return clientSide;
    },
  ],
];

async function toolNames(client: Client, onPage?: (page: number) => Promise<void>): Promise<string[]> {
  const names: string[] = [];
  let cursor: string | undefined;
  let page = 0;
  do {
    const result = await client.listTools(cursor ? { cursor } : {});
    names.push(...result.tools.map((t) => t.name));
    cursor = result.nextCursor;
    await onPage?.(++page);
  } while (cursor);
  return names;
}

describe.each(channels)('server features with the official SDK client over %s', (_label, open) => {
  const versions = ['2025-06-18', '2025-11-25'];

  it.each(versions)('pages through 250 tools, also when the list changes between pages (%s)', async (version) => {
    const { client, recorder } = await connectSdkClient(await open(), { protocolVersion: version });
    try {
      const first = await client.listTools();
      expect(first.tools).toHaveLength(100);
      const names = await toolNames(client);
      expect(names).toHaveLength(250);
      expect(new Set(names).size).toBe(250);

      const changed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
      const walked = await toolNames(client, async (page) => {
        if (page === 1) await client.callTool({ name: 'grow', arguments: { count: 5 } });
      });
      await changed;
      expect(new Set(walked).size).toBe(walked.length);
      expect(walked).toHaveLength(255);
    } finally {
      await client.close();
    }
    expectValidServerMessages(version, recorder.received);
  });

  it.each(versions)('reads, subscribes, prompts, completes, logs and reports progress (%s)', async (version) => {
    const { client, recorder } = await connectSdkClient(await open(), { protocolVersion: version });
    try {
      const { resources } = await client.listResources();
      expect(resources.map((r) => r.uri)).toEqual(['notes://index', 'notes://todo', 'notes://ideas', 'notes://log']);
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates).toEqual([{ uriTemplate: 'notes://{name}', name: 'note', mimeType: 'text/plain' }]);
      expect((await client.readResource({ uri: 'notes://ideas' })).contents).toEqual([{ uri: 'notes://ideas', mimeType: 'text/plain', text: 'a framework' }]);
      await expect(client.readResource({ uri: 'other://x' })).rejects.toMatchObject({ code: -32002 });

      const updated = new Promise<string>((resolve) => client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resolve(n.params.uri)));
      await client.subscribeResource({ uri: 'notes://todo' });
      await client.callTool({ name: 'touch', arguments: { note: 'ideas' } });
      await client.callTool({ name: 'touch', arguments: { note: 'todo' } });
      expect(await updated).toBe('notes://todo');

      const prompt = await client.getPrompt({ name: 'discuss', arguments: { note: 'todo', tone: 'calm' } });
      expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Discuss "buy milk" in a calm tone' } }]);
      await expect(client.getPrompt({ name: 'discuss', arguments: {} })).rejects.toMatchObject({ code: -32602 });

      const tones = await client.complete({ ref: { type: 'ref/prompt', name: 'discuss' }, argument: { name: 'tone', value: 'c' }, context: { arguments: { note: 'todo' } } });
      expect(tones.completion).toEqual({ values: ['calm'], total: 1, hasMore: false });
      const notes = await client.complete({ ref: { type: 'ref/resource', uri: 'notes://{name}' }, argument: { name: 'name', value: '' } });
      expect(notes.completion.values).toEqual(['todo', 'ideas', 'log']);

      const logs: unknown[] = [];
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
      await client.setLoggingLevel('info');
      const progress: Progress[] = [];
      const result = await client.callTool({ name: 'work', arguments: { steps: 4 } }, undefined, { onprogress: (p) => void progress.push(p) });
      expect(result.content).toEqual([{ type: 'text', text: 'did 4 steps' }]);
      // The server sends every step before its result...
      const sent = recorder.received.filter((r) => 'method' in r.message && r.message.method === 'notifications/progress');
      expect(sent.map((r) => (r.message as unknown as { params: Progress }).params.progress)).toEqual([1, 2, 3, 4]);
      expect((sent[3].message as unknown as { params: unknown }).params).toMatchObject({ progress: 4, total: 4, message: 'step 4 of 4' });
      // ...but the SDK client runs notification handlers a microtask late, so one read that
      // holds both the last step and the result can lose that step on the client's side.
      expect([1, 2, 3, 4].slice(0, progress.length)).toEqual(progress.map((p) => p.progress));
      expect(progress.length).toBeGreaterThanOrEqual(3);
      expect(logs).toEqual([{ level: 'info', logger: 'work', data: { finished: 4 } }]);
    } finally {
      await client.close();
    }
    expectValidServerMessages(version, recorder.received);
  });

  it('cancels a long tool call, racing its response, and keeps serving', async () => {
    const version = '2025-11-25';
    const { client, recorder } = await connectSdkClient(await open(), { protocolVersion: version });
    try {
      for (const delay of [0, 5, 20, 60]) {
        const controller = new AbortController();
        const call = client.callTool({ name: 'work', arguments: { steps: 3, delayMs: 10 } }, undefined, { signal: controller.signal });
        setTimeout(() => controller.abort('user gave up'), delay);
        // Either the cancel wins (the SDK rejects) or the result arrived first; both are fine.
        await call.then((r) => expect(r.content).toEqual([{ type: 'text', text: 'did 3 steps' }]), (e) => expect(String(e)).toContain('user gave up'));
      }
      expect(await client.ping()).toEqual({});
    } finally {
      await client.close();
    }
    const cancelled = recorder.sent.filter((m) => 'method' in m && m.method === 'notifications/cancelled').map((m) => (m as unknown as { params: { requestId: number } }).params.requestId);
    const answered = recorder.received.map((r) => (r.message as { id?: number }).id);
    expect(cancelled.length).toBeGreaterThan(0);
    // The server never answers a request after it was told of its cancellation in time.
    expect(cancelled.filter((id) => answered.includes(id)).length).toBeLessThan(cancelled.length);
    expectValidServerMessages(version, recorder.received);
  });
});
