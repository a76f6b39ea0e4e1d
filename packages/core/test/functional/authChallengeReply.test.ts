/**
 * What an authentication may add to its refusals: parameters of its own, carried from the
 * AccessDeniedError it throws to its challenge, several challenges in one value, and headers
 * beside WWW-Authenticate (only those that can be sent, and none the answer sets itself).
 */
import 'reflect-metadata';
import { AccessDeniedError, AuthenticationService, McpServer, metadataStore, Scopes, Tool } from '@typemcp/core';
import type { AuthChallenge, Plugin } from '@typemcp/core';

const seen: AuthChallenge[] = [];
const nonceAuth: Plugin<void> = {
  name: 'nonce-auth',
  register(host) {
    host.provide(AuthenticationService, {
      authenticate(req) {
        const header = req.headers.get('authorization');
        if (header === null) return undefined;
        if (header === 'Proof fresh') return { subject: 'ann', scopes: [], claims: {} };
        throw new AccessDeniedError('invalid_token', 'A nonce is needed', { challenge: { scheme: 'Proof', error: 'use_nonce', nonce: 'n-1' } });
      },
      challenge(challenge) {
        seen.push(challenge);
        const params = challenge.params;
        if (params === undefined) return `Bearer realm="notes"`;
        return {
          wwwAuthenticate: `${params.scheme} error="${params.error}", Bearer realm="notes"`,
          headers: { 'Proof-Nonce': params.nonce, 'WWW-Authenticate': 'overridden', 'content-type': 'text/plain', 'bad name': 'x', 'x-bad-value': 'a\nb' },
        };
      },
    });
  },
};

let server: McpServer;
let url: string;

beforeEach(async () => {
  metadataStore.clear();
  seen.length = 0;
  class Notes {
    @Tool({ description: 'Reads' })
    @Scopes('notes:read')
    read(): string {
      return 'notes';
    }
  }
  server = new McpServer({ name: 'notes', version: '1.0.0', providers: [Notes] });
  server.plugin(nonceAuth, undefined);
  ({ url } = await server.listen({ transport: 'http', port: 0, handleSignals: false }));
});
afterEach(() => server.close());

const initialize = (authorization?: string) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(authorization ? { authorization } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  });

it('passes the challenge parameters of the refusal on, and sends the challenges and headers the authentication answers', async () => {
  const refused = await initialize('Proof stale');
  expect(refused.status).toBe(401);
  expect(refused.headers.get('www-authenticate')).toBe('Proof error="use_nonce", Bearer realm="notes"');
  expect(refused.headers.get('proof-nonce')).toBe('n-1');
  expect(refused.headers.get('content-type')).toBe('application/json');
  expect(refused.headers.has('x-bad-value')).toBe(false);
  expect(seen).toEqual([{ error: 'invalid_token', description: 'A nonce is needed', scopes: undefined, params: { scheme: 'Proof', error: 'use_nonce', nonce: 'n-1' } }]);
  expect(await refused.json()).toMatchObject({ error: { code: -32003, data: { reason: 'invalid_token', challenge: { scheme: 'Proof', error: 'use_nonce', nonce: 'n-1' } } } });
});

it('keeps a challenge without parameters as it was', async () => {
  const anonymous = await initialize();
  expect([anonymous.status, anonymous.headers.get('www-authenticate')]).toEqual([401, 'Bearer realm="notes"']);
  expect(seen[0].params).toBeUndefined();
  expect((await initialize('Proof fresh')).status).toBe(200);
});
