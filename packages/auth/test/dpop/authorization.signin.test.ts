/**
 * The authorization server's side of DPoP in signIn: a token request's proof binds the access
 * token and the grant's refresh token to its key, `dpop_jkt` binds the code, and a bound
 * refresh token needs a proof of the same key.
 */
import { decodeJwt } from 'jose';
import { pkce, SignInKit } from '../signin/securityKit';
import { dpopKey, proof } from './dpopKit';
import type { DpopKey } from './dpopKit';

jest.setTimeout(30_000);

let kit: SignInKit;
let key: DpopKey;
let other: DpopKey;

beforeAll(async () => {
  kit = await SignInKit.start();
  [key, other] = await Promise.all([dpopKey(), dpopKey('EdDSA')]);
});
afterAll(() => kit.close());

const tokenProof = (by: DpopKey, parts = {}) => proof(by, 'POST', kit.endpoint('token'), undefined, parts);

/** A code for a fresh client (authorization parameters `params`), and its exchange with `headers`. */
async function exchange(params: Record<string, string> = {}, headers: () => Promise<Record<string, string>> = async () => ({})) {
  const clientId = await kit.publicClient();
  const { code, request } = await kit.code(clientId, params);
  const answer = await kit.token({ grant_type: 'authorization_code', code, redirect_uri: request.redirectUri, code_verifier: request.verifier, client_id: clientId }, await headers());
  return { clientId, answer };
}

it('binds the refresh token to the key: a refresh needs a proof of that key, and rebinds the new access token to it', async () => {
  const { clientId, answer } = await exchange({}, async () => ({ dpop: await tokenProof(key) }));
  expect(answer.status).toBe(200);
  expect(answer.body.token_type).toBe('DPoP');
  const refreshToken = answer.body.refresh_token as string;

  const withoutProof = await kit.refresh(clientId, refreshToken);
  expect(withoutProof.status).toBe(400);
  expect(withoutProof.body).toEqual({ error: 'invalid_dpop_proof', error_description: 'the refresh token is bound to a DPoP key: send a DPoP proof of it' });
  const otherKey = await kit.token({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }, { dpop: await tokenProof(other) });
  expect(otherKey.status).toBe(400);
  expect(otherKey.body).toEqual({ error: 'invalid_grant', error_description: "the refresh token is bound to another DPoP key than the proof's" });

  // Neither attempt spent the refresh token: the client holding the key still refreshes.
  const refreshed = await kit.token({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }, { dpop: await tokenProof(key) });
  expect(refreshed.status).toBe(200);
  expect(refreshed.body.token_type).toBe('DPoP');
  expect(decodeJwt(refreshed.body.access_token as string).cnf).toEqual({ jkt: key.jkt });
  // Bound, a refresh token stays bound: the next one too.
  expect((await kit.refresh(clientId, refreshed.body.refresh_token as string)).body.error).toBe('invalid_dpop_proof');
});

it('issues bearer tokens to a token request without a proof, as before', async () => {
  const { clientId, answer } = await exchange();
  expect(answer.body.token_type).toBe('Bearer');
  expect(decodeJwt(answer.body.access_token as string).cnf).toBeUndefined();
  // A proof at refresh binds the new access token; the refresh token was issued unbound and stays so.
  const refreshed = await kit.token({ grant_type: 'refresh_token', refresh_token: answer.body.refresh_token as string, client_id: clientId }, { dpop: await tokenProof(key) });
  expect(refreshed.body.token_type).toBe('DPoP');
  expect(decodeJwt(refreshed.body.access_token as string).cnf).toEqual({ jkt: key.jkt });
  expect((await kit.refresh(clientId, refreshed.body.refresh_token as string)).body.token_type).toBe('Bearer');
});

it('binds the code to dpop_jkt: the exchange needs a proof of that key', async () => {
  const bound = { dpop_jkt: key.jkt };
  const withoutProof = await exchange(bound);
  expect(withoutProof.answer.body).toEqual({ error: 'invalid_grant', error_description: 'the code is bound to the DPoP key of dpop_jkt: send a DPoP proof of it' });
  const otherKey = await exchange(bound, async () => ({ dpop: await tokenProof(other) }));
  expect(otherKey.answer.body).toEqual({ error: 'invalid_grant', error_description: 'the code is bound to the DPoP key of dpop_jkt: the proof is signed by another key' });
  const right = await exchange(bound, async () => ({ dpop: await tokenProof(key) }));
  expect(right.answer.status).toBe(200);
  expect(decodeJwt(right.answer.body.access_token as string).cnf).toEqual({ jkt: key.jkt });
});

it('carries dpop_jkt through the consent page', async () => {
  const { clientId, browser, form } = await kit.consentPage('alice', { dpop_jkt: key.jkt });
  const approved = await browser.request(form.action, { form: { request: form.request, csrf: form.csrf, decision: 'approve' } });
  const code = new URL(approved.location!).searchParams.get('code')!;
  // consentPage made its own verifier: the code cannot be exchanged, but its binding is checked first.
  const answer = await kit.token({ grant_type: 'authorization_code', code, redirect_uri: 'http://127.0.0.1:9/callback', code_verifier: pkce().verifier, client_id: clientId });
  expect(answer.body.error_description).toBe('the code is bound to the DPoP key of dpop_jkt: send a DPoP proof of it');
});

it('refuses a malformed dpop_jkt at the authorization endpoint', async () => {
  const clientId = await kit.publicClient();
  const browser = await kit.browser('alice', clientId);
  const answer = await browser.request(kit.authorizeUrl(clientId, pkce().challenge, { dpop_jkt: 'not-a-thumbprint' }));
  expect(new URL(answer.location!).searchParams.get('error')).toBe('invalid_request');
});

it('refuses a token request whose proof is invalid: another URL, a replay, a stale iat', async () => {
  const reused = await tokenProof(key);
  expect((await exchange({}, async () => ({ dpop: reused }))).answer.status).toBe(200);
  for (const dpop of [reused, await proof(key, 'POST', kit.resource), await tokenProof(key, { iat: Math.floor(Date.now() / 1000) - 300 })]) {
    const { answer } = await exchange({}, async () => ({ dpop }));
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('invalid_dpop_proof');
  }
});

describe('with DPoP off', () => {
  let off: SignInKit;
  beforeAll(async () => {
    off = await SignInKit.start({ dpop: false });
  });
  afterAll(() => off.close());

  it('ignores proofs and dpop_jkt, issues bearer tokens, refuses the DPoP scheme and names no DPoP in its metadata', async () => {
    const clientId = await off.publicClient();
    const { code, request } = await off.code(clientId, { dpop_jkt: key.jkt });
    const answer = await off.token(
      { grant_type: 'authorization_code', code, redirect_uri: request.redirectUri, code_verifier: request.verifier, client_id: clientId },
      { dpop: await proof(key, 'POST', off.endpoint('token')) },
    );
    expect(answer.body.token_type).toBe('Bearer');
    const metadata = (await (await fetch(`${off.origin}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(metadata.dpop_signing_alg_values_supported).toBeUndefined();
    const token = answer.body.access_token as string;
    const refused = await fetch(off.resource, { method: 'POST', headers: { authorization: `DPoP ${token}`, dpop: await proof(key, 'POST', off.resource, token), 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer /);
  });
});
