import { PassThrough, Writable } from 'node:stream';
import { StdioTransport } from '../../../src/transports/StdioTransport';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

function pair<W extends Writable = PassThrough>(output: W = new PassThrough() as unknown as W) {
  const input = new PassThrough();
  const transport = new StdioTransport({ input, output });
  const received: unknown[] = [];
  transport.onmessage = (m) => received.push(m);
  return { input, output, transport, received };
}

describe('StdioTransport', () => {
  it('splits newline-delimited messages across chunks, CRLF and multi-byte characters', async () => {
    const { input, transport, received } = pair();
    await transport.start();
    const text = '{"a":"héllo"}\r\n\n{"b":2}\n{"c"';
    const bytes = Buffer.from(text);
    const cut = bytes.indexOf(0xa9); // second byte of "é": a chunk boundary inside a character
    input.write(bytes.subarray(0, cut));
    input.write(bytes.subarray(cut));
    input.write(':3}\n');
    await nextTurn();
    expect(received).toEqual(['{"a":"héllo"}', '{"b":2}', '{"c":3}']);
  });

  it('writes the messages of one tick in one write, each on its own line', async () => {
    const writes: string[] = [];
    const output = new Writable({
      write(chunk, _enc, done) {
        writes.push(String(chunk));
        done();
      },
    });
    const { transport } = pair(output);
    await transport.start();
    transport.send({ jsonrpc: '2.0', id: 1, result: {} });
    transport.send({ jsonrpc: '2.0', method: 'x' });
    await nextTurn();
    expect(writes).toEqual(['{"jsonrpc":"2.0","id":1,"result":{}}\n{"jsonrpc":"2.0","method":"x"}\n']);
  });

  it('writes a response that follows queued progress apart from it, and what comes after it behind it', async () => {
    const writes: Array<{ text: string; at: number }> = [];
    const output = new Writable({
      write(chunk, _enc, done) {
        if (String(chunk) !== '') writes.push({ text: String(chunk), at: Date.now() });
        done();
      },
    });
    const { transport } = pair(output);
    await transport.start();
    const progress = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: 1 } } as const;
    transport.send(progress);
    transport.send({ jsonrpc: '2.0', id: 1, result: {} });
    transport.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'after' } });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(writes.map((w) => w.text)).toEqual([
      `${JSON.stringify(progress)}\n`,
      '{"jsonrpc":"2.0","id":1,"result":{}}\n{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"after"}}\n',
    ]);
    expect(writes[1].at - writes[0].at).toBeGreaterThanOrEqual(45);
    // Without progress before it, a response leaves with the rest of its tick, at once.
    writes.length = 0;
    transport.send({ jsonrpc: '2.0', method: 'x' });
    transport.send({ jsonrpc: '2.0', id: 2, result: {} });
    await nextTurn();
    expect(writes.map((w) => w.text)).toEqual(['{"jsonrpc":"2.0","method":"x"}\n{"jsonrpc":"2.0","id":2,"result":{}}\n']);
  });

  it('stops reading while the output pushes back and resumes when it drains', async () => {
    const output = new PassThrough({ highWaterMark: 16 });
    const { input, transport } = pair(output);
    await transport.start();
    transport.send({ jsonrpc: '2.0', method: 'a-long-enough-notification-to-fill-the-buffer' });
    await nextTurn();
    expect(input.isPaused()).toBe(true);
    output.resume(); // the client reads
    await new Promise((resolve) => output.once('drain', resolve));
    await nextTurn();
    expect(input.isPaused()).toBe(false);
  });

  it('reports the end of input and keeps writing until closed', async () => {
    const { input, output, transport, received } = pair();
    const ended = jest.fn();
    transport.oninputend = ended;
    const closed = jest.fn();
    transport.onclose = closed;
    await transport.start();
    input.end('{"last":true}');
    await nextTurn();
    expect(received).toEqual(['{"last":true}']);
    expect(ended).toHaveBeenCalled();
    transport.send({ jsonrpc: '2.0', id: 1, result: {} });
    await transport.close();
    expect(closed).toHaveBeenCalledTimes(1);
    expect(String(output.read())).toBe('{"jsonrpc":"2.0","id":1,"result":{}}\n');
    transport.send({ jsonrpc: '2.0', id: 2, result: {} });
    await nextTurn();
    expect(output.read()).toBeNull();
  });

  it('closes by itself at end of input when nobody waits for in-flight work', async () => {
    const { input, transport } = pair();
    const closed = jest.fn();
    transport.onclose = closed;
    await transport.start();
    input.end();
    await nextTurn();
    expect(closed).toHaveBeenCalledTimes(1);
  });
});
