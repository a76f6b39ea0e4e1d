import type { LegacySseSessions } from '../LegacySseSessions';
import type { StageRun } from '../pipeline';
import { readJson } from './post';

/** `legacy-sse`: the 2024-11-05 HTTP+SSE transport answers on its two paths (its stream, and the POSTs to it). */
export function serveLegacySse(legacy: LegacySseSessions): StageRun {
  return (request) => (legacy.owns(request.pathname) ? legacy.handle(request.incoming, request.pathname, () => readJson(request), request.principal) : undefined);
}
