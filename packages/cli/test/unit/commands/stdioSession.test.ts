import { PassThrough } from 'node:stream';
import { REPLAY_PREFIX, StdioSession } from '../../../src/commands/stdioSession';

type Message = Record<string, unknown>;

/** Collects the JSON lines written to a stream. */
function collect(stream: PassThrough): Message[] {
  const messages: Message[] = [];
  let buffered = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) messages.push(JSON.parse(line) as Message);
  });
  return messages;
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

/** A server process as the session sees it: what it received, and a way to answer. */
function fakeServer() {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const received = collect(stdin);
  return { pipes: { stdin, stdout }, received, send: (message: Message) => stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`) };
}

function setUp() {
  const clientIn = new PassThrough();
  const clientOut = new PassThrough();
  const toClient = collect(clientOut);
  const ended = jest.fn();
  const session = new StdioSession(clientIn, clientOut, ended);
  const fromClient = (message: Message | Message[]) => clientIn.write(`${JSON.stringify(message)}\n`);
  return { session, toClient, fromClient, ended, clientIn };
}

const INITIALIZE = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } };
const CAPABILITIES = { tools: { listChanged: true }, prompts: {}, resources: { listChanged: true, subscribe: true } };

/** A session whose first server accepted the client's initialize. */
async function initializedSession() {
  const setup = setUp();
  const first = fakeServer();
  setup.session.attach(first.pipes);
  setup.fromClient(INITIALIZE);
  await flush();
  first.send({ id: 0, result: { protocolVersion: '2025-11-25', capabilities: CAPABILITIES, serverInfo: { name: 's', version: '1' } } });
  setup.fromClient({ jsonrpc: '2.0', method: 'notifications/initialized' });
  await flush();
  return { ...setup, first };
}

describe('StdioSession', () => {
  it('passes messages both ways unchanged', async () => {
    const { session, toClient, fromClient } = setUp();
    const server = fakeServer();
    session.attach(server.pipes);
    fromClient(INITIALIZE);
    await flush();
    expect(server.received).toEqual([INITIALIZE]);
    server.send({ id: 0, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 's', version: '1' } } });
    await flush();
    expect(toClient).toEqual([expect.objectContaining({ id: 0, result: expect.objectContaining({ serverInfo: { name: 's', version: '1' } }) })]);
  });

  it('brings a new server up to date and tells the client which lists may have changed', async () => {
    const { session, toClient, fromClient } = await initializedSession();
    fromClient({ jsonrpc: '2.0', id: 1, method: 'logging/setLevel', params: { level: 'debug' } });
    fromClient({ jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: 'a://1' } });
    fromClient({ jsonrpc: '2.0', id: 3, method: 'resources/subscribe', params: { uri: 'a://2' } });
    fromClient({ jsonrpc: '2.0', id: 4, method: 'resources/unsubscribe', params: { uri: 'a://1' } });
    await flush();

    session.pause();
    fromClient({ jsonrpc: '2.0', id: 5, method: 'tools/list' });
    const second = fakeServer();
    session.attach(second.pipes);
    await flush();
    // Until it answers the replayed initialize, the new server gets nothing else.
    expect(second.received).toEqual([{ ...INITIALIZE, id: `${REPLAY_PREFIX}-initialize` }]);

    second.send({ id: `${REPLAY_PREFIX}-initialize`, result: { protocolVersion: '2025-11-25', capabilities: CAPABILITIES, serverInfo: { name: 's', version: '2' } } });
    await flush();
    expect(second.received.slice(1)).toEqual([
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: `${REPLAY_PREFIX}-1`, method: 'logging/setLevel', params: { level: 'debug' } },
      { jsonrpc: '2.0', id: `${REPLAY_PREFIX}-2`, method: 'resources/subscribe', params: { uri: 'a://2' } },
      { jsonrpc: '2.0', id: 5, method: 'tools/list' },
    ]);
    second.send({ id: `${REPLAY_PREFIX}-1`, result: {} });
    second.send({ id: `${REPLAY_PREFIX}-2`, result: {} });
    second.send({ id: 5, result: { tools: [] } });
    await flush();
    const afterRestart = toClient.slice(toClient.findIndex((m) => m.id === 4) + 1);
    // prompts was declared without listChanged: no notification for it.
    expect(afterRestart).toEqual([
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
      { jsonrpc: '2.0', method: 'notifications/resources/list_changed' },
      { jsonrpc: '2.0', id: 5, result: { tools: [] } },
    ]);
  });

  it('answers requests the old server left unanswered when a new one starts', async () => {
    const { session, toClient, fromClient } = await initializedSession();
    fromClient({ jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { name: 'wait' } });
    await flush();
    session.pause();
    session.attach(fakeServer().pipes);
    await flush();
    expect(toClient).toContainEqual({ jsonrpc: '2.0', id: 'slow', error: { code: -32603, message: 'The server restarted before answering' } });
  });

  it('answers for a server that exited until the next one starts', async () => {
    const { session, toClient, fromClient, first } = await initializedSession();
    fromClient([{ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'crash' } }]);
    await flush();
    session.detach(first.pipes, 'exit code 1');
    fromClient({ jsonrpc: '2.0', id: 8, method: 'tools/list' });
    fromClient({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' });
    await flush();
    expect(toClient.slice(-2)).toEqual([
      { jsonrpc: '2.0', id: 7, error: { code: -32603, message: 'The server exited before answering (exit code 1)' } },
      { jsonrpc: '2.0', id: 8, error: { code: -32603, message: 'The server is not running (exit code 1); save a change to restart it' } },
    ]);

    const next = fakeServer();
    session.attach(next.pipes);
    await flush();
    expect(next.received).toEqual([{ ...INITIALIZE, id: `${REPLAY_PREFIX}-initialize` }]);
  });

  it('replays no initialize that the server refused', async () => {
    const { session, fromClient } = setUp();
    const first = fakeServer();
    session.attach(first.pipes);
    fromClient(INITIALIZE);
    await flush();
    first.send({ id: 0, error: { code: -32602, message: 'Unsupported protocol version' } });
    await flush();
    session.pause();
    const second = fakeServer();
    session.attach(second.pipes);
    fromClient({ jsonrpc: '2.0', id: 1, method: 'ping' });
    await flush();
    expect(second.received).toEqual([{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
  });

  it('ends the server input and reports when the client input ends', async () => {
    const { session, ended, clientIn } = setUp();
    const server = fakeServer();
    const serverEnded = jest.fn();
    server.pipes.stdin.on('finish', serverEnded);
    session.attach(server.pipes);
    clientIn.end();
    await flush();
    expect(ended).toHaveBeenCalledTimes(1);
    expect(serverEnded).toHaveBeenCalledTimes(1);
  });
});
