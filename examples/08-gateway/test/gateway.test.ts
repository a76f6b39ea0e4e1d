/**
 * The gateway with real upstreams: the weather example over stdio and the notes service over
 * HTTP, each in a process of its own, and the inventory API on node:http; the gateway on
 * 127.0.0.1 behind tokens of a TestIssuer. Driven by the official SDK clients, v1 in a
 * 2025-11-25 session and v2 pinned to 2026-07-28; every message the gateway sends them is
 * checked against the schema of their revision.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { StreamableHTTPClientTransport as V1Transport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { TestIssuer } from '@typemcp/auth/testing';
import { RecordingTransport } from '../../../test-support/recordingTransport';
import { connectSdkClient } from '../../../test-support/sdkClient';
import { runTsPath } from '../../../test-support/spawnServer';
import { expectValidServerMessages } from '../../../test-support/specSchema';
import { BASE_SCOPE, createGateway, RESTOCK_SCOPE } from '../src/gateway';
import type { Gateway } from '../src/gateway';
import { startInventoryApi } from '../src/inventory/api';
import type { InventoryApi } from '../src/inventory/api';
import { spawnNotes } from '../src/processes';
import type { NotesProcess } from '../src/processes';

jest.setTimeout(30_000);

const V2 = '2026-07-28';
const NOTES_KEY = 'notes-key-of-the-gateway';
const INVENTORY_KEY = 'inventory-key-of-the-gateway';

let issuer: TestIssuer;
let inventory: InventoryApi;
let notes: NotesProcess;
let http: Server;
let gateway: Gateway;
let url: string;

beforeAll(async () => {
  issuer = await TestIssuer.start();
  inventory = await startInventoryApi({ apiKey: INVENTORY_KEY, tokenUrl: issuer.tokenEndpoint });
  // The children run the TypeScript sources, as this test does.
  notes = await spawnNotes({ apiKey: NOTES_KEY, nodeArgs: ['-r', runTsPath], script: path.join(__dirname, '../src/notes/main.ts') });
  // The port comes first: the resource URL (the audience of tokens) names it.
  http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  gateway = await createGateway({
    auth: { resource: url, issuer: issuer.url },
    weather: { command: process.execPath, args: ['-r', runTsPath, path.join(__dirname, '../../01-weather/src/main.ts'), '--stdio'], stderr: 'ignore' },
    notes: { url: notes.url, apiKey: NOTES_KEY },
    inventory: { url: inventory.url, apiKey: INVENTORY_KEY },
  });
  const handler = gateway.server.httpHandler();
  http.on('request', (req, res) => void handler(req, res));
  // Within the hook's time, so a proxy that cannot mirror its upstream fails with a reason.
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('the proxies did not connect and mirror their upstreams within 20 s')), 20_000);
  });
  await Promise.race([gateway.connected, late]).finally(() => clearTimeout(timer));
});

afterAll(async () => {
  // The gateway closes its proxies: the weather process ends with it.
  await gateway?.server.close();
  if (http) {
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  }
  await Promise.all([notes?.stop(), inventory?.close(), issuer?.close()]);
});

const tokenFor = (subject: string, scopes: string[]) => issuer.token({ audience: url, subject, scopes });
const bearer = async (subject: string, scopes: string[]) => ({ authorization: `Bearer ${await tokenFor(subject, scopes)}` });
const names = (items: Array<{ name: string }>) => items.map((item) => item.name).sort();
const textOf = (result: object) => (result as { content: Array<{ text: string }> }).content.map((c) => c.text).join('');

async function connectV1(headers: Record<string, string>) {
  return connectSdkClient(new V1Transport(new URL(url), { requestInit: { headers } }), { protocolVersion: '2025-11-25', clientInfo: { name: 'gateway-v1', version: '1.0.0' } });
}

async function connectV2(headers: Record<string, string>) {
  const recorder = new RecordingTransport(new V2Transport(new URL(url), { requestInit: { headers } }) as never);
  const client = new V2Client({ name: 'gateway-v2', version: '1.0.0' }, { capabilities: {}, versionNegotiation: { mode: { pin: V2 } } });
  await client.connect(recorder as never);
  expect(client.getNegotiatedProtocolVersion()).toBe(V2);
  return { client, recorder };
}

describe('the gateway', () => {
  it('refuses a request without a token with 401 and the address of its metadata', async () => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
    });
    expect(response.status).toBe(401);
    const metadataUrl = new URL('/.well-known/oauth-protected-resource/mcp', url).href;
    expect(response.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadataUrl}", scope="gateway:use inventory:write"`);
    expect(await (await fetch(metadataUrl)).json()).toMatchObject({ resource: url, authorization_servers: [issuer.url], scopes_supported: [BASE_SCOPE, RESTOCK_SCOPE] });
  });

  it('answers a token without gateway:use with 403 insufficient_scope, naming the scope to ask for', async () => {
    const { client } = await connectV1(await bearer('eve', ['profile']));
    try {
      const failure = await client.listTools().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(StreamableHTTPError);
      expect((failure as StreamableHTTPError).code).toBe(403);
    } finally {
      await client.close();
    }
    // The same over 2026-07-28, where the challenge is easy to read off the raw answer.
    const response = await fetch(url, {
      method: 'POST',
      headers: { ...(await bearer('eve', ['profile'])), 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': V2, 'mcp-method': 'tools/list' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': V2, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' } } },
      }),
    });
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toContain(`scope="profile gateway:use", error="insufficient_scope"`);
  });

  it('serves every source under its namespace to an official SDK v1 client (2025-11-25 session) with gateway:use', async () => {
    const { client, recorder } = await connectV1(await bearer('ada', [BASE_SCOPE]));
    try {
      expect(names((await client.listTools()).tools)).toEqual([
        'gateway_status',
        'gateway_whoami',
        'inventory_list_items',
        'notes_add_note',
        'notes_search_notes',
        'weather_convert_temperature',
        'weather_forecast',
        'weather_whoami',
      ]);
      expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(['audit://notes/requests']);
      expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual(['note://notes/{id}', 'openapi://inventory/items/{sku}']);
      expect(names((await client.listPrompts()).prompts)).toEqual(['notes_summarize_notes']);

      // The gateway's own.
      expect((await client.callTool({ name: 'gateway_status' })).structuredContent).toEqual({
        sources: [
          expect.objectContaining({ namespace: 'weather', kind: 'stdio proxy', state: 'connected' }),
          { namespace: 'notes', kind: 'http proxy', upstream: notes.url, state: 'connected' },
          { namespace: 'inventory', kind: 'openapi', upstream: inventory.url, state: 'ready' },
        ],
      });
      expect(textOf(await client.callTool({ name: 'gateway_whoami' }))).toBe('ada (scopes: gateway:use)');

      // The weather example, over stdio: its output DTO comes through as structuredContent.
      const forecast = await client.callTool({ name: 'weather_forecast', arguments: { city: 'Paris', days: 2 } });
      expect(forecast.structuredContent).toMatchObject({ city: 'Paris', unit: 'celsius', days: [expect.any(Object), expect.any(Object)] });
      expect(textOf(await client.callTool({ name: 'weather_whoami' }))).toMatch(/^You are gateway 1\.0\.0, speaking MCP/);

      // The notes service, over HTTP: a tool, a template, a prompt.
      expect(textOf(await client.callTool({ name: 'notes_add_note', arguments: { text: 'Descale the kettle as well' } }))).toBe('Saved note #3 for ada');
      expect((await client.readResource({ uri: 'note://notes/3' })).contents).toEqual([{ uri: 'note://notes/3', mimeType: 'text/plain', text: 'Descale the kettle as well\n(by ada)' }]);
      expect(textOf(await client.callTool({ name: 'notes_search_notes', arguments: { query: 'paper' } }))).toBe('#2 (ops): Order paper filters when fewer than 50 are left');
      const prompt = await client.getPrompt({ name: 'notes_summarize_notes', arguments: { topic: 'espresso' } });
      expect(prompt.messages[0].content).toMatchObject({ type: 'text', text: expect.stringContaining('- The espresso machine on floor 2 is descaled every Monday') });
      await expect(client.readResource({ uri: 'note://notes/99' })).rejects.toThrow(/not found/i);

      // The inventory API, through its OpenAPI document: a tool and a template.
      const items = await client.callTool({ name: 'inventory_list_items' });
      expect((items.structuredContent as { result: Array<{ sku: string }> }).result.map((item) => item.sku)).toEqual(['A-100', 'B-200', 'C-300']);
      const item = await client.readResource({ uri: 'openapi://inventory/items/A-100' });
      expect(JSON.parse((item.contents[0] as { text: string }).text)).toEqual({ sku: 'A-100', name: 'Espresso beans, 1 kg', stock: 12 });

      // Restocking needs inventory:write: not listed above, and refused with 403 for a step-up.
      const refused = await client.callTool({ name: 'inventory_restock_item', arguments: { sku: 'A-100', body: { quantity: 1 } } }).catch((error: unknown) => error);
      expect((refused as StreamableHTTPError).code).toBe(403);
    } finally {
      await client.close();
    }
    expectValidServerMessages('2025-11-25', recorder.received);
  });

  it('serves a 2026-07-28 client (official SDK v2) the scope-gated tool when its token has inventory:write', async () => {
    const { client, recorder } = await connectV2(await bearer('bob', [BASE_SCOPE, RESTOCK_SCOPE]));
    try {
      const tools = names((await client.listTools()).tools);
      expect(tools).toContain('inventory_restock_item');
      expect(tools).toHaveLength(9);
      expect(textOf(await client.callTool({ name: 'gateway_whoami', arguments: {} }))).toBe('bob (scopes: gateway:use inventory:write)');

      const restocked = await client.callTool({ name: 'inventory_restock_item', arguments: { sku: 'C-300', body: { quantity: 6 } } });
      expect(restocked.structuredContent).toEqual({ sku: 'C-300', name: 'Oat milk, 1 l', stock: 6, restockedBy: 'bob' });
      // Checked against the document's schema before the API is called.
      const invalid = await client.callTool({ name: 'inventory_restock_item', arguments: { sku: 'C-300', body: { quantity: 0 } } });
      expect(invalid.isError).toBe(true);

      expect(textOf(await client.callTool({ name: 'weather_convert_temperature', arguments: { value: 100, from: 'celsius', to: 'fahrenheit' } }))).toBe('100 °C = 212 °F');
      expect(textOf(await client.callTool({ name: 'notes_search_notes', arguments: { query: 'espresso' } }))).toBe('#1 (ops): The espresso machine on floor 2 is descaled every Monday');
      expect((await client.readResource({ uri: 'note://notes/1' })).contents[0]).toMatchObject({ uri: 'note://notes/1', text: expect.stringContaining('descaled every Monday') });
      const prompt = await client.getPrompt({ name: 'notes_summarize_notes', arguments: { words: '20' } });
      expect(prompt.messages[0].content).toMatchObject({ text: expect.stringContaining('in at most 20 words') });
      expect(JSON.parse(((await client.readResource({ uri: 'openapi://inventory/items/C-300' })).contents[0] as { text: string }).text)).toMatchObject({ stock: 6 });
    } finally {
      await client.close();
    }
    expectValidServerMessages(V2, recorder.received);
  });

  it("gives the notes upstream the gateway's key and the caller's name, never the caller's Authorization", async () => {
    const { client } = await connectV1(await bearer('ada', [BASE_SCOPE]));
    try {
      await client.callTool({ name: 'notes_search_notes', arguments: { query: 'kettle' } });
      const audit = await client.readResource({ uri: 'audit://notes/requests' });
      const { requests } = JSON.parse((audit.contents[0] as { text: string }).text) as { requests: Array<{ method: string; mcpMethod?: string; apiKey: string; headers: string[] }> };
      // Every request since the proxy connected: its own (discovery, lists) and relayed ones.
      expect(requests.length).toBeGreaterThan(5);
      for (const request of requests) {
        expect(request.apiKey).toBe('valid');
        expect(request.headers).not.toContain('authorization');
      }
      expect(requests.filter((r) => r.mcpMethod === 'tools/call').every((r) => r.headers.includes('x-on-behalf-of'))).toBe(true);
      expect(requests.some((r) => r.mcpMethod === 'tools/call')).toBe(true);
    } finally {
      await client.close();
    }
  });
});
