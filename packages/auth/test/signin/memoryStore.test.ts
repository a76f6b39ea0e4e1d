import { MemorySignInStore } from '@typemcp/auth';
import { grantOf, signInStoreContract } from '../../../../test-support/signInStoreContract';

/** The contract a store keeps, as the memory store keeps it, on a clock the test moves. */
describe('MemorySignInStore', () => {
  let now = 1_000_000;
  signInStoreContract({
    store: (options) => new MemorySignInStore(() => now, options),
    now: () => now,
    advance: async (ms) => {
      now += ms;
    },
  });

  it('remembers the last 64 used refresh tokens of a grant', async () => {
    const { grants } = new MemorySignInStore(() => now);
    await grants.add(grantOf('g', { refreshHash: 'h0' }), 3600);
    for (let i = 0; i < 70; i++) expect(await grants.rotate('g', `h${i}`, { refreshHash: `h${i + 1}`, refreshExpiresAt: 1 }, 3600)).toBe(true);
    const used = (await grants.get('g'))!.usedRefreshHashes;
    expect(used).toHaveLength(64);
    expect([used[0], used[63]]).toEqual(['h6', 'h69']);
  });
});
