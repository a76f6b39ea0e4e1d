/**
 * Whose is a message the upstream sends during requests: the request its stream names. Over
 * stdio (which names none) a question goes to the one request in flight that can be asked; a
 * log message goes to no request, being the one in flight says nothing of whose it is. A
 * message for a request that is over, or one that cannot be attributed, reaches no client.
 */
import type { RequestId } from '@typemcp/core';
import type { ClientChannel, JsonRpcMessage } from '../src/client/channel';
import { UpstreamSession } from '../src/client/UpstreamSession';

class FakeChannel implements ClientChannel {
  readonly sent: JsonRpcMessage[] = [];
  onmessage?: (message: JsonRpcMessage, related?: RequestId) => void;
  onclose?: (error: Error) => void;
  async start(): Promise<void> {}
  async send(message: JsonRpcMessage): Promise<void> {
    this.sent.push(message);
    if (message.method === 'initialize') {
      queueMicrotask(() => this.onmessage?.({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'fake', version: '1' } } }));
    }
  }
  async close(): Promise<void> {}
  idOf(method: string, nth = 0): RequestId {
    return this.sent.filter((m) => m.method === method && 'id' in m)[nth].id as RequestId;
  }
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 10));

async function open() {
  const channel = new FakeChannel();
  const session = await UpstreamSession.open(channel, { protocolVersion: '2025-11-25', clientInfo: { name: 'p', version: '1' }, capabilities: {}, timeoutMs: 10_000 });
  const unowned: string[] = [];
  session.onNotification = (method) => void unowned.push(method);
  const strayLogs: Array<{ data: unknown; named: boolean }> = [];
  session.onUnownedLog = (params, named) => void strayLogs.push({ data: params.data, named });
  return { channel, session, unowned, strayLogs };
}

function spies() {
  const asked: string[] = [];
  const logged: unknown[] = [];
  return {
    asked,
    logged,
    handlers: {
      onRequest: async (method: string) => {
        asked.push(method);
        return { action: 'accept', content: {} };
      },
      onNotification: (_method: string, params: Record<string, unknown>) => void logged.push(params.data),
    },
  };
}

test('a question or log for a request that timed out reaches no other request; the timed-out request is cancelled upstream', async () => {
  const { channel, session, unowned, strayLogs } = await open();
  const a = spies();
  const b = spies();
  const first = session.request('tools/call', { name: 'slow' }, { ...a.handlers, timeoutMs: 30 });
  const second = session.request('tools/call', { name: 'other' }, b.handlers);
  const idA = channel.idOf('tools/call', 0);
  await expect(first).rejects.toMatchObject({ code: -32001 });
  expect(channel.sent).toContainEqual({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: idA, reason: 'timed out' } });

  channel.onmessage!({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: "a's secret" } }, idA);
  channel.onmessage!({ jsonrpc: '2.0', id: 'q1', method: 'elicitation/create', params: { message: "a's question" } }, idA);
  await tick();
  expect(b.asked).toEqual([]);
  expect(b.logged).toEqual([]);
  expect(unowned).toEqual([]);
  expect(channel.sent.find((m) => m.id === 'q1')).toMatchObject({ error: { message: expect.stringMatching(/over/) } });
  expect(strayLogs).toEqual([{ data: "a's secret", named: true }]);

  // Over stdio nothing is named: the one request in flight does not take a log message.
  channel.onmessage!({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'whose?' } });
  expect(b.logged).toEqual([]);
  expect(strayLogs).toEqual([
    { data: "a's secret", named: true },
    { data: 'whose?', named: false },
  ]);
  // Named by its stream: B's own.
  const idB = channel.idOf('tools/call', 1);
  channel.onmessage!({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: "b's line" } }, idB);
  expect(b.logged).toEqual(["b's line"]);
  channel.onmessage!({ jsonrpc: '2.0', id: idB, result: { content: [] } });
  await second;
});

test('over stdio, with two requests in flight, an unnamed question is refused and an unnamed log reaches no request', async () => {
  const { channel, session, unowned, strayLogs } = await open();
  const a = spies();
  const b = spies();
  const calls = [session.request('tools/call', { name: 'a' }, a.handlers), session.request('tools/call', { name: 'b' }, b.handlers)];
  channel.onmessage!({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'whose?' } });
  channel.onmessage!({ jsonrpc: '2.0', id: 'q2', method: 'sampling/createMessage', params: {} });
  await tick();
  expect([...a.asked, ...b.asked, ...a.logged, ...b.logged, ...unowned]).toEqual([]);
  expect(channel.sent.find((m) => m.id === 'q2')).toMatchObject({ error: { message: expect.stringMatching(/several requests/) } });
  for (const [i, call] of calls.entries()) {
    channel.onmessage!({ jsonrpc: '2.0', id: channel.idOf('tools/call', i), result: { content: [] } });
    await call;
  }
  // With no request in flight, neither: nothing says which request it is about.
  channel.onmessage!({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'server news' } });
  expect(unowned).toEqual([]);
  expect(strayLogs).toEqual([
    { data: 'whose?', named: false },
    { data: 'server news', named: false },
  ]);
});

test("progress reaches the request whose token it names; a token of a request that is over, or one never given, reaches nobody; on a request's stream, another request's token reaches nobody", async () => {
  const { channel, session } = await open();
  const heard: Record<string, number[]> = { a: [], b: [] };
  const first = session.request('tools/call', { name: 'a' }, { onProgress: (p) => void heard.a.push(p.progress) });
  const second = session.request('tools/call', { name: 'b' }, { onProgress: (p) => void heard.b.push(p.progress) });
  const [idA, idB] = [channel.idOf('tools/call', 0), channel.idOf('tools/call', 1)];
  const tokenOf = (id: RequestId) => ((channel.sent.find((m) => m.id === id)!.params as { _meta: { progressToken: string } })._meta.progressToken);
  const progress = (token: unknown, value: number, related?: RequestId) => channel.onmessage!({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: value } }, related);

  progress(tokenOf(idA), 1);
  progress(tokenOf(idB), 2, idB);
  progress(tokenOf(idB), 3, idA);
  progress('proxy-999', 4);
  channel.onmessage!({ jsonrpc: '2.0', id: idA, result: {} });
  await first;
  progress(tokenOf(idA), 5);
  expect(heard).toEqual({ a: [1], b: [2] });
  channel.onmessage!({ jsonrpc: '2.0', id: idB, result: {} });
  await second;
});

test('over stdio, an unnamed question after another request was answered is refused: the request left was never alone', async () => {
  const { channel, session } = await open();
  const a = spies();
  const b = spies();
  const first = session.request('tools/call', { name: 'a' }, a.handlers);
  const second = session.request('tools/call', { name: 'b' }, b.handlers);
  channel.onmessage!({ jsonrpc: '2.0', id: channel.idOf('tools/call', 0), result: { content: [] } });
  await first;
  // A late question of A's (the upstream asks after answering): B, now alone, must not get it.
  channel.onmessage!({ jsonrpc: '2.0', id: 'q3', method: 'elicitation/create', params: { message: "a's question" } });
  await tick();
  expect(b.asked).toEqual([]);
  expect(channel.sent.find((m) => m.id === 'q3')).toMatchObject({ error: { message: expect.stringMatching(/after several requests/) } });
  channel.onmessage!({ jsonrpc: '2.0', id: channel.idOf('tools/call', 1), result: { content: [] } });
  await second;
  // A request alone from its start takes an unnamed question.
  const third = session.request('tools/call', { name: 'c' }, b.handlers);
  channel.onmessage!({ jsonrpc: '2.0', id: 'q4', method: 'elicitation/create', params: { message: 'for c' } });
  await tick();
  expect(b.asked.length).toBe(1);
  channel.onmessage!({ jsonrpc: '2.0', id: channel.idOf('tools/call', 2), result: { content: [] } });
  await third;
});
