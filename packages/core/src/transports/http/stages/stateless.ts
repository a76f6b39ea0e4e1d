import type { Endpoint } from '../endpoint';
import { HttpError, NO_HEADERS } from '../HttpReply';
import { HttpSessionTransport } from '../HttpSessionTransport';
import type { StageRun } from '../pipeline';
import { ACCEPTED } from './alone';
import { versionOf } from './post';

const ONLY_POST = Object.freeze({ allow: 'POST' });

/** `get` of a stateless server: there is no stream outside requests. */
export const refuseStream: StageRun = (request) => {
  if (request.method !== 'GET') return undefined;
  throw new HttpError(405, 'Method Not Allowed: a stateless server has no stream for messages outside requests', -32000, ONLY_POST);
};

/** `delete` of a stateless server: there is no session to end. */
export const refuseDelete: StageRun = (request) => {
  if (request.method !== 'DELETE') return undefined;
  throw new HttpError(405, 'Method Not Allowed: a stateless server has no sessions', -32000, ONLY_POST);
};

/**
 * `stateless`: a handshake-era POST to a server without sessions is served on a connection of
 * its own that lives as long as its answer; `initialize` is answered and forgotten.
 */
export function serveStateless(endpoint: Endpoint): StageRun {
  return async (request) => {
    const { payload, requestIds, initialize } = request;
    const incoming = request.incoming;
    const transport = new HttpSessionTransport(undefined, undefined, undefined, { refusal: endpoint.refusal, oneShot: true });
    await endpoint.host.connect(transport, initialize ? {} : { assumeProtocolVersion: versionOf(incoming) });
    if (requestIds.length === 0 || incoming.gone) {
      if (requestIds.length === 0) transport.deliver(payload, request.messageInfo());
      void transport.close();
      return ACCEPTED;
    }
    incoming.onGone(() => void transport.close());
    // The transport closes itself once the answer is complete.
    return endpoint.answer(transport.deliverRequests(payload, requestIds, NO_HEADERS, request.messageInfo()));
  };
}
