import { compactDecrypt, createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import type { JSONWebKeySet } from 'jose';
import { MemorySignInStore } from '@typemcp/auth';
import { AccessTokens } from '../../src/signin/tokens/AccessTokens';
import { KeyRing } from '../../src/signin/tokens/KeyRing';
import { SignInKit } from './securityKit';

// The signing keys at rest and in rotation, and what the access tokens they sign carry.
const SECRET = 'the secret that encrypts the keys, 32+ chars';
const ISSUER = 'https://auth.example';
const RESOURCE = 'https://mcp.example/mcp';
const HOUR = 3600_000;

const subject = { grantId: 'grant-1', clientId: 'client-1', user: { id: 'alice' }, scopes: ['notes:read'], resource: RESOURCE };

/** The key the stored private keys are encrypted with, derived from the secret as documented (HKDF-SHA-256). */
async function cipherKey(secret: string): Promise<Uint8Array> {
  const material = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), 'HKDF', false, ['deriveBits']);
  const info = new TextEncoder().encode('typemcp sign-in signing keys');
  return new Uint8Array(await crypto.subtle.deriveBits({ name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info }, material, 256));
}

describe('keys at rest', () => {
  test('the stored private key is encrypted: its d is nowhere in the record, and only the secret opens it', async () => {
    const store = new MemorySignInStore();
    await new KeyRing(store.keys, SECRET, 3600, Date.now).keys();
    const [stored] = await store.keys.list();
    expect(Object.keys(stored.publicJwk).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
    expect(decodeProtectedHeader(stored.encryptedPrivateJwk)).toEqual({ alg: 'dir', enc: 'A256GCM', kid: stored.kid });
    const { plaintext } = await compactDecrypt(stored.encryptedPrivateJwk, await cipherKey(SECRET));
    const { d } = JSON.parse(new TextDecoder().decode(plaintext)) as { d: string };
    expect(d).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const record = JSON.stringify(stored);
    expect(record).not.toContain(d);
    expect(record).not.toContain(Buffer.from(d, 'base64url').toString('base64'));
    expect(record).not.toMatch(/\\?"d\\?"\s*:/);
  });

  test('a KeyRing with another secret cannot sign with the keys, says so, and leaves them as they are', async () => {
    const store = new MemorySignInStore();
    const { kid } = await (await new KeyRing(store.keys, SECRET, 3600, Date.now).keys()).current;
    const other = await new KeyRing(store.keys, `${SECRET}, but another`, 3600, Date.now).keys();
    await expect(other.current).rejects.toThrow(/cannot be decrypted with the secret/);
    // Only the public keys are usable without the secret: tokens issued before still verify.
    expect(other.jwks.keys.map((key) => key.kid)).toEqual([kid]);
    expect((await store.keys.list()).map((key) => key.kid)).toEqual([kid]);
  });
});

describe('rotation', () => {
  test('after keyRotationSec a new key signs; the previous stays published for the tokens it signed, the one before goes', async () => {
    let clock = Date.now();
    const store = new MemorySignInStore(() => clock);
    const ring = new KeyRing(store.keys, SECRET, 3600, () => clock);
    const tokens = new AccessTokens(ring, ISSUER, 600, () => clock);
    const kidOf = async () => (await (await ring.keys()).current).kid;
    const published = async () => (await ring.keys()).jwks.keys.map((key) => key.kid);

    const first = await kidOf();
    clock += HOUR - 61_000;
    expect(await kidOf()).toBe(first);
    const signedBefore = await tokens.issue(subject);
    expect(decodeProtectedHeader(signedBefore.token).kid).toBe(first);

    clock += 62_000;
    const second = await kidOf();
    expect(second).not.toBe(first);
    expect(await published()).toEqual([first, second]);
    const signedAfter = await tokens.issue(subject);
    expect(decodeProtectedHeader(signedAfter.token).kid).toBe(second);
    // The token signed a minute before the rotation still verifies under the previous key.
    await expect(tokens.verify(signedBefore.token, RESOURCE)).resolves.toMatchObject({ grantId: 'grant-1' });

    clock += HOUR;
    const third = await kidOf();
    expect(await published()).toEqual([second, third]);
  });

  test('two replicas due to rotate at once make one new key between them', async () => {
    let clock = Date.now();
    const store = new MemorySignInStore(() => clock);
    const replicas = [new KeyRing(store.keys, SECRET, 3600, () => clock), new KeyRing(store.keys, SECRET, 3600, () => clock)];
    await replicas[0].keys();
    clock += HOUR + 1000;
    const [a, b] = await Promise.all(replicas.map((ring) => ring.keys()));
    expect((await a.current).kid).toBe((await b.current).kid);
    expect(await store.keys.list()).toHaveLength(2);
  });
});

describe('access tokens', () => {
  let kit: SignInKit;
  beforeAll(async () => {
    kit = await SignInKit.start();
  });
  afterAll(() => kit.close());

  test('carry typ at+jwt, aud the resource, iss, sub, client_id, scope and sid, and verify under the published keys', async () => {
    const { clientId, tokens } = await kit.tokens();
    expect(decodeProtectedHeader(tokens.access_token)).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    const claims = decodeJwt(tokens.access_token);
    expect(claims).toMatchObject({ iss: kit.origin, aud: kit.resource, sub: 'alice', client_id: clientId, scope: 'notes:read' });
    // sid names the grant the refresh token carries on: revoking it ends both.
    expect(claims.sid).toBe(tokens.refresh_token.split('.')[0]);
    expect(claims.exp! - claims.iat!).toBe(3600);
    expect(typeof claims.jti).toBe('string');

    const jwks = (await (await fetch(kit.endpoint('jwks'))).json()) as JSONWebKeySet;
    for (const key of jwks.keys) expect(key).not.toHaveProperty('d');
    await expect(jwtVerify(tokens.access_token, createLocalJWKSet(jwks), { issuer: kit.origin, audience: kit.resource, typ: 'at+jwt' })).resolves.toBeDefined();
  });
});
