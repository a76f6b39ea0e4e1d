import 'reflect-metadata';
import type { Context } from '../../../src/runtime/Context';
import { Dispatcher } from '../../../src/runtime/Dispatcher';
import type { Interceptor, Middleware } from '../../../src/runtime/middleware';
import { McpServer, Tool } from '@typemcp/core';
import { createTestClient } from '@typemcp/testing';

const context = { method: 'x' } as unknown as Context;

/** Interceptors: the plugins' middleware whose `next()` answers as the handler does, so hot paths stay synchronous. */
describe('interceptors', () => {
  it('keep a synchronous answer synchronous, and see the request', () => {
    const dispatcher = new Dispatcher();
    const seen: string[] = [];
    const interceptor: Interceptor = (ctx, next) => {
      seen.push(`${ctx.method} ${JSON.stringify(ctx.params)}`);
      return next();
    };
    dispatcher.use([], [interceptor]);
    const answer = { value: 1 };
    expect(dispatcher.dispatch(() => answer, 'a/b', { p: 1 }, context)).toBe(answer);
    expect(seen).toEqual(['a/b {"p":1}']);
  });

  it('run outside every middleware, in the order added, and pass a promise through as it is', async () => {
    const dispatcher = new Dispatcher();
    const order: string[] = [];
    const middleware: Middleware = async (_ctx, next) => {
      order.push('middleware');
      return next();
    };
    const first: Interceptor = (_ctx, next) => {
      order.push('first');
      const result = next();
      expect(result).toBeInstanceOf(Promise);
      return result;
    };
    const second: Interceptor = (_ctx, next) => {
      order.push('second');
      return next();
    };
    dispatcher.use([middleware], [first]);
    dispatcher.use([], [second]);
    await expect(dispatcher.dispatch(() => ({ ok: true }), 'a/b', {}, context)).resolves.toEqual({ ok: true });
    expect(order).toEqual(['first', 'second', 'middleware']);
  });

  it('may answer instead of the handler, and throw synchronously', () => {
    const dispatcher = new Dispatcher();
    const handler = jest.fn(() => ({ from: 'handler' }));
    dispatcher.use([], [(ctx, next) => (ctx.params.short ? { from: 'interceptor' } : next())]);
    expect(dispatcher.dispatch(handler, 'a/b', { short: true }, context)).toEqual({ from: 'interceptor' });
    expect(handler).not.toHaveBeenCalled();

    const refusing = new Dispatcher();
    refusing.use([], [() => { throw new Error('refused'); }]);
    expect(() => refusing.dispatch(handler, 'a/b', {}, context)).toThrow('refused');
  });

  it('refuse a second next() from one interceptor, naming it', () => {
    const dispatcher = new Dispatcher();
    dispatcher.use([], [function twice(_ctx, next) { next(); return next(); }]);
    expect(() => dispatcher.dispatch(() => ({}), 'a/b', {}, context)).toThrow('next() was called twice by interceptor #1 (twice) for a/b');
  });

  it('are added by plugins with host.intercept, which refuses what is not a function', async () => {
    class Echo {
      @Tool('Echoes')
      echo(): string {
        return 'echo';
      }
    }
    const calls: string[] = [];
    const server = new McpServer({ name: 's', version: '1', providers: [Echo] });
    expect(() => server.plugin({ name: 'bad', register: (host) => host.intercept(42 as never) })).toThrow('plugin "bad": interceptor #0 is not a function');
    server.plugin({ name: 'counting', register: (host) => host.intercept((ctx, next) => (calls.push(ctx.method), next())) });
    const client = await createTestClient(server);
    expect(await client.callTool('echo')).toMatchObject({ content: [{ type: 'text', text: 'echo' }] });
    expect(calls).toContain('tools/call');
    await client.close();
    await server.close();
  });
});
