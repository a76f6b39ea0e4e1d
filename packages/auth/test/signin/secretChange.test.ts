import { MemorySignInStore } from '@typemcp/auth';
import { AccessTokens } from '../../src/signin/tokens/AccessTokens';
import { KeyRing } from '../../src/signin/tokens/KeyRing';

/** A replica (or a restart) under another secret than the stored key's: it verifies, but does not sign. */
test('under another secret, tokens already issued still verify and issuing fails, saying why', async () => {
  const store = new MemorySignInStore();
  const issuer = 'https://mcp.example';
  const resource = 'https://mcp.example/mcp';
  const day = 24 * 3600;
  const before = new AccessTokens(new KeyRing(store.keys, 'the secret the key was stored under, 32+', day, Date.now), issuer, 3600, Date.now);
  const after = new AccessTokens(new KeyRing(store.keys, 'another secret altogether, also 32 chars', day, Date.now), issuer, 3600, Date.now);
  const subject = { grantId: 'g1', clientId: 'c1', user: { id: 'alice' }, scopes: ['notes:read'], resource };
  const { token } = await before.issue(subject);
  await expect(after.verify(token, resource)).resolves.toMatchObject({ grantId: 'g1', principal: { subject: 'alice', scopes: ['notes:read'] } });
  await expect(after.issue(subject)).rejects.toThrow(/cannot be decrypted with the secret: was the secret changed\?/);
  expect((await store.keys.list()).length).toBe(1); // nothing was rotated away under the replicas that can sign
});
