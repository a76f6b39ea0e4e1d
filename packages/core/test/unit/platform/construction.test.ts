/**
 * What Cloudflare Workers forbid in the global scope (random values, timers, I/O) a server's
 * construction does not do, so a Worker may build it wherever it likes; and on Workers a
 * server without a requestState secret is refused at once, with the fix.
 */
import 'reflect-metadata';
import { IsString } from 'class-validator';
import { cluster, InMemoryBroadcaster, InMemoryEventStore, InMemorySessionStore, McpServer, Prompt, Resource, Tool } from '../../../src';

class EchoInput {
  @IsString() text!: string;
}

class Everything {
  @Tool({ description: 'Echo' })
  echo(input: EchoInput): string {
    return input.text;
  }

  @Tool({ description: 'Slow', task: 'optional' })
  async slow(): Promise<string> {
    return 'done';
  }

  @Resource({ uri: 'notes://{id}', name: 'note' })
  note(variables: { id: string }): string {
    return variables.id;
  }

  @Prompt({ name: 'greet', description: 'Greets' })
  greet(): string {
    return 'hi';
  }
}

/**
 * What importing the Workers entry (`index.web`, the `workerd` condition `typemcp build
 * --target workers` bundles) does at module scope, seen from the first import: a fresh module
 * registry (jest.isolateModules) loads every module it reaches again, under the spies. Each
 * call is recorded with the source line that made it, and the import goes on, so every
 * offender is named at once.
 */
function importedAtModuleScope(load: () => void): string[] {
  const made: string[] = [];
  const record = (what: string): void => {
    const caller = new Error().stack!.split('\n').slice(2).find((line) => /[\\/]src[\\/]|node_modules/.test(line) && !line.includes('construction.test'));
    made.push(`${what} at ${caller?.trim().replace(/^at /, '') ?? 'an unknown place'}`);
  };
  const OriginalAbortController = globalThis.AbortController;
  const OriginalAbortSignal = globalThis.AbortSignal;
  class RecordedAbortController extends OriginalAbortController {
    constructor() {
      super();
      record('new AbortController()');
    }
  }
  const spies = [
    jest.spyOn(OriginalAbortSignal, 'timeout').mockImplementation(() => (record('AbortSignal.timeout'), new OriginalAbortController().signal)),
    jest.spyOn(OriginalAbortSignal, 'any').mockImplementation(() => (record('AbortSignal.any'), new OriginalAbortController().signal)),
    jest.spyOn(globalThis.crypto, 'getRandomValues').mockImplementation((array) => (record('crypto.getRandomValues'), array)),
    jest.spyOn(globalThis.crypto, 'randomUUID').mockImplementation(() => (record('crypto.randomUUID'), '00000000-0000-4000-8000-000000000000')),
    jest.spyOn(Math, 'random').mockImplementation(() => (record('Math.random'), 0.5)),
    jest.spyOn(globalThis, 'setTimeout').mockImplementation((() => (record('setTimeout'), { unref() {}, ref() {} })) as never),
    jest.spyOn(globalThis, 'setInterval').mockImplementation((() => (record('setInterval'), { unref() {}, ref() {} })) as never),
    jest.spyOn(globalThis, 'fetch').mockImplementation(() => (record('fetch'), Promise.reject(new Error('I/O')))),
  ];
  globalThis.AbortController = RecordedAbortController;
  globalThis.AbortSignal = new Proxy(OriginalAbortSignal, {
    construct(target, args, newTarget) {
      record('new AbortSignal()');
      return Reflect.construct(target, args, newTarget) as object;
    },
  });
  try {
    jest.isolateModules(load);
  } finally {
    globalThis.AbortController = OriginalAbortController;
    globalThis.AbortSignal = OriginalAbortSignal;
    for (const spy of spies) spy.mockRestore();
  }
  return made;
}

describe('importing the Workers entry (Cloudflare Workers forbid these in the global scope)', () => {
  it('sees what it records: an AbortController, abort signals, timers, random values and fetch made at import', () => {
    const made = importedAtModuleScope(() => {
      new AbortController();
      AbortSignal.timeout(1);
      AbortSignal.any([]);
      expect(() => Reflect.construct(AbortSignal, [])).toThrow();
      crypto.getRandomValues(new Uint8Array(1));
      crypto.randomUUID();
      Math.random();
      setTimeout(() => undefined, 1);
      setInterval(() => undefined, 1);
      void fetch('https://example.com').catch(() => undefined);
    });
    expect(made.map((call) => call.replace(/ at .*/, ''))).toEqual([
      'new AbortController()',
      'AbortSignal.timeout',
      'AbortSignal.any',
      'new AbortSignal()',
      'crypto.getRandomValues',
      'crypto.randomUUID',
      'Math.random',
      'setTimeout',
      'setInterval',
      'fetch',
    ]);
  });

  it('creates no AbortController or abort signal, starts no timer, makes no random value and does no fetch', () => {
    let exports: Record<string, unknown> = {};
    const made = importedAtModuleScope(() => {
      exports = require('../../../src/index.web') as Record<string, unknown>;
    });
    expect(made).toEqual([]);
    // The registry really loaded the entry, from the first module on.
    expect(typeof exports.McpServer).toBe('function');
  });
});

describe('constructing a server', () => {
  it('makes no random values, starts no timer and does no I/O, with tools, tasks, templates, prompts and a cluster', () => {
    const forbidden: string[] = [];
    const spies = [
      jest.spyOn(globalThis.crypto, 'getRandomValues').mockImplementation(() => {
        forbidden.push('crypto.getRandomValues');
        throw new Error('random values');
      }),
      jest.spyOn(globalThis.crypto, 'randomUUID').mockImplementation(() => {
        forbidden.push('crypto.randomUUID');
        throw new Error('random values');
      }),
      jest.spyOn(Math, 'random').mockImplementation(() => {
        forbidden.push('Math.random');
        return 0.5;
      }),
      jest.spyOn(globalThis, 'setTimeout').mockImplementation((() => {
        forbidden.push('setTimeout');
        throw new Error('timer');
      }) as never),
      jest.spyOn(globalThis, 'setInterval').mockImplementation((() => {
        forbidden.push('setInterval');
        throw new Error('timer');
      }) as never),
      jest.spyOn(globalThis, 'fetch').mockImplementation(() => {
        forbidden.push('fetch');
        throw new Error('I/O');
      }),
    ];
    try {
      const server = new McpServer({ name: 'constructed', version: '1.0.0', providers: [Everything], requestState: { secret: 'the same on every replica' } });
      server.plugin(cluster, { sessions: new InMemorySessionStore(), events: new InMemoryEventStore(), broadcaster: new InMemoryBroadcaster() });
      expect(server.tools.names()).toEqual(['echo', 'slow']);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(forbidden).toEqual([]);
  });
});

describe('on Cloudflare Workers', () => {
  const navigator = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
  beforeEach(() => Object.defineProperty(globalThis, 'navigator', { value: { userAgent: 'Cloudflare-Workers' }, configurable: true }));
  afterEach(() => {
    if (navigator) Object.defineProperty(globalThis, 'navigator', navigator);
    else delete (globalThis as { navigator?: unknown }).navigator;
  });

  it("refuses a server without requestState.secret, naming the Worker's env and wrangler secret put", () => {
    expect(() => new McpServer({ name: 'worker', version: '1.0.0', providers: [Everything] })).toThrow(
      "McpServer: on Cloudflare Workers give requestState.secret from the Worker's env, the same for every isolate: new McpServer({ ..., requestState: { secret: env.MCP_REQUEST_STATE_SECRET } }), set with `npx wrangler secret put MCP_REQUEST_STATE_SECRET` (.dev.vars locally)",
    );
  });

  it('builds a server given one', () => {
    expect(new McpServer({ name: 'worker', version: '1.0.0', providers: [Everything], requestState: { secret: 'a secret of sixteen or more' } }).tools.names()).toEqual(['echo', 'slow']);
  });
});
