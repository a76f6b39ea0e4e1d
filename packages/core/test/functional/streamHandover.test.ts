import 'reflect-metadata';
import { cluster, InMemoryBroadcaster, InMemoryEventStore, InMemorySessionStore, McpServer, Tool } from '@typemcp/core';
import type { EventStore, JsonRpcMessage } from '@typemcp/core';

/**
 * A session's stream moving between replicas while events are posted, with the races made
 * deterministic: a replica whose event-store writes are held (a slow replica), and a resume
 * whose replay is held while events are posted.
 */

class Tools {
  @Tool({ description: 'Answers' })
  ping(): string {
    return 'pong';
  }
}

/** A gate: while closed, what waits on it waits. */
class Gate {
  private opened: Promise<void> = Promise.resolve();
  private release: (() => void) | undefined;
  close(): void {
    this.opened = new Promise((resolve) => (this.release = resolve));
  }
  open(): void {
    this.release?.();
  }
  wait(): Promise<void> {
    return this.opened;
  }
}

/** One replica's view of the shared event store: its writes and replays can be held. */
class HeldEventStore implements EventStore {
  readonly writes = new Gate();
  readonly replays = new Gate();
  pendingWrites = 0;
  constructor(private readonly shared: EventStore) {}
  async store(streamId: string, message: JsonRpcMessage, key?: string): Promise<string> {
    this.pendingWrites++;
    await this.writes.wait();
    this.pendingWrites--;
    return this.shared.store(streamId, message, key);
  }
  async replayAfter(lastEventId: string, send: (eventId: string, message: JsonRpcMessage) => void): Promise<string | undefined> {
    await this.replays.wait();
    return this.shared.replayAfter(lastEventId, send);
  }
}

interface Replica {
  server: McpServer;
  url: URL;
  events: HeldEventStore;
}

const SECRET = 'handover-test-secret-0123456789';
let replicas: Replica[] = [];
let events: InMemoryEventStore;

async function startReplicas(): Promise<Replica[]> {
  events = new InMemoryEventStore();
  const sessions = new InMemorySessionStore();
  const broadcaster = new InMemoryBroadcaster();
  for (let i = 0; i < 3; i++) {
    const held = new HeldEventStore(events);
    const server = new McpServer({ name: 'handover', version: '1', providers: [Tools], requestState: { secret: SECRET } });
    server.plugin(cluster, { sessions, events: held, broadcaster, replicaId: `r${i}` });
    const address = await server.listen({ transport: 'http', port: 0, handleSignals: false });
    replicas.push({ server, url: new URL(address.url), events: held });
  }
  return replicas;
}

afterEach(async () => {
  for (const replica of replicas) {
    replica.events.writes.open();
    replica.events.replays.open();
  }
  await Promise.all(replicas.splice(0).map((r) => r.server.close()));
});

const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function openSession(on: Replica): Promise<Record<string, string>> {
  const init = await fetch(on.url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });
  await init.text();
  const sessionHeaders = { ...headers, 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
  const ready = await fetch(on.url, { method: 'POST', headers: sessionHeaders, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  expect(ready.status).toBe(202);
  return sessionHeaders;
}

interface SseEvent {
  id: string;
  data: string;
}

/** The session's stream as its client reads it: every event with its id, the log line it carries. */
class StreamReader {
  readonly events: SseEvent[] = [];
  private readonly controller = new AbortController();
  private buffer = '';
  private reading: Promise<void> | undefined;

  static async open(on: Replica, sessionHeaders: Record<string, string>, lastEventId?: string): Promise<StreamReader> {
    const reader = new StreamReader();
    const extra: Record<string, string> = lastEventId === undefined ? {} : { 'last-event-id': lastEventId };
    const response = await fetch(on.url, { headers: { ...sessionHeaders, accept: 'text/event-stream', ...extra }, signal: reader.controller.signal });
    expect(response.status).toBe(200);
    reader.reading = reader.read(response.body!.getReader());
    return reader;
  }

  private async read(body: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { value, done } = await body.read();
        if (done) return;
        this.buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = this.buffer.indexOf('\n\n')) >= 0) {
          const block = this.buffer.slice(0, end);
          this.buffer = this.buffer.slice(end + 2);
          const id = /^id: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (id !== undefined && data !== undefined) this.events.push({ id, data: String((JSON.parse(data) as { params?: { data?: unknown } }).params?.data) });
        }
      }
    } catch {
      // aborted
    }
  }

  get lines(): string[] {
    return this.events.map((event) => event.data);
  }

  get lastId(): string {
    return this.events[this.events.length - 1].id;
  }

  async until(count: number, timeoutMs = 2_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.events.length < count && Date.now() < deadline) await pause(5);
  }

  async close(): Promise<void> {
    this.controller.abort();
    await this.reading;
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 2_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(2);
  }
}

/** The log lines recorded on a stream after an event, in the store's order. */
async function stored(afterEventId: string): Promise<string[]> {
  const lines: string[] = [];
  await events.replayAfter(afterEventId, (_id, message) => void lines.push(String((message as unknown as { params: { data: unknown } }).params.data)));
  return lines;
}

describe("a session's stream moving between replicas: every event once", () => {
  it('delivers an event a slow replica records after the stream moved on', async () => {
    const [a, b, c] = await startReplicas();
    const sessionHeaders = await openSession(a);
    const first = await StreamReader.open(b, sessionHeaders);
    a.server.log.info('e0');
    await first.until(1);
    expect(first.lines).toEqual(['e0']);
    await first.close();
    await pause(20);

    // b, which held the stream, is slow to record what it hears while the client is away.
    b.events.writes.close();
    a.server.log.info('e1');
    await until(() => b.events.pendingWrites === 1, "b's write of e1");
    // The client comes back through c, which has no record of e1 yet.
    const second = await StreamReader.open(c, sessionHeaders, first.lastId);
    await pause(20);
    b.events.writes.open();
    await second.until(1);
    expect(second.lines).toEqual(['e1']);

    // Live events go on from c, each once; events posted at once on two replicas have no order
    // between them, but the client gets them in the stream's order, which the store keeps.
    a.server.log.info('e2');
    c.server.log.info('e3');
    await second.until(3);
    await pause(30);
    expect([...second.lines].sort()).toEqual(['e1', 'e2', 'e3']);
    expect(await stored(first.lastId)).toEqual(second.lines);
    await second.close();
  });

  it('records and delivers once an event posted while the client reconnects, heard by the old and the new replica', async () => {
    const [a, b, c] = await startReplicas();
    const sessionHeaders = await openSession(a);
    // c has a copy of the session before the client comes back to it: it hears every change.
    expect((await fetch(c.url, { method: 'POST', headers: sessionHeaders, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }) })).status).toBe(200);
    const first = await StreamReader.open(b, sessionHeaders);
    a.server.log.info('e0');
    await first.until(1);
    await first.close();
    await pause(20);

    // The client reconnects through c, whose replay is held; meanwhile events are posted.
    c.events.replays.close();
    const resuming = StreamReader.open(c, sessionHeaders, first.lastId);
    await pause(20);
    a.server.log.info('e1');
    b.server.log.info('e2');
    await pause(20);
    // e3 is posted as the replay is let go: b hears it before it hears that c took the stream,
    // and c after it took it. Both record it.
    c.events.replays.open();
    a.server.log.info('e3');
    const second = await resuming;
    a.server.log.info('e4');
    await second.until(4);
    await pause(50);
    expect([...second.lines].sort()).toEqual(['e1', 'e2', 'e3', 'e4']);
    expect(second.lines.slice(2)).toEqual(['e3', 'e4']);
    expect(await stored(first.lastId)).toEqual(second.lines);
    // Ids go up along the stream.
    const numbers = second.events.map((event) => Number(event.id.slice(event.id.lastIndexOf(':') + 1)));
    expect(numbers).toEqual([...numbers].sort((x, y) => x - y));
    await second.close();
  });

  it('resumes on the replica that holds the stream without repeating what was recorded while the replay was read', async () => {
    const [a, b] = await startReplicas();
    const sessionHeaders = await openSession(a);
    const first = await StreamReader.open(b, sessionHeaders);
    a.server.log.info('e0');
    await first.until(1);
    await first.close();
    await pause(20);
    b.events.replays.close();
    const resuming = StreamReader.open(b, sessionHeaders, first.lastId);
    await pause(20);
    a.server.log.info('e1');
    await pause(20);
    b.events.replays.open();
    const second = await resuming;
    a.server.log.info('e2');
    await second.until(2);
    await pause(50);
    expect(second.lines).toEqual(['e1', 'e2']);
    await second.close();
  });

  it('goes back to the replica it left while that one still records the stream: nothing repeated, nothing missed', async () => {
    const [a, b, c] = await startReplicas();
    const sessionHeaders = await openSession(a);
    const first = await StreamReader.open(b, sessionHeaders);
    a.server.log.info('e0');
    a.server.log.info('e1');
    await first.until(2);
    await first.close();
    const second = await StreamReader.open(c, sessionHeaders, first.events[0].id);
    await second.until(1);
    a.server.log.info('e2');
    await second.until(2);
    await second.close();
    // Back on b within its release time: b's own stream, which recorded e2 too, takes over again.
    b.server.log.info('e3');
    const third = await StreamReader.open(b, sessionHeaders, second.lastId);
    c.server.log.info('e4');
    await third.until(2);
    await pause(50);
    expect([...first.lines, ...second.lines]).toEqual(['e0', 'e1', 'e1', 'e2']);
    expect([...third.lines].sort()).toEqual(['e3', 'e4']);
    expect(await stored(first.events[0].id)).toEqual(['e1', 'e2', ...third.lines]);
    await third.close();
  });

  it('answers 404 to a Last-Event-ID the store does not know, on the replica holding the stream or another, and keeps the stream going', async () => {
    const [a, b] = await startReplicas();
    const sessionHeaders = await openSession(a);
    const first = await StreamReader.open(b, sessionHeaders);
    a.server.log.info('e0');
    await first.until(1);
    const unknown = `${first.lastId.slice(0, first.lastId.lastIndexOf(':'))}:999999`;
    const refused = await fetch(a.url, { headers: { ...sessionHeaders, accept: 'text/event-stream', 'last-event-id': unknown } });
    expect(refused.status).toBe(404);
    await refused.text();
    // On the replica that holds the stream too: the client's connection there goes on.
    const refusedThere = await fetch(b.url, { headers: { ...sessionHeaders, accept: 'text/event-stream', 'last-event-id': unknown } });
    expect(refusedThere.status).toBe(404);
    await refusedThere.text();
    a.server.log.info('e1');
    await first.until(2);
    expect(first.lines).toEqual(['e0', 'e1']);
    await first.close();
  });
});

describe("a session's stream on one server, without a cluster", () => {
  it('keeps the live stream and its events when a resumption names a stream the store does not know', async () => {
    const server = new McpServer({ name: 'single', version: '1', providers: [Tools] });
    const address = await server.listen({ transport: 'http', port: 0, handleSignals: false });
    const single: Replica = { server, url: new URL(address.url), events: new HeldEventStore(new InMemoryEventStore()) };
    replicas.push(single);
    const sessionHeaders = await openSession(single);
    const live = await StreamReader.open(single, sessionHeaders);
    server.log.info('e0');
    await live.until(1);
    const sessionId = sessionHeaders['mcp-session-id'];
    for (const stale of [`${sessionId}.get-00000000-0000-0000-0000-000000000000:0`, `${live.lastId.slice(0, live.lastId.lastIndexOf(':'))}:999`]) {
      const refused = await fetch(single.url, { headers: { ...sessionHeaders, accept: 'text/event-stream', 'last-event-id': stale } });
      expect(refused.status).toBe(404);
      await refused.text();
    }
    server.log.info('e1');
    await live.until(2);
    expect(live.lines).toEqual(['e0', 'e1']);
    await live.close();
  });
});
