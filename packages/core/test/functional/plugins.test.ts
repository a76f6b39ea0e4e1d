import 'reflect-metadata';
import { DefinitionError, McpServer, metadataStore, Tool } from '@typemcp/core';
import type { Plugin, PluginHost } from '@typemcp/core';
import { createTestClient } from '@typemcp/testing';
import { checkedClients, RawClient } from './rawClient';

function declareProviders() {
  class Hello {
    @Tool({ description: 'Says hello' })
    hello(): string {
      return 'hello';
    }
  }
  return { Hello };
}

let Hello: ReturnType<typeof declareProviders>['Hello'];
beforeEach(() => {
  metadataStore.clear();
  ({ Hello } = declareProviders());
});

const server = () => new McpServer({ name: 'with-plugins', version: '2.0.0', providers: [Hello] });
const thrown = (apply: () => unknown): DefinitionError => {
  try {
    apply();
  } catch (error) {
    return error as DefinitionError;
  }
  throw new Error('expected a DefinitionError');
};

/** A plugin that counts calls per method and answers `stats/get`. */
const stats: Plugin<{ prefix: string }> = {
  name: 'stats',
  version: '1.0.0',
  register(host, { prefix }) {
    const counts: Record<string, number> = {};
    host.use(async (ctx, next) => {
      counts[ctx.method] = (counts[ctx.method] ?? 0) + 1;
      return next();
    });
    host.route(`${prefix}/get`, () => ({ counts: { ...counts }, server: host.serverInfo.name }));
    host.capability('experimental', { [prefix]: {} });
  },
};

describe('McpServer.plugin', () => {
  it('adds routes, capabilities and middleware, with the options given', async () => {
    const s = server().plugin(stats, { prefix: 'stats' });
    const client = await createTestClient(s);
    expect(client.serverCapabilities).toEqual({ logging: {}, tools: { listChanged: true }, experimental: { stats: {} } });
    await client.callTool('hello');
    await client.listTools();
    const answer = await client.request('stats/get');
    expect(answer).toEqual({ counts: { 'tools/call': 1, 'tools/list': 1, 'stats/get': 1 }, server: 'with-plugins' });
    await client.close();
    await s.close();
  });

  it('registers in order: a plugin may depend on one added before it, and on the built-in features', () => {
    const order: string[] = [];
    const named = (name: string, dependencies?: string[]): Plugin => ({ name, dependencies, register: () => void order.push(name) });
    const s = server();
    s.plugin(named('a', ['core:tools'])).plugin(named('b', ['a']));
    expect(order).toEqual(['a', 'b']);
    const error = thrown(() => s.plugin(named('c', ['auth', 'b', 'metrics'])));
    expect(error.code).toBe('PLUGIN_DEPENDENCY_MISSING');
    expect(error.message).toBe(
      'McpServer.plugin: "c" needs "auth", "metrics" added before it (added so far: core:ping, core:discover, core:logging, core:tools, core:tasks, core:prompts, core:resources, core:skills, core:apps, core:completion, core:subscriptions, core:sampling, core:elicitation, core:roots, a, b)',
    );
    expect(order).toEqual(['a', 'b']);
  });

  it('refuses a duplicate plugin, route or capability, and adds nothing of a plugin that fails', async () => {
    const s = server().plugin(stats, { prefix: 'stats' });
    expect(thrown(() => s.plugin(stats, { prefix: 'other' }))).toMatchObject({ code: 'DUPLICATE_NAME', message: 'McpServer.plugin: a plugin named "stats" is already added' });

    const stealsToolsCall: Plugin = { name: 'thief', register: (host) => host.route('tools/call', () => ({})) };
    expect(thrown(() => s.plugin(stealsToolsCall))).toMatchObject({ code: 'DUPLICATE_NAME', message: 'plugin "thief": the method "tools/call" already has a handler' });

    const half: Plugin = {
      name: 'half',
      register(host: PluginHost) {
        host.route('half/ping', () => ({}));
        host.capability('tools', {});
      },
    };
    expect(thrown(() => s.plugin(half)).message).toBe('plugin "half": the capability "tools" is already declared');
    // Nothing of it stayed: its name is free and its route unknown.
    s.plugin({ name: 'half', register: () => undefined });
    const client = await createTestClient(s);
    await expect(client.request('half/ping')).rejects.toMatchObject({ code: -32601 });
    await client.close();
    await s.close();
  });

  it('refuses what is not a plugin, and plugins added once the server serves', async () => {
    const s = server();
    expect(thrown(() => s.plugin({ name: '', register: () => undefined })).message).toBe(
      'McpServer.plugin: a plugin is an object with a non-empty string "name" and a "register(host, options)" function',
    );
    expect(() => s.plugin(null as unknown as Plugin)).toThrow(DefinitionError);
    const client = await createTestClient(s);
    expect(thrown(() => s.plugin({ name: 'late', register: () => undefined }))).toMatchObject({
      code: 'INVALID_OPTION',
      message: 'McpServer.plugin: add "late" before the server connects or listens',
    });
    await client.close();
    await s.close();
  });

  it('passes errors of its routes on like any handler and runs close hooks when the server closes', async () => {
    const closed: string[] = [];
    const reported: string[] = [];
    const s = new McpServer({ name: 's', version: '1', providers: [Hello], onError: (what) => reported.push(what) });
    s.plugin({
      name: 'fragile',
      register(host) {
        host.route('fragile/run', () => {
          throw new Error('secret detail');
        });
        host.onClose(() => void closed.push('first'));
        host.onClose(async () => {
          closed.push('second');
          throw new Error('cannot flush');
        });
      },
    });
    const client = await createTestClient(s);
    await expect(client.request('fragile/run')).rejects.toMatchObject({ code: -32603, message: 'fragile/run failed with -32603: Internal error' });
    await client.close();
    await s.close();
    expect(closed).toEqual(['first', 'second']);
    expect(reported).toEqual(['"fragile/run" failed', 'a plugin close hook failed']);
  });

  it('declares capabilities per protocol version', async () => {
    const s = server().plugin({ name: 'newer', register: (host) => host.capability('experimental', (version) => (version >= '2025-06-18' ? { newer: {} } : undefined)) });
    const old = await createTestClient(s, { protocolVersion: '2025-03-26' });
    const recent = await createTestClient(s, { protocolVersion: '2025-06-18' });
    expect(old.serverCapabilities.experimental).toBeUndefined();
    expect(recent.serverCapabilities.experimental).toEqual({ newer: {} });
    await old.close();
    await recent.close();
    await s.close();
  });

  it('adds a method a plain JSON-RPC client can call, with the params it sent and the request Context', async () => {
    const s = server().plugin({
      name: 'echo',
      register: (host) => host.route('echo/say', (params, ctx) => ({ said: params.text, method: ctx.method, client: ctx.clientInfo?.name ?? null })),
    });
    const client = await RawClient.initialized(s);
    expect(await client.request('echo/say', { text: 'hi' }, 7)).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: { said: 'hi', method: 'echo/say', client: 'raw-client' },
    });
    // Its method follows the lifecycle like every other: not before initialize.
    const early = await RawClient.connect(s);
    expect((await early.request('echo/say', {}, 1)).error).toEqual({ code: -32600, message: 'Server not initialized: send "initialize" before "echo/say"' });
    await client.close();
    await early.close();
    await s.close();
  });

  it('routes client notifications to plugins, with the scope of the client that sent them', async () => {
    const heard: Array<{ params: Record<string, unknown>; version: string; client?: string; session: boolean }> = [];
    const reported: Array<[string, string]> = [];
    const s = new McpServer({ name: 's', version: '1', providers: [Hello], onError: (what, error) => reported.push([what, (error as Error).message]) });
    s.plugin({
      name: 'listener',
      register(host) {
        host.onNotification('notifications/custom/changed', (params, scope) => {
          heard.push({ params, version: scope.protocolVersion, client: scope.clientInfo?.name, session: scope.session !== undefined });
        });
        host.onNotification('notifications/custom/broken', () => {
          throw new Error('cannot handle');
        });
        host.onNotification('notifications/custom/rejects', async () => {
          throw new Error('cannot handle later');
        });
      },
    });
    const client = await RawClient.initialized(s, '2025-06-18');
    client.send({ jsonrpc: '2.0', method: 'notifications/custom/changed', params: { what: 'all' } });
    client.send({ jsonrpc: '2.0', method: 'notifications/custom/broken' });
    client.send({ jsonrpc: '2.0', method: 'notifications/custom/rejects' });
    client.send({ jsonrpc: '2.0', method: 'notifications/nobody/listens' });
    await client.settle();
    expect(heard).toEqual([{ params: { what: 'all' }, version: '2025-06-18', client: 'raw-client', session: true }]);
    expect(reported).toEqual([
      ['notification "notifications/custom/broken" failed', 'cannot handle'],
      ['notification "notifications/custom/rejects" failed', 'cannot handle later'],
    ]);
    // A notification has no answer, whatever its handler did; the server keeps serving.
    expect(client.received.filter((r) => r.message.id === undefined)).toEqual([]);
    expect((await client.request('ping')).result).toEqual({});
    await client.close();
    await s.close();
  });

  it('refuses the lifecycle methods, taken notifications and bad routes', () => {
    const s = server();
    expect(thrown(() => s.plugin({ name: 'handshake', register: (host) => host.route('initialize', () => ({})) }))).toMatchObject({
      code: 'INVALID_OPTION',
      message: 'plugin "handshake": "initialize" belongs to the protocol lifecycle, which the connection handles itself; it cannot be routed',
    });
    expect(thrown(() => s.plugin({ name: 'cancel', register: (host) => host.onNotification('notifications/cancelled', () => undefined) })).code).toBe('INVALID_OPTION');
    expect(thrown(() => s.plugin({ name: 'roots', register: (host) => host.onNotification('notifications/roots/list_changed', () => undefined) }))).toMatchObject({
      code: 'DUPLICATE_NAME',
      message: 'plugin "roots": the notification "notifications/roots/list_changed" already has a handler',
    });
    const twice: Plugin = {
      name: 'twice',
      register(host) {
        host.onNotification('notifications/x', () => undefined);
        host.onNotification('notifications/x', () => undefined);
      },
    };
    expect(thrown(() => s.plugin(twice)).code).toBe('DUPLICATE_NAME');
    expect(() => s.plugin({ name: 'bad', register: (host) => host.onNotification('notifications/y', 'nope' as never) })).toThrow(
      new TypeError('plugin "bad": onNotification(method, handler) needs a method name and a function'),
    );
  });
});

it('works as the guide shows: counts requests, answers its method and clears on its notification', async () => {
  const requestStats: Plugin<{ method: string }> = {
    name: 'request-stats',
    dependencies: ['core:tools'],
    register(host, options) {
      const counts = new Map<string, number>();
      host.use((ctx, next) => {
        counts.set(ctx.method, (counts.get(ctx.method) ?? 0) + 1);
        return next();
      });
      host.route(options.method, () => ({ counts: Object.fromEntries(counts) }));
      host.onNotification('notifications/stats/reset', () => counts.clear());
      host.capability('experimental', { requestStats: { method: options.method } });
    },
  };
  const s = server().plugin(requestStats, { method: 'stats/get' });
  const client = await createTestClient(s);
  expect(client.serverCapabilities.experimental).toEqual({ requestStats: { method: 'stats/get' } });
  await client.callTool('hello');
  expect(await client.request('stats/get')).toEqual({ counts: { 'tools/call': 1, 'stats/get': 1 } });
  await client.notify('notifications/stats/reset');
  await new Promise((resolve) => setTimeout(resolve, 10));
  expect(await client.request('stats/get')).toEqual({ counts: { 'stats/get': 1 } });
  await client.close();
  await s.close();
});

describe('the built-in features as plugins', () => {
  const connect = checkedClients();

  it('declare their capabilities only while they have something to offer, and answer their methods anyway', async () => {
    const bare = new McpServer({ name: 'bare', version: '1' });
    const client = await connect(bare);
    const init = client.received.find((r) => r.requestMethod === 'initialize')!.message;
    expect(init.result.capabilities).toEqual({ logging: {} });
    // Their methods answer anyway: an empty list.
    expect((await client.request('tools/list')).result).toEqual({ tools: [] });
    await bare.close();
  });
});
