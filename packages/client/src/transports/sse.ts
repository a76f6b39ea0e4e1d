/** One Server-Sent Event: its data (lines joined), its id and type when it had them, and the retry it asked for. */
export interface SseEvent {
  readonly data: string;
  readonly id: string | undefined;
  readonly event: string | undefined;
}

/** The largest message read by default, in bytes: a JSON answer's body, or one SSE event's data. */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** A message from the server was longer than the client reads. */
export class MessageTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`a message larger than ${limit} bytes`);
    this.name = 'MessageTooLargeError';
  }
}

/**
 * The events of an SSE body, as they arrive (Web streams only). Comments are skipped; an
 * event without data still reports its id (a priming event) through `onId`; a `retry:` field
 * through `onRetry`. The stream's own error is thrown from the iteration, and
 * MessageTooLargeError for an event longer than `maxBytes`.
 */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  maxBytes = MAX_MESSAGE_BYTES,
  hooks: { onId?: (id: string) => void; onRetry?: (ms: number) => void } = {},
): AsyncGenerator<SseEvent> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  const encoder = new TextEncoder();
  let partial = '';
  let data: string[] = [];
  let size = 0;
  let id: string | undefined;
  let event: string | undefined;
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
          size += encoder.encode(text).byteLength;
          if (size > maxBytes) throw new MessageTooLargeError(maxBytes);
        } else if (field === 'id') {
          id = text;
          hooks.onId?.(text);
        } else if (field === 'event') event = text;
        else if (field === 'retry' && /^\d+$/.test(text)) hooks.onRetry?.(Number(text));
      }
      partial += value.slice(start);
      if (size + partial.length > maxBytes) throw new MessageTooLargeError(maxBytes);
      yield* events;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
