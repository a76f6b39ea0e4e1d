/**
 * RedisDpopReplayCache against a real redis-server: a proof id passes once until it expires,
 * replicas sharing the cache refuse a proof any of them accepted (two `auth` servers, a token
 * minted with jose and bound by cnf.jkt), and a frozen Redis (SIGSTOP) costs 503, never an
 * unchecked proof.
 */
import 'reflect-metadata';
import { createHash, randomBytes } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { Redis } from 'ioredis';
import { McpServer, metadataStore, Scopes, Tool } from '@typemcp/core';
import { auth } from '@typemcp/auth';
import { RedisDpopReplayCache } from '@typemcp/redis';
import { startRedis } from '../../../test-support/redisServer';
import { sleep, useRedis } from './redisTestSupport';

const redis = useRedis();

it('accepts an id once, refuses it while it lives, and keeps it no longer than asked', async () => {
  const keyPrefix = redis.prefix();
  const cache = new RedisDpopReplayCache(redis.client(), { keyPrefix });
  const id = `jkt.${randomBytes(8).toString('hex')}`;
  expect(await cache.add(id, Date.now() + 300)).toBe(true);
  expect(await cache.add(id, Date.now() + 300)).toBe(false);
  // A second replica's connection sees the same.
  expect(await new RedisDpopReplayCache(redis.client(), { keyPrefix }).add(id, Date.now() + 300)).toBe(false);
  await sleep(400);
  expect(await cache.add(id, Date.now() + 300)).toBe(true);
  cache.close();
});

it('refuses a wrong client or option at once', () => {
  expect(() => new RedisDpopReplayCache({} as Redis)).toThrow('the first argument must be an ioredis client');
  expect(() => new RedisDpopReplayCache(redis.client(), { commandTimeoutMs: 0 })).toThrow('commandTimeoutMs must be a positive integer');
});

describe('shared by replicas', () => {
  const servers: McpServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  it('refuses at one replica the proof another accepted, and answers 503 while Redis does not answer', async () => {
    const frozen = await startRedis();
    const clients: Redis[] = [];
    const issuer = 'https://issuer.example';
    const signing = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(signing.publicKey)), kid: 'k1', alg: 'ES256' };
    const dpop = await generateKeyPair('ES256');
    const dpopJwk = await exportJWK(dpop.publicKey);
    const resource = 'https://mcp.example.com/mcp';
    const replicas: Array<{ url: string; cache: RedisDpopReplayCache }> = [];
    try {
      for (let i = 0; i < 2; i++) {
        metadataStore.clear();
        class Notes {
          @Tool({ description: 'Who' })
          @Scopes('notes:read')
          whoami(): string {
            return 'ann';
          }
        }
        const client = new Redis(frozen.url);
        clients.push(client);
        const cache = new RedisDpopReplayCache(client, { commandTimeoutMs: 300 });
        const server = new McpServer({ name: 'notes', version: '1.0.0', providers: [Notes], onError: () => undefined });
        server.plugin(auth, { resource, issuer, jwks: { keys: [jwk] }, dpop: { replayCache: cache } });
        servers.push(server);
        replicas.push({ url: (await server.listen({ transport: 'http', port: 0, handleSignals: false })).url, cache });
      }
      const token = await new SignJWT({ scope: 'notes:read', cnf: { jkt: await calculateJwkThumbprint(dpopJwk) } })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setIssuer(issuer)
        .setSubject('ann')
        .setAudience(resource)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(signing.privateKey);
      const proof = () =>
        new SignJWT({ jti: randomBytes(16).toString('base64url'), htm: 'POST', htu: resource, iat: Math.floor(Date.now() / 1000), ath: createHash('sha256').update(token).digest('base64url') })
          .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: dpopJwk })
          .sign(dpop.privateKey);
      const call = async (url: string, dpopProof: string) => {
        const response = await fetch(url, {
          method: 'POST',
          headers: { authorization: `DPoP ${token}`, dpop: dpopProof, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'whoami' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'whoami', arguments: {}, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
          }),
        });
        await response.text();
        return response.status;
      };
      const used = await proof();
      expect(await call(replicas[0].url, used)).toBe(200);
      expect(await call(replicas[1].url, used)).toBe(401);
      expect(await call(replicas[1].url, await proof())).toBe(200);

      // Redis stops answering: the proof cannot be checked, so it is not accepted; then it answers again.
      process.kill(frozen.pid, 'SIGSTOP');
      expect(await call(replicas[0].url, await proof())).toBe(503);
      process.kill(frozen.pid, 'SIGCONT');
      for (let i = 0; i < 100 && !replicas[0].cache.available; i++) await sleep(50);
      expect(await call(replicas[0].url, await proof())).toBe(200);
    } finally {
      try {
        process.kill(frozen.pid, 'SIGCONT');
      } catch {
        // already gone
      }
      for (const { cache } of replicas) cache.close();
      for (const client of clients) client.disconnect();
      await frozen.stop();
    }
  });
});
