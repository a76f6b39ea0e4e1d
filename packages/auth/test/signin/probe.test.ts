import { McpServer } from '@typemcp/core';
import { developmentLogin, MemorySignInStore, signIn } from '@typemcp/auth';
import { ClientMetadataError } from '../../src/signin/clients/fetchers';
import type { DocumentFetcher, FetchedDocument } from '@typemcp/auth';
import { CALLBACK, pkce, SignInKit, WEB_CALLBACK } from './securityKit';
import { Notes } from './signInServer';

// Attacks on sign-in found by probing it from outside, one per finding; each fails without its fix.

describe('an authorization asking for no scope', () => {
  // A server whose tools need no scope (or defaultScopes: []) hands out tokens that still act as the user.
  let kit: SignInKit;
  beforeAll(async () => {
    kit = await SignInKit.start({ defaultScopes: [] });
  });
  afterAll(() => kit.close());

  test('shows the consent page for a client the user never approved, instead of sending it a code at once', async () => {
    const attacker = await kit.publicClient({ client_name: 'Attacker' });
    // Alice is signed in (through another client's sign-in she left unanswered).
    const alice = await kit.browser('alice', await kit.publicClient());
    for (const scope of [undefined, '']) {
      const answer = await alice.request(kit.authorizeUrl(attacker, pkce().challenge, { scope }));
      expect(answer.status).toBe(200);
      expect(answer.location).toBeNull();
      expect(answer.html).toContain('id="client-name">Attacker<');
      expect(answer.html).toContain('<li>Use notes as you</li>');
    }
  });

  test('once approved, the same empty request is asked again rather than remembered as approved', async () => {
    const clientId = await kit.publicClient();
    const alice = await kit.browser('alice', clientId);
    const { location } = await kit.authorize(alice, clientId, { scope: undefined });
    expect(location.searchParams.get('code')).not.toBeNull();
    expect((await alice.request(kit.authorizeUrl(clientId, pkce().challenge, { scope: undefined }))).status).toBe(200);
  });
});

describe('metadata documents being read', () => {
  const CLIENT = 'https://app.example/client.json';
  const document = (url: URL): FetchedDocument => ({ body: { client_id: url.href, client_name: 'App', redirect_uris: [WEB_CALLBACK] }, maxAgeSec: 3600 });
  const slow: Array<() => void> = [];
  let fetched = 0;
  const fetcher: DocumentFetcher = (url) => {
    fetched++;
    // A literal reserved address is refused at once, without a connection: failures cost nothing.
    if (url.hostname === '203.0.113.1') return Promise.reject(new ClientMetadataError(`${url.href} is not fetched: a reserved address`));
    if (url.hostname !== 'app.example') return new Promise((resolve) => slow.push(() => resolve(document(url))));
    return Promise.resolve(document(url));
  };
  let kit: SignInKit;
  beforeAll(async () => {
    kit = await SignInKit.start({ metadataDocuments: { fetcher, maxEntries: 5 } });
  });
  afterAll(async () => {
    for (const release of slow.splice(0)) release();
    await kit.close();
  });

  test('by an anonymous caller holding every slot with slow documents do not lock out a client already known', async () => {
    const known = await fetch(kit.authorizeUrl(CLIENT, pkce().challenge, { redirect_uri: WEB_CALLBACK }), { redirect: 'manual' });
    expect(known.status).toBe(200); // the login page: the document was read and kept
    await known.text();
    // Refusals cost the attacker nothing: as many as the cache holds must not push the document out.
    for (let i = 0; i < 5; i++) await (await fetch(kit.authorizeUrl(`https://203.0.113.1/${i}.json`, pkce().challenge, { redirect_uri: WEB_CALLBACK }))).text();
    const flood = Array.from({ length: 50 }, (_, i) =>
      fetch(kit.authorizeUrl(`https://slow${i}.example/client.json`, pkce().challenge, { redirect_uri: WEB_CALLBACK }), { redirect: 'manual' }).then((answer) => answer.text(), () => ''),
    );
    while (slow.length < 50) await new Promise((resolve) => setTimeout(resolve, 10));
    const before = fetched;
    const again = await fetch(kit.authorizeUrl(CLIENT, pkce().challenge, { redirect_uri: WEB_CALLBACK }), { redirect: 'manual' });
    const html = await again.text();
    expect(html).not.toContain('too many client metadata documents');
    expect(again.status).toBe(200);
    expect(fetched).toBe(before);
    for (const release of slow.splice(0)) release();
    await Promise.all(flood);
  });
});

describe('registrations nobody uses', () => {
  // Anyone may register 100 clients a minute, each up to 16 KiB, kept a day unused: gigabytes in memory.
  let kit: SignInKit;
  beforeAll(async () => {
    kit = await SignInKit.start({ store: new MemorySignInStore(Date.now, { maxUnusedClients: 3 }) });
  });
  afterAll(() => kit.close());

  test('are kept up to a bound in the memory store, the oldest dropped first; a client that signed someone in stays', async () => {
    const { clientId: used } = await kit.tokens();
    const bulky = Array.from({ length: 19 }, (_, i) => `https://app.example/${i}/${'x'.repeat(700)}`);
    const unused: string[] = [];
    for (let i = 0; i < 4; i++) unused.push(await kit.publicClient({ redirect_uris: [CALLBACK, ...bulky] }));
    const alice = await kit.browser('alice', used);
    const pageOf = async (clientId: string) => (await alice.request(kit.authorizeUrl(clientId, pkce().challenge))).html;
    expect(await pageOf(unused[0])).toContain('not registered here');
    for (const clientId of unused.slice(1)) expect(await pageOf(clientId)).not.toContain('not registered here');
    expect((await kit.tokens(used)).tokens.access_token).toBeDefined();
  });
});

describe('the consent page naming where the browser goes', () => {
  let kit: SignInKit;
  beforeAll(async () => {
    kit = await SignInKit.start();
  });
  afterAll(() => kit.close());

  test('names an app scheme with its host, not the host alone: myapp://accounts.google.com is not accounts.google.com', async () => {
    const redirect = 'myapp://accounts.google.com/cb';
    const clientId = await kit.publicClient({ redirect_uris: [redirect], client_name: 'Google Drive' });
    const { page } = await kit.consentPage('alice', { redirect_uri: redirect }, clientId);
    expect(/id="client-domain">([^<]*)</.exec(page.html)?.[1]).toBe('myapp://accounts.google.com');
  });
});

describe('registrations on a host that does not know the caller’s address', () => {
  test('(a fetch handler: Workers, Deno, Bun) are not all counted as one caller’s, so one caller cannot use up everyone’s', async () => {
    const server = new McpServer({ name: 'notes', version: '1.0.0', providers: [Notes] });
    server.plugin(signIn, {
      resource: 'http://127.0.0.1:1/mcp',
      secret: 'a test secret of at least thirty-two characters',
      authenticate: developmentLogin({ users: { alice: { password: 'alice' } } }),
      registration: { perAddressPerMinute: 2, perMinute: 100 },
    });
    const handler = server.fetchHandler({ path: '/mcp' });
    try {
      const register = () =>
        handler(new Request('http://127.0.0.1:1/oauth/register', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: [CALLBACK], token_endpoint_auth_method: 'none' }) }));
      // Two callers' registrations, say; with no address to tell them apart only the overall limit can apply.
      for (let i = 0; i < 3; i++) expect((await register()).status).toBe(201);
    } finally {
      await handler.close();
      await server.close();
    }
  });
});
