import type { HttpRequest } from './request';
import { MAX_REDIRECTS, REDIRECT_STATUSES } from './redirects';

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

/** Decides whether a call may follow a redirect to another origin (the `allowRedirect` option). */
export type RedirectCheck = (url: string, from: string) => boolean;

/** Headers that describe the body: dropped with it when a redirect makes the call a GET. */
const BODY_HEADERS = new Set(['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location']);

/**
 * Sends the request; `signal` (the MCP request's) aborts it, and so does the timeout (for the
 * whole call, redirects and body included). A cancelled MCP request rethrows: nobody waits
 * for its result.
 *
 * Redirects are followed here, not by fetch: within the API's origin (scheme, host and port)
 * up to MAX_REDIRECTS; to another origin only when `allowRedirect` says so, and then without
 * the request's headers (the operator's keys, the caller's header and cookie parameters): only
 * `accept`, and the body's `content-type` when the body goes along. 303, and 301 or 302 after
 * a POST, make the call a GET without a body; 307 and 308 keep the method and body.
 */
export async function send(fetchFn: typeof fetch, request: HttpRequest, signal: AbortSignal, timeoutMs: number, allowRedirect?: RedirectCheck): Promise<Sent> {
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
    let hop: HttpRequest = request;
    for (let redirects = 0; ; redirects++) {
      const response = await fetchFn(hop.url, { method: hop.method, headers: hop.headers, body: hop.body, signal: controller.signal, redirect: 'manual' });
      if (response.type === 'opaqueredirect') return { failure: `${label} was redirected, and this fetch does not say where (an opaque redirect): not followed` };
      const location = REDIRECT_STATUSES.has(response.status) ? response.headers.get('location') : null;
      if (location === null) {
        const body = new Uint8Array(await response.arrayBuffer());
        return { answer: { status: response.status, statusText: response.statusText, contentType: response.headers.get('content-type') ?? '', body, url: hop.url } };
      }
      await response.body?.cancel().catch(() => undefined);
      if (redirects === MAX_REDIRECTS) return { failure: `${label} was redirected more than ${MAX_REDIRECTS} times` };
      const next = redirected(request, hop, response.status, location, allowRedirect);
      if ('failure' in next) return { failure: `${label} ${next.failure}` };
      hop = next.request;
    }
  } catch (error) {
    if (signal.aborted) throw error;
    if (timedOut) return { failure: `${label} did not answer within ${timeoutMs} ms` };
    return { failure: `${label} failed: ${causeOf(error)}` };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', cancel);
  }
}

/** The request a redirect of `hop` to `location` makes, or why it is not followed. */
function redirected(first: HttpRequest, hop: HttpRequest, status: number, location: string, allowRedirect: RedirectCheck | undefined): { request: HttpRequest } | { failure: string } {
  let target: URL;
  try {
    target = new URL(location, hop.url);
  } catch {
    return { failure: `was redirected to ${JSON.stringify(location.slice(0, 200))}, which is not a URL` };
  }
  if (target.username !== '' || target.password !== '') return { failure: 'was redirected to a URL that carries a user name or password: refused' };
  target.hash = '';
  const shown = withoutQuery(target.href);
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return { failure: `was redirected to ${shown}, which is not http(s): refused` };
  const home = target.origin === new URL(first.url).origin;
  if (!home && !(allowRedirect !== undefined && allowRedirect(target.href, hop.url) === true)) {
    return { failure: `was redirected to ${shown}, on another origin: refused (allowRedirect decides which other origins a call may follow)` };
  }
  const toGet = status === 303 ? hop.method !== 'HEAD' : (status === 301 || status === 302) && hop.method === 'POST';
  const method = toGet ? 'GET' : hop.method;
  const body = toGet ? undefined : hop.body;
  // The first request's headers: a hop to another origin and back is the API again.
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(first.headers)) {
    const lower = name.toLowerCase();
    if (BODY_HEADERS.has(lower)) {
      if (body === undefined || (!home && lower !== 'content-type')) continue;
    } else if (!home && lower !== 'accept') {
      continue;
    }
    headers[name] = value;
  }
  return { request: { url: target.href, method, headers, body } };
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
