import { DefinitionError } from '../../../src/errors';
import type { Context } from '../../../src/runtime/Context';
import { Dispatcher } from '../../../src/runtime/Dispatcher';
import type { RequestScope } from '../../../src/session';

const context = { method: 'x' } as unknown as Context;
const scope = { protocolVersion: '2025-11-25' } as unknown as RequestScope;

describe('Dispatcher', () => {
  it('routes a method to its handler and knows nothing of other methods', () => {
    const dispatcher = new Dispatcher();
    const handler = () => ({ ok: true });
    dispatcher.route('a/b', handler);
    dispatcher.route('a/d', handler, ['modern']);
    expect(dispatcher.routeOf('a/b')).toEqual({ handler });
    expect(dispatcher.routeOf('a/d')).toEqual({ handler, eras: ['modern'] });
    expect(dispatcher.routeOf('a/c')).toBeUndefined();
    expect(dispatcher.routeOf('toString')).toBeUndefined();
  });

  it('refuses a second handler for a method and the lifecycle methods', () => {
    const dispatcher = new Dispatcher();
    dispatcher.route('a/b', () => ({}));
    expect(() => dispatcher.route('a/b', () => ({}))).toThrow(new DefinitionError('DUPLICATE_NAME', 'Dispatcher: the method "a/b" already has a handler'));
    for (const method of ['initialize', 'notifications/initialized', 'notifications/cancelled']) {
      expect(dispatcher.refusal(method, 'request')?.code).toBe('INVALID_OPTION');
      expect(dispatcher.refusal(method, 'notification')?.code).toBe('INVALID_OPTION');
    }
    // Requests and notifications have separate tables.
    expect(dispatcher.refusal('a/b', 'notification')).toBeUndefined();
  });

  it('calls the handler directly without middleware: a synchronous answer stays synchronous', () => {
    const dispatcher = new Dispatcher();
    const answer = { value: 1 };
    const handler = jest.fn(() => answer);
    expect(dispatcher.dispatch(handler, 'a/b', { p: 1 }, context)).toBe(answer);
    expect(handler).toHaveBeenCalledWith({ p: 1 }, context);
  });

  it('runs the middleware around the handler once there is some, in the order added', async () => {
    const dispatcher = new Dispatcher();
    const seen: string[] = [];
    dispatcher.use([
      async (ctx, next) => {
        seen.push(`first ${ctx.method} ${JSON.stringify(ctx.params)}`);
        return { wrapped: await next() };
      },
    ]);
    dispatcher.use([(ctx, next) => (seen.push(`second ${ctx.context === context}`), next())]);
    const result = dispatcher.dispatch(() => (seen.push('handler'), { value: 1 }), 'a/b', { p: 1 }, context);
    expect(result).toBeInstanceOf(Promise);
    expect(await result).toEqual({ wrapped: { value: 1 } });
    expect(seen).toEqual(['first a/b {"p":1}', 'second true', 'handler']);
    expect(() => dispatcher.use([42 as never])).toThrow(TypeError);
  });

  it('runs notification handlers with the scope, reporting what they throw or reject with', async () => {
    const dispatcher = new Dispatcher();
    const heard: unknown[] = [];
    const reported: Array<[string, unknown]> = [];
    const report = (what: string, error: unknown) => reported.push([what, (error as Error).message]);
    dispatcher.onNotification('n/ok', (params, s) => void heard.push([params, s]));
    dispatcher.onNotification('n/throws', () => {
      throw new Error('sync');
    });
    dispatcher.onNotification('n/rejects', () => Promise.reject(new Error('async')));
    expect(() => dispatcher.onNotification('n/ok', () => undefined)).toThrow('Dispatcher: the notification "n/ok" already has a handler');
    dispatcher.notify('n/ok', { a: 1 }, scope, report);
    dispatcher.notify('n/throws', {}, scope, report);
    dispatcher.notify('n/rejects', {}, scope, report);
    dispatcher.notify('n/unknown', {}, scope, report);
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toEqual([[{ a: 1 }, scope]]);
    expect(reported).toEqual([
      ['notification "n/throws" failed', 'sync'],
      ['notification "n/rejects" failed', 'async'],
    ]);
  });
});
