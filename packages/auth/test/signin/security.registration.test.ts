import { CALLBACK, pkce, SignInKit } from './securityKit';

// Dynamic Client Registration as a flood, as a way to park clients, and as a way in for bad
// metadata. The clocks are fixed: a minute's window cannot turn over in the middle of a test.

describe('rate limits', () => {
  const clock = Date.now();
  const client = { redirect_uris: [CALLBACK], token_endpoint_auth_method: 'none' };

  test('per address: the 4th registration of a minute from one address gets 429 with Retry-After; another address still registers', async () => {
    const kit = await SignInKit.start({ registration: { perAddressPerMinute: 3 }, now: () => clock });
    try {
      for (let i = 0; i < 3; i++) expect((await kit.register(client)).status).toBe(201);
      const refused = await kit.register(client);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('60');
      expect(refused.body.client_id).toBeUndefined();
      expect((await kit.register(client, { localAddress: '127.0.0.2' })).status).toBe(201);
    } finally {
      await kit.close();
    }
  });

  test('in all: once the minute’s registrations are spent, a new address is refused too', async () => {
    const kit = await SignInKit.start({ registration: { perAddressPerMinute: 100, perMinute: 3 }, now: () => clock });
    try {
      for (let i = 0; i < 3; i++) expect((await kit.register(client)).status).toBe(201);
      const refused = await kit.register(client, { localAddress: '127.0.0.2' });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('60');
    } finally {
      await kit.close();
    }
  });

  test('the limit counts per minute: the next minute registers again', async () => {
    let now = clock;
    const kit = await SignInKit.start({ registration: { perAddressPerMinute: 1 }, now: () => now });
    try {
      expect((await kit.register(client)).status).toBe(201);
      expect((await kit.register(client)).status).toBe(429);
      now += 60_000;
      expect((await kit.register(client)).status).toBe(201);
    } finally {
      await kit.close();
    }
  });
});

describe('unused registrations expire', () => {
  let clock = Date.now();
  let kit: SignInKit;
  beforeAll(async () => {
    kit = await SignInKit.start({ registration: { unusedTtlSec: 300, perAddressPerMinute: 100 }, now: () => clock });
  });
  afterAll(() => kit.close());

  test('a client that never completes a sign-in is forgotten after unusedTtlSec; one that did stays', async () => {
    const unused = await kit.publicClient();
    const used = await kit.publicClient();
    // The unused one gets as far as a code: only the exchange counts as a completed sign-in.
    const alice = await kit.browser('alice', unused);
    await kit.authorize(alice, unused);
    const { code, request } = await kit.code(used);
    expect((await kit.exchange(code, request)).status).toBe(200);

    clock += 299_000;
    expect((await alice.request(kit.authorizeUrl(unused, pkce().challenge))).status).toBe(303);
    clock += 2_000;
    const gone = await alice.request(kit.authorizeUrl(unused, pkce().challenge));
    expect(gone.status).toBe(400);
    expect(gone.location).toBeNull();
    expect(gone.html).toContain('not registered');
    const token = await kit.token({ grant_type: 'authorization_code', code: 'x', redirect_uri: CALLBACK, code_verifier: pkce().verifier, client_id: unused });
    expect(token.status).toBe(401);
    expect(token.body.error).toBe('invalid_client');

    clock += 30 * 24 * 3600_000;
    const stays = await kit.tokens(used);
    expect(stays.tokens.access_token).toBeDefined();
  });
});

describe('bad metadata', () => {
  let kit: SignInKit;
  beforeAll(async () => {
    kit = await SignInKit.start();
  });
  afterAll(() => kit.close());

  test.each([
    ['a javascript: redirect URI', { redirect_uris: ['javascript:alert(document.cookie)'] }, 'invalid_redirect_uri'],
    ['a JavaScript: redirect URI in capitals', { redirect_uris: ['JavaScript:alert(1)'] }, 'invalid_redirect_uri'],
    ['a javascript: redirect URI split by a tab (which URL parsers drop)', { redirect_uris: ['java\tscript:alert(1)'] }, 'invalid_redirect_uri'],
    ['a data: redirect URI', { redirect_uris: ['data:text/html,<script>alert(1)</script>'] }, 'invalid_redirect_uri'],
    ['a file: redirect URI', { redirect_uris: ['file:///etc/passwd'] }, 'invalid_redirect_uri'],
    ['an http redirect URI off loopback', { redirect_uris: ['http://app.example/callback'] }, 'invalid_redirect_uri'],
    ['an http redirect URI on a host that only starts like localhost', { redirect_uris: ['http://localhost.evil.example/callback'] }, 'invalid_redirect_uri'],
    ['a redirect URI with a fragment', { redirect_uris: ['https://app.example/callback#x'] }, 'invalid_redirect_uri'],
    ['a redirect URI with an empty fragment', { redirect_uris: ['https://app.example/callback#'] }, 'invalid_redirect_uri'],
    ['a redirect URI with credentials', { redirect_uris: ['https://user:pass@app.example/callback'] }, 'invalid_redirect_uri'],
    ['a relative redirect URI', { redirect_uris: ['/callback'] }, 'invalid_redirect_uri'],
    ['an empty list of redirect URIs', { redirect_uris: [] }, 'invalid_redirect_uri'],
    ['a redirect URI that is no string', { redirect_uris: [{ href: 'https://app.example/' }] }, 'invalid_redirect_uri'],
    ['a list of 21 redirect URIs', { redirect_uris: Array.from({ length: 21 }, (_, i) => `https://app.example/${i}`) }, 'invalid_redirect_uri'],
    ['an unknown token_endpoint_auth_method', { redirect_uris: [CALLBACK], token_endpoint_auth_method: 'private_key_jwt' }, 'invalid_client_metadata'],
    ['a token_endpoint_auth_method that is no string', { redirect_uris: [CALLBACK], token_endpoint_auth_method: ['none'] }, 'invalid_client_metadata'],
    ['the implicit grant', { redirect_uris: [CALLBACK], grant_types: ['implicit'] }, 'invalid_client_metadata'],
    ['the response type token', { redirect_uris: [CALLBACK], response_types: ['token'] }, 'invalid_client_metadata'],
    ['a client_name of 201 characters', { redirect_uris: [CALLBACK], client_name: 'x'.repeat(201) }, 'invalid_client_metadata'],
    ['a client_name that is no string', { redirect_uris: [CALLBACK], client_name: { toString: 'x' } }, 'invalid_client_metadata'],
    ['a javascript: client_uri', { redirect_uris: [CALLBACK], client_uri: 'javascript:alert(1)' }, 'invalid_client_metadata'],
    ['a JSON array', [{ redirect_uris: [CALLBACK] }], 'invalid_client_metadata'],
    ['JSON null', null, 'invalid_client_metadata'],
  ])('%s is refused', async (_, metadata, error) => {
    const answer = await kit.register(metadata);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe(error);
    expect(answer.body.client_id).toBeUndefined();
  });

  test('a body that is not JSON, or not sent as JSON, is refused', async () => {
    expect((await kit.register(undefined, { raw: '{"redirect_uris": [' })).body.error).toBe('invalid_client_metadata');
    const asForm = await kit.register(undefined, { raw: JSON.stringify({ redirect_uris: [CALLBACK] }), contentType: 'application/x-www-form-urlencoded' });
    expect(asForm.status).toBe(400);
    expect(asForm.body.client_id).toBeUndefined();
  });

  test('a registration larger than 16 KiB is refused before it is parsed', async () => {
    const answer = await kit.register({ redirect_uris: [CALLBACK], software_statement: 'x'.repeat(17 * 1024) });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('invalid_client_metadata');
    expect(answer.body.client_id).toBeUndefined();
  });

  test('a client_name with control characters or direction overrides is kept without them', async () => {
    // U+202E would show "Notes\u202Eelgoog" as "Notesgoogle" on the consent page.
    const answer = await kit.register({ redirect_uris: [CALLBACK], token_endpoint_auth_method: 'none', client_name: 'Notes\r\nSet-Cookie: x=1\u202Eelgoog' });
    expect(answer.status).toBe(201);
    expect(answer.body.client_name).toMatch(/^Notes\s*Set-Cookie: x=1elgoog$/);
  });

  test('a confidential client gets a secret; a public one none', async () => {
    const confidential = await kit.register({ redirect_uris: [CALLBACK] });
    expect(confidential.body.token_endpoint_auth_method).toBe('client_secret_basic');
    expect(confidential.body.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(confidential.headers.get('cache-control')).toBe('no-store');
    const open = await kit.register({ redirect_uris: [CALLBACK], token_endpoint_auth_method: 'none' });
    expect(open.body.client_secret).toBeUndefined();
  });
});
