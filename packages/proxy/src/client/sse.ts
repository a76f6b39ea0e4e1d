/** One Server-Sent Event: its data (lines joined), and its id when it had one. */
export interface SseEvent {
  readonly data: string;
  readonly id: string | undefined;
  readonly event: string | undefined;
}

/**
 * The largest message read from an upstream by default, in bytes (UTF-8, after any
 * decompression): a JSON answer's body, or one SSE event's data. Past it the body is cancelled.
 */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** A message from the upstream was longer than the proxy reads. */
export class MessageTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`a message larger than ${limit} bytes`);
    this.name = 'MessageTooLargeError';
  }
}

/**
 * The events of an SSE body, as they arrive. Comments and events without data are skipped;
 * the stream's own error (the connection broke) is thrown from the iteration, and so is
 * MessageTooLargeError for an event (or a line) longer than `maxBytes`, after the body is
 * cancelled. Each chunk is scanned once: a large event costs time in proportion to its length.
 */
export async function* readSse(body: ReadableStream<Uint8Array>, maxBytes = MAX_MESSAGE_BYTES): AsyncGenerator<SseEvent> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  /** The part of the current line that arrived in earlier chunks, and its size in bytes. */
  let partial = '';
  let partialBytes = 0;
  let data: string[] = [];
  /** The bytes of the current event's data. */
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
        partialBytes = 0;
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
          size += Buffer.byteLength(text);
          if (size > maxBytes) throw new MessageTooLargeError(maxBytes);
        } else if (field === 'id') id = text;
        else if (field === 'event') event = text;
      }
      const rest = value.slice(start);
      partial += rest;
      partialBytes += Buffer.byteLength(rest);
      if (size + partialBytes > maxBytes) throw new MessageTooLargeError(maxBytes);
      yield* events;
    }
  } finally {
    // Cancelled through the decoder: the body itself is locked to it (its own cancel() would fail, and leave the connection open).
    await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
