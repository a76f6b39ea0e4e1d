import 'reflect-metadata';
import { IsInt } from 'class-validator';
import { McpServer, metadataStore, Resource, Tool } from '@typemcp/core';
import { createTestClient } from '@typemcp/testing';
import { failure } from './failure';
import type { TestClient } from '@typemcp/testing';

const APPS = 'io.modelcontextprotocol/ui';
const APP_MIME = 'text/html;profile=mcp-app';
const SHOWS_APPS = { [APPS]: { mimeTypes: [APP_MIME] } };
const VERSIONS = ['2025-11-25', '2026-07-28'] as const;
const HTML = '<!doctype html><html><body><div id="count"></div><script>/* app */</script></body></html>';

class StepInput {
  @IsInt() step!: number;
}

let count = 0;

function declareCounter() {
  class Counter {
    @Tool({ description: 'Shows the counter', ui: { resourceUri: 'ui://counter/app.html' } })
    show_counter(): { content: Array<{ type: 'text'; text: string }>; structuredContent: { count: number } } {
      return { content: [{ type: 'text', text: `The counter is at ${count}.` }], structuredContent: { count } };
    }

    @Tool({ description: 'Adds to the counter (the app calls it)', ui: { resourceUri: 'ui://counter/app.html', visibility: ['app'] } })
    increment(input: StepInput): string {
      count += input.step;
      return `The counter is at ${count}.`;
    }

    @Tool({ description: 'A tool without UI', _meta: { 'com.example/owner': 'team' } })
    plain(): string {
      return 'plain';
    }

    @Resource({
      uri: 'ui://counter/app.html',
      name: 'counter-app',
      description: 'The counter UI',
      ui: { csp: { connectDomains: ['https://api.example.com'], resourceDomains: ['https://cdn.example.com'] }, prefersBorder: true },
    })
    app(): string {
      return HTML;
    }
  }
  return Counter;
}

const clients: TestClient[] = [];
const servers: McpServer[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  for (const server of servers.splice(0)) await server.close();
});
beforeEach(() => {
  metadataStore.clear();
  count = 0;
});

async function connect(version: string, showsApps: boolean, server = new McpServer({ name: 'apps', version: '1', providers: [declareCounter()] })): Promise<TestClient> {
  servers.push(server);
  const client = await createTestClient(server, { protocolVersion: version, ...(showsApps ? { extensions: SHOWS_APPS } : {}) });
  clients.push(client);
  return client;
}


describe.each(VERSIONS)('MCP Apps, protocol %s', (version) => {
  it('advertises the extension, to clients that show apps and to those that do not', async () => {
    for (const shows of [true, false]) {
      const client = await connect(version, shows);
      expect(client.serverCapabilities.extensions).toEqual({ [APPS]: {} });
    }
  });

  it("lists each tool's UI (and the key older hosts read) to a client that shows apps, app-only tools included", async () => {
    const client = await connect(version, true);
    const tools = await client.listTools();
    expect(tools.map((t) => [t.name, t._meta])).toEqual([
      ['show_counter', { ui: { resourceUri: 'ui://counter/app.html' }, 'ui/resourceUri': 'ui://counter/app.html' }],
      ['increment', { ui: { resourceUri: 'ui://counter/app.html', visibility: ['app'] }, 'ui/resourceUri': 'ui://counter/app.html' }],
      ['plain', { 'com.example/owner': 'team' }],
    ]);
    expect(await client.callTool('increment', { step: 2 })).toMatchObject({ content: [{ type: 'text', text: 'The counter is at 2.' }] });
    expect(count).toBe(2);
  });

  it('gives a client that cannot show apps the text fallback: no UI in the listing, no app-only tool, text results', async () => {
    const client = await connect(version, false);
    const tools = await client.listTools();
    expect(tools.map((t) => [t.name, t._meta])).toEqual([
      ['show_counter', undefined],
      ['plain', { 'com.example/owner': 'team' }],
    ]);
    expect(await client.callTool('show_counter')).toMatchObject({ content: [{ type: 'text', text: 'The counter is at 0.' }] });
    const refused = await failure(client.callTool('increment', { step: 1 }));
    expect(refused).toEqual({ code: -32602, message: 'Unknown tool: increment' });
    expect(count).toBe(0);
  });

  it('serves the UI as text/html;profile=mcp-app with _meta.ui on the listing and on what is read', async () => {
    const client = await connect(version, true);
    const ui = { csp: { connectDomains: ['https://api.example.com'], resourceDomains: ['https://cdn.example.com'] }, prefersBorder: true };
    expect(await client.listResources()).toEqual([{ uri: 'ui://counter/app.html', name: 'counter-app', description: 'The counter UI', mimeType: APP_MIME, _meta: { ui } }]);
    expect((await client.readResource('ui://counter/app.html')).contents).toEqual([{ uri: 'ui://counter/app.html', mimeType: APP_MIME, text: HTML, _meta: { ui } }]);
  });

  it("answers a ui:// resource that does not exist with the protocol's not-found error", async () => {
    const client = await connect(version, true);
    const missing = await failure(client.readResource('ui://counter/missing.html'));
    expect(missing).toEqual({ code: version === '2026-07-28' ? -32602 : -32002, message: 'Resource not found: ui://counter/missing.html' });
  });
});

describe('MCP Apps at 2026-07-28', () => {
  it('marks tool lists private: what a client sees depends on what it declared', async () => {
    const client = await connect('2026-07-28', true);
    expect(await client.request('tools/list')).toMatchObject({ cacheScope: 'private' });
  });

  it('decides per request: the same server answers a request that declares apps and one that does not', async () => {
    const server = new McpServer({ name: 'apps', version: '1', providers: [declareCounter()] });
    const withApps = await connect('2026-07-28', true, server);
    const without = await connect('2026-07-28', false, server);
    expect((await withApps.listTools()).map((t) => t.name)).toEqual(['show_counter', 'increment', 'plain']);
    expect((await without.listTools()).map((t) => t.name)).toEqual(['show_counter', 'plain']);
  });
});

describe('MCP Apps contents a method builds itself', () => {
  it.each(VERSIONS)('get the app MIME type and the resource settings, their own _meta.ui fields winning (%s)', async (version) => {
    class Own {
      @Tool({ description: 'x', ui: { resourceUri: 'ui://own/app.html' } })
      x(): string {
        return 'x';
      }

      @Resource({ uri: 'ui://own/app.html', ui: { prefersBorder: true, csp: { connectDomains: ['https://a.example.com'] } } })
      page() {
        return { contents: [{ uri: 'ui://own/app.html', text: HTML, _meta: { ui: { csp: { connectDomains: ['https://b.example.com'] } }, 'com.example/build': '7' } }] };
      }
    }
    const client = await connect(version, true, new McpServer({ name: 'own', version: '1', providers: [Own] }));
    expect((await client.readResource('ui://own/app.html')).contents).toEqual([
      { uri: 'ui://own/app.html', mimeType: APP_MIME, text: HTML, _meta: { ui: { prefersBorder: true, csp: { connectDomains: ['https://b.example.com'] } }, 'com.example/build': '7' } },
    ]);
  });
});

describe('MCP Apps declarations', () => {
  it('a server without apps advertises nothing of them', async () => {
    class Plain {
      @Tool({ description: 'x' })
      x(): string {
        return 'x';
      }
    }
    const client = await connect('2025-11-25', true, new McpServer({ name: 'plain', version: '1', providers: [Plain] }));
    expect(client.serverCapabilities.extensions).toBeUndefined();
  });

  it('refuses, when the server starts serving, a tool whose UI names no app resource', async () => {
    class Orphan {
      @Tool({ description: 'x', ui: { resourceUri: 'ui://nowhere/app.html' } })
      x(): string {
        return 'x';
      }
    }
    const server = new McpServer({ name: 'orphan', version: '1', providers: [Orphan] });
    servers.push(server);
    await expect(createTestClient(server)).rejects.toThrow(
      `Orphan.x: @Tool ui.resourceUri "ui://nowhere/app.html" names no app UI; declare it with @Resource({ uri: 'ui://nowhere/app.html', ui: {} }) on a registered provider`,
    );
  });

  it('refuses malformed UI options when the class is registered', () => {
    const cases: Array<[() => unknown, RegExp]> = [
      [
        () => {
          class A {
            @Tool({ description: 'x', ui: { resourceUri: 'https://example.com/app.html' } })
            x(): string {
              return 'x';
            }
          }
          return A;
        },
        /A\.x: @Tool: ui\.resourceUri must be the ui:\/\/ URI of the app's UI resource/,
      ],
      [
        () => {
          class B {
            @Tool({ description: 'x', ui: { resourceUri: 'ui://b/app.html', visibility: [] } })
            x(): string {
              return 'x';
            }
          }
          return B;
        },
        /B\.x: @Tool: ui\.visibility must list "model", "app" or both, once each, not \[\]/,
      ],
      [
        () => {
          class C {
            @Tool({ description: 'x', ui: { resourceUri: 'ui://c/app.html', csp: {} } as never })
            x(): string {
              return 'x';
            }
          }
          return C;
        },
        /C\.x: @Tool: ui\.csp is not a tool setting; csp, permissions, domain and prefersBorder belong on the UI resource/,
      ],
      [
        () => {
          class D {
            @Resource({ uri: 'docs://app.html', ui: {} })
            x(): string {
              return 'x';
            }
          }
          return D;
        },
        /D\.x: @Resource: an app's UI resource needs a fixed ui:\/\/ URI, not "docs:\/\/app\.html"/,
      ],
      [
        () => {
          class E {
            @Resource({ uri: 'ui://e/app.html', ui: { csp: { connectDomains: 'https://x' as never } } })
            x(): string {
              return 'x';
            }
          }
          return E;
        },
        /E\.x: @Resource: ui\.csp\.connectDomains must be a list of origins/,
      ],
    ];
    for (const [declare, message] of cases) {
      metadataStore.clear();
      const provider = declare() as new () => unknown;
      expect(() => new McpServer({ name: 'bad', version: '1', providers: [provider] })).toThrow(message);
    }
  });
});
