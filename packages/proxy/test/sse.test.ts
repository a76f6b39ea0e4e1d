import { readSse } from '../src/client/sse';

function stream(chunks: string[]): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      controller.close();
    },
  });
}

async function events(chunks: string[]): Promise<Array<{ data: string; id?: string }>> {
  const read: Array<{ data: string; id?: string }> = [];
  for await (const event of readSse(stream(chunks))) read.push(event.id === undefined ? { data: event.data } : { data: event.data, id: event.id });
  return read;
}

test.each([
  ['one event', ['data: a\n\n'], [{ data: 'a' }]],
  ['CRLF split across chunks', ['data: a\r', '\n\r\ndata: b\n', '\n'], [{ data: 'a' }, { data: 'b' }]],
  ['a field split across chunks, several data lines, a comment, an id', ['da', 'ta: x\ndata: y\n\n: comment\n\nid: 3\ndata: z\r\n\r\n'], [{ data: 'x\ny' }, { data: 'z', id: '3' }]],
  ['CR alone ends lines', ['data: one\r\rdata: two\n\n'], [{ data: 'one' }, { data: 'two' }]],
  ['an unfinished event is not delivered', ['data: a\n\ndata: b\n'], [{ data: 'a' }]],
])('reads SSE: %s', async (_name, chunks, expected) => {
  expect(await events(chunks)).toEqual(expected);
});

test('reads an event of 16 MB that arrives in 16 KB chunks whole', async () => {
  const big = 'x'.repeat(16 * 1024 * 1024);
  const chunks = ['data: '];
  for (let i = 0; i < big.length; i += 16384) chunks.push(big.slice(i, i + 16384));
  chunks.push('\n\n');
  const [event] = await events(chunks);
  expect(event.data.length).toBe(big.length);
});
