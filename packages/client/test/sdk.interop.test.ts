import path from 'node:path';
import { Client, StdioClientTransport, StreamableHttpClientTransport } from '@typemcp/client';
import type { ClientOptions, ClientTransport } from '@typemcp/client';
import { startHttpServer } from './childServer';
import type { ChildServer } from './childServer';

/**
 * The client against the official SDK v2 server (@modelcontextprotocol/server 2.4.0), in both
 * eras, over stdio and over Streamable HTTP on 127.0.0.1: listing, calls, a resource, a prompt,
 * and the server's questions (elicitation, sampling) answered by the client's handlers: pushed
 * to the client in the handshake era, `input_required` at 2026-07-28.
 */
const sdkServer = path.join(__dirname, 'sdk', 'sdkServer.mjs');
const handlers: ClientOptions = {
  onElicit: async (params) => ({ action: 'accept', content: { colour: params.message === 'Favourite colour?' ? 'teal' : 'grey' } }),
  onSample: async () => ({ role: 'assistant', content: { type: 'text', text: 'hi there' }, model: 'fake' }),
};
const text = (result: { content: Array<{ text?: string }> }) => result.content.map((c) => c.text).join('');

let http: ChildServer;
beforeAll(async () => {
  http = await startHttpServer(process.execPath, [sdkServer]);
});
afterAll(() => http.stop());

const transports: Array<[string, () => ClientTransport]> = [
  ['stdio', () => new StdioClientTransport({ command: process.execPath, args: [sdkServer, '--stdio'], stderr: 'ignore' })],
  ['Streamable HTTP', () => new StreamableHttpClientTransport(http.url)],
];

describe.each(transports)('the official SDK v2 server over %s', (_name, transport) => {
  it.each([
    ['2025-11-25', false],
    ['2026-07-28', true],
  ])('speaks %s: lists, calls, reads, gets a prompt, answers elicitation and sampling', async (version, stateless) => {
    const client = await Client.connect(transport(), { ...handlers, protocolVersion: version });
    try {
      expect(client.protocolVersion).toBe(version);
      expect(client.stateless).toBe(stateless);
      expect(client.serverInfo).toMatchObject({ name: 'sdk-server', version: '2.4.0' });
      expect((await client.listAllTools()).map((tool) => tool.name).sort()).toEqual(['add', 'ask', 'favourite']);
      expect(text(await client.callTool('add', { a: 2, b: 3 }))).toBe('5');
      expect((await client.readResource('sdk://greeting')).contents[0]).toMatchObject({ uri: 'sdk://greeting', text: 'hello from the SDK' });
      expect((await client.listAllPrompts()).map((prompt) => prompt.name)).toEqual(['hello']);
      expect((await client.getPrompt('hello', { name: 'Ada' })).messages[0].content).toMatchObject({ type: 'text', text: 'Hello Ada' });
      expect(text(await client.callTool('favourite'))).toBe('colour teal');
      expect(text(await client.callTool('ask'))).toBe('model said hi there');
    } finally {
      await client.close();
    }
  });

  it('picks 2026-07-28 with protocolVersion auto', async () => {
    const client = await Client.connect(transport(), { protocolVersion: 'auto' });
    expect(client.protocolVersion).toBe('2026-07-28');
    expect(text(await client.callTool('add', { a: 1, b: 1 }))).toBe('2');
    await client.close();
  });
});
