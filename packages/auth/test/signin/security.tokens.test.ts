import { decodeJwt, generateKeyPair, SignJWT } from 'jose';
import type { CryptoKey, JWTHeaderParameters } from 'jose';
import { MemorySignInStore } from '@typemcp/auth';
import { KeyRing } from '../../src/signin/tokens/KeyRing';
import { CALLBACK, pkce, SignInKit } from './securityKit';

// The token, revocation and MCP endpoints, attacked with stolen, replayed and forged tokens.
const SECRET = 'a test secret of at least thirty-two characters';
const store = new MemorySignInStore();
let kit: SignInKit;
beforeAll(async () => {
  kit = await SignInKit.start({ store, secret: SECRET });
});
afterAll(() => kit.close());

async function expectRefused(accessToken: string) {
  const answer = await kit.mcp(accessToken);
  expect(answer.status).toBe(401);
  expect(answer.challenge).toContain('error="invalid_token"');
}

async function expectAccepted(accessToken: string) {
  expect((await kit.mcp(accessToken)).status).toBe(200);
}

describe('a code used twice', () => {
  test('the second exchange gets invalid_grant, and what the first issued is revoked', async () => {
    const { code, request } = await kit.code(await kit.publicClient());
    const first = await kit.exchange(code, request);
    expect(first.status).toBe(200);
    await expectAccepted(first.body.access_token as string);
    const second = await kit.exchange(code, request);
    expect(second.body.error).toBe('invalid_grant');
    expect(second.body.access_token).toBeUndefined();
    await expectRefused(first.body.access_token as string);
    expect((await kit.refresh(request.clientId, first.body.refresh_token as string)).body.error).toBe('invalid_grant');
  });

  test('a replay that arrives while the first exchange is still running revokes its tokens too', async () => {
    for (let round = 0; round < 5; round++) {
      const { code, request } = await kit.code(await kit.publicClient());
      const answers = await Promise.all([kit.exchange(code, request), kit.exchange(code, request)]);
      const issued = answers.filter((answer) => answer.status === 200);
      expect(answers.filter((answer) => answer.body.error === 'invalid_grant')).toHaveLength(2 - issued.length);
      for (const answer of issued) {
        await expectRefused(answer.body.access_token as string);
        expect((await kit.refresh(request.clientId, answer.body.refresh_token as string)).body.error).toBe('invalid_grant');
      }
    }
  });

  test('a code presented by another client gets invalid_grant', async () => {
    const { code, request } = await kit.code(await kit.publicClient());
    const thief = await kit.publicClient();
    const answer = await kit.exchange(code, { ...request, clientId: thief });
    expect(answer.body.error).toBe('invalid_grant');
  });

  test('a code for another resource gets invalid_target', async () => {
    const { code, request } = await kit.code(await kit.publicClient());
    const answer = await kit.exchange(code, request, { resource: 'https://other.example/mcp' });
    expect(answer.body.error).toBe('invalid_target');
  });
});

describe('refresh tokens', () => {
  test('each refresh rotates the refresh token', async () => {
    const { clientId, tokens } = await kit.tokens();
    const second = await kit.refresh(clientId, tokens.refresh_token);
    const third = await kit.refresh(clientId, second.body.refresh_token as string);
    expect(third.status).toBe(200);
    expect(new Set([tokens.refresh_token, second.body.refresh_token, third.body.refresh_token]).size).toBe(3);
  });

  test('a refresh token used twice is refused and ends the grant: the newer refresh token and the access tokens stop working', async () => {
    const { clientId, tokens } = await kit.tokens();
    const rotated = await kit.refresh(clientId, tokens.refresh_token);
    expect(rotated.status).toBe(200);
    const replay = await kit.refresh(clientId, tokens.refresh_token);
    expect(replay.body.error).toBe('invalid_grant');
    expect((await kit.refresh(clientId, rotated.body.refresh_token as string)).body.error).toBe('invalid_grant');
    await expectRefused(tokens.access_token);
    await expectRefused(rotated.body.access_token as string);
  });

  test('a refresh asking for a scope beyond the grant gets invalid_scope (and the grant stands)', async () => {
    const { clientId, tokens } = await kit.tokens();
    const beyond = await kit.refresh(clientId, tokens.refresh_token, { scope: 'notes:read notes:write' });
    expect(beyond.status).toBe(400);
    expect(beyond.body.error).toBe('invalid_scope');
    expect((await kit.refresh(clientId, tokens.refresh_token)).status).toBe(200);
  });

  test('a refresh may narrow the scopes', async () => {
    const { clientId, tokens } = await kit.tokens(undefined, { scope: 'notes:read notes:write' });
    expect(tokens.scope).toBe('notes:read notes:write');
    const narrowed = await kit.refresh(clientId, tokens.refresh_token, { scope: 'notes:read' });
    expect(narrowed.body.scope).toBe('notes:read');
    expect(decodeJwt(narrowed.body.access_token as string).scope).toBe('notes:read');
  });

  test('another client cannot use the refresh token', async () => {
    const { tokens } = await kit.tokens();
    const answer = await kit.refresh(await kit.publicClient(), tokens.refresh_token);
    expect(answer.body.error).toBe('invalid_grant');
  });

  test('a refresh for another resource gets invalid_target', async () => {
    const { clientId, tokens } = await kit.tokens();
    expect((await kit.refresh(clientId, tokens.refresh_token, { resource: 'https://other.example/mcp' })).body.error).toBe('invalid_target');
  });
});

describe('revocation (RFC 7009)', () => {
  test.each(['refresh_token', 'access_token'] as const)('revoking the %s ends the grant', async (which) => {
    const { clientId, tokens } = await kit.tokens();
    const answer = await kit.revoke({ token: tokens[which], client_id: clientId });
    expect(answer.status).toBe(200);
    await expectRefused(tokens.access_token);
    expect((await kit.refresh(clientId, tokens.refresh_token)).body.error).toBe('invalid_grant');
  });

  test.each(['refresh_token', 'access_token'] as const)('a client cannot revoke another client’s %s', async (which) => {
    const { clientId, tokens } = await kit.tokens();
    const answer = await kit.revoke({ token: tokens[which], client_id: await kit.publicClient() });
    expect(answer.status).toBe(200);
    await expectAccepted(tokens.access_token);
    expect((await kit.refresh(clientId, tokens.refresh_token)).status).toBe(200);
  });

  test('unknown tokens are answered 200', async () => {
    const clientId = await kit.publicClient();
    for (const token of ['not-a-token', 'unknown-grant.secret', 'eyJhbGciOiJub25lIn0.e30.', pkce().verifier]) {
      expect((await kit.revoke({ token, client_id: clientId })).status).toBe(200);
    }
  });
});

describe('client authentication at the token endpoint', () => {
  const basic = (id: string, secret: string) => ({ authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}` });

  async function confidential(method: 'client_secret_basic' | 'client_secret_post') {
    const registered = await kit.register({ redirect_uris: [CALLBACK], token_endpoint_auth_method: method, grant_types: ['authorization_code', 'refresh_token'] });
    expect(registered.status).toBe(201);
    const id = registered.body.client_id as string;
    const { code, request } = await kit.code(id);
    const params = { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: request.verifier };
    return { id, secret: registered.body.client_secret as string, params };
  }

  function expectInvalidClient(answer: { status: number; body: Record<string, unknown>; headers: Headers }) {
    expect(answer.status).toBe(401);
    expect(answer.body.error).toBe('invalid_client');
    expect(answer.body.access_token).toBeUndefined();
  }

  // Client authentication comes before the code is looked at: a refused attempt does not spend it,
  // so the last exchange, with the right credentials, shows the code was good all along.
  test('client_secret_basic: a wrong secret, no secret, or the secret in the body is invalid_client', async () => {
    const { id, secret, params } = await confidential('client_secret_basic');
    expectInvalidClient(await kit.token(params, basic(id, `${secret}x`)));
    expectInvalidClient(await kit.token({ ...params, client_id: id }));
    expectInvalidClient(await kit.token({ ...params, client_id: id, client_secret: secret }));
    expectInvalidClient(await kit.token({ ...params, client_id: 'someone-else' }, basic(id, secret)));
    expect((await kit.token(params, basic(id, secret))).status).toBe(200);
  });

  test('client_secret_post: a wrong secret, no secret, or the secret in Basic is invalid_client', async () => {
    const { id, secret, params } = await confidential('client_secret_post');
    expectInvalidClient(await kit.token({ ...params, client_id: id, client_secret: `${secret}x` }));
    expectInvalidClient(await kit.token({ ...params, client_id: id, client_secret: '' }));
    expectInvalidClient(await kit.token({ ...params, client_id: id }));
    expectInvalidClient(await kit.token(params, basic(id, secret)));
    expect((await kit.token({ ...params, client_id: id, client_secret: secret })).status).toBe(200);
  });

  test('a public client presenting a secret is invalid_client', async () => {
    const id = await kit.publicClient();
    const { code, request } = await kit.code(id);
    expectInvalidClient(await kit.exchange(code, request, { client_secret: 'guess' }));
    const params = { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: request.verifier };
    expectInvalidClient(await kit.token(params, basic(id, 'guess')));
    expect((await kit.exchange(code, request)).status).toBe(200);
  });

  test('a confidential client’s tokens cannot be revoked without its secret', async () => {
    const { id, secret, params } = await confidential('client_secret_basic');
    const tokens = (await kit.token(params, basic(id, secret))).body;
    expectInvalidClient(await kit.revoke({ token: tokens.refresh_token as string, client_id: id }));
    await expectAccepted(tokens.access_token as string);
  });
});

describe('tokens for another resource, forged or expired', () => {
  let grantToken: string;
  let ring: KeyRing;
  beforeAll(async () => {
    grantToken = (await kit.tokens()).tokens.access_token;
    // The server's own signing key, opened as the server does: forgeries differ from genuine tokens in one claim only.
    ring = new KeyRing(store.keys, SECRET, 30 * 24 * 3600, Date.now);
  });

  /** A token as the server signs one, with `claims` changed (undefined: left out). */
  async function mint(claims: Record<string, unknown> = {}, header: Partial<JWTHeaderParameters> = {}, key?: CryptoKey) {
    const current = await (await ring.keys()).current;
    const genuine = decodeJwt(grantToken);
    const now = Math.floor(Date.now() / 1000);
    const payload = Object.fromEntries(Object.entries({ ...genuine, iat: now, exp: now + 600, jti: pkce().verifier.slice(0, 22), ...claims }).filter(([, value]) => value !== undefined));
    return new SignJWT(payload).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: current.kid, ...header }).sign(key ?? current.key);
  }

  test('a token minted as the server mints them is accepted (so each refusal below is for its one change)', async () => {
    await expectAccepted(await mint());
  });

  test('an authorization request for another resource gets invalid_target, so no token for another audience is issued', async () => {
    const clientId = await kit.publicClient();
    const browser = await kit.browser('alice', clientId);
    const answer = await browser.request(kit.authorizeUrl(clientId, pkce().challenge, { resource: 'https://other.example/mcp' }));
    expect(new URL(answer.location!).searchParams.get('error')).toBe('invalid_target');
  });

  test.each([
    ['for another audience', { aud: 'https://other.example/mcp' }, {}],
    ['for an audience list without this resource', { aud: ['https://other.example/mcp'] }, {}],
    ['from another issuer', { iss: 'https://evil.example' }, {}],
    ['expired', { iat: 1_000_000, exp: 1_000_600 }, {}],
    ['of a grant that does not exist', { sid: 'no-such-grant' }, {}],
    ['without a client_id', { client_id: undefined }, {}],
    ['typed as a plain JWT (an ID token, say), not at+jwt', {}, { typ: 'JWT' }],
    ['naming a key the server does not have', {}, { kid: 'unknown-kid' }],
  ])('a token signed by the server’s key but %s gets 401', async (_, claims, header) => {
    await expectRefused(await mint(claims, header));
  });

  test('a token signed by another key under the server’s kid gets 401', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    await expectRefused(await mint({}, {}, privateKey));
  });

  test('an unsigned token (alg none) gets 401', async () => {
    const [header, payload] = (await mint()).split('.');
    const none = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(header, 'base64url').toString()), alg: 'none' })).toString('base64url');
    await expectRefused(`${none}.${payload}.`);
    await expectRefused(`${none}.${payload}`);
  });

  test('a token signed with HMAC under the public key as secret (algorithm confusion) gets 401', async () => {
    const { jwks } = await ring.keys();
    const secret = new TextEncoder().encode(JSON.stringify(jwks.keys.at(-1)));
    const payload = decodeJwt(await mint());
    const current = await (await ring.keys()).current;
    await expectRefused(await new SignJWT(payload).setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: current.kid }).sign(secret));
  });

  describe('other servers', () => {
    let stranger: SignInKit;
    let sibling: SignInKit;
    beforeAll(async () => {
      stranger = await SignInKit.start();
      // A second MCP server sharing the store, the secret and the issuer: the same keys sign for both, only the audience tells them apart.
      sibling = await SignInKit.start({ store, secret: SECRET, issuer: kit.origin });
    });
    afterAll(() => Promise.all([stranger.close(), sibling.close()]));

    test('a token from another signIn server is refused (401 invalid_token)', async () => {
      const answer = await stranger.mcp(grantToken);
      expect(answer.status).toBe(401);
      expect(answer.challenge).toContain('error="invalid_token"');
    });

    test('a token for one resource is refused by another resource under the same issuer and keys', async () => {
      // The sibling accepts what it is the audience of: the refusal below is for the audience alone.
      expect((await sibling.mcp(await mint({ aud: sibling.resource }))).status).toBe(200);
      const answer = await sibling.mcp(grantToken);
      expect(answer.status).toBe(401);
      expect(answer.challenge).toContain('error="invalid_token"');
    });
  });
});

describe('expiry', () => {
  let clock = Date.now();
  let clocked: SignInKit;
  beforeAll(async () => {
    clocked = await SignInKit.start({ now: () => clock, accessTokenTtlSec: 600 });
  });
  afterAll(() => clocked.close());

  test('an access token stops working when it expires', async () => {
    const { tokens } = await clocked.tokens();
    expect((await clocked.mcp(tokens.access_token)).status).toBe(200);
    clock += 590_000;
    expect((await clocked.mcp(tokens.access_token)).status).toBe(200);
    clock += 20_000;
    const answer = await clocked.mcp(tokens.access_token);
    expect(answer.status).toBe(401);
    expect(answer.challenge).toContain('error="invalid_token"');
  });
});
