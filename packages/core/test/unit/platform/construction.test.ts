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
