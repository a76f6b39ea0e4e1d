import { HttpSessionTransport } from '../../../src/transports/http/HttpSessionTransport';
import type { EventBody } from '../../../src/transports/http/HttpReply';

/** The reply of a POST whose transport closes before the request is answered. */
async function closedBeforeAnswer(transport: HttpSessionTransport): Promise<{ status: number; body: unknown }> {
  const exchange = transport.deliverRequests({ jsonrpc: '2.0', id: 7, method: 'tools/call' }, [7], {});
  setTimeout(() => void transport.close(), 5);
  const reply = await exchange.reply;
  await exchange.done;
  return { status: reply.status, body: JSON.parse(reply.body as string) };
}

/** Reads an event body to its end. */
function readAll(body: EventBody): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    body.open({ write: (chunk) => void (text += chunk), end: () => resolve(text) });
  });
}

describe('HttpSessionTransport', () => {
  it('answers a 2026-07-28 request cut off by shutdown with -32603 and its id', async () => {
    const modern = new HttpSessionTransport(undefined, undefined, undefined, { answerStatus: () => 400 });
    expect(await closedBeforeAnswer(modern)).toEqual({
      status: 503,
      body: { jsonrpc: '2.0', id: 7, error: { code: -32603, message: 'Internal error: the server closed before answering' } },
    });
  });

  it('answers a session request cut off by shutdown with "Session closed"', async () => {
    const session = new HttpSessionTransport('s1', undefined);
    expect(await closedBeforeAnswer(session)).toEqual({ status: 503, body: { jsonrpc: '2.0', error: { code: -32000, message: 'Session closed' } } });
  });

  it('answers with JSON when only the response goes out, and turns into a stream when a notification goes first', async () => {
    const transport = new HttpSessionTransport('s2', undefined);
    transport.onmessage = () => undefined;
    const plain = transport.deliverRequests({ jsonrpc: '2.0', id: 1, method: 'x' }, [1], { 'mcp-session-id': 's2' });
    transport.send({ jsonrpc: '2.0', id: 1, result: {} });
    expect(await plain.reply).toEqual({ status: 200, headers: { 'content-type': 'application/json', 'mcp-session-id': 's2' }, body: '{"jsonrpc":"2.0","id":1,"result":{}}' });

    const streamed = transport.deliverRequests({ jsonrpc: '2.0', id: 2, method: 'x' }, [2], {});
    transport.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } }, { relatedRequestId: 2 });
    const reply = await streamed.reply;
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('text/event-stream');
    const read = readAll(reply.body as EventBody);
    transport.send({ jsonrpc: '2.0', id: 2, result: {} });
    const text = await read;
    expect(text).toContain('data: {"jsonrpc":"2.0","method":"notifications/progress"');
    expect(text).toContain('data: {"jsonrpc":"2.0","id":2,"result":{}}');
    expect(text.indexOf('notifications/progress')).toBeLessThan(text.indexOf('"id":2'));
    await streamed.done;
    expect(transport.busy).toBe(false);
  });

  it('answers 202 when every request of the POST was cancelled', async () => {
    const transport = new HttpSessionTransport('s3', undefined);
    transport.onmessage = () => undefined;
    const exchange = transport.deliverRequests({ jsonrpc: '2.0', id: 1, method: 'x' }, [1], {});
    transport.requestEnded(1);
    expect((await exchange.reply).status).toBe(202);
  });
});
