import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ClientMetadataError, nodeDocumentFetcher, webDocumentFetcher } from '../../src/signin/clients/fetchers';
import type { DocumentFetchOptions } from '../../src/signin/clients/fetchers';
import { maxAgeOf } from '../../src/signin/clients/fetchers/document';
import { json, makeTestCertificates, startDocumentServer } from './documentServer';
import type { DocumentServer, TestCertificates } from './documentServer';

let certificates: TestCertificates;
let server: DocumentServer;
let base: string;

beforeAll(async () => {
  certificates = makeTestCertificates();
  server = await startDocumentServer(certificates);
  base = `https://127.0.0.1:${server.port}`;
});

afterAll(async () => {
  await server?.close();
  certificates?.remove();
});

beforeEach(() => {
  server.requests.length = 0;
});

const documentFor = (url: string) => ({ client_id: url, client_name: 'Notes', redirect_uris: ['https://notes.example/callback'] });

/** Passes the checks (unicast, outside every special range) but reaches no one: unallocated IPv6 space. */
const PUBLIC_ADDRESS = '4000::1';

/** Rejects with a ClientMetadataError whose message matches `pattern`; returns how long that took. */
async function refusal(fetching: Promise<unknown>, pattern: RegExp): Promise<number> {
  const started = Date.now();
  const error = await fetching.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(ClientMetadataError);
  expect((error as Error).message).toMatch(pattern);
  return Date.now() - started;
}

describe('nodeDocumentFetcher', () => {
  const fetcher = (options: Partial<DocumentFetchOptions> = {}) =>
    nodeDocumentFetcher({ allowPrivateAddresses: true, timeoutMs: 2_000, maxBytes: 16 * 1024, ca: certificates.ca, ...options });

  it('fetches a JSON document, asking for JSON, with its Cache-Control max-age', async () => {
    const url = `${base}/client.json`;
    let accept: string | undefined;
    server.route('/client.json', (request, response) => {
      accept = request.headers.accept;
      json(documentFor(url), { 'cache-control': 'public, max-age=600' })(request, response);
    });
    await expect(fetcher()(new URL(url))).resolves.toEqual({ body: documentFor(url), maxAgeSec: 600 });
    expect(accept).toBe('application/json');
  });

  it('reaches a host name through the resolver, asked once, and checks the certificate against that name', async () => {
    const url = `https://documents.test:${server.port}/client.json`;
    server.route('/client.json', json(documentFor(url), { 'cache-control': 'no-store' }));
    const resolve = jest.fn(async () => ['127.0.0.1']);
    await expect(fetcher({ resolve })(new URL(url))).resolves.toEqual({ body: documentFor(url), maxAgeSec: 0 });
    expect(resolve.mock.calls).toEqual([['documents.test']]);
  });

  it('refuses a certificate issued for another name', async () => {
    const resolve = jest.fn(async () => ['127.0.0.1']);
    server.route('/client.json', json({}));
    await refusal(fetcher({ resolve })(new URL(`https://elsewhere.test:${server.port}/client.json`)), /could not be fetched: Hostname\/IP does not match/);
    expect(server.requests).toEqual([]);
  });

  it('refuses a certificate from a CA it does not trust', async () => {
    server.route('/client.json', json({}));
    await refusal(fetcher({ ca: undefined })(new URL(`${base}/client.json`)), /could not be fetched: unable to verify/);
    expect(server.requests).toEqual([]);
  });

  it.each(['http:', 'ftp:', 'ws:'])('refuses %s before connecting', async (scheme) => {
    const url = `${base}/client.json`;
    server.route('/client.json', json(documentFor(url)));
    // The https server itself: were the scheme ignored, this would fetch the document.
    await refusal(fetcher()(new URL(url.replace('https:', scheme))), /is not an https URL/);
    expect(server.requests).toEqual([]);
  });

  describe('without private addresses', () => {
    const publicOnly = (options: Partial<DocumentFetchOptions> = {}) => fetcher({ allowPrivateAddresses: false, timeoutMs: 300, ...options });

    it.each([
      ['127.0.0.1:{port}', /127\.0\.0\.1 is a loopback address/],
      ['10.0.0.1', /10\.0\.0\.1 is a private address/],
      ['169.254.169.254', /169\.254\.169\.254 is a link-local address/],
      ['[::1]:{port}', /::1 is a loopback address/],
      ['[fe80::1]', /fe80::1 is a link-local address/],
      ['[::ffff:127.0.0.1]:{port}', /IPv4-mapped address of 127\.0\.0\.1, which is a loopback address/],
      ['0.0.0.0:{port}', /0\.0\.0\.0 is the unspecified address/],
    ])('refuses the literal address %s without connecting', async (host, reason) => {
      const resolve = jest.fn(async () => [PUBLIC_ADDRESS]);
      server.route('/client.json', json({}));
      const url = new URL(`https://${host.replace('{port}', String(server.port))}/client.json`);
      const took = await refusal(publicOnly({ resolve })(url), reason);
      expect(took).toBeLessThan(250); // refused at once, not by the deadline
      expect(resolve).not.toHaveBeenCalled();
      expect(server.requests).toEqual([]);
    });

    it('refuses a host name that resolves to a private address', async () => {
      const url = `https://private.test:${server.port}/client.json`;
      server.route('/client.json', json(documentFor(url)));
      await refusal(
        publicOnly({ resolve: async () => ['127.0.0.1'] })(new URL(url)),
        /private\.test resolves to an address that may not be reached \(127\.0\.0\.1 is a loopback address/,
      );
      expect(server.requests).toEqual([]);
    });

    it('refuses a host name when any of its addresses is private', async () => {
      const url = `https://private.test:${server.port}/client.json`;
      server.route('/client.json', json(documentFor(url)));
      await refusal(publicOnly({ resolve: async () => [PUBLIC_ADDRESS, '127.0.0.1'] })(new URL(url)), /127\.0\.0\.1 is a loopback address/);
      expect(server.requests).toEqual([]);
    });

    it('connects to the address it checked: a resolver that answers 127.0.0.1 the second time is never asked again', async () => {
      const url = `https://rebind.test:${server.port}/client.json`;
      server.route('/client.json', json(documentFor(url)));
      let calls = 0;
      const rebinding = jest.fn(async () => (++calls === 1 ? [PUBLIC_ADDRESS] : ['127.0.0.1']));
      // The public address is unreachable from here or times out: either way, not the local server.
      await refusal(publicOnly({ resolve: rebinding })(new URL(url)), /rebind\.test|could not be fetched|did not arrive/);
      expect(rebinding).toHaveBeenCalledTimes(1);
      expect(server.requests).toEqual([]);

      // The control: a resolver answering 127.0.0.1 (allowed in development) does reach the server.
      const local = jest.fn(async () => ['127.0.0.1']);
      await expect(fetcher({ resolve: local })(new URL(url))).resolves.toMatchObject({ body: documentFor(url) });
      expect(server.requests).toEqual(['/client.json']);
    });

    it('refuses a resolver answer that is not an IP address', async () => {
      await refusal(publicOnly({ resolve: async () => ['localhost'] })(new URL(`https://documents.test:${server.port}/x`)), /resolved to "localhost", which is not an IP address/);
      await refusal(publicOnly({ resolve: async () => [] })(new URL(`https://documents.test:${server.port}/x`)), /documents\.test has no address/);
      expect(server.requests).toEqual([]);
    });
  });

  it.each([301, 302, 303, 307, 308])('refuses a %i redirect, even to a valid document', async (status) => {
    const url = `${base}/client.json`;
    server.route('/client.json', json(documentFor(url)));
    server.route('/moved', (_request, response) => response.writeHead(status, { location: url }).end());
    await refusal(fetcher()(new URL(`${base}/moved`)), new RegExp(`answered ${status}, a redirect`));
    expect(server.requests).toEqual(['/moved']);
  });

  it.each([404, 500, 204])('refuses a %i', async (status) => {
    server.route('/status', (_request, response) => response.writeHead(status, { 'content-type': 'application/json' }).end(status === 204 ? undefined : '{}'));
    await refusal(fetcher()(new URL(`${base}/status`)), new RegExp(`answered ${status}, not 200`));
  });

  it.each([
    ['text/html', /content-type "text\/html", not application\/json/],
    ['application/jsonp', /content-type "application\/jsonp"/],
    [undefined, /content-type \(none\)/],
  ])('refuses a body of content-type %s', async (contentType, reason) => {
    server.route('/typed', (_request, response) => response.writeHead(200, contentType ? { 'content-type': contentType } : {}).end('{}'));
    await refusal(fetcher()(new URL(`${base}/typed`)), reason);
  });

  it('refuses a body that is not JSON', async () => {
    server.route('/broken', (_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"client_id": '));
    await refusal(fetcher()(new URL(`${base}/broken`)), /is not valid JSON/);
  });

  it('refuses at once a body whose Content-Length is over the limit', async () => {
    // Headers only: the body never comes, so only the Content-Length can refuse it before the deadline.
    server.route('/announced', (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000000' });
      response.flushHeaders();
    });
    await refusal(fetcher({ maxBytes: 1024, timeoutMs: 5_000 })(new URL(`${base}/announced`)), /is larger than 1024 bytes/);
  });

  it('stops reading a body without Content-Length once past the limit', async () => {
    const url = `${base}/large`;
    const large = JSON.stringify({ ...documentFor(url), padding: 'x'.repeat(4096) });
    server.route('/large', (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }); // chunked
      for (let at = 0; at < large.length; at += 512) response.write(large.slice(at, at + 512));
      response.end();
    });
    await refusal(fetcher({ maxBytes: 1024 })(new URL(url)), /is larger than 1024 bytes/);
    // The control: the same body under a higher limit is a fine document.
    await expect(fetcher({ maxBytes: 8192 })(new URL(url))).resolves.toMatchObject({ body: { client_id: url } });
  });

  it('cuts a server that trickles its body at the deadline', async () => {
    server.route('/trickle', (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"a":"');
      const drip = setInterval(() => response.write('x'), 20);
      response.on('close', () => clearInterval(drip));
    });
    const took = await refusal(fetcher({ timeoutMs: 300 })(new URL(`${base}/trickle`)), /did not arrive within 300 ms/);
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(2_000); // the deadline, not the server, ended it
  });

  it('cuts a server that never answers at the deadline', async () => {
    server.route('/silent', () => {});
    const took = await refusal(fetcher({ timeoutMs: 300 })(new URL(`${base}/silent`)), /did not arrive within 300 ms/);
    expect(took).toBeLessThan(2_000); // the deadline, not the server, ended it
  });

  it('cuts a resolver that never answers at the deadline', async () => {
    const took = await refusal(fetcher({ timeoutMs: 300, resolve: () => new Promise(() => {}) })(new URL(`https://documents.test:${server.port}/x`)), /did not arrive within 300 ms/);
    expect(took).toBeLessThan(2_000); // the deadline, not the server, ended it
  });

  it('refuses a body cut off before its end', async () => {
    server.route('/cut', (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      response.write('{"client_id":', () => response.socket?.destroy());
    });
    await refusal(fetcher()(new URL(`${base}/cut`)), /was cut off before its end/);
  });
});

describe('webDocumentFetcher', () => {
  const fetcher = (options: Partial<DocumentFetchOptions> = {}) => webDocumentFetcher({ allowPrivateAddresses: false, timeoutMs: 2_000, maxBytes: 16 * 1024, ...options });
  let platformFetch: jest.SpyInstance<Promise<Response>, Parameters<typeof fetch>>;

  beforeEach(() => {
    platformFetch = jest.spyOn(globalThis, 'fetch');
  });
  afterEach(() => {
    platformFetch.mockRestore();
  });

  const answer = (body: ConstructorParameters<typeof Response>[0], init: ResponseInit & { headers?: Record<string, string> } = {}) =>
    platformFetch.mockResolvedValue(new Response(body, { status: 200, ...init, headers: { 'content-type': 'application/json', ...init.headers } }));

  it('fetches with redirects not followed, asking for JSON, with the Cache-Control max-age', async () => {
    answer(JSON.stringify({ client_id: 'https://notes.example/client.json' }), { headers: { 'cache-control': 'max-age=120' } });
    await expect(fetcher()(new URL('https://notes.example/client.json'))).resolves.toEqual({ body: { client_id: 'https://notes.example/client.json' }, maxAgeSec: 120 });
    const [, init] = platformFetch.mock.calls[0]!;
    expect(init).toMatchObject({ redirect: 'manual', headers: { accept: 'application/json' } });
  });

  it('refuses http: without fetching', async () => {
    await refusal(fetcher({ allowPrivateAddresses: true })(new URL('http://notes.example/client.json')), /is not an https URL/);
    expect(platformFetch).not.toHaveBeenCalled();
  });

  it.each([
    ['127.0.0.1', /loopback/],
    ['10.0.0.1', /private/],
    ['169.254.169.254', /link-local/],
    ['[::1]', /loopback/],
    ['[fe80::1]', /link-local/],
    ['[::ffff:127.0.0.1]', /IPv4-mapped address of 127\.0\.0\.1/],
    ['localhost', /localhost is a loopback name/],
    ['api.localhost', /loopback name/],
    ['LOCALHOST.', /loopback name/],
  ])('refuses the host %s without fetching', async (host, reason) => {
    await refusal(fetcher()(new URL(`https://${host}/client.json`)), reason);
    expect(platformFetch).not.toHaveBeenCalled();
  });

  it('lets a loopback host through in development (host checks are all it can do)', async () => {
    answer('{}');
    await expect(fetcher({ allowPrivateAddresses: true })(new URL('https://127.0.0.1/client.json'))).resolves.toEqual({ body: {}, maxAgeSec: undefined });
  });

  it.each([301, 302, 307, 308])('refuses a %i redirect', async (status) => {
    platformFetch.mockResolvedValue(new Response(null, { status, headers: { location: 'https://notes.example/client.json' } }));
    await refusal(fetcher()(new URL('https://notes.example/moved')), new RegExp(`answered ${status}, a redirect`));
  });

  it("refuses a browser's opaque redirect", async () => {
    platformFetch.mockResolvedValue({ type: 'opaqueredirect', status: 0, headers: new Headers(), body: null } as unknown as Response);
    await refusal(fetcher()(new URL('https://notes.example/moved')), /answered a redirect/);
  });

  it('refuses a 404, a body that is not JSON, and one of another content-type', async () => {
    answer('{}', { status: 404 });
    await refusal(fetcher()(new URL('https://notes.example/a')), /answered 404, not 200/);
    answer('{"client_id": ');
    await refusal(fetcher()(new URL('https://notes.example/b')), /is not valid JSON/);
    answer('{}', { headers: { 'content-type': 'text/plain' } });
    await refusal(fetcher()(new URL('https://notes.example/c')), /content-type "text\/plain"/);
  });

  it('refuses at once a body whose Content-Length is over the limit', async () => {
    answer(new ReadableStream({}), { headers: { 'content-length': '1000000' } }); // a body that never comes
    await refusal(fetcher({ maxBytes: 1024, timeoutMs: 5_000 })(new URL('https://notes.example/a')), /is larger than 1024 bytes/);
  });

  it('stops reading a body once past the limit', async () => {
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull: (controller) => {
        pulled++;
        controller.enqueue(new TextEncoder().encode(' '.repeat(512)));
      },
    });
    answer(endless);
    await refusal(fetcher({ maxBytes: 1024 })(new URL('https://notes.example/a')), /is larger than 1024 bytes/);
    expect(pulled).toBeLessThan(10);
  });

  it('cuts a body that trickles at the deadline, and stops reading it', async () => {
    let cancelled = false;
    const trickle = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        controller.enqueue(new TextEncoder().encode(' '));
      },
      cancel: () => void (cancelled = true),
    });
    answer(trickle);
    const took = await refusal(fetcher({ timeoutMs: 300 })(new URL('https://notes.example/a')), /did not arrive within 300 ms/);
    expect(took).toBeLessThan(2_000); // the deadline, not the server, ended it
    const [, init] = platformFetch.mock.calls[0]!;
    expect(init?.signal?.aborted).toBe(true);
    // This stream ignores the abort, as a runtime's might: the read is cancelled all the same.
    expect(cancelled).toBe(true);
  });

  it('refuses a fetch that fails', async () => {
    platformFetch.mockRejectedValue(new TypeError('fetch failed'));
    await refusal(fetcher()(new URL('https://notes.example/a')), /could not be fetched: fetch failed/);
  });

  it("with the platform's fetch and a real server: fetches a document and does not follow a real redirect", async () => {
    platformFetch.mockRestore();
    const url = `${base}/client.json`;
    server.route('/client.json', json(documentFor(url), { 'cache-control': 'max-age=60' }));
    server.route('/moved', (_request, response) => response.writeHead(302, { location: url }).end());
    // Node's fetch trusts the test CA only through NODE_EXTRA_CA_CERTS, read at start: a child process.
    const script = `
      const { webDocumentFetcher } = require(process.argv[1]);
      const fetcher = webDocumentFetcher({ allowPrivateAddresses: true, timeoutMs: 3000, maxBytes: 16384 });
      Promise.all(process.argv.slice(2).map((url) => fetcher(new URL(url)).then((document) => ({ document }), (error) => ({ error: error.name + ': ' + error.message }))))
        .then((outcomes) => console.log(JSON.stringify(outcomes)));`;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['-r', join(__dirname, '../../../../test-support/runTs.js'), '-e', script, join(__dirname, '../../src/signin/clients/fetchers/web.ts'), url, `${base}/moved`],
      { env: { ...process.env, NODE_EXTRA_CA_CERTS: certificates.caPath }, timeout: 8_000 },
    );
    expect(JSON.parse(stdout)).toEqual([{ document: { body: documentFor(url), maxAgeSec: 60 } }, { error: expect.stringMatching(/^ClientMetadataError: .*answered 302, a redirect/) }]);
    expect(server.requests.sort()).toEqual(['/client.json', '/moved']);
  }, 10_000);
});

describe('maxAgeOf (Cache-Control)', () => {
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['public', undefined],
    ['s-maxage=30', undefined],
    ['max-age=60', 60],
    ['public, MAX-AGE=600', 600],
    ['max-age="30"', 30],
    ['max-age=0', 0],
    ['no-store', 0],
    ['no-cache', 0],
    ['max-age=600, no-cache', 0],
    ['private, no-store, max-age=600', 0],
    ['max-age=abc', 0],
    ['max-age=-5', 0],
    ['max-age=60, max-age=120', 0],
  ])('%j means %j', (header, seconds) => {
    expect(maxAgeOf(header)).toBe(seconds);
  });
});
