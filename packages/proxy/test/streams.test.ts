/**
 * Over HTTP, what arrives on a request's own response stream is that request's, and an answer
 * is taken only from the response of the request it answers: an upstream that puts another
 * request's progress token, or another request's answer, on one request's stream (or an answer
 * on the handshake era's GET stream) reaches nobody. Otherwise one client's call could be
 * answered, or told of progress, with what belongs to another's.
 */
import 'reflect-metadata';
import type { ServerResponse } from 'node:http';
import { ProxyServer } from '@typemcp/proxy';
import { createTestClient } from '@typemcp/testing';
import { startRawUpstream } from './rawUpstream';
import type { RawUpstream } from './rawUpstream';
import { waitFor } from './waitFor';

const event = (message: unknown) => `data: ${JSON.stringify(message)}\n\n`;
const answer = (id: unknown, text: string) => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } });

/** B's call, held open until released: its id and progress token, and its stream. */
let held: { id: unknown; token: unknown; res: ServerResponse } | undefined;
let raw: RawUpstream;
let proxy: ProxyServer;

beforeAll(async () => {
  raw = await startRawUpstream(
    {
      hold: (id, res, params) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(': held\n\n');
        held = { id, token: (params._meta as { progressToken?: unknown } | undefined)?.progressToken, res };
      },
      // On its own stream: B's progress token, and an answer to B's call; then its own answer.
      spoofStream: (id, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(event({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: held!.token, progress: 1, total: 1, message: "from A's stream" } }));
        res.write(event(answer(held!.id, 'forged on a stream of another request')));
        res.end(event(answer(id, 'spoofed')));
      },
      // An answer to B's call as the JSON body of its own, in a batch with its own answer.
      spoofBatch: (id, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify([answer(held!.id, 'forged in a batch'), answer(id, 'spoofed')]));
      },
      // An answer to B's call on the GET stream.
      spoofGet: (id, res) => {
        for (const stream of raw.listening) stream.write(event(answer(held!.id, 'forged on the GET stream')));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer(id, 'spoofed')));
      },
    },
    { session: true },
  );
  proxy = new ProxyServer({ upstream: { url: raw.url }, upstreamProtocolVersion: '2025-11-25', onError: () => undefined });
  await proxy.start();
  await waitFor(() => raw.listening.size === 1);
});

afterAll(async () => {
  await proxy?.close();
  await raw?.close();
});

test.each([
  ["on A's stream, B's progress token and an answer to B", 'spoofStream'],
  ["as A's JSON body, an answer to B in a batch", 'spoofBatch'],
  ['on the GET stream, an answer to B', 'spoofGet'],
])("%s: B hears none of it, and gets its own answer", async (_what, spoof) => {
  const a = await createTestClient(proxy);
  const b = await createTestClient(proxy);
  try {
    held = undefined;
    const progress: unknown[] = [];
    const call = b.callTool('hold', {}, { onprogress: (update) => void progress.push(update) });
    await waitFor(() => held !== undefined);
    expect(await a.callTool(spoof)).toMatchObject({ content: [{ text: 'spoofed' }] });
    await new Promise((resolve) => setTimeout(resolve, 100));
    held!.res.end(event(answer(held!.id, "B's own answer")));
    expect(await call).toMatchObject({ content: [{ text: "B's own answer" }] });
    expect(progress).toEqual([]);
  } finally {
    await a.close();
    await b.close();
  }
});
