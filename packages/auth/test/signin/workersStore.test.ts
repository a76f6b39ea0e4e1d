import { DefinitionError, McpServer } from '@typemcp/core';
import { MemorySignInStore, signIn } from '@typemcp/auth';

/**
 * On Workers the default store (this isolate's memory) would lose sign-ins between isolates,
 * so signIn refuses to start without one. Workers is told by `navigator.userAgent`, as core
 * tells it; workerd itself is covered by examples/09-signin/test/runtimes.test.ts.
 */
describe('signIn on Cloudflare Workers', () => {
  const options = { resource: 'https://notes.example.workers.dev/mcp', secret: 'a test secret of at least thirty-two characters', authenticate: () => ({ id: 'alice' }) };
  const start = (store?: MemorySignInStore) => new McpServer({ name: 'notes', version: '1.0.0', requestState: { secret: options.secret } }).plugin(signIn, { ...options, store });
  const navigator = Object.getOwnPropertyDescriptor(globalThis, 'navigator');

  beforeEach(() => Object.defineProperty(globalThis, 'navigator', { value: { userAgent: 'Cloudflare-Workers' }, configurable: true, writable: true }));
  afterEach(() => {
    if (navigator === undefined) delete (globalThis as { navigator?: unknown }).navigator;
    else Object.defineProperty(globalThis, 'navigator', navigator);
  });

  it('refuses to start without a store, saying why and where to read', () => {
    let refusal: unknown;
    try {
      start();
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(DefinitionError);
    expect(refusal).toMatchObject({ code: 'INVALID_OPTION' });
    expect((refusal as Error).message).toBe(
      'signIn: store is required on Cloudflare Workers: the default keeps clients, sign-ins, codes, grants and keys in memory, and each Worker isolate has its own, so a sign-in begun in one isolate is unknown to the next. Pass a store shared by every isolate, such as one kept by a Durable Object (docs/guides/signin.md, "Runtimes")',
    );
  });

  it('starts with a store the author gives', () => {
    expect(() => start(new MemorySignInStore())).not.toThrow();
  });

  it('starts without one elsewhere', () => {
    Object.defineProperty(globalThis, 'navigator', { value: { userAgent: 'Node.js/22' }, configurable: true, writable: true });
    expect(() => start()).not.toThrow();
  });
});
