/**
 * DPoP at the `auth` plugin, for tokens of another authorization server: minted here with
 * jose, bound by `cnf.jkt` as such a server binds them, checked against its keys (`jwks`).
 */
import 'reflect-metadata';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { CryptoKey, JWK } from 'jose';
import { Context, Guard, McpServer, metadataStore, Scopes, Tool } from '@typemcp/core';
import { auth, dpopBound, MemoryDpopReplayCache } from '@typemcp/auth';
import type { AuthOptions } from '@typemcp/auth';
import { callTool, callWithDpop, dpopChallenges, dpopKey, proof, textOf } from './dpopKit';
import type { DpopKey } from './dpopKit';

const ISSUER = 'https://issuer.example';

let signing: { privateKey: CryptoKey; jwk: JWK };
let key: DpopKey;
let other: DpopKey;

beforeAll(async () => {
  const pair = await generateKeyPair('ES256');
  signing = { privateKey: pair.privateKey, jwk: { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256' } };
  [key, other] = await Promise.all([dpopKey(), dpopKey('PS256')]);
});

/** A token of the issuer for the resource, bound to `jkt` when given. */
function mint(resource: string, jkt?: string): Promise<string> {
  return new SignJWT({ scope: 'notes:read', ...(jkt !== undefined ? { cnf: { jkt } } : {}) })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1', typ: 'at+jwt' })
    .setIssuer(ISSUER)
    .setSubject('ann')
    .setAudience(resource)
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(signing.privateKey);
}

/** The tools, declared after the metadata store is cleared for each server. */
function declareTools() {
  class Notes {
    @Tool({ description: 'Who' })
    @Scopes('notes:read')
    whoami(ctx: Context): string {
      return `${ctx.principal!.subject} bound to ${(ctx.principal!.claims.cnf as { jkt?: string } | undefined)?.jkt ?? 'nothing'}`;
    }

    @Tool({ description: 'Only with a DPoP-bound token' })
    @Scopes('notes:read')
    @Guard(dpopBound)
    secret(): string {
      return 'the secret';
    }
  }
  return Notes;
}

let server: McpServer | undefined;
let url: string;

async function start(options: Partial<AuthOptions> = {}): Promise<string> {
  metadataStore.clear();
  server = new McpServer({ name: 'notes', version: '1.0.0', providers: [declareTools()] });
  // The resource is the URL clients use; the server listens on 127.0.0.1 under another name (localhost).
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  const resource = `http://localhost:${port}/mcp`;
  server.plugin(auth, { resource, issuer: ISSUER, jwks: { keys: [signing.jwk] }, ...options });
  await server.listen({ transport: 'http', host: '127.0.0.1', port, handleSignals: false });
  url = resource;
  return resource;
}

afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('the auth plugin with DPoP-bound tokens of an external issuer', () => {
  it('accepts a bound token with a proof of its key, for the URL the client used (the resource)', async () => {
    const resource = await start();
    const token = await mint(resource, key.jkt);
    const answer = await callWithDpop(url, 'whoami', token, key);
    expect(answer.status).toBe(200);
    expect(textOf(answer)).toBe(`ann bound to ${key.jkt}`);
    // The address the server listens on is not the URL the client used: a proof for it is refused.
    const refused = await callTool(url, 'whoami', { authorization: `DPoP ${token}`, dpop: await proof(key, 'POST', url.replace('localhost', '127.0.0.1'), token) });
    expect(refused.status).toBe(401);
  });

  it('refuses the bound token as a bearer token, with a proof of another key, without a proof, and a replayed proof', async () => {
    const resource = await start();
    const metadataUrl = `${new URL(resource).origin}/.well-known/oauth-protected-resource/mcp`;
    const token = await mint(resource, key.jkt);
    const bearer = await callTool(url, 'whoami', { authorization: `Bearer ${token}` });
    expect([bearer.status, bearer.challenge]).toEqual([401, expect.stringMatching(dpopChallenges(metadataUrl, 'invalid_token'))]);
    const otherKey = await callWithDpop(url, 'whoami', token, other);
    expect([otherKey.status, otherKey.challenge]).toEqual([401, expect.stringMatching(dpopChallenges(metadataUrl, 'invalid_token'))]);
    expect(otherKey.body.error?.message).toMatch(/another key/);
    const none = await callTool(url, 'whoami', { authorization: `DPoP ${token}` });
    expect([none.status, none.challenge]).toEqual([401, expect.stringMatching(dpopChallenges(metadataUrl, 'invalid_dpop_proof'))]);
    const dpop = await proof(key, 'POST', url, token);
    expect((await callTool(url, 'whoami', { authorization: `DPoP ${token}`, dpop })).status).toBe(200);
    const replayed = await callTool(url, 'whoami', { authorization: `DPoP ${token}`, dpop });
    expect([replayed.status, replayed.challenge]).toEqual([401, expect.stringMatching(dpopChallenges(metadataUrl, 'invalid_dpop_proof'))]);
  });

  it('answers an invalid token under the DPoP scheme with the DPoP challenge first', async () => {
    const resource = await start();
    const expired = await new SignJWT({ scope: 'notes:read', cnf: { jkt: key.jkt } })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuer(ISSUER)
      .setSubject('ann')
      .setAudience(resource)
      .setIssuedAt(Math.floor(Date.now() / 1000) - 600)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 300)
      .sign(signing.privateKey);
    const refused = await callWithDpop(url, 'whoami', expired, key);
    expect(refused.status).toBe(401);
    expect(refused.challenge).toMatch(/^DPoP resource_metadata="[^"]+", error="invalid_token", error_description="Invalid token: it has expired", algs="[^"]+", Bearer resource_metadata="[^"]+"$/);
  });

  it('keeps bearer tokens as they were: an unbound token is accepted, the challenge without credentials is Bearer alone', async () => {
    const resource = await start({ scopesSupported: ['notes:read'] });
    expect(textOf(await callTool(url, 'whoami', { authorization: `Bearer ${await mint(resource)}` }))).toBe('ann bound to nothing');
    expect((await callTool(url, 'whoami', {})).challenge).toBe(`Bearer resource_metadata="${new URL(resource).origin}/.well-known/oauth-protected-resource/mcp", scope="notes:read"`);
  });

  it('per tool: @Guard(dpopBound) refuses a bearer token (403) and admits a DPoP-bound one', async () => {
    const resource = await start();
    const refused = await callTool(url, 'secret', { authorization: `Bearer ${await mint(resource)}` });
    expect(refused.status).toBe(403);
    expect(refused.body.error?.message).toMatch(/refused by the guard dpopBound/);
    expect(textOf(await callWithDpop(url, 'secret', await mint(resource, key.jkt), key))).toBe('the secret');
  });

  it('with dpop: { required: true }: refuses bearer tokens, says so in the metadata, accepts bound tokens with their proof', async () => {
    const resource = await start({ dpop: { required: true, algorithms: ['ES256', 'PS256'] } });
    const metadataUrl = `${new URL(resource).origin}/.well-known/oauth-protected-resource/mcp`;
    const bearer = await callTool(url, 'whoami', { authorization: `Bearer ${await mint(resource)}` });
    expect(bearer.status).toBe(401);
    expect(bearer.challenge).toMatch(/^DPoP resource_metadata="[^"]+", error="invalid_token", error_description="[^"]+", algs="ES256 PS256"$/);
    expect(await (await fetch(metadataUrl)).json()).toMatchObject({ dpop_signing_alg_values_supported: ['ES256', 'PS256'], dpop_bound_access_tokens_required: true });
    expect((await callWithDpop(url, 'whoami', await mint(resource, other.jkt), other)).status).toBe(200);
  });

  it('with dpop: false: refuses the DPoP scheme, and still refuses a bound token as a bearer token', async () => {
    const resource = await start({ dpop: false });
    const token = await mint(resource, key.jkt);
    const scheme = await callWithDpop(url, 'whoami', token, key);
    expect([scheme.status, scheme.body.error?.message]).toEqual([401, 'Invalid token: the Authorization header must be "Bearer <token>"']);
    expect((await callTool(url, 'whoami', { authorization: `Bearer ${token}` })).status).toBe(401);
  });

  it('remembers proofs in the replay cache it is given', async () => {
    const ids: string[] = [];
    const memory = new MemoryDpopReplayCache();
    const resource = await start({ dpop: { replayCache: { add: (id, expiresAt) => (ids.push(id), memory.add(id, expiresAt)) } } });
    const token = await mint(resource, key.jkt);
    const dpop = await proof(key, 'POST', url, token, { jti: 'one' });
    expect((await callTool(url, 'whoami', { authorization: `DPoP ${token}`, dpop })).status).toBe(200);
    expect((await callTool(url, 'whoami', { authorization: `DPoP ${token}`, dpop })).status).toBe(401);
    expect(ids).toEqual([`${key.jkt}.one`, `${key.jkt}.one`]);
  });
});
