/**
 * The counter app over stdio with the official SDK v2 client, in both eras: a client that shows
 * MCP Apps gets the UI (tool `_meta.ui`, the app-only tool, the UI resource); one that does not
 * gets the text fallback.
 */
import path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { buildUi } from '@typemcp/cli';
import { stdioServerParams } from '../../../test-support/spawnServer';
import { UI_DIR } from '../src/CounterApp';

const APPS = { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } };
const ERAS = [
  ['2025-11-25', { mode: 'legacy' }],
  ['2026-07-28', { mode: { pin: '2026-07-28' } }],
] as const;

beforeAll(async () => {
  await buildUi({ page: path.join(__dirname, '..', 'ui', 'counter.html'), outdir: UI_DIR });
});

async function connect(versionNegotiation: unknown, showsApps: boolean): Promise<Client> {
  const client = new Client({ name: showsApps ? 'apps-host' : 'text-host', version: '1.0.0' }, { capabilities: showsApps ? { extensions: APPS } : {}, versionNegotiation: versionNegotiation as never });
  await client.connect(new StdioClientTransport(stdioServerParams(path.join(__dirname, '..', 'src', 'main.ts'), ['--stdio'])));
  return client;
}

describe.each(ERAS)('the counter app over stdio (%s)', (version, versionNegotiation) => {
  it('gives a client that shows apps the UI: tool metadata, the app-only tool, the HTML document with its settings', async () => {
    const client = await connect(versionNegotiation, true);
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(version);
      expect(client.getServerCapabilities()?.extensions).toEqual({ 'io.modelcontextprotocol/ui': {} });
      const { tools } = await client.listTools();
      expect(tools.map((tool) => [tool.name, tool._meta?.ui])).toEqual([
        ['show_counter', { resourceUri: 'ui://counter/app.html' }],
        ['increment', { resourceUri: 'ui://counter/app.html', visibility: ['model', 'app'] }],
        ['reset', { resourceUri: 'ui://counter/app.html', visibility: ['app'] }],
      ]);
      const { contents } = await client.readResource({ uri: 'ui://counter/app.html' });
      expect(contents).toHaveLength(1);
      expect(contents[0]).toMatchObject({ uri: 'ui://counter/app.html', mimeType: 'text/html;profile=mcp-app', _meta: { ui: { prefersBorder: true, csp: {} } } });
      const html = (contents[0] as { text: string }).text;
      expect(html).toMatch(/^<!doctype html>/);
      // One document: the script and the stylesheet are inlined.
      expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+stylesheet/);
      expect((await client.callTool({ name: 'reset', arguments: {} })).structuredContent).toEqual({ count: 0 });
    } finally {
      await client.close();
    }
  });

  it('gives a client that does not show apps the text fallback', async () => {
    const client = await connect(versionNegotiation, false);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => [tool.name, tool._meta])).toEqual([
        ['show_counter', undefined],
        ['increment', undefined],
      ]);
      const shown = await client.callTool({ name: 'increment', arguments: { step: 3 } });
      expect(shown.content).toEqual([{ type: 'text', text: 'The counter is at 3.' }]);
      const refused = await client.callTool({ name: 'reset', arguments: {} }).then(
        () => undefined,
        (error: { code?: number; message: string }) => error,
      );
      expect(refused).toMatchObject({ code: -32602, message: expect.stringContaining('Unknown tool: reset') });
    } finally {
      await client.close();
    }
  });
});
