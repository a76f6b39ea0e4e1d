import { PROTOCOL_VERSION_META } from '../../../src/protocol';
import { eraOf, handshakeEra, Session } from '../../../src/session';
import type { EraSource, RequestChannel } from '../../../src/session';

function source(): EraSource {
  const channel = { notify: jest.fn(), request: jest.fn(), log: jest.fn() } as unknown as RequestChannel;
  return { session: new Session({ request: jest.fn() }), channel };
}

describe('handshakeEra', () => {
  it('gives every request the session as its scope and the connection as its channel', () => {
    const from = source();
    from.session.protocolVersion = '2025-06-18';
    from.session.logLevel = 'error';
    const scope = handshakeEra.scope(from, {});
    expect(scope).toBe(from.session);
    expect(scope.protocolVersion).toBe('2025-06-18');
    expect(scope.logLevel).toBe('error');
    expect(handshakeEra.channel(from, {})).toBe(from.channel);
  });

  it('refuses everything but ping until the client has sent initialize', () => {
    const from = source();
    expect(handshakeEra.refusal(from, 'tools/list')).toBe('Server not initialized: send "initialize" before "tools/list"');
    expect(handshakeEra.refusal(from, 'ping')).toBeUndefined();
    from.session.state = 'initializing';
    expect(handshakeEra.refusal(from, 'tools/list')).toBeUndefined();
    from.session.state = 'ready';
    expect(handshakeEra.refusal(from, 'tools/list')).toBeUndefined();
  });
});

describe('eraOf', () => {
  it.each([
    ['no _meta', {}],
    ['a _meta without a version', { _meta: { progressToken: 1 } }],
    ['a served version', { _meta: { [PROTOCOL_VERSION_META]: '2025-06-18' } }],
    ['a version this server does not serve', { _meta: { [PROTOCOL_VERSION_META]: '2026-07-28' } }],
    ['a version that is not a string', { _meta: { [PROTOCOL_VERSION_META]: 20260728 } }],
    ['a _meta that is not an object', { _meta: 'x' }],
    ['a null _meta', { _meta: null }],
  ])('picks the handshake era for a request with %s', (_label, params) => {
    expect(eraOf(params as Record<string, unknown>)).toBe(handshakeEra);
  });
});
