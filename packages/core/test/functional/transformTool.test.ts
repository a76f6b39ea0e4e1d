import 'reflect-metadata';
import { IsIn, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { Context, DefinitionError, McpServer, Tool } from '@typemcp/core';
import { createTestClient } from '@typemcp/testing';

class SearchInput {
  @IsString() q!: string;
  @IsOptional() @IsInt() @Min(1) @Max(50) limit?: number;
  @IsString() tenant!: string;
  @IsOptional() @IsIn(['asc', 'desc']) order?: string;
}

const seen: unknown[] = [];

class Search {
  @Tool({ description: 'Searches the index of a tenant' })
  search(input: SearchInput, ctx: Context): string {
    seen.push({ ...input, caller: ctx.principal?.subject });
    return `${input.tenant}: ${input.q} (${input.limit ?? 10}, ${input.order ?? 'asc'})`;
  }
}

const text = (result: { content: Array<{ text?: string }> }) => result.content.map((c) => c.text).join('');

beforeEach(() => void (seen.length = 0));

describe('server.transformTool', () => {
  it('renames the tool and its arguments, hides one with a default computed from the caller, rewrites descriptions', async () => {
    const server = new McpServer({ name: 't', version: '1', providers: [Search] });
    server.transformTool('search', {
      name: 'find_documents',
      description: 'Finds documents',
      arguments: {
        q: { name: 'query', description: 'What to look for' },
        tenant: { hide: true, default: (ctx: Context) => `tenant-of-${ctx.principal?.subject ?? 'nobody'}` },
        limit: { default: 5 },
      },
    });
    const client = await createTestClient(server, { principal: { subject: 'ada', scopes: [], claims: {} } });
    const [tool] = await client.listTools();
    expect(tool.name).toBe('find_documents');
    expect(tool.description).toBe('Finds documents');
    const schema = tool.inputSchema as { properties: Record<string, { description?: string; default?: unknown }>; required?: string[] };
    expect(Object.keys(schema.properties).sort()).toEqual(['limit', 'order', 'query']);
    expect(schema.properties.query.description).toBe('What to look for');
    expect(schema.properties.limit.default).toBe(5);
    expect(schema.required).toEqual(['query']);
    expect(text(await client.callTool('find_documents', { query: 'mcp' }))).toBe('tenant-of-ada: mcp (5, asc)');
    expect(seen).toEqual([{ q: 'mcp', limit: 5, tenant: 'tenant-of-ada', caller: 'ada' }]);
    // The original is hidden: neither listed nor callable.
    await expect(client.callTool('search', { q: 'x', tenant: 't' })).rejects.toThrow(/Unknown tool/);
    await client.close();
  });

  it('validates against the exposed schema, and the original DTO still checks what reaches it', async () => {
    const server = new McpServer({ name: 't', version: '1', providers: [Search] });
    server.transformTool('search', { arguments: { q: { name: 'query' }, tenant: { hide: true, default: 'acme' } } });
    const client = await createTestClient(server);
    // The client's own name for the argument is refused: it is not in the exposed schema.
    const wrongName = await client.callTool('search', { q: 'x' });
    expect(wrongName.isError).toBe(true);
    expect(text(wrongName)).toMatch(/query|q/);
    // A hidden argument cannot be sent.
    const hidden = await client.callTool('search', { query: 'x', tenant: 'other' });
    expect(hidden.isError).toBe(true);
    // The exposed schema carries the DTO's rules too (limit ≤ 50), and the DTO checks again.
    const tooMany = await client.callTool('search', { query: 'x', limit: 500 });
    expect(tooMany.isError).toBe(true);
    expect(text(await client.callTool('search', { query: 'x', limit: 2, order: 'desc' }))).toBe('acme: x (2, desc)');
    expect(seen).toHaveLength(1);
    await client.close();
  });

  it('wraps the call, keeps the original when asked, and works on a mounted tool', async () => {
    const inner = new McpServer({ name: 'inner', version: '1', providers: [Search] });
    const server = new McpServer({ name: 't', version: '1' });
    server.mount(inner, { namespace: 'idx' });
    server.transformTool('idx_search', {
      name: 'quick_search',
      keepOriginal: true,
      arguments: { tenant: { hide: true, default: 'acme' } },
      wrap: async (args, call) => {
        const result = await call({ ...args, q: String(args.q).toLowerCase() });
        return { ...result, content: [...result.content, { type: 'text', text: ' [wrapped]' }] };
      },
    });
    const client = await createTestClient(server);
    expect((await client.listTools()).map((t) => t.name).sort()).toEqual(['idx_search', 'quick_search']);
    expect(text(await client.callTool('quick_search', { q: 'HELLO' }))).toBe('acme: hello (10, asc) [wrapped]');
    expect(text(await client.callTool('idx_search', { q: 'raw', tenant: 'beta' }))).toBe('beta: raw (10, asc)');
    await client.close();
  });

  it('refuses what cannot be: an unknown tool or argument, a hidden required one without default, a name taken', () => {
    const server = new McpServer({ name: 't', version: '1', providers: [Search] });
    expect(() => server.transformTool('nope', {})).toThrow(/no tool is named "nope"/);
    expect(() => server.transformTool('search', { arguments: { nothing: { name: 'x' } } })).toThrow(/has no argument "nothing"/);
    expect(() => server.transformTool('search', { arguments: { tenant: { hide: true } } })).toThrow(/a hidden one needs a default/);
    expect(() => server.transformTool('search', { arguments: { q: { name: 'tenant' } } })).toThrow(/two arguments would be named "tenant"/);
    expect(() => server.transformTool('search', { name: 'bad name' })).toThrow(DefinitionError);
    expect(server.tools.names()).toEqual(['search']);
  });
});

describe('server.transformTool: what a client cannot reach', () => {
  it('never lets a client set a hidden argument, or one by its old name, even where the schema is open', async () => {
    const received: unknown[] = [];
    class Open {
      @Tool({
        description: 'A hand-written, open schema',
        inputSchema: { type: 'object', properties: { q: { type: 'string' }, tenant: { type: 'string' } }, required: ['q', 'tenant'] },
      })
      find(input: Record<string, unknown>): string {
        received.push(input);
        return `${String(input.tenant)}: ${String(input.q)}`;
      }
    }
    const server = new McpServer({ name: 't', version: '1', providers: [Open] });
    server.transformTool('find', { arguments: { q: { name: 'query' }, tenant: { hide: true, default: 'mine' } } });
    const client = await createTestClient(server);
    const [tool] = await client.listTools();
    expect(tool.inputSchema).toMatchObject({ properties: { query: { type: 'string' } }, required: ['query'], additionalProperties: false });
    expect((await client.callTool('find', { query: 'x', tenant: 'victim' })).isError).toBe(true);
    expect((await client.callTool('find', { query: 'x', q: 'sneaky' })).isError).toBe(true);
    expect(text(await client.callTool('find', { query: 'x' }))).toBe('mine: x');
    expect(received).toEqual([{ q: 'x', tenant: 'mine' }]);
    await client.close();
  });
});
