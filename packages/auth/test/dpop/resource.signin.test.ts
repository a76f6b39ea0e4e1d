/**
 * The resource side of signIn with DPoP: what a bound token needs at the MCP endpoint, and the
 * challenge each refusal gets. Tokens come from the server's own token endpoint, bound by a
 * proof there; every request is a real HTTP request.
 */
import { decodeJwt, SignJWT } from 'jose';
import { SignInKit } from '../signin/securityKit';
import type { Tokens } from '../signin/securityKit';
import { callTool, callWithDpop, dpopChallenges, dpopKey, proof, textOf } from './dpopKit';
import type { DpopKey } from './dpopKit';

jest.setTimeout(30_000);

/** Tokens bound to `key`: the code exchanged with a proof of it. */
async function boundTokens(kit: SignInKit, key: DpopKey): Promise<{ clientId: string; tokens: Tokens & { token_type: string } }> {
  const clientId = await kit.publicClient();
  const { code, request } = await kit.code(clientId);
  const exchanged = await kit.token(
    { grant_type: 'authorization_code', code, redirect_uri: request.redirectUri, code_verifier: request.verifier, client_id: clientId },
    { dpop: await proof(key, 'POST', kit.endpoint('token')) },
  );
  if (exchanged.status !== 200) throw new Error(`exchange failed: ${JSON.stringify(exchanged.body)}`);
  return { clientId, tokens: exchanged.body as unknown as Tokens & { token_type: string } };
}

describe('signIn with DPoP: the resource', () => {
  let kit: SignInKit;
  let key: DpopKey;
  let other: DpopKey;
  let token: string;
  let metadataUrl: string;

  beforeAll(async () => {
    kit = await SignInKit.start();
    [key, other] = await Promise.all([dpopKey(), dpopKey()]);
    token = (await boundTokens(kit, key)).tokens.access_token;
    metadataUrl = `${kit.origin}/.well-known/oauth-protected-resource/mcp`;
  });
  afterAll(() => kit.close());

  it('binds the token to the proof key (token_type DPoP, cnf.jkt) and accepts it with a proof of that key', async () => {
    const { tokens } = await boundTokens(kit, key);
    expect(tokens.token_type).toBe('DPoP');
    expect(decodeJwt(tokens.access_token).cnf).toEqual({ jkt: key.jkt });
    const answer = await callWithDpop(kit.resource, 'read_notes', tokens.access_token, key);
    expect(answer.status).toBe(200);
    expect(textOf(answer)).toBe('notes of alice (notes:read)');
    // The query is not part of htu.
    expect((await callWithDpop(kit.resource, 'read_notes', token, key, { htu: `${kit.resource}?x=1#y` })).status).toBe(200);
  });

  it('refuses a replayed proof', async () => {
    const dpop = await proof(key, 'POST', kit.resource, token);
    expect((await callTool(kit.resource, 'read_notes', { authorization: `DPoP ${token}`, dpop })).status).toBe(200);
    const replayed = await callTool(kit.resource, 'read_notes', { authorization: `DPoP ${token}`, dpop });
    expect(replayed.status).toBe(401);
    expect(replayed.challenge).toMatch(dpopChallenges(metadataUrl, 'invalid_dpop_proof'));
    expect(replayed.body.error?.message).toBe('Invalid DPoP proof: it was used before (jti)');
  });

  it('refuses a proof made for another URL or another method', async () => {
    const port = new URL(kit.origin).port;
    for (const parts of [{ htu: `${kit.origin}/other` }, { htu: `http://localhost:${port}/mcp` }, { htu: `https://127.0.0.1:${port}/mcp` }, { htm: 'GET' }, { htm: 'post' }]) {
      const refused = await callWithDpop(kit.resource, 'read_notes', token, key, parts);
      expect(refused.status).toBe(401);
      expect(refused.challenge).toMatch(dpopChallenges(metadataUrl, 'invalid_dpop_proof'));
      expect(refused.body.error?.message).toMatch(parts.htm ? /^Invalid DPoP proof: htm is/ : /^Invalid DPoP proof: htu is/);
    }
  });

  it('refuses a proof whose iat is stale or in the future, beyond 60 s; accepts one within', async () => {
    const now = Math.floor(Date.now() / 1000);
    for (const iat of [now - 120, now + 120]) {
      const refused = await callWithDpop(kit.resource, 'read_notes', token, key, { iat });
      expect(refused.status).toBe(401);
      expect(refused.challenge).toMatch(dpopChallenges(metadataUrl, 'invalid_dpop_proof'));
      expect(refused.body.error?.message).toMatch(/^Invalid DPoP proof: iat is -?\d+ s from the server's clock/);
    }
    expect((await callWithDpop(kit.resource, 'read_notes', token, key, { iat: now - 30 })).status).toBe(200);
  });

  it('refuses a bound token without its proof', async () => {
    const refused = await callTool(kit.resource, 'read_notes', { authorization: `DPoP ${token}` });
    expect(refused.status).toBe(401);
    expect(refused.challenge).toMatch(dpopChallenges(metadataUrl, 'invalid_dpop_proof'));
    expect(refused.body.error?.message).toBe('Invalid DPoP proof: the request has no DPoP header');
  });

  it('refuses a bound token with a proof signed by another key (key substitution)', async () => {
    const refused = await callWithDpop(kit.resource, 'read_notes', token, other);
    expect(refused.status).toBe(401);
    expect(refused.challenge).toMatch(dpopChallenges(metadataUrl, 'invalid_token'));
    expect(refused.body.error?.message).toBe('Invalid token: the DPoP proof is signed by another key than the one the token is bound to (cnf.jkt)');
  });

  it('refuses a bound token presented as a bearer token', async () => {
    const refused = await callTool(kit.resource, 'read_notes', { authorization: `Bearer ${token}` });
    expect(refused.status).toBe(401);
    expect(refused.challenge).toMatch(dpopChallenges(metadataUrl, 'invalid_token'));
    expect(refused.body.error?.message).toBe('Invalid token: it is bound to a DPoP key (cnf.jkt); present it with the DPoP scheme and a proof');
    // Even with a valid proof beside it: the scheme says bearer.
    expect((await callTool(kit.resource, 'read_notes', { authorization: `Bearer ${token}`, dpop: await proof(key, 'POST', kit.resource, token) })).status).toBe(401);
  });

  it('refuses a proof whose ath is not the hash of the token it comes with', async () => {
    const refused = await callWithDpop(kit.resource, 'read_notes', token, key, { ath: 'A'.repeat(43) });
    expect(refused.status).toBe(401);
    expect(refused.challenge).toMatch(dpopChallenges(metadataUrl, 'invalid_dpop_proof'));
    expect(refused.body.error?.message).toBe('Invalid DPoP proof: ath is not the hash of the access token it comes with');
    expect((await callWithDpop(kit.resource, 'read_notes', token, key, { ath: undefined })).status).toBe(401);
  });

  it('refuses proofs of the wrong type, with a symmetric or unsigned algorithm, a private jwk, or two of them', async () => {
    const refusals: Array<[string, string]> = [];
    const refuse = async (dpop: string) => {
      const answer = await callTool(kit.resource, 'read_notes', { authorization: `DPoP ${token}`, dpop });
      refusals.push([String(answer.status), answer.body.error?.message ?? '']);
    };
    await refuse(await proof(key, 'POST', kit.resource, token, { header: { typ: 'JWT' } }));
    const claims = { jti: 'x1', htm: 'POST', htu: kit.resource, iat: Math.floor(Date.now() / 1000) };
    const secret = new Uint8Array(32).fill(7);
    await refuse(await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'dpop+jwt', jwk: key.publicJwk }).sign(secret));
    const octJwk = { kty: 'oct', k: Buffer.from(secret).toString('base64url') };
    await refuse(await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'dpop+jwt', jwk: octJwk }).sign(secret));
    await refuse(await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: octJwk }).sign(key.privateKey));
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'dpop+jwt', jwk: key.publicJwk })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;
    await refuse(unsigned);
    const exported = await import('jose').then((jose) => jose.exportJWK(key.privateKey));
    await refuse(await proof(key, 'POST', kit.resource, token, { header: { jwk: exported } }));
    const one = await proof(key, 'POST', kit.resource, token);
    await refuse(`${one}, ${await proof(key, 'POST', kit.resource, token)}`);
    expect(refusals).toEqual([
      ['401', 'Invalid DPoP proof: its typ must be dpop+jwt'],
      ['401', 'Invalid DPoP proof: its algorithm is not accepted (asymmetric ones only)'],
      ['401', 'Invalid DPoP proof: its algorithm is not accepted (asymmetric ones only)'],
      ['401', 'Invalid DPoP proof: its jwk is not a public key'],
      ['401', 'Invalid DPoP proof: the DPoP header must be one signed JWT'],
      ['401', 'Invalid DPoP proof: its jwk is not a public key'],
      ['401', 'Invalid DPoP proof: the DPoP header must be one signed JWT'],
    ]);
  });

  it('refuses a token that is not bound under the DPoP scheme, and keeps accepting it as a bearer token', async () => {
    const { tokens } = await kit.tokens();
    const refused = await callWithDpop(kit.resource, 'read_notes', tokens.access_token, key);
    expect(refused.status).toBe(401);
    expect(refused.challenge).toMatch(dpopChallenges(metadataUrl, 'invalid_token'));
    expect(refused.body.error?.message).toBe('Invalid token: it is not bound to a DPoP key (no cnf.jkt); present it with the Bearer scheme');
    const accepted = await callTool(kit.resource, 'read_notes', { authorization: `Bearer ${tokens.access_token}` });
    expect(accepted.status).toBe(200);
  });

  it('names the algorithms in both metadata documents', async () => {
    const algs = ['ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512', 'RS256', 'RS384', 'RS512', 'EdDSA', 'Ed25519'];
    expect(await (await fetch(metadataUrl)).json()).toMatchObject({ dpop_signing_alg_values_supported: algs });
    expect(await (await fetch(`${kit.origin}/.well-known/oauth-authorization-server`)).json()).toMatchObject({ dpop_signing_alg_values_supported: algs });
  });
});

describe('signIn with DPoP nonces', () => {
  let kit: SignInKit;
  let key: DpopKey;

  beforeAll(async () => {
    kit = await SignInKit.start({ dpop: { nonce: true } });
    key = await dpopKey();
  });
  afterAll(() => kit.close());

  it('answers a proof without a nonce 401 use_dpop_nonce with a DPoP-Nonce, and accepts the proof signed again with it', async () => {
    const clientId = await kit.publicClient();
    const { code, request } = await kit.code(clientId);
    const exchange = async (dpop: string) =>
      kit.token({ grant_type: 'authorization_code', code, redirect_uri: request.redirectUri, code_verifier: request.verifier, client_id: clientId }, { dpop });
    // The token endpoint asks for a nonce the same way (RFC 9449 §8), before it spends the code.
    const asked = await exchange(await proof(key, 'POST', kit.endpoint('token')));
    expect(asked.status).toBe(400);
    expect(asked.body.error).toBe('use_dpop_nonce');
    const tokenNonce = asked.headers.get('dpop-nonce')!;
    expect(tokenNonce).toMatch(/^[0-9a-z]+\.[A-Za-z0-9_-]{43}$/);
    const exchanged = await exchange(await proof(key, 'POST', kit.endpoint('token'), undefined, { nonce: tokenNonce }));
    expect(exchanged.status).toBe(200);
    const token = exchanged.body.access_token as string;

    const refused = await callWithDpop(kit.resource, 'read_notes', token, key);
    expect(refused.status).toBe(401);
    expect(refused.challenge).toMatch(dpopChallenges(`${kit.origin}/.well-known/oauth-protected-resource/mcp`, 'use_dpop_nonce'));
    expect(refused.nonce).toMatch(/^[0-9a-z]+\.[A-Za-z0-9_-]{43}$/);
    expect((await callWithDpop(kit.resource, 'read_notes', token, key, { nonce: `${refused.nonce!.split('.')[0]}.${'A'.repeat(43)}` })).status).toBe(401);
    const accepted = await callWithDpop(kit.resource, 'read_notes', token, key, { nonce: refused.nonce! });
    expect(accepted.status).toBe(200);
  });
});

describe('signIn with DPoP required', () => {
  let kit: SignInKit;

  beforeAll(async () => {
    kit = await SignInKit.start({ dpop: { required: true, algorithms: ['ES256'] } });
  });
  afterAll(() => kit.close());

  it('refuses bearer tokens and challenges with DPoP alone', async () => {
    const metadataUrl = `${kit.origin}/.well-known/oauth-protected-resource/mcp`;
    const anonymous = await callTool(kit.resource, 'read_notes', {});
    expect(anonymous.status).toBe(401);
    expect(anonymous.challenge).toBe(`DPoP resource_metadata="${metadataUrl}", scope="notes:read", algs="ES256"`);
    const { tokens } = await kit.tokens();
    const bearer = await callTool(kit.resource, 'read_notes', { authorization: `Bearer ${tokens.access_token}` });
    expect(bearer.status).toBe(401);
    expect(bearer.challenge).toMatch(/^DPoP resource_metadata="[^"]+", error="invalid_token", error_description="Invalid token: this server accepts DPoP-bound tokens only; present one with the DPoP scheme and a proof", algs="ES256"$/);
    expect(await (await fetch(metadataUrl)).json()).toMatchObject({ dpop_signing_alg_values_supported: ['ES256'], dpop_bound_access_tokens_required: true });
    const key = await dpopKey();
    const bound = await boundTokens(kit, key);
    expect((await callWithDpop(kit.resource, 'read_notes', bound.tokens.access_token, key)).status).toBe(200);
    // A proof by an algorithm the server does not accept.
    const rsa = await dpopKey('PS256');
    expect((await kit.token({ grant_type: 'refresh_token', refresh_token: bound.tokens.refresh_token, client_id: bound.clientId }, { dpop: await proof(rsa, 'POST', kit.endpoint('token')) })).body).toMatchObject({
      error: 'invalid_dpop_proof',
      error_description: 'Invalid DPoP proof: its algorithm is not accepted (asymmetric ones only)',
    });
  });
});
