/**
 * What every SignInStore must do (docs/reference/auth.md, SignInStore): one set of tests, run
 * against each implementation. Time is the harness's: `advance` moves the store's clock and
 * ages whatever lifetimes the store gave its entries (the memory store reads its clock; a Redis
 * harness shortens every TTL by as much), so ten minutes pass in no time.
 */
import type { AuthorizationCode, Grant, OAuthClient, PendingAuthorization, SignInStore, StoredKey } from '@typemcp/auth';

export interface SignInStoreHarness {
  /** A store with nothing in it (other tests' entries out of its sight), on the harness's clock. */
  store(options?: { maxUnusedClients?: number }): SignInStore;
  /** The clock the stores read, in epoch ms. */
  now(): number;
  /** Lets `ms` pass: the clock moves on and entries age by as much. */
  advance(ms: number): Promise<void>;
  /** The store shares checked metadata documents (`documents`), so those tests run too. */
  documents?: boolean;
}

export const grantOf = (id: string, changes: Partial<Grant> = {}): Grant => ({
  id,
  clientId: 'c',
  user: { id: 'alice' },
  scopes: ['notes:read'],
  resource: 'https://mcp.example/mcp',
  refreshHash: 'h1',
  usedRefreshHashes: [],
  refreshExpiresAt: 0,
  revoked: false,
  ...changes,
});

export const codeOf = (grantId = 'g', changes: Partial<AuthorizationCode> = {}): AuthorizationCode => ({
  clientId: 'c',
  redirectUri: 'https://app/cb',
  codeChallenge: 'x',
  scopes: [],
  resource: 'r',
  user: { id: 'alice', roles: [] },
  grantId,
  ...changes,
});

const client = (clientId: string): OAuthClient => ({ clientId, origin: 'registered', redirectUris: ['https://app/cb'], authMethod: 'none', createdAt: 0 });

const request = (id: string): PendingAuthorization => ({
  id,
  csrf: 'csrf',
  clientId: 'c',
  redirectUri: 'https://app/cb',
  state: undefined,
  codeChallenge: 'x',
  scopes: ['notes:read'],
  resource: 'r',
  user: { id: 'alice' },
});

const key = (kid: string): StoredKey => ({ kid, createdAt: 1, publicJwk: { kty: 'EC', crv: 'P-256', x: 'x', y: 'y', kid }, encryptedPrivateJwk: `jwe-of-${kid}` });

/** How many callers at once in the concurrency tests. */
const CONCURRENT = 20;

export function signInStoreContract(h: SignInStoreHarness): void {
  describe('codes', () => {
    it('takes a code once: first use, then replays (the code kept) until it expires; unknown codes are undefined', async () => {
      const { codes } = h.store();
      const code = codeOf('g', { scopes: [], user: { id: 'alice', roles: [] } });
      await codes.add('hash', code, 60);
      expect(await codes.take('hash')).toEqual({ code, firstUse: true });
      expect(await codes.take('hash')).toEqual({ code, firstUse: false });
      await h.advance(30_000);
      expect(await codes.take('hash')).toEqual({ code, firstUse: false });
      await h.advance(31_000);
      expect(await codes.take('hash')).toBeUndefined();
      expect(await codes.take('unknown')).toBeUndefined();
    });

    it(`gives the first use to exactly one of ${CONCURRENT} takes at once`, async () => {
      const { codes } = h.store();
      await codes.add('raced', codeOf('g'), 60);
      const taken = await Promise.all(Array.from({ length: CONCURRENT }, () => codes.take('raced')));
      expect(taken.filter((t) => t?.firstUse === true)).toHaveLength(1);
      expect(taken.filter((t) => t?.firstUse === false)).toHaveLength(CONCURRENT - 1);
    });
  });

  describe('grants', () => {
    it('keeps a grant exactly as added (empty arrays, roles, optional fields) until it expires', async () => {
      const { grants } = h.store();
      const grant = grantOf('g', { scopes: [], user: { id: 'alice', roles: ['admin'] }, refreshExpiresAt: 1_900_000_000, dpopJkt: 'thumbprint' });
      await grants.add(grant, 60);
      expect(await grants.get('g')).toEqual(grant);
      await h.advance(61_000);
      expect(await grants.get('g')).toBeUndefined();
      expect(await grants.get('unknown')).toBeUndefined();
    });

    it('rotates a refresh token by compare-and-set, remembering the used one, keeping the grant ttlSec more, and not on a revoked grant', async () => {
      const { grants } = h.store();
      await grants.add(grantOf('g'), 60);
      expect(await grants.rotate('g', 'h1', { refreshHash: 'h2', refreshExpiresAt: 1 }, 60)).toBe(true);
      expect(await grants.rotate('g', 'h1', { refreshHash: 'h3', refreshExpiresAt: 2 }, 60)).toBe(false);
      expect(await grants.get('g')).toEqual(grantOf('g', { refreshHash: 'h2', usedRefreshHashes: ['h1'], refreshExpiresAt: 1 }));
      await h.advance(50_000);
      expect(await grants.rotate('g', 'h2', { refreshHash: 'h3', refreshExpiresAt: 3 }, 60)).toBe(true);
      await h.advance(50_000);
      expect(await grants.get('g')).toMatchObject({ refreshHash: 'h3', usedRefreshHashes: ['h1', 'h2'], refreshExpiresAt: 3 });
      await grants.revoke('g');
      expect(await grants.rotate('g', 'h3', { refreshHash: 'h4', refreshExpiresAt: 4 }, 60)).toBe(false);
      expect(await grants.get('g')).toMatchObject({ refreshHash: 'h3', revoked: true });
      expect(await grants.rotate('unknown', 'h1', { refreshHash: 'h2', refreshExpiresAt: 1 }, 60)).toBe(false);
    });

    it('keeps a revoked grant, revoked, until it would have expired', async () => {
      const { grants } = h.store();
      await grants.add(grantOf('g'), 60);
      await h.advance(30_000);
      await grants.revoke('g');
      expect(await grants.get('g')).toEqual(grantOf('g', { revoked: true }));
      await h.advance(29_000);
      expect((await grants.get('g'))?.revoked).toBe(true);
      await h.advance(2_000);
      expect(await grants.get('g')).toBeUndefined();
    });

    it('revokes a grant added after its revocation (a replayed code that raced its first exchange), for ten minutes', async () => {
      const { grants } = h.store();
      await grants.revoke('early');
      await h.advance(599_000);
      await grants.add(grantOf('early'), 3600);
      expect((await grants.get('early'))?.revoked).toBe(true);
      await grants.revoke('long-ago');
      await h.advance(601_000);
      await grants.add(grantOf('long-ago'), 3600);
      expect((await grants.get('long-ago'))?.revoked).toBe(false);
    });

    it(`lets exactly one of ${CONCURRENT} rotations with the same expected hash win`, async () => {
      const { grants } = h.store();
      await grants.add(grantOf('raced'), 60);
      const rotated = await Promise.all(Array.from({ length: CONCURRENT }, (_, i) => grants.rotate('raced', 'h1', { refreshHash: `next-${i}`, refreshExpiresAt: i }, 60)));
      expect(rotated.filter(Boolean)).toHaveLength(1);
      const winner = rotated.indexOf(true);
      expect(await grants.get('raced')).toMatchObject({ refreshHash: `next-${winner}`, refreshExpiresAt: winner, usedRefreshHashes: ['h1'] });
    });
  });

  describe('clients, consents, requests, keys, counters', () => {
    it('forgets a registered client unless it is used', async () => {
      const { clients } = h.store();
      await clients.add(client('dcr'), 60);
      await clients.add({ ...client('used'), name: 'Used', secretHash: 'hash-of-secret' }, 60);
      await clients.markUsed('used');
      await clients.markUsed('unknown');
      expect(await clients.get('dcr')).toEqual(client('dcr'));
      await h.advance(61_000);
      expect(await clients.get('dcr')).toBeUndefined();
      expect(await clients.get('used')).toEqual({ ...client('used'), name: 'Used', secretHash: 'hash-of-secret' });
      expect(await clients.get('unknown')).toBeUndefined();
    });

    it('keeps at most maxUnusedClients registrations that no sign-in used, dropping the oldest; used and expired ones do not count', async () => {
      const { clients } = h.store({ maxUnusedClients: 2 });
      await clients.add(client('used'), 60);
      await clients.markUsed('used');
      for (const id of ['u1', 'u2', 'u3']) {
        await clients.add(client(id), 60);
        await h.advance(10);
      }
      expect(await clients.get('u1')).toBeUndefined();
      for (const id of ['used', 'u2', 'u3']) expect(await clients.get(id)).toEqual(client(id));
      await h.advance(61_000);
      await clients.add(client('u4'), 60);
      await clients.add(client('u5'), 60);
      for (const id of ['used', 'u4', 'u5']) expect(await clients.get(id)).toEqual(client(id));
    });

    it('keeps what each user allowed each client, replacing it on set', async () => {
      const { consents } = h.store();
      expect(await consents.get('alice', 'c')).toEqual([]);
      await consents.set('alice', 'c', ['notes:read']);
      await consents.set('alice', 'c', ['notes:read', 'notes:write']);
      await consents.set('bob', 'c', ['notes:read']);
      expect(await consents.get('alice', 'c')).toEqual(['notes:read', 'notes:write']);
      expect(await consents.get('bob', 'c')).toEqual(['notes:read']);
      expect(await consents.get('alice', 'other')).toEqual([]);
    });

    it(`gives a pending request to one taker (of ${CONCURRENT} at once), and forgets it when it expires`, async () => {
      const { requests } = h.store();
      await requests.add(request('r1'), 600);
      const taken = await Promise.all(Array.from({ length: CONCURRENT }, () => requests.take('r1')));
      expect(taken.filter((t) => t !== undefined)).toEqual([request('r1')]);
      await requests.add(request('r2'), 600);
      await h.advance(601_000);
      expect(await requests.take('r2')).toBeUndefined();
    });

    it('replaces the keys by compare-and-set on their kids, in order', async () => {
      const { keys } = h.store();
      expect(await keys.list()).toEqual([]);
      expect(await keys.replace([key('other')], [key('a')])).toBe(false);
      expect(await keys.replace([], [key('a')])).toBe(true);
      expect(await keys.replace([], [key('b')])).toBe(false);
      expect(await keys.replace([key('a')], [key('a'), key('b')])).toBe(true);
      expect(await keys.replace([key('b'), key('a')], [key('c')])).toBe(false);
      expect(await keys.list()).toEqual([key('a'), key('b')]);
      // Compared by kid only: a stale copy of the same keys still matches.
      expect(await keys.replace([{ ...key('a'), createdAt: 99 }, key('b')], [key('b'), key('c')])).toBe(true);
      expect(await keys.list()).toEqual([key('b'), key('c')]);
      const replaced = await Promise.all(Array.from({ length: CONCURRENT }, (_, i) => keys.replace([key('b'), key('c')], [key('c'), key(`d${i}`)])));
      expect(replaced.filter(Boolean)).toHaveLength(1);
    });

    it('counts per key and per window, atomically', async () => {
      const { counters } = h.store();
      await h.advance(60_000 - (h.now() % 60_000));
      expect([await counters.hit('k', 60), await counters.hit('k', 60), await counters.hit('other', 60)]).toEqual([1, 2, 1]);
      await h.advance(30_000);
      expect(await counters.hit('k', 60)).toBe(3);
      await h.advance(30_000);
      expect(await counters.hit('k', 60)).toBe(1);
      const counts = await Promise.all(Array.from({ length: CONCURRENT }, () => counters.hit('raced', 60)));
      expect([...counts].sort((a, b) => a - b)).toEqual(Array.from({ length: CONCURRENT }, (_, i) => i + 1));
    });
  });

  if (h.documents) {
    describe('documents', () => {
      it('shares a checked document, or its refusal, until its expiresAt', async () => {
        const { documents } = h.store();
        const accepted = { expiresAt: h.now() + 300_000, client: { ...client('https://app.example/client.json'), origin: 'metadata-document' as const, name: 'App' } };
        const refused = { expiresAt: h.now() + 60_000, refusal: 'https://bad.example/c.json answered 404' };
        await documents!.set(accepted.client.clientId, accepted);
        await documents!.set('https://bad.example/c.json', refused);
        await documents!.set('https://gone.example/c.json', { expiresAt: h.now() - 1, refusal: 'already expired' });
        expect(await documents!.get(accepted.client.clientId)).toEqual(accepted);
        expect(await documents!.get('https://bad.example/c.json')).toEqual(refused);
        expect(await documents!.get('https://gone.example/c.json')).toBeUndefined();
        await h.advance(61_000);
        expect(await documents!.get('https://bad.example/c.json')).toBeUndefined();
        expect(await documents!.get(accepted.client.clientId)).toEqual(accepted);
        await h.advance(240_000);
        expect(await documents!.get(accepted.client.clientId)).toBeUndefined();
      });
    });
  }
}
