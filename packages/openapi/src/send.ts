import type { HttpRequest } from './request';

/** What the API answered, body read in full. */
export interface HttpAnswer {
  readonly status: number;
  readonly statusText: string;
  readonly contentType: string;
  readonly body: Uint8Array;
  readonly url: string;
}

/** An answer, or why there is none: a message for the model. */
export type Sent = { readonly answer: HttpAnswer } | { readonly failure: string };

/**
 * Sends the request; `signal` (the MCP request's) aborts it, and so does the timeout. A
 * cancelled MCP request rethrows: nobody waits for its result.
 */
export async function send(fetchFn: typeof fetch, request: HttpRequest, signal: AbortSignal, timeoutMs: number): Promise<Sent> {
  const controller = new AbortController();
  const cancel = () => controller.abort(signal.reason);
  if (signal.aborted) cancel();
  else signal.addEventListener('abort', cancel, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error('timed out'));
  }, timeoutMs);
  const label = `${request.method} ${withoutQuery(request.url)}`;
  try {
    const response = await fetchFn(request.url, { method: request.method, headers: request.headers, body: request.body, signal: controller.signal, redirect: 'follow' });
    const body = new Uint8Array(await response.arrayBuffer());
    return { answer: { status: response.status, statusText: response.statusText, contentType: response.headers.get('content-type') ?? '', body, url: request.url } };
  } catch (error) {
    if (signal.aborted) throw error;
    if (timedOut) return { failure: `${label} did not answer within ${timeoutMs} ms` };
    return { failure: `${label} failed: ${causeOf(error)}` };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', cancel);
  }
}

/** fetch's own message ("fetch failed") says little; its cause says what (ECONNREFUSED, a DNS failure…). */
function causeOf(error: unknown): string {
  const cause = (error as { cause?: unknown })?.cause;
  const message = (value: unknown) => (typeof (value as Error)?.message === 'string' ? (value as Error).message : String(value));
  return cause === undefined ? message(error) : `${message(error)} (${message(cause)})`;
}

/** The query may carry secrets (API keys): messages leave it out. */
export function withoutQuery(url: string): string {
  const at = url.indexOf('?');
  return at < 0 ? url : url.slice(0, at);
}
