/** One Server-Sent Event: its data (lines joined), and its id when it had one. */
export interface SseEvent {
  readonly data: string;
  readonly id: string | undefined;
  readonly event: string | undefined;
}

/**
 * The events of an SSE body, as they arrive. Comments and events without data are skipped;
 * the stream's own error (the connection broke) is thrown from the iteration.
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let data: string[] = [];
  let id: string | undefined;
  let event: string | undefined;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let end: number;
      while ((end = lineEnd(buffer)) >= 0) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(buffer[end] === '\r' && buffer[end + 1] === '\n' ? end + 2 : end + 1);
        if (line === '') {
          if (data.length > 0) yield { data: data.join('\n'), id, event };
          data = [];
          event = undefined;
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const text = colon < 0 ? '' : line.slice(colon + (line[colon + 1] === ' ' ? 2 : 1));
        if (field === 'data') data.push(text);
        else if (field === 'id') id = text;
        else if (field === 'event') event = text;
      }
    }
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => undefined);
  }
}

/** Where the first line of `buffer` ends (CR, LF or CRLF), or -1 while it has not. */
function lineEnd(buffer: string): number {
  for (let i = 0; i < buffer.length; i++) {
    const char = buffer[i];
    if (char === '\n') return i;
    // A CR at the very end may be the first half of a CRLF: wait for more.
    if (char === '\r') return i + 1 < buffer.length ? i : -1;
  }
  return -1;
}
