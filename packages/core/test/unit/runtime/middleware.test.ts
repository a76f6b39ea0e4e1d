import { compose } from '../../../src/runtime/middleware';
import type { Middleware, MiddlewareContext } from '../../../src/runtime/middleware';

const ctx = { method: 'tools/call', params: {} } as unknown as MiddlewareContext;

describe('compose', () => {
  it('runs middleware onion-style around the terminal step', async () => {
    const seen: string[] = [];
    const tag =
      (name: string): Middleware =>
      async (_ctx, next) => {
        seen.push(`${name} in`);
        const result = await next();
        seen.push(`${name} out`);
        return result;
      };
    const result = await compose([tag('a'), tag('b')])(ctx, () => {
      seen.push('terminal');
      return 'done';
    });
    expect(result).toBe('done');
    expect(seen).toEqual(['a in', 'b in', 'terminal', 'b out', 'a out']);
  });

  it('lets a middleware answer without calling next', async () => {
    const terminal = jest.fn();
    expect(await compose([() => 'cached', () => 'never'])(ctx, terminal)).toBe('cached');
    expect(terminal).not.toHaveBeenCalled();
  });

  it('lets a middleware transform the result, synchronously or not', async () => {
    const chain = compose([async (_c, next) => `${await next()}!`, (_c, next) => next().then((v) => String(v).toUpperCase())]);
    expect(await chain(ctx, () => 'hi')).toBe('HI!');
  });

  it('passes errors thrown before and after next to the caller', async () => {
    await expect(compose([() => { throw new Error('before'); }])(ctx, () => 'x')).rejects.toThrow('before');
    await expect(compose([async (_c, next) => { await next(); throw new Error('after'); }])(ctx, () => 'x')).rejects.toThrow('after');
    await expect(compose([(_c, next) => next()])(ctx, () => { throw new Error('terminal'); })).rejects.toThrow('terminal');
  });

  it('lets a middleware catch what the rest of the chain threw', async () => {
    const chain = compose([async (_c, next) => next().catch((error: Error) => `recovered from ${error.message}`)]);
    expect(await chain(ctx, () => Promise.reject(new Error('boom')))).toBe('recovered from boom');
  });

  it('refuses next() called twice, naming the middleware', async () => {
    const twice: Middleware = async function retryOnce(_c, next) {
      await next();
      return next();
    };
    const terminal = jest.fn(() => 'ok');
    await expect(compose([twice])(ctx, terminal)).rejects.toThrow('next() was called twice by middleware #1 (retryOnce) for tools/call');
    expect(terminal).toHaveBeenCalledTimes(1);
  });

  it('gives each run its own next() budget', async () => {
    const chain = compose([(_c, next) => next()]);
    expect(await chain(ctx, () => 1)).toBe(1);
    expect(await chain(ctx, () => 2)).toBe(2);
  });
});
