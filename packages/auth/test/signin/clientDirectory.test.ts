import { ClientDirectory, UnknownClientError } from '../../src/signin/ClientDirectory';
import type { FetchedDocument } from '../../src/signin/clients/fetchers';
import { ClientMetadataDocuments } from '../../src/signin/clients/metadataDocuments';
import { MemorySignInStore } from '../../src/signin/store/MemorySignInStore';
import type { CheckedDocument } from '../../src/signin/store/SignInStore';

/** Which client a client_id names, and how many documents the server reads at once. */
describe('ClientDirectory', () => {
  const documentOf = (url: URL): FetchedDocument => ({ body: { client_id: url.href, redirect_uris: ['https://app.example/cb'], client_name: 'App' }, maxAgeSec: 0 });

  it('caps the metadata documents read at once, and reads again when one finishes', async () => {
    const waiting: Array<() => void> = [];
    const directory = new ClientDirectory(
      new MemorySignInStore().clients,
      { fetcher: (url) => new Promise((resolve) => waiting.push(() => resolve(documentOf(url)))) },
      Date.now,
    );
    const pending = Array.from({ length: 50 }, (_, i) => directory.find(`https://app${i}.example/client.json`));
    await expect(directory.find('https://one-too-many.example/client.json')).rejects.toThrow(/too many client metadata documents at this moment/);
    waiting.shift()!();
    const first = await pending[0];
    expect(first).toMatchObject({ clientId: 'https://app0.example/client.json', origin: 'metadata-document', name: 'App' });
    const next = directory.find('https://now-there-is-room.example/client.json');
    await new Promise((resolve) => setImmediate(resolve));
    for (const release of waiting.splice(0)) release();
    await expect(next).resolves.toMatchObject({ clientId: 'https://now-there-is-room.example/client.json' });
    await Promise.all(pending);
  });

  it('finds registered clients by id, and refuses URL ids when metadata documents are off', async () => {
    const store = new MemorySignInStore();
    await store.clients.add({ clientId: 'abc', origin: 'registered', redirectUris: ['https://app.example/cb'], authMethod: 'none', createdAt: 0 }, 60);
    const directory = new ClientDirectory(store.clients, false, Date.now);
    await expect(directory.find('abc')).resolves.toMatchObject({ clientId: 'abc' });
    await expect(directory.find('https://app.example/client.json')).rejects.toThrow(new UnknownClientError('this server does not accept client metadata documents, so the client https://app.example/client.json is unknown'));
    await expect(directory.find('nope')).rejects.toThrow(/not registered here/);
    await expect(directory.find('')).rejects.toThrow(/names no client/);
  });
});

describe('a document store shared by replicas', () => {
  it('lets the second replica answer from what the first checked, refusals included, until they expire', async () => {
    let now = 1_000_000;
    const shared = new Map<string, CheckedDocument>();
    const store = { get: async (id: string) => shared.get(id), set: async (id: string, entry: CheckedDocument) => void shared.set(id, entry) };
    const fetched: string[] = [];
    const fetcher = async (url: URL): Promise<FetchedDocument> => {
      fetched.push(url.href);
      if (url.pathname === '/bad.json') return { body: { client_id: 'https://elsewhere.example/x.json', redirect_uris: ['https://app.example/cb'] }, maxAgeSec: 300 };
      return { body: { client_id: url.href, redirect_uris: ['https://app.example/cb'] }, maxAgeSec: 300 };
    };
    const replica = () => new ClientMetadataDocuments(fetcher, { shared: store, now: () => now });
    const first = replica();
    await first.resolve('https://app.example/client.json');
    await expect(first.resolve('https://app.example/bad.json')).rejects.toThrow(/not its own URL/);
    const second = replica();
    await expect(second.resolve('https://app.example/client.json')).resolves.toMatchObject({ clientId: 'https://app.example/client.json' });
    await expect(second.resolve('https://app.example/bad.json')).rejects.toThrow(/not its own URL/);
    expect(fetched).toEqual(['https://app.example/client.json', 'https://app.example/bad.json']);
    now += 301_000;
    await replica().resolve('https://app.example/client.json');
    expect(fetched).toHaveLength(3);
  });
});
