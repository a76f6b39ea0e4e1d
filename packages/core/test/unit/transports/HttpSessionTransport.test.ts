import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { HttpSessionTransport } from '../../../src/transports/http/HttpSessionTransport';

/** A real HTTP exchange whose transport closes before the request is answered. */
async function closedBeforeAnswer(transport: HttpSessionTransport): Promise<{ status: number; body: unknown }> {
  const server: Server = createServer((_req, res) => {
    void transport.deliverRequests({ jsonrpc: '2.0', id: 7, method: 'tools/call' }, [7], res, {});
    setTimeout(() => void transport.close(), 5);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  try {
    const { port } = server.address() as { port: number };
    const response = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' });
    return { status: response.status, body: await response.json() };
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
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
});
