/**
 * Two replicas change one handshake-era session at the same instant (a subscription on each):
 * the SessionStore is made to hand both the same record before either writes, so both merge
 * from it; compare-and-set makes the one that loses read again and merge, and the session
 * keeps both subscriptions, on both replicas. A scalar (the log level) takes the later change.
 */
import 'reflect-metadata';
import { cluster, InMemoryBroadcaster, InMemoryEventStore, InMemorySessionStore, McpServer, Resource } from '@typemcp/core';
import type { SessionRecord } from '@typemcp/core';

class Pages {
  @Resource({ uri: 'page://a' })
  a(): string {
    return 'a';
  }

  @Resource({ uri: 'page://b' })
  b(): string {
    return 'b';
  }
}

/** A store whose reads of one session, once armed, wait until two are waiting: the race, made certain. */
class RacingStore extends InMemorySessionStore {
  armed: string | undefined;
  replaced = { written: 0, refused: 0 };
  private waiting: Array<() => void> = [];

  override async get(id: string): Promise<SessionRecord | undefined> {
    const record = await super.get(id);
    if (id !== this.armed) return record;
    await new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      if (this.waiting.length === 2) {
        this.armed = undefined;
        for (const release of this.waiting.splice(0)) release();
      }
    });
    return record;
  }

  override async replace(record: SessionRecord, ttlMs: number, expectedVersion: number | undefined): Promise<boolean> {
    const written = await super.replace(record, ttlMs, expectedVersion);
    this.replaced[written ? 'written' : 'refused']++;
    return written;
  }
}

const SECRET = 'session-race-secret-0123456789';
let servers: McpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

async function replicas(store: RacingStore): Promise<string[]> {
  const shared = { sessions: store, events: new InMemoryEventStore(), broadcaster: new InMemoryBroadcaster() };
  const urls: string[] = [];
  for (const replicaId of ['a', 'b']) {
    const server = new McpServer({ name: 'race', version: '1', providers: [Pages], requestState: { secret: SECRET } });
    server.plugin(cluster, { ...shared, replicaId });
    servers.push(server);
    urls.push((await server.listen({ transport: 'http', port: 0, handleSignals: false })).url);
  }
  return urls;
}

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };

async function post(url: string, session: string | undefined, body: object): Promise<Response> {
  const response = await fetch(url, { method: 'POST', headers: session ? { ...HEADERS, 'mcp-session-id': session } : HEADERS, body: JSON.stringify({ jsonrpc: '2.0', ...body }) });
  await response.text();
  return response;
}

it('keeps both subscriptions when two replicas subscribe in one session at the same instant, and the later log level', async () => {
  const store = new RacingStore();
  const [a, b] = await replicas(store);
  const opened = await post(a, undefined, { id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'race', version: '1' } } });
  const session = opened.headers.get('mcp-session-id')!;
  await post(a, session, { method: 'notifications/initialized' });
  // B serves the session too: it has its own copy from the store.
  expect((await post(b, session, { id: 2, method: 'resources/list' })).status).toBe(200);

  store.armed = session;
  const [onA, onB] = await Promise.all([
    post(a, session, { id: 3, method: 'resources/subscribe', params: { uri: 'page://a' } }),
    post(b, session, { id: 4, method: 'resources/subscribe', params: { uri: 'page://b' } }),
  ]);
  expect([onA.status, onB.status]).toEqual([200, 200]);
  expect(store.replaced.refused).toBeGreaterThanOrEqual(1);
  const record = (await store.get(session))!;
  expect([...record.subscriptions].sort()).toEqual(['page://a', 'page://b']);

  // A scalar: both set a log level at the same instant; one of them is kept, and both replicas agree on it later.
  store.armed = session;
  await Promise.all([
    post(a, session, { id: 5, method: 'logging/setLevel', params: { level: 'error' } }),
    post(b, session, { id: 6, method: 'logging/setLevel', params: { level: 'debug' } }),
  ]);
  const after = (await store.get(session))!;
  expect(['error', 'debug']).toContain(after.logLevel);
  expect([...after.subscriptions].sort()).toEqual(['page://a', 'page://b']);
  expect(after.version).toBeGreaterThan(record.version!);
});
