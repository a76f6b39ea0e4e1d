import 'reflect-metadata';
import { inject, injectable } from 'tsyringe';
import { DefinitionError, McpServer, metadataStore, Tool } from '@typemcp/core';
import { createTestClient } from '@typemcp/testing';

@injectable()
class Clock {
  now(): string {
    return 'noon';
  }
}

beforeEach(() => metadataStore.clear());

/** Adds `@Tool() time()` to a class declared without decorators, so it has no decorator metadata (as esbuild compiles it). */
function withTimeTool<T extends new (clock: Clock) => { clock: Clock }>(provider: T): T {
  const time = function time(this: { clock: Clock }): string {
    return this.clock.now();
  };
  Object.defineProperty(provider.prototype, 'time', { value: time, writable: true, configurable: true });
  Tool({ description: 'The time' })(provider.prototype, 'time', Object.getOwnPropertyDescriptor(provider.prototype, 'time')!);
  return provider;
}

describe('providers whose constructor dependencies are unknown', () => {
  it('fail when the server is created, naming the class, the parameters and the fix', () => {
    const NoMetadata = withTimeTool(
      class NoMetadata {
        constructor(readonly clock: Clock) {}
      },
    );
    expect(Reflect.getMetadata('design:paramtypes', NoMetadata)).toBeUndefined();
    let error: DefinitionError | undefined;
    try {
      new McpServer({ name: 's', version: '1', providers: [NoMetadata] });
    } catch (caught) {
      error = caught as DefinitionError;
    }
    expect(error).toBeInstanceOf(DefinitionError);
    expect(error?.code).toBe('PROVIDER_DEPENDENCIES_UNKNOWN');
    expect(error?.message).toBe(
      'NoMetadata: constructor parameter(s) #0 cannot be injected: the compiler emitted no decorator metadata (esbuild, tsx and vitest do not). ' +
        'Compile with "emitDecoratorMetadata": true (tsc or swc), or name each dependency with @inject(Token) from tsyringe, e.g. constructor(@inject(NoteStore) store: NoteStore)',
    );
  });

  it('fail in server.register() too, leaving the server as it was', async () => {
    const Late = withTimeTool(
      class Late {
        constructor(readonly clock: Clock) {}
      },
    );
    const server = new McpServer({ name: 's', version: '1' });
    expect(() => server.register(Late)).toThrow(/^Late: constructor parameter\(s\) #0 cannot be injected/);
    const client = await createTestClient(server);
    expect(await client.listTools()).toEqual([]);
    await client.close();
    await server.close();
  });

  it('point at a circular import when the metadata holds undefined', () => {
    const Circular = withTimeTool(
      class Circular {
        constructor(readonly clock: Clock) {}
      },
    );
    Reflect.defineMetadata('design:paramtypes', [undefined], Circular);
    expect(() => new McpServer({ name: 's', version: '1', providers: [Circular] })).toThrow(/#0 cannot be injected: their types are undefined .*circular import/);
  });

  it('work when every parameter has an @inject token', async () => {
    const Tokens = withTimeTool(
      class Tokens {
        constructor(readonly clock: Clock) {}
      },
    );
    inject(Clock)(Tokens, undefined, 0);
    injectable()(Tokens);
    const client = await createTestClient([Tokens]);
    expect((await client.callTool('time')).content).toEqual([{ type: 'text', text: 'noon' }]);
    await client.close();
  });

  it('say what to do when tsyringe has no type information at the first call', async () => {
    // Metadata is there, but no @injectable(): tsyringe refuses to build it.
    const NotInjectable = withTimeTool(
      class NotInjectable {
        constructor(readonly clock: Clock) {}
      },
    );
    Reflect.defineMetadata('design:paramtypes', [Clock], NotInjectable);
    const client = await createTestClient([NotInjectable], { requestTimeoutMs: 5000 });
    const result = await client.callTool('time');
    await client.close();
    const text = JSON.stringify(result);
    // Unexpected errors do not leak details to the model unless the server is in debug mode.
    expect(result.isError).toBe(true);
    const server = new McpServer({ name: 's', version: '1', providers: [NotInjectable], debug: true });
    const debugClient = await createTestClient(server);
    const debugText = JSON.stringify(await debugClient.callTool('time'));
    await debugClient.close();
    await server.close();
    expect(text).not.toContain('TypeInfo');
    expect(debugText).toContain('NotInjectable cannot be built: tsyringe has no type information for it. Decorate it with @injectable()');
    expect(debugText).toContain('npm ls tsyringe');
  });
});
