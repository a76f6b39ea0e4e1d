import type { HttpRequestInfo } from '../../protocol';

/**
 * Which Host and Origin headers an HTTP endpoint accepts, against DNS rebinding and cross-site
 * requests; others get 403. By default, loopback ones only.
 */
export interface HttpSecurityOptions {
  /**
   * Host header values accepted (with or without port). Defaults to loopback names, which
   * stops DNS-rebinding attacks on a server bound to 127.0.0.1. Pass `false` to accept any
   * host (only behind a proxy that checks it).
   */
  allowedHosts?: string[] | false;
  /** Origin header values accepted (e.g. `https://app.example.com`). Requests without Origin pass. Default: loopback origins. */
  allowedOrigins?: string[] | false;
}

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

/** Returns why the request must be refused (403), or undefined when it may proceed. */
export function checkRequestOrigin(req: HttpRequestInfo, options: HttpSecurityOptions): string | undefined {
  const allowedHosts = options.allowedHosts ?? LOOPBACK_HOSTS;
  if (allowedHosts !== false) {
    // A Request built without a Host header (a test, a fetch-based host) still names its host in its URL.
    const host = req.headers.get('host') ?? hostOfUrl(req.url);
    if (!host || !matchesHost(host, allowedHosts)) return `Host ${JSON.stringify(host ?? '')} is not allowed`;
  }
  const origin = req.headers.get('origin');
  const allowedOrigins = options.allowedOrigins;
  if (origin !== null && allowedOrigins !== false) {
    const ok = allowedOrigins ? allowedOrigins.includes(origin) : isLoopbackOrigin(origin);
    if (!ok) return `Origin ${JSON.stringify(origin)} is not allowed`;
  }
  return undefined;
}

/** The last host checked against a list, and the answer: clients send the same Host again and again. */
let lastChecked: { host: string; allowed: string[]; matches: boolean } | undefined;

function matchesHost(host: string, allowed: string[]): boolean {
  if (lastChecked !== undefined && lastChecked.host === host && lastChecked.allowed === allowed) return lastChecked.matches;
  const matches = hostIn(host, allowed);
  lastChecked = { host, allowed, matches };
  return matches;
}

function hostIn(host: string, allowed: string[]): boolean {
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0];
  return allowed.some((entry) => entry === host || entry === name);
}

function isLoopbackOrigin(origin: string): boolean {
  try {
    const url = new URL(origin);
    return LOOPBACK_HOSTS.includes(url.hostname) || url.hostname === '[::1]' || url.hostname === '::1';
  } catch {
    return false;
  }
}

/** The host (and port) of an absolute URL; undefined for a path. */
function hostOfUrl(url: string): string | undefined {
  const scheme = url.indexOf('://');
  if (scheme < 0) return undefined;
  const end = url.slice(scheme + 3).search(/[/?#]/);
  return end < 0 ? url.slice(scheme + 3) : url.slice(scheme + 3, scheme + 3 + end);
}
