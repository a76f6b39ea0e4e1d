import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { runTsPath } from '../../../../../test-support/spawnServer';
import { codecOf, isSessionless, restoreScope, sessionLifecycle, statelessVersion } from '../../../src/eras';
import type { EraSource, ServerDescription } from '../../../src/eras';
import { handshakeCodec } from '../../../src/eras/handshake/codec';
import { InputRound } from '../../../src/eras/modern/InputRound';
import { modernCodec } from '../../../src/eras/modern/codec';
import { ClientCapabilityError, InvalidClientResponseError, McpError } from '../../../src/errors';
import { PROTOCOL_VERSION_META, revisionOf } from '../../../src/protocol';
import { Session } from '../../../src/session';
import type { RequestChannel } from '../../../src/session';

function server(): ServerDescription {
  return {
    info: { name: 's', version: '1', title: 'S', description: 'd', icons: [{ src: 'https://example.com/i.png' }] },
    instructions: 'use it',
    capabilities: () => ({ tools: { listChanged: true } }),
    extensions: (revision) => (revision.era === 'modern' ? { 'io.example/x': {} } : {}),
    modern: {
      serverInfo: { name: 's', version: '1' },
      discoverInfo: { name: 's', version: '1', icons: [{ src: 'https://example.com/i.png' }] },
      requestStateKey: { secret: new Uint8Array(32).fill(7), ttlMs: 60_000 },
      cacheHint: (method) => (method === 'tools/list' ? { ttlMs: 5, cacheScope: 'public' } : undefined),
    },
  };
}

function source(): EraSource & { session: Session } {
  const channel = { notify: jest.fn(), request: jest.fn(), log: jest.fn() } as unknown as RequestChannel;
  const session = new Session({ request: jest.fn() }, sessionLifecycle.initialRevision);
  return { session, scope: session, channel, server: server() };
}

const modernMeta = (extra: Record<string, unknown> = {}) => ({
  _meta: { [PROTOCOL_VERSION_META]: '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { roots: {} }, ...extra },
});

describe('the handshake codec', () => {
  it('gives every request the session as its scope and the connection as its channel', () => {
    const from = source();
    sessionLifecycle.initialize(from.session, { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } }, from.server);
    from.session.logLevel = 'error';
    const { scope, channel, interrupt } = handshakeCodec.prepare(from, 'tools/list', {}, 1, undefined);
    expect(scope).toBe(from.session);
    expect(scope.protocolVersion).toBe('2025-06-18');
    expect(scope.revision).toBe(revisionOf('2025-06-18'));
    expect(scope.logLevel).toBe('error');
    expect(channel).toBe(from.channel);
    expect(interrupt).toBeUndefined();
    const result = { tools: [] };
    expect(handshakeCodec.complete(from, 'tools/list', result, { cacheScope: 'private' })).toBe(result);
  });

  it('refuses everything but ping until the client has sent initialize, and routes of other eras always', () => {
    const from = source();
    expect(handshakeCodec.refusal(from, 'tools/list', {}, { eras: undefined })?.message).toBe('Server not initialized: send "initialize" before "tools/list"');
    expect(handshakeCodec.refusal(from, 'ping', {}, {})).toBeUndefined();
    from.session.state = 'ready';
    expect(handshakeCodec.refusal(from, 'tools/list', {}, {})).toBeUndefined();
    expect(handshakeCodec.refusal(from, 'logging/setLevel', {}, { eras: ['handshake'] })).toBeUndefined();
    expect(handshakeCodec.refusal(from, 'server/discover', {}, { eras: ['modern'] })?.code).toBe(-32601);
  });

  it('answers protocol errors as they are, and nothing else', () => {
    const error = new McpError(-32602, 'bad');
    expect(handshakeCodec.error(error)).toBe(error);
    expect(handshakeCodec.error(new ClientCapabilityError('sampling', 'no'))).toBeUndefined();
    expect(handshakeCodec.error(new Error('x'))).toBeUndefined();
  });

  it('describes the server with what each revision can carry', () => {
    const described = (version: string) => handshakeCodec.describe(server(), revisionOf(version));
    expect(described('2024-11-05')).toEqual({ protocolVersion: '2024-11-05', capabilities: { tools: { listChanged: true } }, serverInfo: { name: 's', version: '1' }, instructions: 'use it' });
    expect(described('2025-06-18').serverInfo).toEqual({ name: 's', version: '1', title: 'S' });
    expect(described('2025-11-25').serverInfo).toEqual({ name: 's', version: '1', title: 'S', description: 'd', icons: [{ src: 'https://example.com/i.png' }] });
    expect(described('2025-11-25').capabilities).not.toHaveProperty('extensions');
  });
});

describe('the session lifecycle', () => {
  it('negotiates the revision at initialize: the requested one when served, else the newest', () => {
    for (const [asked, got] of [['2025-03-26', '2025-03-26'], ['2099-01-01', '2025-11-25'], ['2026-07-28', '2025-11-25']]) {
      const from = source();
      const result = sessionLifecycle.initialize(from.session, { protocolVersion: asked, capabilities: {}, clientInfo: { name: 'c', version: '1' } }, from.server);
      expect(result.protocolVersion).toBe(got);
      expect(from.session).toMatchObject({ protocolVersion: got, state: 'initializing', clientInfo: { name: 'c', version: '1' } });
      expect(sessionLifecycle.initialized(from.session)).toBe(true);
      expect(sessionLifecycle.initialized(from.session)).toBe(false);
    }
  });

  it('refuses a second initialize and malformed params', () => {
    const from = source();
    expect(() => sessionLifecycle.initialize(from.session, { protocolVersion: 1 }, from.server)).toThrow('Invalid initialize params: "protocolVersion" must be a string');
    expect(() => sessionLifecycle.initialize(from.session, { protocolVersion: '2025-11-25', capabilities: [] }, from.server)).toThrow('"capabilities" must be an object');
    expect(() => sessionLifecycle.initialize(from.session, { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c' } }, from.server)).toThrow('"clientInfo"');
    sessionLifecycle.initialize(from.session, { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } }, from.server);
    expect(() => sessionLifecycle.initialize(from.session, { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } }, from.server)).toThrow('The session is already initialized');
  });

  it('takes batches only in 2025-03-26, never empty, never before initialize', () => {
    const from = source();
    expect(sessionLifecycle.batchRefusal(from.session, 2)).toBe('JSON-RPC batches are not supported in protocol version (none negotiated yet)');
    sessionLifecycle.assume(from.session, '2025-03-26');
    expect(sessionLifecycle.batchRefusal(from.session, 2)).toBeUndefined();
    expect(sessionLifecycle.batchRefusal(from.session, 0)).toBe('an empty batch');
    const later = source();
    sessionLifecycle.assume(later.session, '2025-06-18');
    expect(sessionLifecycle.batchRefusal(later.session, 2)).toBe('JSON-RPC batches are not supported in protocol version 2025-06-18');
  });

  it('assumes a stateless session at the version the transport names (the newest for one not served) and restores a recorded one', () => {
    const stateless = source().session;
    sessionLifecycle.assume(stateless, '2025-03-26');
    expect(stateless).toMatchObject({ protocolVersion: '2025-03-26', state: 'ready', stateless: true });
    const unknown = source().session;
    sessionLifecycle.assume(unknown, '1999-01-01');
    expect(unknown.protocolVersion).toBe('2025-11-25');
    const restored = source().session;
    sessionLifecycle.restore(restored, { protocolVersion: '2025-06-18', clientCapabilities: { roots: {} }, state: 'ready', logLevel: 'debug', subscriptions: ['a://b'] });
    expect(restored).toMatchObject({ protocolVersion: '2025-06-18', state: 'ready', logLevel: 'debug', clientCapabilities: { roots: {} } });
    expect([...restored.subscriptions]).toEqual(['a://b']);
  });
});

describe('the modern codec', () => {
  it('reads the scope from the request _meta, with no session, and may end the request with input_required', () => {
    const { scope, channel, interrupt } = modernCodec.prepare(source(), 'tools/call', modernMeta({ 'io.modelcontextprotocol/logLevel': 'debug' }), 1, undefined);
    expect(scope).toMatchObject({ protocolVersion: '2026-07-28', clientCapabilities: { roots: {} }, logLevel: 'debug', session: undefined });
    expect(scope.revision).toBe(revisionOf('2026-07-28'));
    expect(channel).toBeInstanceOf(InputRound);
    expect(interrupt).toBeInstanceOf(Promise);
  });

  it('refuses a malformed _meta, an unserved version, and routes of other eras', () => {
    const from = source();
    expect(modernCodec.refusal(from, 'tools/list', { _meta: { [PROTOCOL_VERSION_META]: 1 } }, {})?.code).toBe(-32602);
    expect(modernCodec.refusal(from, 'tools/list', { _meta: { [PROTOCOL_VERSION_META]: '2099-01-01' } }, {})?.toJSON()).toMatchObject({ code: -32022, data: { requested: '2099-01-01' } });
    expect(modernCodec.refusal(from, 'tools/list', { _meta: { [PROTOCOL_VERSION_META]: '2026-07-28' } }, {})?.code).toBe(-32602);
    expect(modernCodec.refusal(from, 'tools/list', modernMeta({ 'io.modelcontextprotocol/logLevel': 'loud' }), {})?.code).toBe(-32602);
    expect(modernCodec.refusal(from, 'tools/list', modernMeta({ 'io.modelcontextprotocol/clientInfo': { version: '1' } }), {})?.code).toBe(-32602);
    expect(modernCodec.refusal(from, 'tools/list', modernMeta(), {})).toBeUndefined();
    expect(modernCodec.refusal(from, 'ping', modernMeta(), { eras: ['handshake'] })?.toJSON()).toEqual({ code: -32601, message: 'Method not found: ping (not part of protocol 2026-07-28)' });
  });

  it('completes results with resultType, the server identity and the cache hint, the handler\'s hints first', () => {
    const from = source();
    expect(modernCodec.complete(from, 'tools/list', { tools: [], _meta: { mine: 1 } }, undefined)).toEqual({
      tools: [],
      resultType: 'complete',
      ttlMs: 5,
      cacheScope: 'public',
      _meta: { mine: 1, 'io.modelcontextprotocol/serverInfo': { name: 's', version: '1' } },
    });
    expect(modernCodec.complete(from, 'tools/list', { tools: [] }, { cacheScope: 'private' })).toMatchObject({ ttlMs: 5, cacheScope: 'private' });
    // An interim result carries no cache hint, nor does a method that is not cacheable.
    expect(modernCodec.complete(from, 'tools/list', { resultType: 'input_required', requestState: 'x' }, undefined)).not.toHaveProperty('ttlMs');
    expect(modernCodec.complete(from, 'tools/call', { content: [] }, { ttlMs: 9 })).not.toHaveProperty('ttlMs');
    // server/discover names the server with its icons, which may be data URIs too large for every result.
    expect((modernCodec.complete(from, 'server/discover', { supportedVersions: [] }, undefined)._meta as Record<string, unknown>)['io.modelcontextprotocol/serverInfo']).toEqual({
      name: 's',
      version: '1',
      icons: [{ src: 'https://example.com/i.png' }],
    });
  });

  it('copies the result as it is, leaving the handler\'s object untouched', () => {
    const from = source();
    const result = JSON.parse('{"content":[],"__proto__":{"polluted":true},"isError":false}') as Record<string, unknown>;
    const completed = modernCodec.complete(from, 'tools/call', result, undefined);
    expect(Object.getPrototypeOf(completed)).toBe(Object.prototype);
    expect((completed as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.keys(completed)).toEqual(['content', '__proto__', 'isError', 'resultType', '_meta']);
    expect(JSON.parse(JSON.stringify(completed)).__proto__).toEqual({ polluted: true });
    expect(result).not.toHaveProperty('resultType');
    expect(result).not.toHaveProperty('_meta');
    // Keys Object.prototype has are defined, not assigned through it.
    const shadowing = { content: [], constructor: 'c', toString: 't' };
    expect(modernCodec.complete(from, 'tools/call', shadowing, undefined)).toMatchObject({ constructor: 'c', toString: 't', resultType: 'complete' });
    // Even with Object.prototype frozen (a hardened process): measured in a child process.
    const script = [
      `const { modernCodec } = require(${JSON.stringify(path.resolve(__dirname, '../../../src/eras/modern/codec'))});`,
      'Object.freeze(Object.prototype);',
      "const from = { server: { modern: { serverInfo: { name: 's', version: '1' }, cacheHint: () => undefined } } };",
      "process.stdout.write(JSON.stringify(modernCodec.complete(from, 'tools/call', { content: [], constructor: 'c', toString: 't' })));",
    ].join('\n');
    const child = spawnSync(process.execPath, ['-r', runTsPath, '-e', script], { encoding: 'utf8' });
    expect(child.stderr).toBe('');
    expect(JSON.parse(child.stdout)).toMatchObject({ constructor: 'c', toString: 't', resultType: 'complete' });
    // Inherited properties are not the result's.
    const inherited = Object.assign(Object.create({ inheritedKey: 1 }) as Record<string, unknown>, { content: [] });
    expect(modernCodec.complete(from, 'tools/call', inherited, undefined)).not.toHaveProperty('inheritedKey');
  });

  it('sends a missing capability as -32021 with the capability object, a bad input response and -32002 as -32602', () => {
    expect(modernCodec.error(new ClientCapabilityError('sampling.tools', 'no tools'))?.toJSON()).toEqual({
      code: -32021,
      message: 'no tools',
      data: { requiredCapabilities: { sampling: { tools: {} } } },
    });
    expect(modernCodec.error(new InvalidClientResponseError('odd'))?.toJSON()).toEqual({ code: -32602, message: 'Invalid input response: odd' });
    expect(modernCodec.error(new McpError(-32002, 'Resource not found: x', { uri: 'x' }))?.toJSON()).toEqual({ code: -32602, message: 'Resource not found: x', data: { uri: 'x' } });
    expect(modernCodec.error(new Error('x'))).toBeUndefined();
  });

  it('describes the server for server/discover, extensions among the capabilities', () => {
    expect(modernCodec.describe(server(), revisionOf('2026-07-28'))).toEqual({
      supportedVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'],
      capabilities: { tools: { listChanged: true }, extensions: { 'io.example/x': {} } },
      instructions: 'use it',
    });
  });
});

describe('codecOf', () => {
  it.each([
    ['no _meta', {}],
    ['a _meta without a version', { _meta: { progressToken: 1 } }],
    ['a _meta that is not an object', { _meta: 'x' }],
    ['a null _meta', { _meta: null }],
  ])('picks the handshake codec for a request with %s', (_label, params) => {
    expect(codecOf(params as Record<string, unknown>)).toBe(handshakeCodec);
  });

  it.each([
    ['a served version', '2026-07-28'],
    ['a version this server does not serve', '2099-01-01'],
    ['a version that is not a string', 20260728],
  ])('picks the modern codec for a request naming %s (which that codec checks)', (_label, version) => {
    expect(codecOf({ _meta: { [PROTOCOL_VERSION_META]: version } })).toBe(modernCodec);
  });
});

describe('Streamable HTTP and the eras', () => {
  it('serves without a session a request that names 2026-07-28 in its _meta or its header', () => {
    expect(isSessionless(undefined, { method: 'tools/list', params: modernMeta() })).toBe(true);
    expect(isSessionless('2026-07-28', { method: 'tools/list' })).toBe(true);
    expect(isSessionless(' 2026-07-28 ', { method: 'tools/list' })).toBe(true);
    expect(isSessionless('2025-11-25', { method: 'tools/list' })).toBe(false);
    expect(isSessionless('2026-07-28', [{ method: 'tools/list' }])).toBe(false);
    expect(isSessionless('2026-07-28', { result: {} })).toBe(false);
  });

  it('takes the version of a stateless handshake-era request from its header, 2025-03-26 without one', () => {
    expect(statelessVersion(undefined)).toEqual({ version: '2025-03-26' });
    expect(statelessVersion('2025-06-18')).toEqual({ version: '2025-06-18' });
    expect(statelessVersion('2026-07-28').refused).toBe('unsupported MCP-Protocol-Version "2026-07-28" (supported: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25)');
  });
});

describe('restoreScope', () => {
  it('restores a saved request in its era, its live session first, an unserved version as the newest handshake one', () => {
    const modern = restoreScope({ protocolVersion: '2026-07-28', clientCapabilities: { extensions: {} } }, undefined);
    expect(modern.codec).toBe(modernCodec);
    expect(modern.scope).toMatchObject({ protocolVersion: '2026-07-28', clientCapabilities: { extensions: {} }, session: undefined });
    expect(restoreScope({ protocolVersion: '2025-06-18', clientCapabilities: {} }, undefined).codec).toBe(handshakeCodec);
    expect(restoreScope({ protocolVersion: '1999-01-01', clientCapabilities: {} }, undefined).scope.protocolVersion).toBe('2025-11-25');
    const session = source().session;
    expect(restoreScope({ protocolVersion: '2026-07-28', clientCapabilities: {} }, session)).toEqual({ scope: session, codec: handshakeCodec });
  });
});
