/**
 * Transforms of transforms, mounts that come and go, and access rules that change under a
 * transform: what the first transform hides stays hidden, a mount's transforms go with it, and
 * listings follow the source's current rules.
 */
import 'reflect-metadata';
import { IsString } from 'class-validator';
import { Context, McpServer, Scopes, Tool } from '@typemcp/core';
import type { Principal, RemoteTool } from '@typemcp/core';
import { createTestClient } from '@typemcp/testing';
import type { TestClient } from '@typemcp/testing';

const ada: Principal = { subject: 'ada', scopes: ['kb:read'], claims: {} };
const bob: Principal = { subject: 'bob', scopes: [], claims: {} };
const tenantOf = (ctx: Context) => `tenant-of-${ctx.principal?.subject ?? 'nobody'}`;
const hideTenant = { tenant: { hide: true, default: tenantOf } };
const text = (result: { content: Array<{ text?: string }> }) => result.content.map((c) => c.text).join('');
const settle = () => new Promise((resolve) => setImmediate(resolve));
const names = async (client: TestClient) => (await client.listTools()).map((t) => t.name).sort();
const propsOf = async (client: TestClient, name: string) => {
  const tool = (await client.listTools()).find((t) => t.name === name);
  return tool ? Object.keys((tool.inputSchema as { properties?: object }).properties ?? {}) : undefined;
};
/** What a call answers: its text, or the error's message. */
const attempt = (client: TestClient, name: string, args: Record<string, unknown>) =>
  client.callTool(name, args).then(
    (r) => `${r.isError ? 'isError ' : ''}${text(r)}`,
    (e: Error) => `error ${e.message}`,
  );

class SearchInput {
  @IsString() q!: string;
  @IsString() tenant!: string;
}

class Search {
  @Tool({ name: 'kb_search', description: 'search' })
  search(input: SearchInput): string {
    return `got ${input.tenant}: ${input.q}`;
  }
}

class ScopedSearch {
  @Scopes('kb:read')
  @Tool({ name: 'kb_search', description: 'scoped search' })
  search(input: SearchInput): string {
    return `scoped ${input.tenant}: ${input.q}`;
  }
}

class AdminSearch {
  @Scopes('kb:admin')
  @Tool({ name: 'kb_search', description: 'admin search' })
  search(input: SearchInput): string {
    return `admin ${input.tenant}: ${input.q}`;
  }
}

describe('a transform of a transform under the same name keeps what the first hides', () => {
  it('A→A hiding tenant, then two aliases: both are made from the first transform, and neither takes tenant from the client', async () => {
    const server = new McpServer({ name: 'gw', version: '1', providers: [Search] });
    server.transformTool('kb_search', { arguments: hideTenant });
    server.transformTool('kb_search', { name: 'find' });
    server.transformTool('kb_search', { name: 'lookup' });
    const client = await createTestClient(server, { principal: ada });
    expect(await names(client)).toEqual(['find', 'lookup']);
    expect(await propsOf(client, 'find')).toEqual(['q']);
    expect(await propsOf(client, 'lookup')).toEqual(['q']);
    expect(await attempt(client, 'lookup', { q: 'x', tenant: 'victim' })).not.toContain('victim');
    await client.close();
  });

  it('A→A hiding tenant, A→B, then A→A again: A is listed again, made from the first, without tenant', async () => {
    const server = new McpServer({ name: 'gw', version: '1', providers: [Search] });
    server.transformTool('kb_search', { arguments: hideTenant });
    server.transformTool('kb_search', { name: 'find' });
    server.transformTool('kb_search', { description: 'again' });
    const client = await createTestClient(server, { principal: ada });
    expect(await propsOf(client, 'kb_search')).not.toContain('tenant');
    expect(await attempt(client, 'kb_search', { q: 'x', tenant: 'victim' })).not.toContain('victim');
    await client.close();
  });
});

describe('a mount takes the transforms made from its tools with it, however deep', () => {
  it('rename then rename: unmounting takes the whole chain and its covers; a new mount shows its tools as they are', async () => {
    const inner = new McpServer({ name: 'inner', version: '1', providers: [Search] });
    const server = new McpServer({ name: 'gw', version: '1' });
    const mounted = server.mount(inner, { namespace: 'kb' });
    server.transformTool('kb_kb_search', { name: 'find', arguments: hideTenant });
    server.transformTool('find', { name: 'find2' });
    const client = await createTestClient(server, { principal: ada });
    expect(await names(client)).toEqual(['find2']);
    expect(await attempt(client, 'find2', { q: 'x', tenant: 'victim' })).toMatch(/^isError/);
    mounted.unmount();
    await settle();
    expect(server.tools.names()).toEqual([]);
    server.mount(inner, { namespace: 'kb' });
    await settle();
    // The transforms went with the first mount: nothing of them answers for the second.
    expect(await names(client)).toEqual(['kb_kb_search']);
    expect(await attempt(client, 'find2', { q: 'x' })).toMatch(/Unknown tool/);
    expect(await attempt(client, 'find', { q: 'x' })).toMatch(/Unknown tool/);
    await client.close();
  });

  it('rename then a same-name transform of the rename: unmounting takes both', async () => {
    const inner = new McpServer({ name: 'inner', version: '1', providers: [Search] });
    const server = new McpServer({ name: 'gw', version: '1' });
    const mounted = server.mount(inner, { namespace: 'kb' });
    server.transformTool('kb_kb_search', { name: 'find', arguments: hideTenant });
    server.transformTool('find', { description: 'Find documents' });
    const client = await createTestClient(server, { principal: ada });
    expect((await client.listTools()).map((t) => [t.name, t.description])).toEqual([['find', 'Find documents']]);
    expect(await attempt(client, 'find', { q: 'x' })).toBe('got tenant-of-ada: x');
    mounted.unmount();
    await settle();
    expect(server.tools.names()).toEqual([]);
    server.mount(inner, { namespace: 'kb' });
    await settle();
    expect(await names(client)).toEqual(['kb_kb_search']);
    expect(await attempt(client, 'find', { q: 'x' })).toMatch(/Unknown tool/);
    await client.close();
  });
});

describe('listings follow the access rules of the source as it is now', () => {
  it("a mounted server's transform whose source is re-registered with stricter @Scopes is no longer listed to callers who lack them", async () => {
    const inner = new McpServer({ name: 'inner', version: '1', providers: [ScopedSearch] });
    inner.transformTool('kb_search', { name: 'find', arguments: hideTenant });
    const server = new McpServer({ name: 'gw', version: '1' });
    server.mount(inner, { namespace: 'kb' });
    const client = await createTestClient(server, { principal: ada });
    expect(await names(client)).toEqual(['kb_find']);
    inner.tools.remove('kb_search');
    inner.register(AdminSearch);
    await settle();
    expect(await attempt(client, 'kb_find', { q: 'x' })).toMatch(/kb:admin/); // the call is refused (the mounted server checks again)
    expect(await names(client)).toEqual([]);
    await client.close();
  });

  it('a transform of a scoped remote tool is listed to nobody while its source is removed', async () => {
    const remoteTool: RemoteTool = {
      listing: { name: 'kb_search', description: 'v1', inputSchema: { type: 'object', properties: { q: { type: 'string' }, tenant: { type: 'string' } }, required: ['q', 'tenant'] } },
      access: { scopes: ['kb:read'] },
      call: async (args) => ({ content: [{ type: 'text', text: `v1 ${String(args.tenant)}: ${String(args.q)}` }] }),
    };
    const server = new McpServer({ name: 'gw', version: '1' });
    const remote = server.remote({ tools: [remoteTool] });
    server.transformTool('kb_search', { name: 'find', arguments: hideTenant });
    const client = await createTestClient(server, { principal: bob });
    expect(await names(client)).toEqual([]);
    remote.remove();
    await settle();
    expect(await names(client)).toEqual([]);
    await client.close();
  });
});
