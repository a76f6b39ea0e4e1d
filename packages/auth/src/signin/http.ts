import type { HttpStageReply, HttpStageRequest } from '@typemcp/core';

/** Answers that carry secrets or one-time state are never cached (RFC 6749 §5.1). */
const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

/** Endpoints clients call from browsers on other origins (metadata, token, registration, revocation). */
const OPEN_TO_ALL_ORIGINS = { 'access-control-allow-origin': '*' };

export function jsonReply(status: number, body: unknown, headers: Record<string, string> = {}): HttpStageReply {
  return { status, headers: { 'content-type': 'application/json', ...NO_STORE, ...OPEN_TO_ALL_ORIGINS, ...headers }, body: JSON.stringify(body) };
}

/** A public document other origins may read and cache. */
export function documentReply(body: unknown, maxAgeSec: number): HttpStageReply {
  return { status: 200, headers: { 'content-type': 'application/json', 'cache-control': `public, max-age=${maxAgeSec}`, ...OPEN_TO_ALL_ORIGINS }, body: JSON.stringify(body) };
}

/** An OAuth error answered in the body (RFC 6749 §5.2). */
export function oauthError(status: number, error: string, description: string, headers: Record<string, string> = {}): HttpStageReply {
  return jsonReply(status, { error, error_description: description }, headers);
}

/** The preflight of a cross-origin call. */
export function preflightReply(methods: string): HttpStageReply {
  return {
    status: 204,
    headers: {
      ...OPEN_TO_ALL_ORIGINS,
      'access-control-allow-methods': methods,
      'access-control-allow-headers': 'authorization, content-type, mcp-protocol-version, dpop',
      'access-control-max-age': '600',
    },
  };
}

/**
 * Pages: no framing (clickjacking of the consent), no scripts, nothing loaded from elsewhere.
 * No referrer leaves for another site; `same-origin`, not `no-referrer`, because under
 * `no-referrer` browsers send `Origin: null` with the consent form's POST, which the consent
 * endpoint must refuse as cross-site.
 */
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'x-content-type-options': 'nosniff',
  ...NO_STORE,
};

export function htmlReply(status: number, html: string, headers: Record<string, string> = {}): HttpStageReply {
  return { status, headers: { ...PAGE_HEADERS, ...headers }, body: html };
}

/** A redirect of the browser (303: the next request is a GET, whatever this one was). */
export function redirectReply(location: string): HttpStageReply {
  return { status: 303, headers: { location, ...NO_STORE, 'referrer-policy': 'no-referrer' } };
}

/** `url` with `params` added to its query, keeping what it had (RFC 6749 §3.1.2). */
export function withQuery(url: string, params: Record<string, string | undefined>): string {
  const target = new URL(url);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) target.searchParams.append(name, value);
  return target.href;
}

/**
 * The parameters of a form body or query. A parameter sent twice is an error (RFC 6749 §3.1,
 * §3.2): the reason is thrown.
 */
export function singleParams(params: URLSearchParams): Map<string, string> {
  const single = new Map<string, string>();
  for (const [name, value] of params) {
    if (single.has(name)) throw new Error(`the parameter ${name} is given more than once`);
    single.set(name, value);
  }
  return single;
}

/** The form body of a POST; throws when the content type is not a form. */
export async function readForm(request: HttpStageRequest): Promise<URLSearchParams> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(type)) throw new Error('the body must be application/x-www-form-urlencoded');
  return new URLSearchParams(await request.readBody());
}

/** The request's absolute URL, with the issuer's origin for a host that passes only the path. */
export function absoluteUrl(request: HttpStageRequest, origin: string): URL {
  return URL.canParse(request.url) ? new URL(request.url) : new URL(request.url, origin);
}

/** A web `Response` from `authenticate`, as the HTTP handler sends it. */
export async function fromResponse(response: Response): Promise<HttpStageReply> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value;
  });
  const cookies = response.headers.getSetCookie?.() ?? [];
  if (cookies.length > 1) throw new TypeError('authenticate answered a Response with more than one Set-Cookie header; the server sends one');
  if (cookies.length === 1) headers['set-cookie'] = cookies[0];
  const body = response.body === null ? undefined : await response.text();
  return { status: response.status, headers, body };
}
