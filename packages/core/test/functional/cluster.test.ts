import 'reflect-metadata';
import { IsString } from 'class-validator';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { cluster, ClusterService, Context, DefinitionError, InMemoryBroadcaster, InMemoryEventStore, InMemorySessionStore, McpServer, Resource, Tool } from '@typemcp/core';
import type { ClusterOptions } from '@typemcp/core';
import { expectValidServerMessages } from '../../../../test-support/specSchema';
import { RecordingTransport } from '../../../../test-support/recordingTransport';
import { roundRobinFetch } from '../../../../test-support/roundRobinFetch';

class TextInput {
  @IsString() text!: string;
}

class ClusterTools {
  @Tool({ description: 'Echo, with the replica that answered' })
  echo(input: TextInput, ctx: Context): string {
    return `${input.text} from ${ctx.container.resolve<{ name: string }>('replica').name}`;
  }

  @Tool({ description: 'Logs at debug, then answers' })
  chatty(ctx: Context): string {
    ctx.log.debug('a debug line');
    return 'logged';
  }

  @Tool({ description: 'Asks the client model' })
  async ask(input: TextInput, ctx: Context): Promise<string> {
    const answer = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: input.text } }], maxTokens: 10 });
    const block = Array.isArray(answer.content) ? answer.content[0] : answer.content;
    return block.type === 'text' ? `model said: ${block.text}` : 'no text';
  }

  @Tool({ description: 'Waits until cancelled' })
  async wait(ctx: Context): Promise<string> {
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    cancelled.push(ctx.container.resolve<{ name: string }>('replica').name);
    return 'cancelled';
  }

  @Tool({ description: 'Elicits a name' })
  async name(ctx: Context): Promise<string> {
    const answer = await ctx.elicit('Name?', { requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    return answer.action === 'accept' ? `hello ${String(answer.content?.name)}` : answer.action;
  }

  @Resource({ uri: 'cluster://status', mimeType: 'application/json' })
  status() {
    return { ok: true };
  }
}
const cancelled: string[] = [];

const SECRET = 'cluster-test-secret-0123456789';

interface Replica {
  name: string;
  server: McpServer;
  url: URL;
}

let replicas: Replica[] = [];
let shared: ClusterOptions;

async function startReplicas(count: number, options: { principal?: (req: import('node:http').IncomingMessage) => string | undefined } = {}): Promise<Replica[]> {
  shared = { sessions: new InMemorySessionStore(), events: new InMemoryEventStore(), broadcaster: new InMemoryBroadcaster() };
  for (let i = 0; i < count; i++) {
    const name = `r${i}`;
    const { container } = await import('tsyringe');
    const child = container.createChildContainer();
    child.register('replica', { useValue: { name } });
    const server = new McpServer({ name: 'cluster', version: '1', providers: [ClusterTools], container: child, requestState: { secret: SECRET } });
    server.plugin(cluster, { ...shared, replicaId: name });
    const address = await server.listen({ transport: 'http', port: 0, handleSignals: false, principal: options.principal });
    replicas.push({ name, server, url: new URL(address.url) });
  }
  return replicas;
}

afterEach(async () => {
  await Promise.all(replicas.splice(0).map((r) => r.server.close()));
  cancelled.length = 0;
});

async function sdkClient(targets: Replica[], log?: string[], capabilities: Record<string, unknown> = { sampling: {} }) {
  const transport = new StreamableHTTPClientTransport(targets[0].url, {
    fetch: roundRobinFetch(targets, log),
    reconnectionOptions: { initialReconnectionDelay: 20, maxReconnectionDelay: 100, reconnectionDelayGrowFactor: 1.5, maxRetries: 5 },
  });
  const recorder = new RecordingTransport(transport);
  const client = new Client({ name: 'cluster-client', version: '1' }, { capabilities });
  await client.connect(recorder);
  return { client, recorder };
}

const textOf = (result: object) => (result as { content: Array<{ text: string }> }).content[0].text;
const until = async (check: () => boolean, what: string) => {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe('a cluster of replicas sharing in-memory stores, behind a round-robin balancer', () => {
  it('serves one handshake session from every replica: state, log level and subscriptions follow it', async () => {
    await startReplicas(3);
    const log: string[] = [];
    const { client, recorder } = await sdkClient(replicas, log);
    try {
      const answers = [];
      for (let i = 0; i < 6; i++) answers.push(textOf(await client.callTool({ name: 'echo', arguments: { text: `#${i}` } })));
      // Every replica served some of them.
      expect(new Set(answers.map((a) => a.split(' from ')[1]))).toEqual(new Set(['r0', 'r1', 'r2']));

      const logs: string[] = [];
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(String(n.params.data)));
      await client.callTool({ name: 'chatty' });
      expect(logs).toEqual([]); // info by default
      await client.setLoggingLevel('debug');
      for (let i = 0; i < 3; i++) await client.callTool({ name: 'chatty' }); // one on each replica
      expect(logs).toEqual(['a debug line', 'a debug line', 'a debug line']);
      expect(new Set(log.filter((l) => l.startsWith('POST')).map((l) => l.split(' ')[1]))).toEqual(new Set(['r0', 'r1', 'r2']));
    } finally {
      await client.close();
    }
    expectValidServerMessages('2025-11-25', recorder.received);
  });

  it('answers a server-to-client request through another replica than the one that asked', async () => {
    await startReplicas(3);
    const log: string[] = [];
    const { client, recorder } = await sdkClient(replicas, log);
    try {
      let asked = 0;
      client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
        asked++;
        return { role: 'assistant', model: 'm', content: { type: 'text', text: `echo of ${(request.params.messages[0].content as { text: string }).text}` } };
      });
      for (let i = 0; i < 3; i++) {
        expect(textOf(await client.callTool({ name: 'ask', arguments: { text: `q${i}` } }))).toBe(`model said: echo of q${i}`);
      }
      expect(asked).toBe(3);
      // The request ids name the replica that asked; the answers were posted elsewhere.
      const requests = recorder.received.filter((r) => 'method' in r.message && r.message.method === 'sampling/createMessage');
      expect(requests.map((r) => (r.message as { id: string }).id)).toEqual(expect.arrayContaining([expect.stringMatching(/^r\d:\d+$/)]));
    } finally {
      await client.close();
    }
    expectValidServerMessages('2025-11-25', recorder.received);
  });

  it('delivers changes made on any replica on the session stream held by another', async () => {
    await startReplicas(3);
    const { client } = await sdkClient(replicas);
    try {
      const updates: string[] = [];
      const listChanges: number[] = [];
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => void listChanges.push(Date.now()));
      await client.subscribeResource({ uri: 'cluster://status' });
      await until(() => replicas.some((r) => r.server.runtime.cluster !== undefined), 'cluster');
      await new Promise((resolve) => setTimeout(resolve, 100)); // the SDK opens its GET stream after initialized
      for (const replica of replicas) replica.server.resources.notifyUpdated('cluster://status');
      await until(() => updates.length === 3, 'three updates');
      replicas[2].server.tools.disable('chatty');
      await until(() => listChanges.length === 1, 'list_changed');
      await client.unsubscribeResource({ uri: 'cluster://status' });
      replicas[1].server.resources.notifyUpdated('cluster://status');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(updates).toHaveLength(3);
    } finally {
      await client.close();
    }
  });

  it('cancels, from any replica, a request running on another', async () => {
    await startReplicas(2);
    const { client } = await sdkClient(replicas);
    try {
      const controller = new AbortController();
      const call = client.callTool({ name: 'wait' }, undefined, { signal: controller.signal });
      await new Promise((resolve) => setTimeout(resolve, 50));
      controller.abort('enough');
      await expect(call).rejects.toThrow();
      await until(() => cancelled.length === 1, 'the handler to see the cancellation');
    } finally {
      await client.close();
    }
  });

  it('resumes the session stream on another replica with Last-Event-ID, and ends the session everywhere on DELETE', async () => {
    await startReplicas(2);
    const [a, b] = replicas;
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await fetch(a.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
    });
    const sessionId = init.headers.get('mcp-session-id')!;
    const withSession = { ...headers, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
    expect((await fetch(b.url, { method: 'POST', headers: withSession, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).status).toBe(202);

    const controller = new AbortController();
    const stream = await fetch(a.url, { headers: { ...withSession, accept: 'text/event-stream' }, signal: controller.signal });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    let text = '';
    b.server.tools.disable('chatty');
    while (!text.includes('list_changed')) text += Buffer.from((await reader.read()).value!).toString();
    const eventId = /id: (\S+)/.exec(text)![1];
    controller.abort();
    await new Promise((resolve) => setTimeout(resolve, 20));
    // While no replica holds the stream, a change happens; the client comes back through the other replica.
    a.server.tools.disable('echo');
    await new Promise((resolve) => setTimeout(resolve, 20));
    const resumed = await fetch(b.url, { headers: { ...withSession, accept: 'text/event-stream', 'last-event-id': eventId } });
    expect(resumed.status).toBe(200);
    const resumedReader = resumed.body!.getReader();
    let replay = '';
    while (!replay.includes('list_changed')) replay += Buffer.from((await resumedReader.read()).value!).toString();
    expect(replay).toContain('notifications/tools/list_changed');
    // The stream goes on live from its new replica.
    a.server.tools.enable('echo');
    while ((replay.match(/list_changed/g) ?? []).length < 2) replay += Buffer.from((await resumedReader.read()).value!).toString();

    expect((await fetch(a.url, { method: 'DELETE', headers: withSession })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const after = await fetch(b.url, { method: 'POST', headers: withSession, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
    expect(after.status).toBe(404);
    await resumedReader.cancel();
  });

  it('keeps a session to its subject on every replica', async () => {
    await startReplicas(2, { principal: (req) => req.headers['x-user'] as string | undefined });
    const [a, b] = replicas;
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await fetch(a.url, {
      method: 'POST',
      headers: { ...headers, 'x-user': 'alice' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
    });
    const sessionId = init.headers.get('mcp-session-id')!;
    const list = (user: string) =>
      fetch(b.url, {
        method: 'POST',
        headers: { ...headers, 'x-user': user, 'mcp-session-id': sessionId },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
      });
    expect((await list('mallory')).status).toBe(403);
    expect((await list('alice')).status).toBe(200);
  });

  it('serves 2026-07-28 requests on any replica: a retry elsewhere, and listen streams hearing every replica', async () => {
    await startReplicas(3);
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
    const call = async (replica: Replica, params: Record<string, unknown>) => {
      const response = await fetch(replica.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'name',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'name', ...params, _meta: meta } }),
      });
      return (await response.json()) as Record<string, any>;
    };
    const first = await call(replicas[0], {});
    expect(first.result.resultType).toBe('input_required');
    const [key] = Object.keys(first.result.inputRequests);
    const retried = await call(replicas[1], { inputResponses: { [key]: { action: 'accept', content: { name: 'Ada' } } }, requestState: first.result.requestState });
    expect(retried.result.content[0].text).toBe('hello Ada');

    const controller = new AbortController();
    const listen = await fetch(replicas[0].url, {
      method: 'POST',
      signal: controller.signal,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'l1', method: 'subscriptions/listen', params: { _meta: meta, notifications: { toolsListChanged: true, resourceSubscriptions: ['cluster://status'] } } }),
    });
    const reader = listen.body!.getReader();
    let text = '';
    while (!text.includes('acknowledged')) text += Buffer.from((await reader.read()).value!).toString();
    replicas[1].server.resources.notifyUpdated('cluster://status');
    replicas[2].server.tools.disable('chatty');
    while (!(text.includes('resources/updated') && text.includes('list_changed'))) text += Buffer.from((await reader.read()).value!).toString();
    controller.abort();
  });

  it('refuses a cluster without a shared requestState secret, a second cluster, and a bad replica id', () => {
    const stores = { sessions: new InMemorySessionStore(), events: new InMemoryEventStore(), broadcaster: new InMemoryBroadcaster() };
    expect(() => new McpServer({ name: 'x', version: '1' }).plugin(cluster, stores)).toThrow(/requestState\.secret/);
    const server = new McpServer({ name: 'x', version: '1', requestState: { secret: SECRET } });
    server.plugin(cluster, stores);
    expect(() => server.plugin({ name: 'again', register: (host) => host.provide(ClusterService, stores) })).toThrow(/the cluster service is already provided/);
    expect(() => new McpServer({ name: 'x', version: '1', requestState: { secret: SECRET } }).plugin(cluster, { ...stores, replicaId: 'a b' })).toThrow(DefinitionError);
    expect(() => new McpServer({ name: 'x', version: '1', requestState: { secret: SECRET } }).plugin(cluster, { sessions: stores.sessions } as never)).toThrow(/sessions, events and broadcaster/);
  });
});

describe('a cluster: what two replicas may not get wrong between them', () => {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const post = (url: URL, sessionHeaders: Record<string, string>, body: unknown) =>
    fetch(url, { method: 'POST', headers: sessionHeaders, body: JSON.stringify(body) }).then(async (r) => ({ status: r.status, text: await r.text() }));

  /** A session opened on `a` and made ready on `b`. */
  async function open(a: Replica, b: Replica) {
    const init = await fetch(a.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
    });
    const sessionId = init.headers.get('mcp-session-id')!;
    const sessionHeaders = { ...headers, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
    expect((await post(b.url, sessionHeaders, { jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { sessionId, sessionHeaders };
  }

  it('keeps a change saved on one replica when another, which never heard of it, saves its own', async () => {
    const [a, b] = await startReplicas(2);
    const { sessionId, sessionHeaders } = await open(a, b);
    const broadcaster = shared.broadcaster as InMemoryBroadcaster;
    const publish = broadcaster.publish.bind(broadcaster);
    let dropRecords = true; // the broadcaster delivers at most once: b misses a's update
    broadcaster.publish = async (topic, message) => (dropRecords && topic === 'sessions' && message.kind === 'record' ? undefined : publish(topic, message));
    await post(a.url, sessionHeaders, { jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: 'cluster://status' } });
    dropRecords = false;
    await post(b.url, sessionHeaders, { jsonrpc: '2.0', id: 3, method: 'logging/setLevel', params: { level: 'debug' } });
    const record = (await shared.sessions.get(sessionId))!;
    expect(record.subscriptions).toEqual(['cluster://status']);
    expect(record.logLevel).toBe('debug');
    // b's copy took a's change too: an update on any replica reaches this subscriber.
    const updates: string[] = [];
    const controller = new AbortController();
    const stream = await fetch(b.url, { headers: { ...sessionHeaders, accept: 'text/event-stream' }, signal: controller.signal });
    const reader = stream.body!.getReader();
    a.server.resources.notifyUpdated('cluster://status');
    let text = '';
    while (!text.includes('resources/updated')) text += Buffer.from((await reader.read()).value!).toString();
    updates.push(text);
    expect(updates).toHaveLength(1);
    controller.abort();
  });

  it('records each event of a stream once after it moved to another replica with Last-Event-ID', async () => {
    const [a, b] = await startReplicas(2);
    const { sessionHeaders } = await open(a, b);
    const first = new AbortController();
    const stream = await fetch(a.url, { headers: { ...sessionHeaders, accept: 'text/event-stream' }, signal: first.signal });
    const reader = stream.body!.getReader();
    let text = '';
    b.server.tools.disable('echo');
    while (!text.includes('list_changed')) text += Buffer.from((await reader.read()).value!).toString();
    const firstId = /id: (\S+)/.exec(text)![1];
    first.abort();
    await new Promise((resolve) => setTimeout(resolve, 30));
    // Nothing was missed: the resumed stream still answers at once (its headers are not held back).
    const second = new AbortController();
    const resumed = await fetch(b.url, { headers: { ...sessionHeaders, accept: 'text/event-stream', 'last-event-id': firstId }, signal: second.signal });
    expect(resumed.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 30));
    a.server.tools.disable('chatty'); // one change after the move
    const live = resumed.body!.getReader();
    let after = '';
    while (!after.includes('list_changed')) after += Buffer.from((await live.read()).value!).toString();
    await new Promise((resolve) => setTimeout(resolve, 30));
    second.abort();
    const stored: string[] = [];
    await shared.events.replayAfter(firstId, (id) => void stored.push(id));
    expect(stored).toHaveLength(1);
  });

  it('does not bring back a session deleted while another replica was making its copy', async () => {
    const [a, b] = await startReplicas(2);
    const { sessionHeaders } = await open(a, a);
    const store = shared.sessions;
    const get = store.get.bind(store);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let reads = 0;
    // b reads the record, then is slow to make its copy: the session ends meanwhile.
    store.get = async (id) => {
      const record = await get(id);
      if (reads++ === 0) await released;
      return record;
    };
    const onB = post(b.url, sessionHeaders, { jsonrpc: '2.0', id: 2, method: 'ping' });
    await until(() => reads === 1, 'b to read the record');
    expect((await fetch(a.url, { method: 'DELETE', headers: sessionHeaders })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    expect((await onB).status).toBe(404);
    expect((await post(b.url, sessionHeaders, { jsonrpc: '2.0', id: 3, method: 'ping' })).status).toBe(404);
  });

  it('keeps serving when a client answers with ids that name no request, or no replica', async () => {
    const [a, b] = await startReplicas(2);
    const { sessionHeaders } = await open(a, b);
    for (const id of ['x:1', '::', ':', 'r1:0', 'r0:99', `${'r'.repeat(100_000)}:1`]) {
      expect((await post(a.url, sessionHeaders, { jsonrpc: '2.0', id, result: {} })).status).toBe(202);
    }
    expect((await post(b.url, sessionHeaders, { jsonrpc: '2.0', id: 9, method: 'ping' })).status).toBe(200);
  });
});
