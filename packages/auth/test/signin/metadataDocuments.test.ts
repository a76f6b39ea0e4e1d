import { ClientMetadataError, nodeDocumentFetcher } from '../../src/signin/clients/fetchers';
import type { DocumentFetcher, FetchedDocument } from '../../src/signin/clients/fetchers';
import { ClientMetadataDocuments } from '../../src/signin/clients/metadataDocuments';
import type { MetadataDocumentOptions } from '../../src/signin/clients/metadataDocuments';
import { json, makeTestCertificates, startDocumentServer } from './documentServer';

const CLIENT_ID = 'https://notes.example/oauth/client.json';
const validDocument = (clientId = CLIENT_ID): Record<string, unknown> => ({
  client_id: clientId,
  client_name: 'Notes',
  client_uri: 'https://notes.example/',
  redirect_uris: ['https://notes.example/callback', 'http://127.0.0.1/callback'],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
});

/** A fetcher that answers from `documents` (by URL), counting its calls. */
function stubFetcher(documents: (url: string) => FetchedDocument | Error = (url) => ({ body: validDocument(url), maxAgeSec: undefined })) {
  const calls: string[] = [];
  const fetcher: DocumentFetcher = async (url) => {
    calls.push(url.href);
    const answer = documents(url.href);
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { fetcher, calls };
}

/** A clock the test moves, in milliseconds. */
function clock(startMs = 1_700_000_000_000) {
  let nowMs = startMs;
  return { now: () => nowMs, advanceSec: (seconds: number) => void (nowMs += seconds * 1000) };
}

async function refusalOf(resolving: Promise<unknown>): Promise<string> {
  const error = await resolving.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(ClientMetadataError);
  return (error as Error).message;
}

describe('ClientMetadataDocuments', () => {
  describe('names', () => {
    it.each([
      [CLIENT_ID, true],
      ['https://notes.example', true], // a URL client id all the same; resolve says what is wrong with it
      ['HTTPS://notes.example/client.json', true],
      ['http://notes.example/client.json', false],
      ['notes-client', false],
      ['urn:example:notes', false],
      ['', false],
    ])('%j: %s', (clientId, named) => {
      expect(ClientMetadataDocuments.names(clientId)).toBe(named);
    });
  });

  describe('with a real HTTPS server', () => {
    it('resolves a valid document to a public client (development: 127.0.0.1 allowed)', async () => {
      const certificates = makeTestCertificates();
      const server = await startDocumentServer(certificates);
      try {
        const clientId = `https://127.0.0.1:${server.port}/oauth/client.json`;
        server.route('/oauth/client.json', json(validDocument(clientId), { 'cache-control': 'max-age=600' }));
        const fetcher = nodeDocumentFetcher({ allowPrivateAddresses: true, timeoutMs: 2_000, maxBytes: 16 * 1024, ca: certificates.ca });
        const time = clock();
        const documents = new ClientMetadataDocuments(fetcher, { now: time.now });
        await expect(documents.resolve(clientId)).resolves.toEqual({
          clientId,
          origin: 'metadata-document',
          redirectUris: ['https://notes.example/callback', 'http://127.0.0.1/callback'],
          authMethod: 'none',
          refreshes: true,
          name: 'Notes',
          uri: 'https://notes.example/',
          createdAt: Math.floor(time.now() / 1000),
        });
        await documents.resolve(clientId);
        expect(server.requests).toEqual(['/oauth/client.json']); // the second came from the cache

        // The same server, without development's allowance: 127.0.0.1 is refused, and remembered as refused.
        const strict = new ClientMetadataDocuments(nodeDocumentFetcher({ allowPrivateAddresses: false, timeoutMs: 2_000, maxBytes: 16 * 1024, ca: certificates.ca }));
        expect(await refusalOf(strict.resolve(clientId))).toMatch(/127\.0\.0\.1 is a loopback address/);
        expect(server.requests).toHaveLength(1);
      } finally {
        await server.close();
        certificates.remove();
      }
    });
  });

  describe('the client_id URL', () => {
    it.each([
      ['http://notes.example/client.json', /is not an https URL/],
      ['https://notes.example', /has no path/],
      ['https://notes.example/', /has no path/],
      ['https://notes.example/client.json#main', /has a fragment/],
      ['https://notes.example/client.json#', /has a fragment/],
      ['https://notes.example/client.json?v=2', /has a query string/],
      ['https://notes.example/client.json?', /has a query string/],
      ['https://alice:secret@notes.example/client.json', /carries a user name or password/],
      ['https://alice@notes.example/client.json', /carries a user name or password/],
      ['https://notes.example/oauth/../client.json', /has a \. or \.\. path segment/],
      ['https://notes.example/./client.json', /has a \. or \.\. path segment/],
      ['https://notes.example/oauth/%2E%2E/client.json', /has a \. or \.\. path segment/],
      ['https://notes.example/oauth/.%2e/client.json', /has a \. or \.\. path segment/],
      ['https://notes.example/oauth/..', /has a \. or \.\. path segment/],
      ['https://notes.example/oauth\\..\\client.json', /has a \. or \.\. path segment/],
      ['https://NOTES.example/client.json', /is not in normal form; it would be https:\/\/notes\.example\/client\.json/],
      ['https://notes.example:443/client.json', /is not in normal form/],
      ['https://notes.example/a b.json', /is not in normal form/],
      [`https://notes.example/${'a'.repeat(2100)}`, /is longer than 2048 characters/],
      ['not a url', /is not a URL/],
    ])('refuses %s without fetching or remembering it', async (clientId, reason) => {
      const { fetcher, calls } = stubFetcher();
      const documents = new ClientMetadataDocuments(fetcher);
      expect(await refusalOf(documents.resolve(clientId))).toMatch(reason);
      expect(calls).toEqual([]);
      expect(documents.size).toBe(0);
    });

    it.each(['https://notes.example/client.json', 'https://notes.example:8443/oauth/client', 'https://notes.example/.well-known/oauth-client', 'https://notes.example/a/...'])(
      'accepts %s',
      async (clientId) => {
        const { fetcher, calls } = stubFetcher();
        await expect(new ClientMetadataDocuments(fetcher).resolve(clientId)).resolves.toMatchObject({ clientId });
        expect(calls).toEqual([clientId]);
      },
    );
  });

  describe('the document', () => {
    const resolveWith = (body: unknown) => new ClientMetadataDocuments(stubFetcher(() => ({ body, maxAgeSec: undefined })).fetcher).resolve(CLIENT_ID);
    const without = (member: string) => Object.fromEntries(Object.entries(validDocument()).filter(([name]) => name !== member));

    it.each([
      ['an array', [validDocument()], /is not a JSON object/],
      ['a string', JSON.stringify(validDocument()), /is not a JSON object/],
      ['null', null, /is not a JSON object/],
      ['another client_id', { ...validDocument(), client_id: 'https://evil.example/oauth/client.json' }, /names the client_id "https:\/\/evil\.example\/oauth\/client\.json", not its own URL/],
      ['a client_id differing in one character', { ...validDocument(), client_id: `${CLIENT_ID}/` }, /not its own URL/],
      ['no client_id', without('client_id'), /names the client_id undefined/],
      ['no redirect_uris', without('redirect_uris'), /has no redirect_uris/],
      ['empty redirect_uris', { ...validDocument(), redirect_uris: [] }, /has no redirect_uris/],
      ['redirect_uris as a string', { ...validDocument(), redirect_uris: 'https://notes.example/callback' }, /has no redirect_uris/],
      ['a javascript: redirect_uri', { ...validDocument(), redirect_uris: ['https://notes.example/callback', 'javascript:alert(1)'] }, /redirect_uri that cannot be used: javascript:alert\(1\) uses the scheme javascript:/],
      ['an http redirect_uri off loopback', { ...validDocument(), redirect_uris: ['http://notes.example/callback'] }, /is http on a host that is not loopback/],
      ['a redirect_uri that is not a string', { ...validDocument(), redirect_uris: [42] }, /42 is not an absolute URL/],
      ['a client_secret', { ...validDocument(), client_secret: 'hunter2' }, /contains a client_secret; a public document cannot hold one/],
      ['a client_secret_expires_at', { ...validDocument(), client_secret_expires_at: 0 }, /contains a client_secret/],
      ['client_secret_basic', { ...validDocument(), token_endpoint_auth_method: 'client_secret_basic' }, /client_secret_basic, a shared secret/],
      ['client_secret_post', { ...validDocument(), token_endpoint_auth_method: 'client_secret_post' }, /client_secret_post, a shared secret/],
      ['client_secret_jwt', { ...validDocument(), token_endpoint_auth_method: 'client_secret_jwt' }, /client_secret_jwt, a shared secret/],
      ['private_key_jwt', { ...validDocument(), token_endpoint_auth_method: 'private_key_jwt' }, /"private_key_jwt", which is not supported; use none/],
      ['grant_types without authorization_code', { ...validDocument(), grant_types: ['client_credentials'] }, /grant_types without authorization_code/],
      ['grant_types as a string', { ...validDocument(), grant_types: 'authorization_code' }, /grant_types without authorization_code/],
      ['response_types without code', { ...validDocument(), response_types: ['token'] }, /response_types without code/],
      ['a client_name that is not a string', { ...validDocument(), client_name: { en: 'Notes' } }, /client_name that is not a string/],
      ['a client_name of 201 characters', { ...validDocument(), client_name: 'n'.repeat(201) }, /client_name longer than 200 characters/],
      ['a client_uri of 2001 characters', { ...validDocument(), client_uri: `https://notes.example/${'a'.repeat(1980)}` }, /client_uri longer than 2000 characters/],
      ['a javascript: client_uri', { ...validDocument(), client_uri: 'javascript:alert(1)' }, /client_uri that is not an http\(s\) URL/],
    ])('refuses %s', async (_what, body, reason) => {
      expect(await refusalOf(resolveWith(body))).toMatch(reason);
    });

    it('takes the least a document must say, and keeps only what it knows', async () => {
      const client = await resolveWith({ client_id: CLIENT_ID, redirect_uris: ['com.notes.app:/callback'], logo_uri: 'https://notes.example/logo.png' });
      expect(client).toEqual({ clientId: CLIENT_ID, origin: 'metadata-document', redirectUris: ['com.notes.app:/callback'], authMethod: 'none', refreshes: true, createdAt: expect.any(Number) });
      expect(Object.isFrozen(client) && Object.isFrozen(client.redirectUris)).toBe(true); // cached and shared: nobody may change it
    });

    it('strips control characters and bidirectional overrides from the name', async () => {
      const client = await resolveWith({ ...validDocument(), client_name: ' No\u0000tes\u202e\u0007 App\n' });
      expect(client.name).toBe('Notes App');
      expect((await resolveWith({ ...validDocument(), client_name: '\u0001\u202e' })).name).toBeUndefined();
    });
  });

  describe('the cache', () => {
    const documentsWith = (answer: (url: string) => FetchedDocument | Error, options: MetadataDocumentOptions = {}) => {
      const time = clock();
      const { fetcher, calls } = stubFetcher(answer);
      return { documents: new ClientMetadataDocuments(fetcher, { now: time.now, ...options }), calls, time };
    };

    it("keeps a document for its max-age", async () => {
      const { documents, calls, time } = documentsWith((url) => ({ body: validDocument(url), maxAgeSec: 120 }));
      await documents.resolve(CLIENT_ID);
      time.advanceSec(119);
      await documents.resolve(CLIENT_ID);
      expect(calls).toHaveLength(1);
      time.advanceSec(1);
      await documents.resolve(CLIENT_ID);
      expect(calls).toHaveLength(2);
    });

    it('keeps a document no longer than cacheMaxSec, whatever its max-age', async () => {
      const { documents, calls, time } = documentsWith((url) => ({ body: validDocument(url), maxAgeSec: 31_536_000 }), { cacheMaxSec: 3600 });
      await documents.resolve(CLIENT_ID);
      time.advanceSec(3599);
      await documents.resolve(CLIENT_ID);
      expect(calls).toHaveLength(1);
      time.advanceSec(1);
      await documents.resolve(CLIENT_ID);
      expect(calls).toHaveLength(2);
    });

    it('keeps a document without max-age for cacheDefaultSec', async () => {
      const { documents, calls, time } = documentsWith((url) => ({ body: validDocument(url), maxAgeSec: undefined }), { cacheDefaultSec: 300 });
      await documents.resolve(CLIENT_ID);
      time.advanceSec(299);
      await documents.resolve(CLIENT_ID);
      expect(calls).toHaveLength(1);
      time.advanceSec(1);
      await documents.resolve(CLIENT_ID);
      expect(calls).toHaveLength(2);
    });

    it('does not keep a document whose max-age is 0 (no-store, no-cache)', async () => {
      const { documents, calls } = documentsWith((url) => ({ body: validDocument(url), maxAgeSec: 0 }));
      await documents.resolve(CLIENT_ID);
      await documents.resolve(CLIENT_ID);
      expect(calls).toHaveLength(2);
      expect(documents.size).toBe(0);
    });

    it('remembers a failure for negativeCacheSec, then tries again', async () => {
      let failing = true;
      const { documents, calls, time } = documentsWith((url) => (failing ? new ClientMetadataError(`${url} answered 503, not 200`) : { body: validDocument(url), maxAgeSec: undefined }), { negativeCacheSec: 60 });
      expect(await refusalOf(documents.resolve(CLIENT_ID))).toMatch(/answered 503/);
      failing = false;
      time.advanceSec(59);
      expect(await refusalOf(documents.resolve(CLIENT_ID))).toMatch(/answered 503/);
      expect(calls).toHaveLength(1);
      time.advanceSec(1);
      await expect(documents.resolve(CLIENT_ID)).resolves.toMatchObject({ clientId: CLIENT_ID });
      expect(calls).toHaveLength(2);
    });

    it('remembers a document that fails the checks as a failure', async () => {
      const { documents, calls } = documentsWith(() => ({ body: validDocument('https://evil.example/client.json'), maxAgeSec: 3600 }));
      expect(await refusalOf(documents.resolve(CLIENT_ID))).toMatch(/not its own URL/);
      expect(await refusalOf(documents.resolve(CLIENT_ID))).toMatch(/not its own URL/);
      expect(calls).toHaveLength(1);
    });

    it('turns an unexpected error of the fetcher into a ClientMetadataError without its details', async () => {
      const { documents } = documentsWith(() => new Error('socket hang up at 10.0.0.7'));
      const message = await refusalOf(documents.resolve(CLIENT_ID));
      expect(message).toBe(`${CLIENT_ID} could not be fetched`);
    });

    it('never holds more than maxEntries, dropping the least recently used', async () => {
      const { documents, calls } = documentsWith((url) => ({ body: validDocument(url), maxAgeSec: 3600 }), { maxEntries: 10 });
      const id = (n: number) => `https://notes.example/clients/${n}.json`;
      for (let n = 0; n < 25; n++) {
        await documents.resolve(id(n));
        await documents.resolve(id(0)); // used again and again: never the least recently used
        expect(documents.size).toBeLessThanOrEqual(10);
      }
      expect(documents.size).toBe(10);
      expect(calls.filter((call) => call === id(0))).toHaveLength(1); // kept throughout
      calls.length = 0;
      await documents.resolve(id(24));
      expect(calls).toEqual([]);
      await documents.resolve(id(1));
      expect(calls).toEqual([id(1)]); // dropped long ago
    });

    it('counts failures against maxEntries too', async () => {
      const { documents } = documentsWith((url) => new ClientMetadataError(`${url} answered 404, not 200`), { maxEntries: 5 });
      for (let n = 0; n < 12; n++) await documents.resolve(`https://notes.example/missing/${n}.json`).catch(() => {});
      expect(documents.size).toBe(5);
    });

    it('makes room by dropping expired entries before live ones', async () => {
      const lifetimes: Record<string, number> = { 'https://notes.example/short.json': 10 };
      const { documents, calls, time } = documentsWith((url) => ({ body: validDocument(url), maxAgeSec: lifetimes[url] ?? 3600 }), { maxEntries: 3 });
      await documents.resolve('https://notes.example/short.json');
      await documents.resolve('https://notes.example/b.json');
      await documents.resolve('https://notes.example/c.json');
      await documents.resolve('https://notes.example/short.json'); // the most recently used, but soon expired
      time.advanceSec(20);
      await documents.resolve('https://notes.example/d.json');
      expect(documents.size).toBe(3);
      calls.length = 0;
      await documents.resolve('https://notes.example/c.json');
      await documents.resolve('https://notes.example/b.json');
      expect(calls).toEqual([]);
    });

    it('shares one fetch among concurrent resolves of one client id', async () => {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const calls: string[] = [];
      const documents = new ClientMetadataDocuments(async (url) => {
        calls.push(url.href);
        await released;
        return { body: validDocument(url.href), maxAgeSec: 0 }; // not cached: only the sharing saves fetches
      });
      const resolving = [documents.resolve(CLIENT_ID), documents.resolve(CLIENT_ID), documents.resolve(CLIENT_ID)];
      const other = documents.resolve('https://notes.example/other.json');
      release();
      const clients = await Promise.all(resolving);
      await other;
      expect(calls).toEqual([CLIENT_ID, 'https://notes.example/other.json']);
      expect(clients[1]).toBe(clients[0]);
      expect(clients[2]).toBe(clients[0]);
      await documents.resolve(CLIENT_ID); // settled: the next one fetches anew
      expect(calls).toHaveLength(3);
    });

    it('shares one failing fetch too', async () => {
      let fail!: () => void;
      const failed = new Promise<void>((resolve) => (fail = resolve));
      let calls = 0;
      const documents = new ClientMetadataDocuments(async (url) => {
        calls++;
        await failed;
        throw new ClientMetadataError(`${url.href} did not arrive within 300 ms`);
      });
      const resolving = [documents.resolve(CLIENT_ID), documents.resolve(CLIENT_ID)];
      fail();
      const messages = await Promise.all(resolving.map(refusalOf));
      expect(messages).toEqual([`${CLIENT_ID} did not arrive within 300 ms`, `${CLIENT_ID} did not arrive within 300 ms`]);
      expect(calls).toBe(1);
    });

    it('stamps the client with the time it was fetched, in seconds', async () => {
      const { documents, time } = documentsWith((url) => ({ body: validDocument(url), maxAgeSec: undefined }));
      await expect(documents.resolve(CLIENT_ID)).resolves.toMatchObject({ createdAt: Math.floor(time.now() / 1000) });
    });

    it('refuses options that make no sense', () => {
      const { fetcher } = stubFetcher();
      expect(() => new ClientMetadataDocuments(fetcher, { maxEntries: -1 })).toThrow(/maxEntries must be a number of at least 0/);
      expect(() => new ClientMetadataDocuments(fetcher, { cacheMaxSec: Number.NaN })).toThrow(/cacheMaxSec/);
    });
  });
});
