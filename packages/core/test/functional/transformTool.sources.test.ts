/**
 * A transform that hides an argument owns its original: whatever its source does (a mounted
 * server re-registering the tool, server.remote updating it, renaming it and back, removing it),
 * the original is never listed or callable again, and the hidden argument never comes from the
 * client.
 */
import 'reflect-metadata';
import { IsOptional, IsString } from 'class-validator';
import { Context, McpServer, Tool } from '@typemcp/core';
import type { RemoteTool } from '@typemcp/core';
import { createTestClient } from '@typemcp/testing';
import type { TestClient } from '@typemcp/testing';

const ada = { subject: 'ada', scopes: [], claims: {} };
const tenantOf = (ctx: Context) => `tenant-of-${ctx.principal?.subject ?? 'nobody'}`;
const text = (result: { content: Array<{ text?: string }> }) => result.content.map((c) => c.text).join('');

class SearchInput {
  @IsString() q!: string;
  @IsString() tenant!: string;
}

class SearchV1 {
  @Tool({ name: 'kb_search', description: 'v1' })
  search(input: SearchInput): string {
    return `v1 ${input.tenant}: ${input.q}`;
  }
}

class SearchV2Input extends SearchInput {
  @IsOptional() @IsString() extra?: string;
}

/** The same tool redeployed with another schema (an optional argument more) and description. */
class SearchV2 {
  @Tool({ name: 'kb_search', description: 'v2' })
  search(input: SearchV2Input): string {
    return `v2 ${input.tenant}: ${input.q}`;
  }
}

class Renamed {
  @Tool({ name: 'kb_search_old', description: 'renamed' })
  search(input: SearchInput): string {
    return `renamed ${input.tenant}: ${input.q}`;
  }
}

/** What a client can see and do with the original and the transform at this moment. */
async function expectHidden(client: TestClient, transformed: string, original: string, answer: RegExp): Promise<void> {
  const names = (await client.listTools()).map((tool) => tool.name);
  expect(names).not.toContain(original === transformed ? '' : original);
  await expect(client.callTool(original, { q: 'x', tenant: 'victim' })).rejects.toThrow(/Unknown tool/);
  const result = await client.callTool(transformed, { q: 'x' });
  expect(text(result)).toMatch(answer);
  expect(text(result)).not.toContain('victim');
  // The client cannot name the hidden argument either.
  expect((await client.callTool(transformed, { q: 'x', tenant: 'victim' })).isError).toBe(true);
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('a transform keeps its original hidden across every change of a mounted source', () => {
  it('re-registered with another schema, removed, re-added, renamed and renamed back', async () => {
    const inner = new McpServer({ name: 'inner', version: '1', providers: [SearchV1] });
    const server = new McpServer({ name: 'gateway', version: '1' });
    server.mount(inner, { namespace: 'kb' });
    server.transformTool('kb_kb_search', { name: 'find', arguments: { tenant: { hide: true, default: tenantOf } } });
    const client = await createTestClient(server, { principal: ada });
    await expectHidden(client, 'find', 'kb_kb_search', /^v1 tenant-of-ada: x$/);

    // Redeployed with another schema.
    inner.tools.remove('kb_search');
    inner.register(SearchV2);
    await settle();
    await expectHidden(client, 'find', 'kb_kb_search', /^v2 tenant-of-ada: x$/);

    // Removed: the transform answers that its source is gone; the original is not back.
    inner.tools.remove('kb_search');
    await settle();
    expect((await client.listTools()).map((t) => t.name)).not.toContain('kb_kb_search');
    await expect(client.callTool('kb_kb_search', { q: 'x', tenant: 'victim' })).rejects.toThrow(/Unknown tool/);
    const gone = await client.callTool('find', { q: 'x' }).catch((error: Error) => ({ isError: true, content: [{ text: error.message }] }));
    expect(gone.isError).toBe(true);

    // Renamed, then renamed back.
    inner.register(Renamed);
    await settle();
    expect((await client.listTools()).map((t) => t.name)).toContain('kb_kb_search_old');
    inner.tools.remove('kb_search_old');
    inner.register(SearchV1);
    await settle();
    await expectHidden(client, 'find', 'kb_kb_search', /^v1 tenant-of-ada: x$/);

    // Disabled and enabled by the mounted server: the original stays hidden.
    inner.tools.disable('kb_search');
    inner.tools.enable('kb_search');
    await settle();
    await expectHidden(client, 'find', 'kb_kb_search', /^v1 tenant-of-ada: x$/);
    // Not even the gateway's own enable brings it back while the transform exists.
    server.tools.enable('kb_kb_search');
    await expectHidden(client, 'find', 'kb_kb_search', /^v1 tenant-of-ada: x$/);
    await client.close();
  });

  it('a transform under the same name follows the source and keeps hiding the argument', async () => {
    const inner = new McpServer({ name: 'inner', version: '1', providers: [SearchV1] });
    const server = new McpServer({ name: 'gateway', version: '1' });
    server.mount(inner, { namespace: 'kb' });
    server.transformTool('kb_kb_search', { arguments: { tenant: { hide: true, default: tenantOf } } });
    const client = await createTestClient(server, { principal: ada });
    await expectHidden(client, 'kb_kb_search', 'kb_kb_search_none', /^v1 tenant-of-ada: x$/);
    inner.tools.remove('kb_search');
    inner.register(SearchV2);
    await settle();
    const [listed] = (await client.listTools()).filter((tool) => tool.name === 'kb_kb_search');
    expect(Object.keys((listed.inputSchema as { properties: object }).properties)).not.toContain('tenant');
    await expectHidden(client, 'kb_kb_search', 'kb_kb_search_none', /^v2 tenant-of-ada: x$/);
    // Transformed again: the second transform is made from the first, so the argument stays hidden.
    server.transformTool('kb_kb_search', { description: 'Search the knowledge base' });
    const [again] = (await client.listTools()).filter((tool) => tool.name === 'kb_kb_search');
    expect(again.description).toBe('Search the knowledge base');
    expect(Object.keys((again.inputSchema as { properties: object }).properties)).not.toContain('tenant');
    await expectHidden(client, 'kb_kb_search', 'kb_kb_search_none', /^v2 tenant-of-ada: x$/);
    await client.close();
  });

  it('unmounting takes the transform and its hold on the name with it', async () => {
    const inner = new McpServer({ name: 'inner', version: '1', providers: [SearchV1] });
    const server = new McpServer({ name: 'gateway', version: '1' });
    const mounted = server.mount(inner, { namespace: 'kb' });
    server.transformTool('kb_kb_search', { name: 'find', arguments: { tenant: { hide: true, default: tenantOf } } });
    mounted.unmount();
    expect(server.tools.names()).toEqual([]);
    // Mounted again, the tool is the mounted server's own, as the transform is gone.
    server.mount(inner, { namespace: 'kb' });
    expect(server.tools.names()).toEqual(['kb_kb_search']);
  });
});

describe('a transform keeps its original hidden across every change of server.remote items', () => {
  const remoteTool = (version: string, properties: Record<string, unknown>, name = 'kb_search', access?: RemoteTool['access']): RemoteTool => ({
    listing: { name, description: version, inputSchema: { type: 'object', properties, required: ['q', 'tenant'] } },
    access,
    call: async (args) => ({ content: [{ type: 'text', text: `${version} ${String(args.tenant)}: ${String(args.q)}` }] }),
  });
  const base = { q: { type: 'string' }, tenant: { type: 'string' } };

  it('updated with another schema, removed, re-added, renamed and renamed back', async () => {
    const server = new McpServer({ name: 'gateway', version: '1' });
    const remote = server.remote({ tools: [remoteTool('v1', base)] });
    server.transformTool('kb_search', { name: 'find', arguments: { tenant: { hide: true, default: tenantOf } } });
    const client = await createTestClient(server, { principal: ada });
    await expectHidden(client, 'find', 'kb_search', /^v1 tenant-of-ada: x$/);

    remote.update({ tools: [remoteTool('v2', { ...base, extra: { type: 'string' } })] });
    await settle();
    await expectHidden(client, 'find', 'kb_search', /^v2 tenant-of-ada: x$/);

    remote.update({ tools: [] });
    await settle();
    await expect(client.callTool('kb_search', { q: 'x', tenant: 'victim' })).rejects.toThrow(/Unknown tool/);

    remote.update({ tools: [remoteTool('v3', base, 'kb_search_old')] });
    await settle();
    remote.update({ tools: [remoteTool('v4', base)] });
    await settle();
    await expectHidden(client, 'find', 'kb_search', /^v4 tenant-of-ada: x$/);
    await client.close();
  });

  it("the transform is checked by its source's current access rules", async () => {
    const server = new McpServer({ name: 'gateway', version: '1' });
    const remote = server.remote({ tools: [remoteTool('v1', base, 'kb_search', { scopes: ['kb:read'] })] });
    server.transformTool('kb_search', { name: 'find', arguments: { tenant: { hide: true, default: tenantOf } } });
    const client = await createTestClient(server, { principal: ada });
    const refused = async () => {
      expect((await client.listTools()).map((t) => t.name)).toEqual([]);
      await expect(client.callTool('find', { q: 'x' })).rejects.toThrow(/kb:read|Unknown tool|Access denied/);
    };
    await refused();
    // Updated (its description changes): the rules of the new item still apply to the transform.
    remote.update({ tools: [{ ...remoteTool('v2', base, 'kb_search', { scopes: ['kb:read'] }) }] });
    await settle();
    await refused();
    await client.close();
  });
});
