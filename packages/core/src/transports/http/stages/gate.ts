import type { Endpoint, HttpServerHost } from '../endpoint';
import { HttpError, jsonReply } from '../HttpReply';
import type { HttpReply } from '../HttpReply';
import type { LegacySseSessions } from '../LegacySseSessions';
import type { StageRun } from '../pipeline';
import { checkRequestOrigin } from '../security';
import type { HttpSecurityOptions } from '../security';

/**
 * `readiness`: a GET or HEAD of `readinessPath` answers whether this replica can serve. First,
 * since a load balancer asks it of a replica that may be closing or cut off from its stores.
 */
export function answerReadiness(endpoint: Endpoint, readinessPath: string): StageRun {
  return (request) => {
    if (request.pathname !== readinessPath || (request.method !== 'GET' && request.method !== 'HEAD')) return undefined;
    const reported = endpoint.host.readiness();
    const readiness = endpoint.closing ? { ...reported, ready: false } : reported;
    return jsonReply(readiness.ready ? 200 : 503, readiness, readiness.ready ? NOT_STORED : NOT_READY);
  };
}

const NOT_STORED: Readonly<Record<string, string>> = Object.freeze({ 'cache-control': 'no-store' });
const NOT_READY: Readonly<Record<string, string>> = Object.freeze({ 'cache-control': 'no-store', 'retry-after': '1' });

/** `available`: nothing new is served once the handler closes. */
export function refuseWhileClosing(endpoint: Endpoint): StageRun {
  return () => {
    if (endpoint.closing) throw new HttpError(503, 'Server is shutting down');
    return undefined;
  };
}

/** `available` of a cluster's replica: as `refuseWhileClosing`, and the first requests wait until the shared sessions are heard. */
export function refuseWhileClosingOrUnshared(endpoint: Endpoint, shared: { readonly ready: Promise<void> }): StageRun {
  let ready = false;
  const heard = () => {
    ready = true;
    return undefined;
  };
  return () => {
    if (endpoint.closing) throw new HttpError(503, 'Server is shutting down');
    return ready ? undefined : shared.ready.then(heard);
  };
}

/** `documents`: a GET of a path the authentication publishes (RFC 9728 metadata), before any check. */
export function serveDocuments(host: HttpServerHost): StageRun {
  return (request) => {
    if (request.method !== 'GET') return undefined;
    const document = host.authentication?.documents?.get(request.pathname);
    return document ? documentReply(document) : undefined;
  };
}

function documentReply(document: Readonly<Record<string, unknown>>): HttpReply {
  // Metadata is public and read by browser-based clients from other origins.
  return jsonReply(200, document, { 'access-control-allow-origin': '*', 'cache-control': 'public, max-age=3600' });
}

/** `origin`: a Host or Origin the endpoint does not accept gets 403 (DNS rebinding, cross-site requests). */
export function checkOrigin(security: HttpSecurityOptions): StageRun {
  return (request) => {
    const refused = checkRequestOrigin(request, security);
    if (refused) throw new HttpError(403, `Forbidden: ${refused}`);
    return undefined;
  };
}

/** `path`: with a `path` option, any other path (but the legacy transport's) gets 404. */
export function onlyAt(path: string, legacy: LegacySseSessions | undefined): StageRun {
  return (request) => {
    if (request.pathname !== path && !legacy?.owns(request.pathname)) throw new HttpError(404, `Not found: ${request.pathname}`);
    return undefined;
  };
}
