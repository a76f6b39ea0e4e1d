import 'reflect-metadata';
import { DefinitionError, McpServer, metadataStore, Tool } from '@typemcp/core';
import type { Plugin, PluginHost } from '@typemcp/core';
import { createTestClient } from '@typemcp/testing';

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
      'McpServer.plugin: "c" needs "auth", "metrics" added before it (added so far: core:ping, core:logging, core:tools, core:prompts, core:resources, core:completion, a, b)',
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
});
