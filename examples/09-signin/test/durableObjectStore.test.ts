/**
 * The Worker's store, on Node: `durableObjectSignInStore` talking to a `SignInStoreObject` over
 * its fetch (JSON both ways, as on the platform), the object's storage in memory, and the
 * object's requests one at a time (workerd holds a request while another awaits its storage).
 * It keeps the contract every SignInStore keeps (test-support/signInStoreContract.ts); the
 * workerd run is examples/09-signin/test/runtimes.test.ts.
 */
import { durableObjectSignInStore, SignInStoreObject } from '../src/DurableObjectSignInStore';
import type { DurableObjectNamespace, DurableObjectStorage } from '../src/DurableObjectSignInStore';
import { grantOf, signInStoreContract } from '../../../test-support/signInStoreContract';

/** A Durable Object's storage in memory: values cloned as the platform clones them, keys listed in order. */
class MemoryStorage implements DurableObjectStorage {
  readonly entries = new Map<string, unknown>();
  alarm: number | undefined;

  async get<T>(key: string): Promise<T | undefined> {
    return this.entries.has(key) ? structuredClone(this.entries.get(key) as T) : undefined;
  }

  async put<T>(key: string, value: T): Promise<void> {
    this.entries.set(key, structuredClone(value));
  }

  async delete(key: string): Promise<boolean> {
    return this.entries.delete(key);
  }

  async list<T>(options: { prefix?: string; limit?: number } = {}): Promise<Map<string, T>> {
    const keys = [...this.entries.keys()].filter((key) => key.startsWith(options.prefix ?? '')).sort();
    return new Map(keys.slice(0, options.limit ?? keys.length).map((key) => [key, structuredClone(this.entries.get(key) as T)]));
  }

  async setAlarm(scheduledTime: number): Promise<void> {
    this.alarm = scheduledTime;
  }
}

/** The namespace of one object, whose requests run one after another. */
function namespaceOf(object: SignInStoreObject): DurableObjectNamespace {
  let queue: Promise<unknown> = Promise.resolve();
  return {
    idFromName: (name) => name,
    get: () => ({
      fetch: (url, init) => {
        const answer = queue.then(() => object.fetch(new Request(url, init)));
        queue = answer.catch(() => undefined);
        return answer;
      },
    }),
  };
}

let now = 1_000_000;
const objectOf = (options: { maxUnusedClients?: number } = {}) => {
  const storage = new MemoryStorage();
  const object = new SignInStoreObject({ storage }, {}, { now: () => now, ...options });
  return { storage, object, store: durableObjectSignInStore(namespaceOf(object)) };
};

describe('durableObjectSignInStore', () => {
  signInStoreContract({
    store: (options) => objectOf(options).store,
    now: () => now,
    advance: async (ms) => {
      now += ms;
    },
  });

  it('remembers the last 64 used refresh tokens of a grant', async () => {
    const { grants } = objectOf().store;
    await grants.add(grantOf('g', { refreshHash: 'h0' }), 3600);
    for (let i = 0; i < 70; i++) expect(await grants.rotate('g', `h${i}`, { refreshHash: `h${i + 1}`, refreshExpiresAt: 1 }, 3600)).toBe(true);
    const used = (await grants.get('g'))!.usedRefreshHashes;
    expect(used).toHaveLength(64);
    expect([used[0], used[63]]).toEqual(['h6', 'h69']);
  });

  it('deletes what expired when the alarm rings, setting the next while something can still expire', async () => {
    const { storage, object, store } = objectOf();
    await store.codes.add('short', { clientId: 'c', redirectUri: 'https://app/cb', codeChallenge: 'x', scopes: [], resource: 'r', user: { id: 'alice' }, grantId: 'g' }, 60);
    await store.grants.add(grantOf('long'), 3600);
    await store.consents.set('alice', 'c', ['notes:read']);
    expect(storage.alarm).toBe(now + 3600_000);
    now += 61_000;
    await object.alarm();
    expect([...storage.entries.keys()].sort()).toEqual(['consent:["alice","c"]', 'grant:long', 'unused-count']);
    expect(storage.alarm).toBe(now + 3600_000);
  });

  it('answers 400 to an operation a SignInStore does not have', async () => {
    const { object } = objectOf();
    const answer = await object.fetch(new Request('https://sign-in-store/', { method: 'POST', body: JSON.stringify({ part: 'grants', method: 'constructor', args: [] }) }));
    expect(answer.status).toBe(400);
    expect(await answer.text()).toBe('there is no operation grants.constructor');
  });
});
