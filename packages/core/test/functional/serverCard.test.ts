/**
 * The server card (SEP-2127) served by `listen` and by `fetchHandler`: valid against the
 * extension's schema, with its media type, caching (ETag, 304) and open CORS; in agreement with
 * what `initialize` and `server/discover` say; the AI Catalog; absent without the option; and
 * the options it refuses so that every card it serves validates.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { McpServer } from '@typemcp/core';
import type { McpServerOptions } from '@typemcp/core';

const SPEC = path.resolve(__dirname, '../../../../test-support/spec/extensions/server-card');
const cardSchema = JSON.parse(fs.readFileSync(path.join(SPEC, 'server-card.schema.json'), 'utf8'));
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const validateCard = ajv.compile({ ...cardSchema, $ref: '#/$defs/ServerCard' });

function expectValidCard(card: unknown): void {
  const valid = validateCard(card);
  expect(validateCard.errors ?? []).toEqual([]);
  expect(valid).toBe(true);
}

const PIXEL = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HCAAAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const IDENTITY: McpServerOptions = {
  name: 'com.example/weather',
  version: '1.2.0',
  title: 'Weather',
  description: 'Forecasts and alerts for any city.',
  websiteUrl: 'https://example.com/weather',
  icons: [{ src: PIXEL, mimeType: 'image/png', sizes: ['1x1'] }],
};

const MODERN = '2026-07-28';
const modernMeta = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };

async function post(url: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Record<string, any>> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, any>;
}

describe('the server card of listen', () => {
  let server: McpServer;
  let url: string;

  beforeAll(async () => {
    server = new McpServer({ ...IDENTITY, serverCard: { repository: { source: 'github', url: 'https://github.com/example/weather' } } });
    ({ url } = await server.listen({ transport: 'http', port: 0, handleSignals: false }));
  });
  afterAll(() => server.close());

  it('is served at <endpoint>/server-card with its media type, caching and open CORS, and validates', async () => {
    const response = await fetch(`${url}/server-card`, { headers: { accept: 'application/mcp-server-card+json' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/mcp-server-card+json');
    expect(response.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(response.headers.get('etag')).toMatch(/^"[\w-]+"$/);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-methods')).toBe('GET');
    expect(response.headers.get('access-control-allow-headers')).toBe('Content-Type, If-None-Match');
    expect(response.headers.get('access-control-expose-headers')).toBe('ETag');
    const card = (await response.json()) as Record<string, any>;
    expectValidCard(card);
    expect(card).toMatchObject({
      $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
      name: 'com.example/weather',
      version: '1.2.0',
      title: 'Weather',
      description: 'Forecasts and alerts for any city.',
      websiteUrl: 'https://example.com/weather',
      icons: IDENTITY.icons,
      repository: { source: 'github', url: 'https://github.com/example/weather' },
      remotes: [{ type: 'streamable-http', url }],
    });
  });

  it('answers a revalidation with the same ETag 304 and no body, a changed one 200', async () => {
    const first = await fetch(`${url}/server-card`);
    const etag = first.headers.get('etag')!;
    const again = await fetch(`${url}/server-card`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(await again.text()).toBe('');
    expect((await fetch(`${url}/server-card`, { headers: { 'if-none-match': `W/${etag}, "other"` } })).status).toBe(304);
    expect((await fetch(`${url}/server-card`, { headers: { 'if-none-match': '"stale"' } })).status).toBe(200);
  });

  it('answers a browser from another origin, its preflight and HEAD; refuses other methods', async () => {
    const cross = await fetch(`${url}/server-card`, { headers: { origin: 'https://elsewhere.example' } });
    expect(cross.status).toBe(200);
    expect(cross.headers.get('access-control-allow-origin')).toBe('*');
    const preflight = await fetch(`${url}/server-card`, {
      method: 'OPTIONS',
      headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'if-none-match' },
    });
    expect(preflight.status).toBe(204);
    expect(Object.fromEntries([...preflight.headers].filter(([name]) => name.startsWith('access-control-')))).toEqual({
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET',
      'access-control-allow-headers': 'Content-Type, If-None-Match',
      'access-control-expose-headers': 'ETag',
      'access-control-max-age': '86400',
    });
    const head = await fetch(`${url}/server-card`, { method: 'HEAD' });
    expect([head.status, head.headers.get('content-type'), await head.text()]).toEqual([200, 'application/mcp-server-card+json', '']);
    const posted = await fetch(`${url}/server-card`, { method: 'POST', body: '{}' });
    expect([posted.status, posted.headers.get('allow')]).toEqual([405, 'GET, HEAD, OPTIONS']);
  });

  it('agrees with initialize and with server/discover', async () => {
    const card = (await (await fetch(`${url}/server-card`)).json()) as Record<string, any>;
    const discover = await post(url, { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: modernMeta } }, { 'mcp-protocol-version': MODERN, 'mcp-method': 'server/discover' });
    const discovered = discover.result;
    expect(card.remotes[0].supportedProtocolVersions).toEqual(discovered.supportedVersions);
    const { name, version, title, description, websiteUrl, icons } = card;
    expect(discovered._meta['io.modelcontextprotocol/serverInfo']).toEqual({ name, version, title, description, websiteUrl, icons });

    const init = await post(url, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    expect(init.result.serverInfo).toEqual({ name, version, title, description, websiteUrl, icons });
    expect(card.remotes[0].supportedProtocolVersions).toContain(init.result.protocolVersion);
  });

  it('names the server without its icons on other 2026-07-28 results (they may be large data URIs)', async () => {
    const listed = await post(url, { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: modernMeta } }, { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' });
    const { name, version, title, description, websiteUrl } = IDENTITY;
    expect(listed.result._meta['io.modelcontextprotocol/serverInfo']).toEqual({ name, version, title, description, websiteUrl });
  });

  it('is not served at other paths, and no AI Catalog without the option', async () => {
    const origin = new URL(url).origin;
    expect((await fetch(`${origin}/other/server-card`)).status).toBe(404);
    expect((await fetch(`${origin}/.well-known/ai-catalog.json`)).status).toBe(404);
  });
});

describe('without the option', () => {
  it('serves no card', async () => {
    const server = new McpServer({ ...IDENTITY });
    const { url } = await server.listen({ transport: 'http', port: 0, handleSignals: false });
    try {
      const response = await fetch(`${url}/server-card`);
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).not.toBe('application/mcp-server-card+json');
      const handler = server.fetchHandler();
      const fetched = await handler(new Request('http://h.example/mcp/server-card'));
      expect(fetched.headers.get('content-type')).not.toBe('application/mcp-server-card+json');
    } finally {
      await server.close();
    }
  });
});

describe('the server card of fetchHandler', () => {
  it('is served under whatever path the handler serves without a path option, from the request URL', async () => {
    const server = new McpServer({ ...IDENTITY, serverCard: true });
    const handler = server.fetchHandler({ allowedHosts: ['mcp.example.com'] });
    try {
      const response = await handler(new Request('https://mcp.example.com/tenant/mcp/server-card', { headers: { origin: 'https://app.example' } }));
      expect(response.status).toBe(200);
      const card = (await response.json()) as Record<string, any>;
      expectValidCard(card);
      expect(card.remotes).toEqual([{ type: 'streamable-http', url: 'https://mcp.example.com/tenant/mcp', supportedProtocolVersions: expect.arrayContaining([MODERN]) }]);
      const root = (await (await handler(new Request('https://mcp.example.com/server-card'))).json()) as Record<string, any>;
      expect(root.remotes[0].url).toBe('https://mcp.example.com/');
    } finally {
      await server.close();
    }
  });

  it('lists given remotes and url as given, with the versions filled in', async () => {
    const server = new McpServer({
      ...IDENTITY,
      serverCard: {
        remotes: [{ type: 'streamable-http', url: 'https://{tenant}.example.com/mcp', variables: { tenant: { isRequired: true, default: 'eu' } } }],
        _meta: { 'com.example/tier': 'free' },
        maxAgeSeconds: 60,
      },
    });
    const handler = server.fetchHandler({ path: '/mcp' });
    try {
      const response = await handler(new Request('http://127.0.0.1/mcp/server-card'));
      expect(response.headers.get('cache-control')).toBe('public, max-age=60');
      const card = (await response.json()) as Record<string, any>;
      expectValidCard(card);
      expect(card.remotes).toEqual([{ type: 'streamable-http', url: 'https://{tenant}.example.com/mcp', variables: { tenant: { isRequired: true, default: 'eu' } }, supportedProtocolVersions: expect.any(Array) }]);
      expect(card._meta).toEqual({ 'com.example/tier': 'free' });
      expect((await handler(new Request('http://127.0.0.1/elsewhere/server-card'))).status).toBe(404);
    } finally {
      await server.close();
    }
  });

  it('serves an AI Catalog listing this server first and the host\'s others, whose card URLs answer', async () => {
    const other = { identifier: 'urn:air:example.com:mcp:docs', url: 'https://example.com/docs/mcp/server-card' };
    const server = new McpServer({ ...IDENTITY, serverCard: { catalog: { others: [other] } } });
    const handler = server.fetchHandler({ path: '/mcp' });
    try {
      const response = await handler(new Request('https://example.com/.well-known/ai-catalog.json'));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/ai-catalog+json');
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('etag')).toBeTruthy();
      const catalog = (await response.json()) as Record<string, any>;
      expect(catalog).toEqual({
        specVersion: '1.0',
        entries: [
          { identifier: 'urn:air:example.com:mcp:weather', type: 'application/mcp-server-card+json', url: 'https://example.com/mcp/server-card' },
          { ...other, type: 'application/mcp-server-card+json' },
        ],
      });
      const card = await handler(new Request(catalog.entries[0].url, { headers: { accept: 'application/mcp-server-card+json' } }));
      expectValidCard(await card.json());
    } finally {
      await server.close();
    }
  });
});

describe('what a card needs', () => {
  const refused = (options: Partial<McpServerOptions>) => () => new McpServer({ ...IDENTITY, serverCard: true, ...options } as McpServerOptions);

  it('refuses a name that is not in reverse-DNS form, or no description: the card would not validate', () => {
    expect(refused({ name: 'weather' })).toThrow('reverse-DNS form');
    expect(refused({ description: undefined })).toThrow("needs the server's description");
    expect(refused({ description: 'x'.repeat(101) })).toThrow('1-100 characters');
    expect(refused({ version: '^1.2.0' })).toThrow('not a range');
    expect(() => new McpServer({ ...IDENTITY, serverCard: { remotes: [{ type: 'streamable-http', url: 'ftp://x' }] } })).toThrow("a remote's url");
    expect(() => new McpServer({ ...IDENTITY, serverCard: { catalog: { others: [{ identifier: 'urn:air:x:mcp:y' }] } } })).toThrow('exactly one of url and data');
    // Without the option nothing of this is asked.
    expect(() => new McpServer({ name: 'weather', version: '^1' })).not.toThrow();
  });
});

describe('icons given as files', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'typemcp-icons-'));
  const png = path.join(dir, 'icon.png');
  const bytes = Buffer.from(PIXEL.slice(PIXEL.indexOf(',') + 1), 'base64');
  fs.writeFileSync(png, bytes);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('are read when the server is made and sent as data URIs: initialize, server/discover and the card', async () => {
    const server = new McpServer({ ...IDENTITY, icons: [{ file: path.relative(process.cwd(), png), sizes: ['1x1'] }], serverCard: true });
    const { url } = await server.listen({ transport: 'http', port: 0, handleSignals: false });
    try {
      const expected = [{ src: `data:image/png;base64,${bytes.toString('base64')}`, sizes: ['1x1'] }];
      const init = await post(url, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
      expect(init.result.serverInfo.icons).toEqual(expected);
      const discover = await post(url, { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: modernMeta } }, { 'mcp-protocol-version': MODERN, 'mcp-method': 'server/discover' });
      expect(discover.result._meta['io.modelcontextprotocol/serverInfo'].icons).toEqual(expected);
      const card = (await (await fetch(`${url}/server-card`)).json()) as Record<string, any>;
      expect(card.icons).toEqual(expected);
      expectValidCard(card);
    } finally {
      await server.close();
    }
  });

  it('refuses an oversize file, an unknown type and a missing file, naming the file', () => {
    const big = path.join(dir, 'big.png');
    fs.writeFileSync(big, Buffer.alloc(64 * 1024 + 1));
    expect(() => new McpServer({ name: 's', version: '1', icons: [{ file: big }] })).toThrow(/big\.png" is 65 KiB; an icon file may be 64 KiB at most/);
    expect(() => new McpServer({ name: 's', version: '1', icons: [{ file: path.join(dir, 'icon.bmp') }] })).toThrow('give its mimeType, or use a .png, .jpg, .svg or .webp file');
    expect(() => new McpServer({ name: 's', version: '1', icons: [{ file: path.join(dir, 'missing.png') }] })).toThrow(/missing\.png" cannot be read.*ENOENT/);
  });
});
