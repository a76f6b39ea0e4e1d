/**
 * server.remote: items something else answers for, listed as given, checked by this server's
 * access rules (and, when asked, its validation), kept up to date by update(); and
 * ctx.carried, the state a handler keeps across the rounds of one 2026-07-28 request.
 */
import 'reflect-metadata';
import { Context, McpServer, Tool, ToolError } from '@typemcp/core';
import type { RemoteItems } from '@typemcp/core';
import { createTestClient, McpRequestError } from '@typemcp/testing';
import { RawClient } from './rawClient';

const calls: Array<{ name: string; args: unknown }> = [];

function items(extra: Partial<RemoteItems> = {}): RemoteItems {
  return {
    tools: [
      {
        listing: { name: 'echo', description: 'Echoes', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
        validate: true,
        call: async (args) => {
          calls.push({ name: 'echo', args });
          return { content: [{ type: 'text', text: String(args.text) }] };
        },
      },
      {
        listing: { name: 'count', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } },
        validate: true,
        call: async (args) => ({ content: [{ type: 'text', text: '{}' }], structuredContent: { n: args.bad ? 'many' : 3 } }),
      },
      { listing: { name: 'loose', inputSchema: { type: 'object' } }, call: async (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] }) },
      { listing: { name: 'fails', inputSchema: { type: 'object' } }, call: async () => Promise.reject(new ToolError('the remote side said no')) },
      { listing: { name: 'admin', inputSchema: { type: 'object' } }, access: { scopes: ['remote:admin'] }, call: async () => ({ content: [{ type: 'text', text: 'admin' }] }) },
    ],
    prompts: [
      {
        listing: { name: 'greet', title: 'Greet', arguments: [{ name: 'who', title: 'Who', required: true }] },
        get: async (args) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Hello ${args.who}` } }] }),
        complete: async (argument) => ({ values: ['ada', 'alan', 'grace'].filter((v) => v.startsWith(argument.value)) }),
      },
    ],
    resources: [{ listing: { uri: 'remote://readme', name: 'readme', mimeType: 'text/plain' }, read: async (uri) => ({ contents: [{ uri, text: 'remote readme' }] }) }],
    templates: [{ listing: { uriTemplate: 'remote://items/{id}', name: 'item' }, read: async (uri) => ({ contents: [{ uri, text: `item at ${uri}` }] }) }],
    ...extra,
  };
}

class Own {
  @Tool({ description: 'A tool of the server itself' })
  own(): string {
    return 'own';
  }
}

describe('server.remote', () => {
  beforeEach(() => (calls.length = 0));

  test('lists remote items as given and forwards every request; validation and access as asked', async () => {
    const server = new McpServer({ name: 'host', version: '1.0.0', providers: [Own] });
    server.remote(items());
    const client = await createTestClient(server);
    expect((await client.listTools()).map((t) => t.name)).toEqual(['own', 'echo', 'count', 'loose', 'fails']);
    expect(await client.callTool('echo', { text: 'hi' })).toEqual({ content: [{ type: 'text', text: 'hi' }] });
    const invalid = await client.callTool('echo', { text: 4 });
    expect(invalid.isError).toBe(true);
    expect(calls).toEqual([{ name: 'echo', args: { text: 'hi' } }]);
    expect(await client.callTool('loose', { any: [1] })).toEqual({ content: [{ type: 'text', text: '{"any":[1]}' }] });
    expect(await client.callTool('count')).toMatchObject({ structuredContent: { n: 3 } });
    expect(await client.callTool('count', { bad: true })).toEqual({ isError: true, content: [{ type: 'text', text: 'Tool "count" returned a result that does not match its output schema: "n": must be integer' }] });
    expect(await client.callTool('fails')).toEqual({ isError: true, content: [{ type: 'text', text: 'the remote side said no' }] });
    await expect(client.callTool('admin')).rejects.toThrow(McpRequestError);

    expect(await client.getPrompt('greet', { who: 'Ada' })).toEqual({ messages: [{ role: 'user', content: { type: 'text', text: 'Hello Ada' } }] });
    expect((await client.listPrompts())[0]).toEqual({ name: 'greet', title: 'Greet', arguments: [{ name: 'who', title: 'Who', required: true }] });
    expect(client.serverCapabilities.completions).toEqual({});
    expect((await client.complete({ type: 'ref/prompt', name: 'greet' }, { name: 'who', value: 'a' })).completion.values).toEqual(['ada', 'alan']);
    expect(await client.readResource('remote://readme')).toEqual({ contents: [{ uri: 'remote://readme', text: 'remote readme' }] });
    expect(await client.readResource('remote://items/7')).toEqual({ contents: [{ uri: 'remote://items/7', text: 'item at remote://items/7' }] });
    await client.close();

    const admin = await createTestClient(server, { principal: { subject: 'ada', scopes: ['remote:admin'], claims: {} } });
    expect((await admin.listTools()).map((t) => t.name)).toContain('admin');
    expect(await admin.callTool('admin')).toEqual({ content: [{ type: 'text', text: 'admin' }] });
    await admin.close();
    await server.close();
  });

  test('an older client sees what its revision can carry: no titles before 2025-06-18', async () => {
    const server = new McpServer({ name: 'host', version: '1.0.0' });
    server.remote(items());
    const client = await createTestClient(server, { protocolVersion: '2024-11-05' });
    expect((await client.listPrompts())[0]).toEqual({ name: 'greet', arguments: [{ name: 'who', required: true }] });
    expect((await client.listTools()).find((t) => t.name === 'count')).toEqual({ name: 'count', inputSchema: { type: 'object' } });
    await client.close();
    await server.close();
  });

  test('update swaps what changed, clients hear list_changed; a clash is refused at first and reported later; remove takes all out', async () => {
    const errors: string[] = [];
    const server = new McpServer({ name: 'host', version: '1.0.0', providers: [Own], onError: (what) => errors.push(what) });
    expect(() => server.remote({ tools: [{ listing: { name: 'own', inputSchema: { type: 'object' } }, call: async () => ({ content: [] }) }] })).toThrow(/already has a tool named "own"/);
    const catalog = server.remote(items());
    const client = await createTestClient(server);
    const before = await client.listTools();
    const changed = client.nextNotification('notifications/tools/list_changed');
    catalog.update(
      items({
        tools: [
          { listing: { name: 'echo', description: 'Echoes', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }, validate: true, call: async () => ({ content: [{ type: 'text', text: 'newer' }] }) },
          { listing: { name: 'fresh', inputSchema: { type: 'object' } }, call: async () => ({ content: [{ type: 'text', text: 'fresh' }] }) },
          { listing: { name: 'own', inputSchema: { type: 'object' } }, call: async () => ({ content: [] }) },
          { listing: { name: 'bad name!', inputSchema: { type: 'object' } }, call: async () => ({ content: [] }) },
        ],
      }),
    );
    await changed;
    expect((await client.listTools()).map((t) => t.name)).toEqual(['own', 'echo', 'fresh']);
    // The same listing keeps its place and takes the newest function.
    expect(before.map((t) => t.name).indexOf('echo')).toBe(1);
    expect(await client.callTool('echo', { text: 'x' })).toEqual({ content: [{ type: 'text', text: 'newer' }] });
    expect(errors.filter((what) => what.startsWith('server.remote'))).toHaveLength(2);
    catalog.remove();
    await client.nextNotification('notifications/tools/list_changed');
    expect((await client.listTools()).map((t) => t.name)).toEqual(['own']);
    expect(client.serverCapabilities.completions).toEqual({});
    await client.close();
    const later = await createTestClient(server);
    expect(later.serverCapabilities.completions).toBeUndefined();
    await later.close();
    await server.close();
  });

  test('a mounted server shows its remote items under the namespace', async () => {
    const child = new McpServer({ name: 'child', version: '1.0.0' });
    child.remote(items());
    const parent = new McpServer({ name: 'parent', version: '1.0.0' });
    parent.mount(child, { namespace: 'far' });
    const client = await createTestClient(parent, { protocolVersion: '2026-07-28' });
    expect(await client.callTool('far_echo', { text: 'mounted' })).toMatchObject({ content: [{ type: 'text', text: 'mounted' }] });
    expect(await client.readResource('remote://far/items/2')).toMatchObject({ contents: [{ uri: 'remote://far/items/2', text: 'item at remote://items/2' }] });
    expect((await client.complete({ type: 'ref/prompt', name: 'far_greet' }, { name: 'who', value: 'g' })).completion.values).toEqual(['grace']);
    // The remote item's own access rule holds where it is mounted, in listings too.
    expect((await client.listTools()).map((t) => t.name)).not.toContain('far_admin');
    await client.close();
    const admin = await createTestClient(parent, { principal: { subject: 'ada', scopes: ['remote:admin'], claims: {} } });
    expect((await admin.listTools()).map((t) => t.name)).toContain('far_admin');
    expect(await admin.callTool('far_admin')).toEqual({ content: [{ type: 'text', text: 'admin' }] });
    await admin.close();
    const stranger = await createTestClient(parent, { principal: { subject: 'eve', scopes: [], claims: {} } });
    expect((await stranger.listTools()).map((t) => t.name)).not.toContain('far_admin');
    await stranger.close();
    await parent.close();
  });
});

class Survey {
  runs = 0;

  @Tool({ description: 'Asks twice, carrying a counter across the rounds' })
  async survey(ctx: Context): Promise<string> {
    const seen = (ctx.carried.rounds as number | undefined) ?? 0;
    ctx.carried.rounds = seen + 1;
    const name = await ctx.elicit('Name?', { requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    const city = await ctx.elicit('City?', { requestedSchema: { type: 'object', properties: { city: { type: 'string' } } } });
    const said = (answer: typeof name, field: string) => (answer.action === 'accept' ? String(answer.content[field]) : answer.action);
    return `${said(name, 'name')} from ${said(city, 'city')}, ${String(ctx.carried.rounds)} runs`;
  }
}

describe('ctx.carried', () => {
  test('comes back on each retry of a 2026-07-28 request, signed with the answers; starts empty in the handshake era', async () => {
    const server = new McpServer({ name: 'carry', version: '1.0.0', providers: [Survey] });
    const elicitation = async (params: { message: string }) => ({ action: 'accept' as const, content: params.message === 'Name?' ? { name: 'Ada' } : { city: 'Paris' } });
    const modern = await createTestClient(server, { protocolVersion: '2026-07-28', elicitation });
    expect(await modern.callTool('survey')).toMatchObject({ content: [{ type: 'text', text: 'Ada from Paris, 3 runs' }] });
    await modern.close();
    const handshake = await createTestClient(server, { elicitation });
    expect(await handshake.callTool('survey')).toMatchObject({ content: [{ type: 'text', text: 'Ada from Paris, 1 runs' }] });
    await handshake.close();
    await server.close();
  });

  test('a state whose carried part was altered is refused', async () => {
    const server = new McpServer({ name: 'carry', version: '1.0.0', providers: [Survey] });
    const raw = await RawClient.connect(server);
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} }, 'io.modelcontextprotocol/clientInfo': { name: 't', version: '0' } };
    const round = (await raw.request('tools/call', { name: 'survey', _meta: meta })).result as { requestState: string; resultType: string };
    expect(round.resultType).toBe('input_required');
    const [body, signature] = round.requestState.split('.');
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { c?: Record<string, unknown> };
    expect(payload.c).toEqual({ rounds: 1 });
    payload.c = { rounds: 99 };
    const forged = `${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${signature}`;
    const answer = await raw.request('tools/call', { name: 'survey', _meta: meta, requestState: forged, inputResponses: { 'elicitation-1': { action: 'accept', content: { name: 'Eve' } } } });
    expect(answer.error).toMatchObject({ code: -32602, message: expect.stringContaining('integrity check failed') });
    await server.close();
  });
});

class Waits {
  static heard: unknown[] = [];

  @Tool({ description: 'Waits until cancelled, hearing of it through onCancel' })
  async wait(ctx: Context): Promise<string> {
    await new Promise<void>((resolve) => {
      const stop = ctx.onCancel((reason) => {
        Waits.heard.push(reason);
        resolve();
      });
      // A second listener, stopped before the cancellation, is not called.
      ctx.onCancel(() => Waits.heard.push('stopped listener called'))();
      void stop;
    });
    // Listening after the cancellation still hears of it, in a microtask.
    await new Promise<void>((resolve) => ctx.onCancel(() => resolve()));
    Waits.heard.push('late listener called');
    return 'cancelled';
  }
}

describe('ctx.onCancel', () => {
  test('calls its listener once with the reason when the client cancels; a stopped listener is not called; a late one is', async () => {
    const server = new McpServer({ name: 'cancel', version: '1.0.0', providers: [Waits] });
    const client = await createTestClient(server);
    const controller = new AbortController();
    const call = client.callTool('wait', undefined, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort('enough');
    await expect(call).rejects.toThrow(/cancelled/);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(Waits.heard).toHaveLength(2);
    expect(String(Waits.heard[0])).toMatch(/enough/);
    expect(Waits.heard[1]).toBe('late listener called');
    await client.close();
    await server.close();
  });
});
