import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { runTsPath } from '../../../../../test-support/spawnServer';
import { ClientCapabilityError, McpError } from '../../../src/errors';
import { PROTOCOL_VERSION_META } from '../../../src/protocol';
import { eraOf, handshakeEra, InputRound, modernEra, Session } from '../../../src/session';
import type { EraSource, RequestChannel } from '../../../src/session';

function source(): EraSource {
  const channel = { notify: jest.fn(), request: jest.fn(), log: jest.fn() } as unknown as RequestChannel;
  return {
    session: new Session({ request: jest.fn() }),
    channel,
    modern: {
      serverInfo: { name: 's', version: '1' },
      requestStateKey: { secret: Buffer.alloc(32, 7), ttlMs: 60_000 },
      cacheHint: (method) => (method === 'tools/list' ? { ttlMs: 5, cacheScope: 'public' } : undefined),
    },
    principal: undefined,
  };
}

const modernMeta = (extra: Record<string, unknown> = {}) => ({
  _meta: { [PROTOCOL_VERSION_META]: '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { roots: {} }, ...extra },
});

describe('handshakeEra', () => {
  it('gives every request the session as its scope and the connection as its channel', () => {
    const from = source();
    from.session.protocolVersion = '2025-06-18';
    from.session.logLevel = 'error';
    const { scope, channel } = handshakeEra.prepare(from, 'tools/list', {}, 1);
    expect(scope).toBe(from.session);
    expect(scope.protocolVersion).toBe('2025-06-18');
    expect(scope.logLevel).toBe('error');
    expect(channel).toBe(from.channel);
    const result = { tools: [] };
    expect(handshakeEra.complete(from, 'tools/list', result)).toBe(result);
  });

  it('refuses everything but ping until the client has sent initialize, and the 2026-07-28 methods always', () => {
    const from = source();
    expect(handshakeEra.refusal(from, 'tools/list', {})?.message).toBe('Server not initialized: send "initialize" before "tools/list"');
    expect(handshakeEra.refusal(from, 'ping', {})).toBeUndefined();
    from.session.state = 'ready';
    expect(handshakeEra.refusal(from, 'tools/list', {})).toBeUndefined();
    expect(handshakeEra.refusal(from, 'server/discover', {})?.code).toBe(-32601);
    expect(handshakeEra.refusal(from, 'subscriptions/listen', {})?.code).toBe(-32601);
  });
});

describe('modernEra', () => {
  it('reads the scope from the request _meta, with no session', () => {
    const { scope, channel } = modernEra.prepare(source(), 'tools/call', modernMeta({ 'io.modelcontextprotocol/logLevel': 'debug' }), 1);
    expect(scope).toMatchObject({ protocolVersion: '2026-07-28', clientCapabilities: { roots: {} }, logLevel: 'debug', session: undefined });
    expect(channel).toBeInstanceOf(InputRound);
  });

  it('completes results with resultType, the server identity and the cache hint of the method', () => {
    const from = source();
    expect(modernEra.complete(from, 'tools/list', { tools: [], _meta: { mine: 1 } })).toEqual({
      tools: [],
      resultType: 'complete',
      ttlMs: 5,
      cacheScope: 'public',
      _meta: { mine: 1, 'io.modelcontextprotocol/serverInfo': { name: 's', version: '1' } },
    });
    // An interim result carries no cache hint.
    expect(modernEra.complete(from, 'tools/list', { resultType: 'input_required', requestState: 'x' })).not.toHaveProperty('ttlMs');
  });

  it('copies the result as it is, leaving the handler\'s object untouched', () => {
    const from = source();
    const result = JSON.parse('{"content":[],"__proto__":{"polluted":true},"isError":false}') as Record<string, unknown>;
    const completed = modernEra.complete(from, 'tools/call', result);
    expect(Object.getPrototypeOf(completed)).toBe(Object.prototype);
    expect((completed as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.keys(completed)).toEqual(['content', '__proto__', 'isError', 'resultType', '_meta']);
    expect(JSON.parse(JSON.stringify(completed)).__proto__).toEqual({ polluted: true });
    expect(result).not.toHaveProperty('resultType');
    expect(result).not.toHaveProperty('_meta');
    // Keys Object.prototype has are defined, not assigned through it.
    const shadowing = { content: [], constructor: 'c', toString: 't' };
    expect(modernEra.complete(from, 'tools/call', shadowing)).toMatchObject({ constructor: 'c', toString: 't', resultType: 'complete' });
    // Even with Object.prototype frozen (a hardened process): measured in a child process.
    const script = [
      `const { modernEra } = require(${JSON.stringify(path.resolve(__dirname, '../../../src/session'))});`,
      'Object.freeze(Object.prototype);',
      "const from = { modern: { serverInfo: { name: 's', version: '1' }, cacheHint: () => undefined } };",
      "process.stdout.write(JSON.stringify(modernEra.complete(from, 'tools/call', { content: [], constructor: 'c', toString: 't' })));",
    ].join('\n');
    const child = spawnSync(process.execPath, ['-r', runTsPath, '-e', script], { encoding: 'utf8' });
    expect(child.stderr).toBe('');
    expect(JSON.parse(child.stdout)).toMatchObject({ constructor: 'c', toString: 't', resultType: 'complete' });
    // Inherited properties are not the result's.
    const inherited = Object.assign(Object.create({ inheritedKey: 1 }) as Record<string, unknown>, { content: [] });
    expect(modernEra.complete(from, 'tools/call', inherited)).not.toHaveProperty('inheritedKey');
  });

  it('sends a missing capability as -32021 with the capability object, and -32002 as -32602', () => {
    const missing = modernEra.error(new ClientCapabilityError('sampling.tools', 'no tools')) as McpError;
    expect(missing.toJSON()).toEqual({ code: -32021, message: 'no tools', data: { requiredCapabilities: { sampling: { tools: {} } } } });
    const notFound = modernEra.error(new McpError(-32002, 'Resource not found: x', { uri: 'x' })) as McpError;
    expect(notFound.toJSON()).toEqual({ code: -32602, message: 'Resource not found: x', data: { uri: 'x' } });
    const other = new Error('x');
    expect(modernEra.error(other)).toBe(other);
  });
});

describe('eraOf', () => {
  it.each([
    ['no _meta', {}],
    ['a _meta without a version', { _meta: { progressToken: 1 } }],
    ['a _meta that is not an object', { _meta: 'x' }],
    ['a null _meta', { _meta: null }],
  ])('picks the handshake era for a request with %s', (_label, params) => {
    expect(eraOf(params as Record<string, unknown>)).toBe(handshakeEra);
  });

  it.each([
    ['a served version', '2026-07-28'],
    ['a version this server does not serve', '2099-01-01'],
    ['a version that is not a string', 20260728],
  ])('picks the modern era for a request naming %s (which that era checks)', (_label, version) => {
    expect(eraOf({ _meta: { [PROTOCOL_VERSION_META]: version } })).toBe(modernEra);
  });
});
