import 'reflect-metadata';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { AccessDeniedError, AuthenticationService, Context, DefinitionError, McpServer, metadataStore, Tool } from '@typemcp/core';
import type { FetchHandlerOptions, HttpStage, HttpStageRequest, Plugin } from '@typemcp/core';

type EndpointOptions = Omit<FetchHandlerOptions, 'principal'>;

/**
 * The seam of the HTTP handlers: plugins add named stages before or after the core's (the
 * authorization server's routes before `authenticate`, a rate limit after it, a document at a
 * well-known path), and both adapters run them.
 */
function declareProviders() {
  class Who {
    @Tool({ description: 'Says who called' })
    whoami(ctx: Context): string {
      return ctx.principal?.subject ?? 'nobody';
    }
  }
  return { Who };
}

let Who: ReturnType<typeof declareProviders>['Who'];
beforeEach(() => {
  metadataStore.clear();
  ({ Who } = declareProviders());
});

/** Bearer tokens are the subjects' names; no token is refused with 401. */
const bearerNames: Plugin = {
  name: 'bearer-names',
  register(host) {
    host.provide(AuthenticationService, {
      authenticate: (req) => {
        const token = /^Bearer (\w+)$/.exec(req.headers.get('authorization') ?? '')?.[1];
        return token === undefined ? undefined : { subject: token, scopes: [], claims: {} };
      },
      challenge: () => 'Bearer realm="test"',
    });
  },
};

/** A plugin of one stage. */
const stagePlugin = (name: string, ...stages: HttpStage[]): Plugin => ({
  name,
  register(host) {
    for (const stage of stages) host.httpStage(stage);
  },
});

const json = (status: number, body: unknown, headers: Record<string, string> = {}) => ({ status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

/** The authorization server's metadata, answered before authentication. */
const metadataStage: HttpStage = {
  name: 'authorization-server-metadata',
  before: 'authenticate',
  handle: (request) => (request.method === 'GET' && request.pathname === '/.well-known/oauth-authorization-server' ? json(200, { issuer: 'https://issuer.test' }) : undefined),
};

/** One request per subject; the next one is refused until reset. */
function oncePerSubject(seen: Array<string | undefined>): HttpStage {
  const served = new Set<string>();
  return {
    name: 'once-per-subject',
    after: 'authenticate',
    handle: (request) => {
      const subject = request.principal?.subject;
      seen.push(subject);
      if (subject === undefined || !served.has(subject)) {
        if (subject !== undefined) served.add(subject);
        return undefined;
      }
      return json(429, { jsonrpc: '2.0', error: { code: -32000, message: `Too many requests from ${subject}` } }, { 'retry-after': '7' });
    },
  };
}

const VERSION = '2026-07-28';
const whoamiBody = (id: number) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'whoami', arguments: {}, _meta: { 'io.modelcontextprotocol/protocolVersion': VERSION, 'io.modelcontextprotocol/clientCapabilities': {} } },
  });
const whoamiHeaders = (token?: string): Record<string, string> => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': VERSION,
  'mcp-method': 'tools/call',
  'mcp-name': 'whoami',
  ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
});

interface Served {
  /** Sends a request to the handler at this path. */
  send(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/** The two adapters: node:http on 127.0.0.1 with `server.httpHandler()`, and `server.fetchHandler()` called directly. */
const adapters: Array<[string, (server: McpServer, options?: EndpointOptions) => Promise<Served>]> = [
  [
    'httpHandler()',
    async (server, options) => {
      const handler = server.httpHandler(options);
      const listener = http.createServer((req, res) => void handler(req, res));
      await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
      const { port } = listener.address() as AddressInfo;
      return {
        send: (path, init) => fetch(`http://127.0.0.1:${port}${path}`, init),
        close: async () => {
          await server.close();
          listener.closeAllConnections();
          await new Promise((resolve) => listener.close(resolve));
        },
      };
    },
  ],
  [
    'fetchHandler()',
    async (server, options) => {
      const handler = server.fetchHandler(options);
      return { send: (path, init) => handler(new Request(`http://127.0.0.1${path}`, init)), close: () => server.close() };
    },
  ],
];

const answerOf = async (response: Response) => ((await response.json()) as { result: { content: Array<{ text: string }> } }).result.content[0].text;

describe.each(adapters)('HTTP stages of plugins, through %s', (_adapter, serve) => {
  let served: Served | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });

  it('answers a well-known path before authentication, which still guards everything else', async () => {
    const server = new McpServer({ name: 'staged', version: '1', providers: [Who] }).plugin(bearerNames).plugin(stagePlugin('metadata', metadataStage));
    served = await serve(server);

    const metadata = await served.send('/.well-known/oauth-authorization-server');
    expect(metadata.status).toBe(200);
    expect(await metadata.json()).toEqual({ issuer: 'https://issuer.test' });

    const anonymous = await served.send('/mcp', { method: 'POST', headers: whoamiHeaders(), body: whoamiBody(1) });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer realm="test"');

    const alice = await served.send('/mcp', { method: 'POST', headers: whoamiHeaders('alice'), body: whoamiBody(2) });
    expect(alice.status).toBe(200);
    expect(await answerOf(alice)).toBe('alice');
  });

  it('refuses with 429 and Retry-After after authentication, keyed on the principal', async () => {
    const seen: Array<string | undefined> = [];
    const server = new McpServer({ name: 'staged', version: '1', providers: [Who] }).plugin(bearerNames).plugin(stagePlugin('rate-limit', oncePerSubject(seen)));
    served = await serve(server);

    const first = await served.send('/mcp', { method: 'POST', headers: whoamiHeaders('alice'), body: whoamiBody(1) });
    expect(await answerOf(first)).toBe('alice');
    const second = await served.send('/mcp', { method: 'POST', headers: whoamiHeaders('alice'), body: whoamiBody(2) });
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBe('7');
    expect(await second.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'Too many requests from alice' } });
    const bob = await served.send('/mcp', { method: 'POST', headers: whoamiHeaders('bob'), body: whoamiBody(3) });
    expect(await answerOf(bob)).toBe('bob');
    // An anonymous request is refused by the authentication before the stage hears of it.
    expect((await served.send('/mcp', { method: 'POST', headers: whoamiHeaders(), body: whoamiBody(4) })).status).toBe(401);
    expect(seen).toEqual(['alice', 'alice', 'bob']);
  });

  it('runs stages in the order their places say, and serves the request with the principal a stage set', async () => {
    const order: string[] = [];
    const passing = (name: string, place: { before: string } | { after: string }): HttpStage => ({
      name,
      ...place,
      handle: (request) => {
        order.push(`${name}:${request.principal?.subject ?? '-'}`);
        return undefined;
      },
    });
    const server = new McpServer({ name: 'staged', version: '1', providers: [Who] })
      .plugin(bearerNames)
      .plugin(stagePlugin('first', passing('a', { before: 'authenticate' }), passing('b', { before: 'authenticate' }), passing('c', { after: 'authenticate' })))
      .plugin(
        stagePlugin(
          'second',
          passing('d', { after: 'authenticate' }),
          passing('before-a', { before: 'a' }),
          passing('after-c', { after: 'c' }),
          passing('card', { before: 'readiness' }),
          // Before a stage these options leave out (no legacy transport): it keeps its place.
          passing('legacy-gone', { before: 'legacy-sse' }),
          {
            name: 'promote',
            after: 'd',
            handle: (request: HttpStageRequest) => {
              order.push('promote');
              request.principal = { subject: `${request.principal!.subject}+admin`, scopes: [], claims: {} };
              return undefined;
            },
          },
        ),
      );
    served = await serve(server, { legacySse: false });
    const response = await served.send('/mcp', { method: 'POST', headers: whoamiHeaders('alice'), body: whoamiBody(1) });
    expect(await answerOf(response)).toBe('alice+admin');
    expect(order).toEqual(['card:-', 'before-a:-', 'a:-', 'b:-', 'c:alice', 'after-c:alice', 'd:alice', 'promote', 'legacy-gone:alice+admin']);
  });

  it('lets a stage read the body and the core read it after', async () => {
    const bodies: string[] = [];
    const server = new McpServer({ name: 'staged', version: '1', providers: [Who] }).plugin(
      stagePlugin('body-reader', {
        name: 'read-body',
        after: 'authenticate',
        handle: async (request) => {
          if (request.method === 'POST') bodies.push(await request.readBody());
          return undefined;
        },
      }),
    );
    served = await serve(server);
    const response = await served.send('/mcp', { method: 'POST', headers: whoamiHeaders(), body: whoamiBody(9) });
    expect(await answerOf(response)).toBe('nobody');
    expect(bodies).toEqual([whoamiBody(9)]);
  });

  it('answers what a stage throws as the core answers its own failures, naming the stage in the report', async () => {
    const reported: Array<[string, unknown]> = [];
    const server = new McpServer({ name: 'staged', version: '1', providers: [Who], onError: (what, error) => void reported.push([what, error]) })
      .plugin(bearerNames)
      .plugin(
        stagePlugin(
          'failing',
          {
            name: 'deny',
            after: 'authenticate',
            handle: (request) => {
              if (request.principal?.subject === 'mallory') throw new AccessDeniedError('forbidden', 'Forbidden: not you');
              return undefined;
            },
          },
          {
            name: 'broken',
            after: 'deny',
            handle: async (request) => {
              if (request.principal?.subject === 'bug') throw new Error('the stage broke');
              return request.principal?.subject === 'badreply' ? { status: 200, headers: { 'x-bad': 'a\nb' } } : undefined;
            },
          },
        ),
      );
    served = await serve(server);
    const denied = await served.send('/mcp', { method: 'POST', headers: whoamiHeaders('mallory'), body: whoamiBody(1) });
    expect(denied.status).toBe(403);
    expect(((await denied.json()) as { error: { message: string } }).error.message).toBe('Forbidden: not you');
    const broken = await served.send('/mcp', { method: 'POST', headers: whoamiHeaders('bug'), body: whoamiBody(2) });
    expect(broken.status).toBe(500);
    expect(await broken.json()).toEqual({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' } });
    const badReply = await served.send('/mcp', { method: 'POST', headers: whoamiHeaders('badreply'), body: whoamiBody(3) });
    expect(badReply.status).toBe(500);
    expect(reported.map(([what]) => what)).toEqual(['the HTTP stage "broken" failed', 'the HTTP stage "broken" answered what cannot be sent']);
  });
});

describe('host.httpStage', () => {
  const server = () => new McpServer({ name: 'staged', version: '1', providers: [Who] });
  const refusal = (...stages: HttpStage[]): DefinitionError => {
    try {
      server().plugin(stagePlugin('refused', ...stages));
    } catch (error) {
      return error as DefinitionError;
    }
    throw new Error('expected a DefinitionError');
  };
  const pass = () => undefined;

  it('refuses a place that names no stage, saying which stages there are', () => {
    const error = refusal({ name: 'limit', after: 'authentication', handle: pass });
    expect(error).toBeInstanceOf(DefinitionError);
    expect(error.code).toBe('INVALID_OPTION');
    expect(error.message).toBe(
      'plugin "refused": the HTTP stage "limit" is placed after "authentication", which is no stage. The core\'s stages, in order: readiness, available, documents, origin, path, authenticate, legacy-sse, get, delete, method, body, headers, alone, messages, stateless, initialize, session',
    );
    expect(refusal({ name: 'x', handle: pass }).message).toMatch(/the HTTP stage "x" needs one place: before or after a named stage/);
    expect(refusal({ name: 'x', before: 'origin', after: 'path', handle: pass }).code).toBe('INVALID_OPTION');
    expect(refusal({ name: 'x', after: 'session', handle: pass }).message).toMatch(/cannot run after "session"/);
  });

  it('refuses a name already taken, by the core or by a stage added before', () => {
    expect(refusal({ name: 'authenticate', before: 'origin', handle: pass }).code).toBe('DUPLICATE_NAME');
    const twice = refusal({ name: 'limit', after: 'authenticate', handle: pass }, { name: 'limit', after: 'origin', handle: pass });
    expect(twice.code).toBe('DUPLICATE_NAME');
    expect(twice.message).toBe('plugin "refused": an HTTP stage named "limit" is already added');
    const s = server().plugin(stagePlugin('one', { name: 'limit', after: 'authenticate', handle: pass }));
    expect(() => s.plugin(stagePlugin('two', { name: 'limit', after: 'origin', handle: pass }))).toThrow('an HTTP stage named "limit" is already added');
    // A stage of a plugin added before may be named as a place.
    expect(() => s.plugin(stagePlugin('three', { name: 'after-limit', after: 'limit', handle: pass }))).not.toThrow();
  });

  it('refuses what is not a stage with a TypeError, and a refused plugin adds none of its stages', async () => {
    expect(() => server().plugin(stagePlugin('bad', { name: '', before: 'origin', handle: pass }))).toThrow(TypeError);
    expect(() => server().plugin(stagePlugin('bad', { name: 'x', before: 'origin' } as unknown as HttpStage))).toThrow(TypeError);
    const s = server();
    const ran: string[] = [];
    expect(() =>
      s.plugin(
        stagePlugin('half', { name: 'kept-out', before: 'origin', handle: () => void ran.push('kept-out') }, { name: 'wrong', before: 'nowhere', handle: pass }),
      ),
    ).toThrow(DefinitionError);
    const handler = s.fetchHandler();
    await handler(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: whoamiHeaders(), body: whoamiBody(1) }));
    expect(ran).toEqual([]);
    await s.close();
  });

  it('reaches a handler made before the plugin was added', async () => {
    const s = server();
    const handler = s.fetchHandler();
    s.plugin(stagePlugin('late', { name: 'teapot', before: 'readiness', handle: () => ({ status: 418, body: 'late' }) }));
    const response = await handler(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: whoamiHeaders(), body: whoamiBody(1) }));
    expect(response.status).toBe(418);
    expect(await response.text()).toBe('late');
    await s.close();
  });
});
