/** An error answered with an HTTP status (and a JSON-RPC error body of `rpcCode`). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly rpcCode = -32000,
    /** Headers of the answer, e.g. `allow` of a 405. */
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(message);
  }
}

/** Where the text of an event stream goes: the Node response being written, or the body a fetch `Response` streams. */
export interface SseSink {
  write(chunk: string): void;
  end(): void;
}

/**
 * A body of server-sent events. The adapter opens it with a sink once the head is sent and
 * closes it when the client goes away; what was written before it opened waits for it.
 */
export interface EventBody {
  open(sink: SseSink): void;
  /** The client reading `sink` (or, without one, the reply never opened) went away: nothing more is written to it. */
  close(sink?: SseSink): void;
}

/** What the HTTP core answers: a status, headers, and a JSON text, an event stream, or nothing. */
export interface HttpReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | EventBody;
}

/** An HTTP field value a host writes: tab, visible ASCII, space and obs-text, no control characters. */
export const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
};

export function jsonReply(status: number, body: unknown, headers?: Readonly<Record<string, string>>): HttpReply {
  return { status, headers: headers === undefined ? JSON_HEADERS : withJsonType(headers), body: JSON.stringify(body) };
}

const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'content-type': 'application/json' });

/** No headers of a reply's own: a constant, so the JSON headers need not be made again. */
export const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** Headers with the JSON content type: made once for each of the core's constant header sets, per reply for the others. */
const jsonHeaders = new WeakMap<object, Readonly<Record<string, string>>>([[NO_HEADERS, JSON_HEADERS]]);
function withJsonType(headers: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  if (!Object.isFrozen(headers)) return { ...JSON_HEADERS, ...headers };
  let merged = jsonHeaders.get(headers);
  if (!merged) jsonHeaders.set(headers, (merged = Object.freeze({ ...JSON_HEADERS, ...headers })));
  return merged;
}

/** The answer to a failure before any request was served: its status, and a JSON-RPC error without an id. */
export function errorReply(error: unknown): HttpReply {
  const status = error instanceof HttpError ? error.status : 500;
  const code = error instanceof HttpError ? error.rpcCode : -32603;
  const message = error instanceof HttpError ? error.message : 'Internal error';
  return jsonReply(status, { jsonrpc: '2.0', error: { code, message } }, error instanceof HttpError ? error.headers : undefined);
}
