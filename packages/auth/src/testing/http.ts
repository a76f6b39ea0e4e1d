import type { IncomingMessage, ServerResponse } from 'node:http';

/** Larger token requests are refused: a form with a few parameters is all the endpoint reads. */
const MAX_BODY_BYTES = 64 * 1024;

/** An RFC 6749 §5.2 error: the JSON body and status the token endpoint answers with. */
export class OAuthErrorResponse extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(`${error}: ${description}`);
    this.name = 'OAuthErrorResponse';
  }
}

/** Sends a JSON body. Token responses and errors must not be cached (RFC 6749 §5.1). */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(text);
}

/** Sends an OAuth error as `{ error, error_description }`. */
export function sendOAuthError(res: ServerResponse, failure: OAuthErrorResponse): void {
  sendJson(res, failure.status, { error: failure.error, error_description: failure.description }, failure.headers);
}

/**
 * The body of a request as text. Past {@link MAX_BODY_BYTES} the rest is drained unread (so the
 * refusal can still be sent on the socket) and the request is refused with `invalid_request`.
 */
export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  }
  if (size > MAX_BODY_BYTES) throw new OAuthErrorResponse(413, 'invalid_request', `the request body is larger than ${MAX_BODY_BYTES} bytes`);
  return Buffer.concat(chunks).toString('utf8');
}
