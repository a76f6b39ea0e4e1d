import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsEnum, IsInt, IsOptional, IsString, Max, Min, ValidateNested } from 'class-validator';
import { injectable, container as rootContainer } from 'tsyringe';
import { Context, DefinitionError, Description, InvalidParamsError, McpServer, Tool, ToolError } from '@typemcp/core';
import { checkedClients, RawClient } from './rawClient';

enum Color {
  Red = 'red',
  Blue = 'blue',
}

class PaintInput {
  @IsString() @Description('What to paint') thing!: string;
  @IsEnum(Color) color!: Color;
  @IsOptional() @IsInt() @Min(1) @Max(3) coats?: number;
}

class Point {
  @IsInt() x!: number;
  @IsInt() y!: number;
}

class PathOutput {
  @IsString() name!: string;
  @ValidateNested({ each: true }) @Type(() => Point) points!: Point[];
}

class PathInput {
  @IsString() name!: string;
}

class PaintTools {
  @Tool({ description: 'Paint a thing', title: 'Paint', annotations: { destructiveHint: false }, icons: [{ src: 'https://example.com/p.png' }] })
  paint(input: PaintInput): string {
    if (input.thing === 'sky') throw new ToolError('The sky cannot be painted');
    return `${input.thing} is now ${input.color} (${input.coats ?? 1} coats)`;
  }

  @Tool({ output: PathOutput })
  path(input: PathInput): PathOutput {
    return { name: input.name, points: [{ x: 1, y: 2 }] };
  }

  @Tool({ output: PathOutput })
  brokenPath(): unknown {
    return { name: 7 };
  }

  @Tool({ mimeType: 'image/png' })
  pixel(): Uint8Array {
    return new Uint8Array([137, 80, 78, 71]);
  }

  @Tool() explode(): string {
    throw new Error('secret database password in this message');
  }

  @Tool() refuse(): string {
    throw new InvalidParamsError('refused on purpose', { why: 'test' });
  }

  @Tool() full() {
    return { content: [{ type: 'text', text: 'as is' }], structuredContent: { a: 1 } };
  }
}

const connect = checkedClients();

const paintServer = (debug = false) =>
  new McpServer({ name: 'paint', version: '1', providers: [PaintTools], debug, onError: () => undefined });

describe('tools/list', () => {
  it('lists every tool with its generated input schema', async () => {
    const client = await connect(paintServer());
    const { result } = await client.request('tools/list');
    expect(result.tools.map((t: { name: string }) => t.name)).toEqual(['paint', 'path', 'brokenPath', 'pixel', 'explode', 'refuse', 'full']);
    expect(result.tools[0]).toEqual({
      name: 'paint',
      title: 'Paint',
      description: 'Paint a thing',
      inputSchema: {
        type: 'object',
        properties: {
          thing: { type: 'string', description: 'What to paint' },
          color: { type: 'string', enum: ['red', 'blue'] },
          coats: { type: 'integer', minimum: 1, maximum: 3 },
        },
        required: ['thing', 'color'],
        additionalProperties: false,
      },
      annotations: { destructiveHint: false },
      icons: [{ src: 'https://example.com/p.png' }],
    });
    expect(result.tools[3].inputSchema).toEqual({ type: 'object', properties: {}, additionalProperties: false });
    expect(result.tools[1].outputSchema).toMatchObject({ type: 'object', required: ['name', 'points'] });
  });

  it('leaves out what older versions cannot carry', async () => {
    const old = await connect(paintServer(), '2024-11-05');
    const [paint, path] = (await old.request('tools/list')).result.tools;
    expect(Object.keys(paint)).toEqual(['name', 'description', 'inputSchema']);
    expect(path.outputSchema).toBeUndefined();
    const mid = await connect(paintServer(), '2025-03-26');
    expect(Object.keys((await mid.request('tools/list')).result.tools[0])).toEqual(['name', 'description', 'inputSchema', 'annotations']);
  });
});

describe('tools/call', () => {
  const call = (client: RawClient, name: string, args?: unknown) => client.request('tools/call', { name, arguments: args });

  it('validates, converts and calls', async () => {
    const client = await connect(paintServer());
    const { result } = await call(client, 'paint', { thing: 'fence', color: 'red', coats: 2 });
    expect(result).toEqual({ content: [{ type: 'text', text: 'fence is now red (2 coats)' }] });
  });

  it('answers invalid arguments with isError and readable messages', async () => {
    const client = await connect(paintServer());
    const { result } = await call(client, 'paint', { thing: 5, color: 'green', coats: 9, extra: true });
    expect(result.isError).toBe(true);
    const text: string = result.content[0].text;
    expect(text).toMatch(/^Invalid arguments for tool "paint":/);
    expect(text).toContain('thing');
    expect(text).toContain('color');
    expect(text).toContain('coats');
    expect(text).toContain('extra');
    const missing = (await call(client, 'paint', undefined)).result;
    expect(missing.isError).toBe(true);
    expect(missing.content[0].text).toContain('thing');
    const notObject = (await call(client, 'paint', [1])).result;
    expect(notObject).toEqual({ content: [{ type: 'text', text: 'Invalid arguments for tool "paint": "arguments" must be an object' }], isError: true });
  });

  it('answers an unknown tool with -32602', async () => {
    const client = await connect(paintServer());
    const response = await call(client, 'nope', {});
    expect(response.error).toEqual({ code: -32602, message: 'Unknown tool: nope', data: { name: 'nope' } });
    const noName = await client.request('tools/call', {});
    expect(noName.error).toMatchObject({ code: -32602, message: 'tools/call needs a string "name"' });
  });

  it('turns ToolError into isError', async () => {
    const client = await connect(paintServer());
    const { result } = await call(client, 'paint', { thing: 'sky', color: 'blue' });
    expect(result).toEqual({ content: [{ type: 'text', text: 'The sky cannot be painted' }], isError: true });
  });

  it('hides unexpected exceptions unless in debug mode', async () => {
    const quiet = await connect(paintServer());
    const hidden = (await call(quiet, 'explode')).result;
    expect(hidden).toEqual({ content: [{ type: 'text', text: 'Tool "explode" failed with an internal error' }], isError: true });
    const loud = await connect(paintServer(true));
    expect((await call(loud, 'explode')).result.content[0].text).toContain('secret database password');
  });

  it('sends a thrown McpError as a JSON-RPC error', async () => {
    const client = await connect(paintServer());
    expect((await call(client, 'refuse')).error).toEqual({ code: -32602, message: 'refused on purpose', data: { why: 'test' } });
  });

  it('returns structuredContent for an output DTO where the version allows it', async () => {
    const now = await connect(paintServer());
    expect((await call(now, 'path', { name: 'p' })).result).toEqual({
      content: [{ type: 'text', text: '{"name":"p","points":[{"x":1,"y":2}]}' }],
      structuredContent: { name: 'p', points: [{ x: 1, y: 2 }] },
    });
    const old = await connect(paintServer(), '2025-03-26');
    expect((await call(old, 'path', { name: 'p' })).result).toEqual({
      content: [{ type: 'text', text: '{"name":"p","points":[{"x":1,"y":2}]}' }],
    });
    const full = await connect(paintServer(), '2025-03-26');
    expect((await call(full, 'full')).result).toEqual({ content: [{ type: 'text', text: 'as is' }] });
  });

  it('refuses output that breaks the declared output schema', async () => {
    const client = await connect(paintServer());
    const { result } = await call(client, 'brokenPath');
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toContain('does not match its output schema');
  });

  it('sends bytes as an image by mimeType', async () => {
    const client = await connect(paintServer());
    expect((await call(client, 'pixel')).result).toEqual({
      content: [{ type: 'image', data: Buffer.from([137, 80, 78, 71]).toString('base64'), mimeType: 'image/png' }],
    });
  });

  it('passes full results through', async () => {
    const client = await connect(paintServer());
    expect((await call(client, 'full')).result).toEqual({ content: [{ type: 'text', text: 'as is' }], structuredContent: { a: 1 } });
  });
});

describe('run-time changes', () => {
  it('disables, enables and removes tools and tells initialized clients once per tick', async () => {
    const server = paintServer();
    const client = await connect(server);
    server.tools.disable('paint');
    server.tools.disable('pixel');
    const notice = await client.waitFor((m) => m.method === 'notifications/tools/list_changed');
    expect(notice).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    await client.settle();
    expect(client.received.filter((r) => r.message.method === 'notifications/tools/list_changed')).toHaveLength(1);
    expect(server.tools.names()).not.toContain('paint');
    expect((await client.request('tools/call', { name: 'paint', arguments: {} })).error?.code).toBe(-32602);
    server.tools.enable('paint');
    expect(server.tools.has('paint')).toBe(true);
    expect(server.tools.remove('paint')).toBe(true);
    expect(server.tools.has('paint')).toBe(false);
  });

  it('registers a provider at run time', async () => {
    class Later {
      @Tool() later(): string {
        return 'here';
      }
    }
    const server = paintServer();
    const client = await connect(server);
    server.register(Later);
    await client.waitFor((m) => m.method === 'notifications/tools/list_changed');
    expect((await client.request('tools/call', { name: 'later' })).result.content[0].text).toBe('here');
  });
});

describe('dependency injection', () => {
  it('injects constructor dependencies and builds a provider once', async () => {
    @injectable()
    class Counter {
      count = 0;
    }
    let built = 0;
    @injectable()
    class CountingTools {
      constructor(private readonly counter: Counter) {
        built++;
      }
      @Tool() bump(): string {
        return String(++this.counter.count);
      }
    }
    const container = rootContainer.createChildContainer();
    container.registerSingleton(Counter);
    const client = await connect(new McpServer({ name: 'di', version: '1', providers: [CountingTools], container }));
    await client.request('tools/call', { name: 'bump' });
    const second = await client.request('tools/call', { name: 'bump' });
    expect(second.result.content[0].text).toBe('2');
    expect(built).toBe(1);
  });

  it('builds a provider that takes the Context once per request', async () => {
    const seen: Context[] = [];
    @injectable()
    class PerRequest {
      constructor(private readonly ctx: Context) {
        seen.push(ctx);
      }
      @Tool() who(): string {
        return `${this.ctx.method} #${String(this.ctx.requestId)} for ${this.ctx.clientInfo?.name}`;
      }
    }
    const client = await connect(new McpServer({ name: 'di', version: '1', providers: [PerRequest] }));
    const first = await client.request('tools/call', { name: 'who' }, 'r1');
    await client.request('tools/call', { name: 'who' }, 'r2');
    expect(first.result.content[0].text).toBe('tools/call #r1 for raw-client');
    expect(seen).toHaveLength(2);
    expect(seen[0]).not.toBe(seen[1]);
    expect(seen[0].container.resolve(Context)).toBe(seen[0]);
  });

  it('passes the Context to a method that asks for it', async () => {
    class Introspect {
      @Tool() version(ctx: Context): string {
        return `${ctx.protocolVersion} ${ctx.session ? 'session' : 'none'} ${ctx.signal.aborted}`;
      }
      @Tool() both(input: PathInput, ctx: Context): string {
        return `${input.name}@${ctx.protocolVersion}`;
      }
    }
    const client = await connect(new McpServer({ name: 'ctx', version: '1', providers: [Introspect] }), '2025-06-18');
    expect((await client.request('tools/call', { name: 'version' })).result.content[0].text).toBe('2025-06-18 session false');
    expect((await client.request('tools/call', { name: 'both', arguments: { name: 'x' } })).result.content[0].text).toBe('x@2025-06-18');
  });
});

describe('cancellation', () => {
  it('aborts ctx.signal and sends no response', async () => {
    let observed: AbortSignal | undefined;
    class Waits {
      @Tool() async wait(ctx: Context): Promise<string> {
        observed = ctx.signal;
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
        return 'too late';
      }
    }
    const client = await connect(new McpServer({ name: 'c', version: '1', providers: [Waits] }));
    client.send({ jsonrpc: '2.0', id: 'w', method: 'tools/call', params: { name: 'wait' } });
    await client.settle();
    client.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'w', reason: 'user' } });
    await client.settle(50);
    expect(observed?.aborted).toBe(true);
    expect(client.received.some((r) => r.message.id === 'w')).toBe(false);
    expect((await client.request('ping')).result).toEqual({});
  });
});

describe('declaration errors', () => {
  it('names the class, method and fix when no decorator metadata exists', () => {
    class NoMetadata {
      run(_input: unknown): string {
        return '';
      }
    }
    Tool()(NoMetadata.prototype, 'run', Object.getOwnPropertyDescriptor(NoMetadata.prototype, 'run')!);
    const build = () => new McpServer({ name: 'x', version: '1', providers: [NoMetadata] });
    expect(build).toThrow(DefinitionError);
    expect(build).toThrow(/NoMetadata\.run: cannot tell the input type .*emitDecoratorMetadata.*@Tool\(\{ input: YourInputDto \}\)/);
  });

  it('accepts an explicit input when no metadata exists', async () => {
    class Explicit {
      run(input: PathInput): string {
        return input.name;
      }
    }
    Tool({ input: PathInput })(Explicit.prototype, 'run', Object.getOwnPropertyDescriptor(Explicit.prototype, 'run')!);
    const client = await connect(new McpServer({ name: 'x', version: '1', providers: [Explicit] }));
    expect((await client.request('tools/call', { name: 'run', arguments: { name: 'ok' } })).result.content[0].text).toBe('ok');
  });

  it('refuses an interface-typed input', () => {
    interface Shape {
      a: string;
    }
    class Iface {
      @Tool() run(input: Shape): string {
        return input.a;
      }
    }
    expect(() => new McpServer({ name: 'x', version: '1', providers: [Iface] })).toThrow(/Iface\.run: parameter 0 is typed as Object/);
  });

  it('refuses duplicate and malformed names', () => {
    class A {
      @Tool({ name: 'same' }) one(): string {
        return '';
      }
      @Tool({ name: 'same' }) two(): string {
        return '';
      }
    }
    expect(() => new McpServer({ name: 'x', version: '1', providers: [A] })).toThrow(/A\.two: a tool named "same" is already registered/);
    class B {
      @Tool({ name: 'has space' }) one(): string {
        return '';
      }
    }
    expect(() => new McpServer({ name: 'x', version: '1', providers: [B] })).toThrow(/B\.one: tool name "has space"/);
  });
});

describe('declaration edge cases', () => {
  it('checks an explicit input even when the method takes only the Context', async () => {
    class OnlyContext {
      @Tool({ input: PathInput }) run(ctx: Context): string {
        return `ctx ${ctx instanceof Context}`;
      }
    }
    const client = await connect(new McpServer({ name: 'x', version: '1', providers: [OnlyContext] }));
    expect((await client.request('tools/call', { name: 'run', arguments: { name: 'n' } })).result.content[0].text).toBe('ctx true');
    expect((await client.request('tools/call', { name: 'run', arguments: {} })).result.isError).toBe(true);
  });

  it('lets a subclass redeclare a tool it overrides', async () => {
    class Parent {
      @Tool({ description: 'parent' }) greet(): string {
        return 'parent';
      }
    }
    class Child extends Parent {
      @Tool({ description: 'child' }) override greet(): string {
        return 'child';
      }
    }
    const client = await connect(new McpServer({ name: 'x', version: '1', providers: [Child] }));
    const { result } = await client.request('tools/list');
    expect(result.tools).toEqual([expect.objectContaining({ name: 'greet', description: 'child' })]);
    expect((await client.request('tools/call', { name: 'greet' })).result.content[0].text).toBe('child');
  });

  it('refuses arguments to a tool that takes none', async () => {
    const client = await connect(paintServer());
    const { result } = await client.request('tools/call', { name: 'pixel', arguments: { size: 3 } });
    expect(result).toEqual({ content: [{ type: 'text', text: 'Invalid arguments for tool "pixel":\n- unknown property "size"' }], isError: true });
  });

  it.each([0, -1, 2.5, Number.NaN])('refuses pageSize %p at startup', (pageSize) => {
    expect(() => new McpServer({ name: 'x', version: '1', pageSize })).toThrow(/pageSize must be a positive integer or false/);
  });

  it('registers all of a class or nothing of it', () => {
    class Existing {
      @Tool() taken(): string {
        return '';
      }
    }
    class Clashing {
      @Tool() fresh(): string {
        return '';
      }
      @Tool() taken(): string {
        return '';
      }
    }
    const server = new McpServer({ name: 'x', version: '1', providers: [Existing] });
    expect(() => server.register(Clashing)).toThrow(/Clashing\.taken: a tool named "taken" is already registered/);
    expect(server.tools.names()).toEqual(['taken']);
  });

  it('tells a session of list changes only for lists it was told of', async () => {
    const server = new McpServer({ name: 'x', version: '1' });
    const client = await connect(server);
    class Late {
      @Tool() late(): string {
        return '';
      }
    }
    server.register(Late);
    server.log.warning('marker');
    await client.waitFor((m) => m.method === 'notifications/message');
    await client.settle();
    expect(client.received.some((r) => r.message.method === 'notifications/tools/list_changed')).toBe(false);
  });
});

describe('hand-written input schemas', () => {
  const schema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    $defs: { address: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
    properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
    required: ['name'],
    additionalProperties: false,
  };

  class Raw {
    @Tool({ inputSchema: schema }) save(input: Record<string, unknown>, ctx: Context): string {
      return `${JSON.stringify(input)} via ${ctx.method}`;
    }
  }

  it('lists the schema as written, checks arguments against it, and passes them as they came', async () => {
    const client = await connect(new McpServer({ name: 'raw', version: '1', providers: [Raw] }));
    const { result } = await client.request('tools/list');
    expect(result.tools[0].inputSchema).toEqual(schema);
    const ok = await client.request('tools/call', { name: 'save', arguments: { name: 'Ada', address: { city: 'London' } } });
    expect(ok.result.content[0].text).toBe('{"name":"Ada","address":{"city":"London"}} via tools/call');
    const bad = await client.request('tools/call', { name: 'save', arguments: { address: {} } });
    expect(bad.result.isError).toBe(true);
    expect(bad.result.content[0].text).toContain('name');
    expect(bad.result.content[0].text).toContain('city');
  });

  it('takes the whole 2020-12 vocabulary as written: composition, conditionals, anchors, annotation keywords', async () => {
    const contact = {
      type: 'object',
      $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { city: { type: 'string' } } } },
      properties: { method: { enum: ['phone', 'email'] }, phone: { type: 'string' }, email: { type: 'string' }, 'x-note': { type: 'string', 'x-ui': 'hidden' } },
      allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
      if: { properties: { method: { const: 'phone' } }, required: ['method'] },
      then: { required: ['phone'] },
      else: { required: ['email'] },
    };
    class Contact {
      @Tool({ inputSchema: contact }) reach(input: Record<string, unknown>): string {
        return `reached ${String(input.phone ?? input.email)}`;
      }
    }
    const client = await connect(new McpServer({ name: 'contact', version: '1', providers: [Contact] }));
    expect((await client.request('tools/list')).result.tools[0].inputSchema).toEqual(contact);
    const ok = await client.request('tools/call', { name: 'reach', arguments: { method: 'phone', phone: '123' } });
    expect(ok.result.content[0].text).toBe('reached 123');
    const wrong = await client.request('tools/call', { name: 'reach', arguments: { method: 'phone', email: 'a@b.c' } });
    expect(wrong.result.isError).toBe(true);
    expect(wrong.result.content[0].text).toContain('phone');
  });

  it('refuses a schema that does not compile, and input together with inputSchema', () => {
    class Broken {
      @Tool({ inputSchema: { type: 'object', properties: { a: { type: 'strnig' } } } }) run(): string {
        return '';
      }
    }
    expect(() => new McpServer({ name: 'x', version: '1', providers: [Broken] })).toThrow(/Broken\.run: inputSchema does not compile/);
    class Both {
      @Tool({ inputSchema: schema, input: PathInput }) run(): string {
        return '';
      }
    }
    expect(() => new McpServer({ name: 'x', version: '1', providers: [Both] })).toThrow(/either input .* or inputSchema/);
  });
});
