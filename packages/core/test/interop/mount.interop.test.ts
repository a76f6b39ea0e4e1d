/**
 * A gateway that mounts two servers, driven by the official SDK clients over real HTTP on
 * 127.0.0.1: v1 in a 2025-11-25 session and v2 pinned to 2026-07-28. One mounted server has
 * tools, resources, templates, prompts and completions, with an access rule; the other is
 * mounted and unmounted while the clients are connected.
 */
import 'reflect-metadata';
import { IsString } from 'class-validator';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema, PromptListChangedNotificationSchema, ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { Completion, McpServer, Prompt, Resource, Scopes, Tool } from '@typemcp/core';
import type { ListenAddress } from '@typemcp/core';
import { RecordingTransport } from '../../../../test-support/recordingTransport';
import { connectSdkClient } from '../../../../test-support/sdkClient';
import { expectValidServerMessages } from '../../../../test-support/specSchema';

class Query {
  @IsString() query!: string;
}

class Topic {
  @IsString() topic!: string;
}

class KnowledgeBase {
  @Tool({ description: 'Searches the knowledge base' })
  search(input: Query): string {
    return `3 articles about ${input.query}`;
  }

  @Tool({ description: 'Rebuilds the index (editors only)' })
  @Scopes('kb:edit')
  reindex(): string {
    return 'reindexed';
  }

  @Resource({ uri: 'kb://articles', mimeType: 'application/json', description: 'Every article' })
  articles() {
    return { articles: ['intro', 'setup'] };
  }

  @Resource({ uri: 'kb://articles{/slug*}', mimeType: 'text/markdown' })
  article(args: { slug: string[] | string }) {
    return `# ${[args.slug].flat().join('/')}`;
  }

  @Resource({ uri: 'urn:isbn:{isbn}', mimeType: 'text/plain' })
  book(args: { isbn: string }) {
    return `book ${args.isbn}`;
  }

  @Prompt({ description: 'Explain a topic from the knowledge base' })
  explain(args: Topic): string {
    return `Explain ${args.topic} using the knowledge base.`;
  }

  @Completion({ prompt: 'explain', argument: 'topic' })
  topics(value: string): string[] {
    return ['install', 'intro', 'setup'].filter((t) => t.startsWith(value));
  }
}

class Ops {
  @Tool({ description: 'Restarts a service' })
  restart(input: Query): string {
    return `restarted ${input.query}`;
  }
}

class Own {
  @Tool({ description: 'The gateway itself' })
  status(): string {
    return 'ok';
  }
}

const V2 = '2026-07-28';
const names = (items: Array<{ name: string }>) => items.map((item) => item.name).sort();
const text = (result: object) => ((result as { content: Array<{ text: string }> }).content).map((c) => c.text).join('');

let gateway: McpServer;
let address: ListenAddress;

beforeEach(async () => {
  gateway = new McpServer({ name: 'gateway', version: '1.0.0', providers: [Own] });
  gateway.mount(new McpServer({ name: 'kb', version: '1.0.0', providers: [KnowledgeBase] }), { namespace: 'kb' });
  // A mounted tool reshaped for models: clients validate against (and send) what it exposes.
  gateway.transformTool('kb_search', { name: 'kb_find', keepOriginal: true, description: 'Finds articles', arguments: { query: { name: 'text', description: 'Words to find' } } });
  // An editor sends x-editor: yes (a stand-in for real authentication).
  address = await gateway.listen({
    transport: 'http',
    port: 0,
    handleSignals: false,
    principal: (req) => (req.headers['x-editor'] === 'yes' ? { subject: 'editor', scopes: ['kb:edit'], claims: {} } : undefined),
  });
});

afterEach(() => gateway.close());

describe('a gateway mounting two servers, official SDK v1 client (2025-11-25 session)', () => {
  it('sees every kind of item under its namespace, completes through the mount, hears list_changed on mount, change and unmount', async () => {
    const { client, recorder } = await connectSdkClient(new V1Transport(new URL(address.url)), { protocolVersion: '2025-11-25' });
    const heard: string[] = [];
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void heard.push('tools'));
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => void heard.push('prompts'));
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void heard.push('resources'));
    try {
      expect(names((await client.listTools()).tools)).toEqual(['kb_find', 'kb_search', 'status']);
      expect(text(await client.callTool({ name: 'kb_search', arguments: { query: 'setup' } }))).toBe('3 articles about setup');
      const invalid = await client.callTool({ name: 'kb_search', arguments: { query: 42 } });
      expect(invalid.isError).toBe(true);
      // The transformed tool: its exposed schema, its argument name, refused under the old one.
      const find = (await client.listTools()).tools.find((tool) => tool.name === 'kb_find')!;
      expect(find.description).toBe('Finds articles');
      expect(find.inputSchema).toMatchObject({ properties: { text: { type: 'string', description: 'Words to find' } }, required: ['text'] });
      expect(text(await client.callTool({ name: 'kb_find', arguments: { text: 'setup' } }))).toBe('3 articles about setup');
      expect((await client.callTool({ name: 'kb_find', arguments: { query: 'setup' } })).isError).toBe(true);
      // The mounted server's access rule holds for the gateway's caller.
      await expect(client.callTool({ name: 'kb_reindex', arguments: {} })).rejects.toThrow(/authenticated caller|Unknown tool/);

      expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(['kb://kb/articles']);
      expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual(['kb://kb/articles{/slug*}', 'urn:kb:isbn:{isbn}']);
      expect((await client.readResource({ uri: 'kb://kb/articles/guides/setup' })).contents).toEqual([{ uri: 'kb://kb/articles/guides/setup', mimeType: 'text/markdown', text: '# guides/setup' }]);
      expect((await client.readResource({ uri: 'urn:kb:isbn:978' })).contents[0]).toMatchObject({ uri: 'urn:kb:isbn:978', text: 'book 978' });
      await expect(client.readResource({ uri: 'kb://articles' })).rejects.toThrow(/not found/i);

      expect(names((await client.listPrompts()).prompts)).toEqual(['kb_explain']);
      expect(JSON.stringify((await client.getPrompt({ name: 'kb_explain', arguments: { topic: 'setup' } })).messages)).toContain('Explain setup');
      const completed = await client.complete({ ref: { type: 'ref/prompt', name: 'kb_explain' }, argument: { name: 'topic', value: 'in' } });
      expect(completed.completion.values).toEqual(['install', 'intro']);

      // A second server mounted while the client is connected, changed, then unmounted.
      const opsServer = new McpServer({ name: 'ops', version: '1.0.0' });
      const ops = gateway.mount(opsServer, { namespace: 'ops' });
      opsServer.register(Ops);
      await until(() => heard.includes('tools'));
      expect(names((await client.listTools()).tools)).toEqual(['kb_find', 'kb_search', 'ops_restart', 'status']);
      expect(text(await client.callTool({ name: 'ops_restart', arguments: { query: 'db' } }))).toBe('restarted db');
      heard.length = 0;
      opsServer.tools.disable('restart');
      await until(() => heard.includes('tools'));
      expect(names((await client.listTools()).tools)).toEqual(['kb_find', 'kb_search', 'status']);
      opsServer.tools.enable('restart');
      heard.length = 0;
      ops.unmount();
      await until(() => heard.includes('tools'));
      expect(names((await client.listTools()).tools)).toEqual(['kb_find', 'kb_search', 'status']);
      await expect(client.callTool({ name: 'ops_restart', arguments: { query: 'db' } })).rejects.toThrow(/Unknown tool/);
    } finally {
      await client.close();
    }
    expectValidServerMessages('2025-11-25', recorder.received);
  });

  it('serves the mounted access-ruled tool to a caller with the scope', async () => {
    const transport = new V1Transport(new URL(address.url), { requestInit: { headers: { 'x-editor': 'yes' } } });
    const { client } = await connectSdkClient(transport, { protocolVersion: '2025-11-25' });
    try {
      expect(names((await client.listTools()).tools)).toEqual(['kb_find', 'kb_reindex', 'kb_search', 'status']);
      expect(text(await client.callTool({ name: 'kb_reindex', arguments: {} }))).toBe('reindexed');
    } finally {
      await client.close();
    }
  });
});

describe('a gateway mounting two servers, official SDK v2 client pinned to 2026-07-28', () => {
  it('lists, calls, reads, completes through the mount and hears list_changed on a listen stream', async () => {
    const recorder = new RecordingTransport(new V2Transport(new URL(address.url)) as never);
    const client = new V2Client({ name: 'mount-v2', version: '1.0.0' }, { capabilities: {}, versionNegotiation: { mode: { pin: V2 } } });
    await client.connect(recorder as never);
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(V2);
      expect(names((await client.listTools()).tools)).toEqual(['kb_find', 'kb_search', 'status']);
      expect(text(await client.callTool({ name: 'kb_search', arguments: { query: 'intro' } }))).toBe('3 articles about intro');
      expect(text(await client.callTool({ name: 'kb_find', arguments: { text: 'intro' } }))).toBe('3 articles about intro');
      expect((await client.callTool({ name: 'kb_find', arguments: { query: 'intro' } })).isError).toBe(true);
      expect((await client.readResource({ uri: 'kb://kb/articles' })).contents[0]).toMatchObject({ uri: 'kb://kb/articles', mimeType: 'application/json' });
      expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual(['kb://kb/articles{/slug*}', 'urn:kb:isbn:{isbn}']);
      const completed = await client.complete({ ref: { type: 'ref/prompt', name: 'kb_explain' }, argument: { name: 'topic', value: 's' } });
      expect(completed.completion.values).toEqual(['setup']);

      const changed = new Promise<void>((resolve) => client.setNotificationHandler('notifications/tools/list_changed', () => resolve()));
      const subscription = await client.listen({ toolsListChanged: true });
      const ops = gateway.mount([Ops], { namespace: 'ops' });
      await changed;
      expect(names((await client.listTools()).tools)).toEqual(['kb_find', 'kb_search', 'ops_restart', 'status']);
      expect(text(await client.callTool({ name: 'ops_restart', arguments: { query: 'cache' } }))).toBe('restarted cache');
      ops.unmount();
      expect(names((await client.listTools()).tools)).toEqual(['kb_find', 'kb_search', 'status']);
      await subscription.close();
    } finally {
      await client.close();
    }
    expectValidServerMessages(V2, recorder.received);
  });
});

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for a notification');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
