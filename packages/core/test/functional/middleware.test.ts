import 'reflect-metadata';
import { IsString } from 'class-validator';
import { Context, McpError, McpServer, metadataStore, Prompt, Resource, Tool, ToolError, UseMiddleware } from '@typemcp/core';
import type { Middleware, MiddlewareContext } from '@typemcp/core';
import { createTestClient } from '@typemcp/testing';

class EchoInput {
  @IsString() text!: string;
}

const seen: string[] = [];
const record =
  (name: string): Middleware =>
  async (ctx, next) => {
    seen.push(`${name}>${ctx.target ? `${ctx.target.kind}:${ctx.target.name}` : ctx.method}`);
    const result = await next();
    seen.push(`${name}<`);
    return result;
  };

function declareProviders() {
  @UseMiddleware(record('class'))
  class Guarded {
    @Tool({ description: 'Echoes' })
    @UseMiddleware(record('method-1'), record('method-2'))
    echo(input: EchoInput): string {
      return input.text;
    }

    @Tool({ description: 'Plain' })
    plain(): string {
      return 'plain';
    }

    @Resource({ uri: 'mem://doc', mimeType: 'text/plain' })
    doc(): string {
      return 'doc';
    }

    @Prompt({ description: 'Hello' })
    @UseMiddleware(async (_ctx, next) => `${await next()} (via middleware)`)
    hello(): string {
      return 'Hello';
    }
  }

  class Shortcut {
    @Tool({ description: 'Refused by its middleware' })
    @UseMiddleware(() => {
      throw new ToolError('not allowed today');
    })
    refused(): string {
      return 'ran';
    }

    @Tool({ description: 'Answered from a cache' })
    @UseMiddleware((ctx: MiddlewareContext) => `cached for ${JSON.stringify(ctx.args?.[0])} in ${String((ctx.params as { name?: string }).name)}`)
    cached(input: EchoInput): string {
      return `computed ${input.text}`;
    }

    @Tool({ description: 'Breaks its middleware contract' })
    @UseMiddleware(async (_ctx, next) => {
      await next();
      return next();
    })
    twice(): string {
      return 'once';
    }

    @Tool({ description: 'Reads the context' })
    @UseMiddleware((ctx) => `context of ${ctx.context.method}, request ${String(ctx.context.requestId)}`)
    who(ctx: Context): string {
      return ctx.method;
    }
  }
  return { Guarded, Shortcut };
}

let providers: ReturnType<typeof declareProviders>;
beforeEach(() => {
  metadataStore.clear();
  seen.length = 0;
  providers = declareProviders();
});

const text = (result: { content: Array<{ text?: string }> }) => result.content.map((c) => c.text).join('');

describe('@UseMiddleware', () => {
  it('wraps a method with the class middleware outside and the method ones inside, in the order written', async () => {
    const client = await createTestClient([providers.Guarded]);
    expect(text(await client.callTool('echo', { text: 'hi' }))).toBe('hi');
    expect(seen).toEqual(['class>tool:echo', 'method-1>tool:echo', 'method-2>tool:echo', 'method-2<', 'method-1<', 'class<']);
    await client.close();
  });

  it('wraps every author method of a decorated class, and only those', async () => {
    const client = await createTestClient([providers.Guarded]);
    await client.callTool('plain');
    await client.readResource('mem://doc');
    await client.listTools();
    expect(seen).toEqual(['class>tool:plain', 'class<', 'class>resource:mem://doc', 'class<']);
    expect((await client.getPrompt('hello')).messages[0].content).toEqual({ type: 'text', text: 'Hello (via middleware)' });
    await client.close();
  });

  it('runs after validation: invalid arguments never reach it', async () => {
    const client = await createTestClient([providers.Guarded]);
    expect((await client.callTool('echo', { text: 1 })).isError).toBe(true);
    expect(seen).toEqual([]);
    await client.close();
  });

  it('short-circuits with a value or an error, like the method itself would', async () => {
    const client = await createTestClient([providers.Shortcut]);
    expect(await client.callTool('refused')).toEqual({ content: [{ type: 'text', text: 'not allowed today' }], isError: true });
    expect(text(await client.callTool('cached', { text: 'x' }))).toBe('cached for {"text":"x"} in cached');
    expect(text(await client.callTool('who'))).toMatch(/^context of tools\/call, request \d+$/);
    await client.close();
  });

  it('refuses next() called twice, as an internal error of the tool', async () => {
    const errors: unknown[] = [];
    const server = new McpServer({ name: 's', version: '1', providers: [providers.Shortcut], onError: (_what, error) => errors.push(error) });
    const client = await createTestClient(server);
    const result = await client.callTool('twice');
    expect(result).toMatchObject({ isError: true, content: [{ text: 'Tool "twice" failed with an internal error' }] });
    expect(String(errors[0])).toContain('next() was called twice by middleware #1');
    await client.close();
    await server.close();
  });
});

describe('McpServer.use', () => {
  it('wraps every routed request, outermost first, and chains', async () => {
    const server = new McpServer({ name: 's', version: '1', providers: [providers.Guarded] });
    expect(server.use(record('outer')).use(record('inner'))).toBe(server);
    const client = await createTestClient(server);
    await client.callTool('plain');
    expect(seen).toEqual(['outer>tools/call', 'inner>tools/call', 'class>tool:plain', 'class<', 'inner<', 'outer<']);
    seen.length = 0;
    await client.listTools();
    await client.request('ping');
    expect(seen).toEqual(['outer>tools/list', 'inner>tools/list', 'inner<', 'outer<', 'outer>ping', 'inner>ping', 'inner<', 'outer<']);
    await client.close();
    await server.close();
  });

  it('may replace a result, refuse a request with a JSON-RPC error, or let a thrown error become -32603', async () => {
    const server = new McpServer({ name: 's', version: '1', providers: [providers.Guarded], onError: () => undefined });
    server.use(async (ctx, next) => {
      if (ctx.method === 'resources/read') throw new McpError(-32002, 'Resources are closed today');
      if (ctx.method === 'prompts/list') throw new Error('database down');
      const result = (await next()) as { content?: unknown[] };
      return ctx.method === 'tools/call' ? { ...result, content: [...(result.content ?? []), { type: 'text', text: ' (audited)' }] } : result;
    });
    const client = await createTestClient(server);
    expect(text(await client.callTool('plain'))).toBe('plain (audited)');
    await expect(client.readResource('mem://doc')).rejects.toMatchObject({ code: -32002, message: 'resources/read failed with -32002: Resources are closed today' });
    await expect(client.listPrompts()).rejects.toMatchObject({ code: -32603 });
    await client.close();
    await server.close();
  });

  it('sees the params and the request Context', async () => {
    const server = new McpServer({ name: 's', version: '1', providers: [providers.Guarded] });
    const observed: unknown[] = [];
    server.use((ctx, next) => {
      observed.push({ method: ctx.method, params: ctx.params, version: ctx.context.protocolVersion, client: ctx.context.clientInfo?.name, target: ctx.target });
      return next();
    });
    const client = await createTestClient(server, { clientInfo: { name: 'observer', version: '1' } });
    await client.callTool('echo', { text: 'x' });
    expect(observed).toEqual([{ method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } }, version: '2025-11-25', client: 'observer', target: undefined }]);
    await client.close();
    await server.close();
  });

  it('refuses what is not a function', () => {
    const server = new McpServer({ name: 's', version: '1' });
    expect(() => server.use('log' as unknown as Middleware)).toThrow('McpServer.use: middleware #0 is string, not a function (ctx, next) => …');
    expect(() => UseMiddleware(null as unknown as Middleware)).toThrow('@UseMiddleware: middleware #0 is null, not a function');
  });
});
