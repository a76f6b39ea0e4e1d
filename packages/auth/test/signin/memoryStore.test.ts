import { MemorySignInStore } from '@typemcp/auth';
import type { Grant } from '@typemcp/auth';

/** The contract a store keeps, as the memory store keeps it. */
describe('MemorySignInStore', () => {
  let now = 1_000_000;
  const store = () => new MemorySignInStore(() => now);
  const grant = (id: string): Grant => ({ id, clientId: 'c', user: { id: 'alice' }, scopes: ['notes:read'], resource: 'https://mcp.example/mcp', refreshHash: 'h1', usedRefreshHashes: [], refreshExpiresAt: 0, revoked: false });

  it('revokes a grant added after its revocation (a replayed code that raced its first exchange), for ten minutes', async () => {
    const grants = store().grants;
    await grants.revoke('early');
    await grants.add(grant('early'), 3600);
    expect((await grants.get('early'))?.revoked).toBe(true);
    await grants.revoke('long-ago');
    now += 601_000;
    await grants.add(grant('long-ago'), 3600);
    expect((await grants.get('long-ago'))?.revoked).toBe(false);
  });

  it('takes a code once: first use, then replays until it expires', async () => {
    const codes = store().codes;
    const code = { clientId: 'c', redirectUri: 'https://app/cb', codeChallenge: 'x', scopes: [], resource: 'r', user: { id: 'alice' }, grantId: 'g' };
    await codes.add('hash', code, 60);
    expect(await codes.take('hash')).toEqual({ code, firstUse: true });
    expect(await codes.take('hash')).toEqual({ code, firstUse: false });
    now += 61_000;
    expect(await codes.take('hash')).toBeUndefined();
  });

  it('rotates a refresh token by compare-and-set, remembering the used one, and not on a revoked grant', async () => {
    const grants = store().grants;
    await grants.add(grant('g'), 3600);
    expect(await grants.rotate('g', 'h1', { refreshHash: 'h2', refreshExpiresAt: 1 }, 3600)).toBe(true);
    expect(await grants.rotate('g', 'h1', { refreshHash: 'h3', refreshExpiresAt: 1 }, 3600)).toBe(false);
    expect(await grants.get('g')).toMatchObject({ refreshHash: 'h2', usedRefreshHashes: ['h1'] });
    await grants.revoke('g');
    expect(await grants.rotate('g', 'h2', { refreshHash: 'h4', refreshExpiresAt: 1 }, 3600)).toBe(false);
  });

  it('forgets a registered client unless it is used, and counts per window', async () => {
    const s = store();
    const client = { clientId: 'dcr', origin: 'registered' as const, redirectUris: ['https://app/cb'], authMethod: 'none' as const, createdAt: 0 };
    await s.clients.add(client, 60);
    await s.clients.add({ ...client, clientId: 'used' }, 60);
    await s.clients.markUsed('used');
    now += 61_000;
    expect(await s.clients.get('dcr')).toBeUndefined();
    expect(await s.clients.get('used')).toBeDefined();
    now = 6_000_000;
    expect([await s.counters.hit('k', 60), await s.counters.hit('k', 60)]).toEqual([1, 2]);
    now += 60_000;
    expect(await s.counters.hit('k', 60)).toBe(1);
  });
});
