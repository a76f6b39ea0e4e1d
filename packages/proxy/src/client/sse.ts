/** One Server-Sent Event: its data (lines joined), and its id when it had one. */
export interface SseEvent {
  readonly data: string;
  readonly id: string | undefined;
  readonly event: string | undefined;
}

/** The longest event read: a stream that sends more in one event is broken off. */
const MAX_EVENT_CHARS = 64 * 1024 * 1024;

/**
 * The events of an SSE body, as they arrive. Comments and events without data are skipped;
 * the stream's own error (the connection broke) is thrown from the iteration. Each chunk is
 * scanned once: a large event costs time in proportion to its length.
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  /** The part of the current line that arrived in earlier chunks. */
  let partial = '';
  let data: string[] = [];
  let size = 0;
  let id: string | undefined;
  let event: string | undefined;
  /** A chunk ended with CR: a LF at the start of the next one belongs to it. */
  let afterCr = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      let start = afterCr && value.startsWith('\n') ? 1 : 0;
      afterCr = false;
      const events: SseEvent[] = [];
      for (let i = start; i < value.length; i++) {
        const char = value.charCodeAt(i);
        if (char !== 10 && char !== 13) continue;
        const line = partial + value.slice(start, i);
        partial = '';
        if (char === 13) {
          if (i + 1 < value.length) {
            if (value.charCodeAt(i + 1) === 10) i++;
          } else afterCr = true;
        }
        start = i + 1;
        if (line === '') {
          if (data.length > 0) events.push({ data: data.join('\n'), id, event });
          data = [];
          size = 0;
          event = undefined;
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const text = colon < 0 ? '' : line.slice(colon + (line[colon + 1] === ' ' ? 2 : 1));
        if (field === 'data') {
          data.push(text);
          size += text.length;
        } else if (field === 'id') id = text;
        else if (field === 'event') event = text;
      }
      partial += value.slice(start);
      if (size + partial.length > MAX_EVENT_CHARS) throw new Error(`an SSE event longer than ${MAX_EVENT_CHARS} characters`);
      yield* events;
    }
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => undefined);
  }
}
