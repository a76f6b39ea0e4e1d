import 'reflect-metadata';
import { Completion, Context, McpServer, Resource } from '@typemcp/core';
import type { ResourceListing } from '@typemcp/core';
import { checkedClients } from './rawClient';

const DOCS: Record<string, string> = { intro: 'Hello', guide: 'Read me', 'a b': 'spaced' };

class DocResources {
  @Resource({ uri: 'docs://readme', title: 'Readme', description: 'The readme', mimeType: 'text/markdown', size: 5, annotations: { audience: ['user'], priority: 0.5 } })
  readme(): string {
    return '# Hi';
  }

  @Resource('docs://stats')
  stats(ctx: Context) {
    return { documents: Object.keys(DOCS).length, client: ctx.clientInfo?.name };
  }

  @Resource('docs://logo')
  logo(): Uint8Array {
    return new Uint8Array([1, 2, 3]);
  }

  @Resource({ uri: 'docs://pages/{id}', mimeType: 'text/plain', list: 'pages' })
  page(vars: { id: string }): string {
    return DOCS[vars.id] ?? `no page ${vars.id}`;
  }

  pages(): ResourceListing[] {
    return Object.keys(DOCS).map((id) => ({ uri: `docs://pages/${encodeURIComponent(id)}`, name: id }));
  }

  @Resource({ uri: 'repo://{owner}/{repo}/blob/{+path}' })
  blob(vars: { owner: string; repo: string; path: string }) {
    return { contents: [{ uri: `repo://${vars.owner}/${vars.repo}/blob/${vars.path}`, text: vars.path }] };
  }

  @Completion({ resource: 'docs://pages/{id}', argument: 'id' })
  pageIds(value: string): string[] {
    return Object.keys(DOCS).filter((id) => id.startsWith(value));
  }
}

const connect = checkedClients();

const newServer = () => new McpServer({ name: 'docs', version: '1', providers: [DocResources] });

describe('resources', () => {
  it('declares resources with subscribe and listChanged', async () => {
    const client = await connect(newServer());
    const init = client.received.find((r) => r.requestMethod === 'initialize')!.message.result;
    expect(init.capabilities).toEqual({ logging: {}, resources: { subscribe: true, listChanged: true }, completions: {} });
  });

  it('lists fixed resources, then what templates enumerate', async () => {
    const client = await connect(newServer());
    const { result } = await client.request('resources/list');
    expect(result.resources).toEqual([
      { uri: 'docs://readme', name: 'readme', title: 'Readme', description: 'The readme', mimeType: 'text/markdown', size: 5, annotations: { audience: ['user'], priority: 0.5 } },
      { uri: 'docs://stats', name: 'stats' },
      { uri: 'docs://logo', name: 'logo' },
      { uri: 'docs://pages/intro', name: 'intro', mimeType: 'text/plain' },
      { uri: 'docs://pages/guide', name: 'guide', mimeType: 'text/plain' },
      { uri: 'docs://pages/a%20b', name: 'a b', mimeType: 'text/plain' },
    ]);
  });

  it('lists templates', async () => {
    const client = await connect(newServer());
    const { result } = await client.request('resources/templates/list');
    expect(result.resourceTemplates).toEqual([
      { uriTemplate: 'docs://pages/{id}', name: 'page', mimeType: 'text/plain' },
      { uriTemplate: 'repo://{owner}/{repo}/blob/{+path}', name: 'blob' },
    ]);
  });

  it('reads text, JSON, bytes and template matches', async () => {
    const client = await connect(newServer());
    const read = async (uri: string) => (await client.request('resources/read', { uri })).result.contents;
    expect(await read('docs://readme')).toEqual([{ uri: 'docs://readme', mimeType: 'text/markdown', text: '# Hi' }]);
    expect(await read('docs://stats')).toEqual([{ uri: 'docs://stats', mimeType: 'application/json', text: '{"documents":3,"client":"raw-client"}' }]);
    expect(await read('docs://logo')).toEqual([{ uri: 'docs://logo', mimeType: 'application/octet-stream', blob: 'AQID' }]);
    expect(await read('docs://pages/guide')).toEqual([{ uri: 'docs://pages/guide', mimeType: 'text/plain', text: 'Read me' }]);
    expect(await read('docs://pages/a%20b')).toEqual([{ uri: 'docs://pages/a%20b', mimeType: 'text/plain', text: 'spaced' }]);
    expect(await read('repo://me/app/blob/src/main.ts')).toEqual([{ uri: 'repo://me/app/blob/src/main.ts', text: 'src/main.ts' }]);
  });

  it('answers an unknown uri with -32002 and the uri in data', async () => {
    const client = await connect(newServer());
    const response = await client.request('resources/read', { uri: 'docs://nothing/here/at/all' });
    expect(response.error).toEqual({ code: -32002, message: 'Resource not found: docs://nothing/here/at/all', data: { uri: 'docs://nothing/here/at/all' } });
    expect((await client.request('resources/read', {})).error?.code).toBe(-32602);
  });

  it('tells only subscribed sessions about updates', async () => {
    const server = newServer();
    const subscriber = await connect(server);
    const other = await connect(server);
    expect((await subscriber.request('resources/subscribe', { uri: 'docs://readme' })).result).toEqual({});
    expect((await subscriber.request('resources/subscribe', { uri: 'docs://pages/intro' })).result).toEqual({});
    expect((await subscriber.request('resources/subscribe', { uri: 'docs://unknown' })).error?.code).toBe(-32002);
    server.resources.notifyUpdated('docs://readme');
    server.resources.notifyUpdated('docs://stats');
    await subscriber.waitFor((m) => m.method === 'notifications/resources/updated');
    await other.settle();
    expect(subscriber.received.filter((r) => r.message.method === 'notifications/resources/updated').map((r) => r.message.params)).toEqual([{ uri: 'docs://readme' }]);
    expect(other.received.some((r) => r.message.method === 'notifications/resources/updated')).toBe(false);
    await subscriber.request('resources/unsubscribe', { uri: 'docs://readme' });
    server.resources.notifyUpdated('docs://readme');
    server.resources.notifyUpdated('docs://pages/intro');
    await subscriber.waitFor((m) => m.params?.uri === 'docs://pages/intro');
    expect(subscriber.received.filter((r) => r.message.params?.uri === 'docs://readme')).toHaveLength(1);
  });

  it('disables resources and templates at run time with one list_changed', async () => {
    const server = newServer();
    const client = await connect(server);
    server.resources.disable('docs://readme');
    server.resources.disable('docs://pages/{id}');
    await client.waitFor((m) => m.method === 'notifications/resources/list_changed');
    await client.settle();
    expect(client.received.filter((r) => r.message.method === 'notifications/resources/list_changed')).toHaveLength(1);
    expect(server.resources.names()).toEqual(['docs://stats', 'docs://logo', 'repo://{owner}/{repo}/blob/{+path}']);
    expect((await client.request('resources/read', { uri: 'docs://pages/intro' })).error?.code).toBe(-32002);
  });

  it('completes template variables', async () => {
    const client = await connect(newServer());
    const { result } = await client.request('completion/complete', {
      ref: { type: 'ref/resource', uri: 'docs://pages/{id}' },
      argument: { name: 'id', value: 'g' },
    });
    expect(result).toEqual({ completion: { values: ['guide'], total: 1, hasMore: false } });
    const none = await client.request('completion/complete', { ref: { type: 'ref/resource', uri: 'repo://{owner}/{repo}/blob/{+path}' }, argument: { name: 'owner', value: '' } });
    expect(none.result).toEqual({ completion: { values: [], total: 0, hasMore: false } });
    const unknown = await client.request('completion/complete', { ref: { type: 'ref/resource', uri: 'x://{y}' }, argument: { name: 'y', value: '' } });
    expect(unknown.error?.code).toBe(-32602);
  });
});
