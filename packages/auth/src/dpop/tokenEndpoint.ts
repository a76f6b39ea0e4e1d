import type { HttpStageReply, HttpStageRequest } from '@typemcp/core';
import { oauthError } from '../signin/http';
import type { ServerParts } from '../signin/parts';
import { DpopProofError } from './proofs';

/**
 * The DPoP proof of a token request (RFC 9449 §5): the thumbprint of its key, undefined when
 * the request has none (or DPoP is off), or the error to answer: `invalid_dpop_proof`, or
 * `use_dpop_nonce` with a `DPoP-Nonce` to sign the next proof with.
 */
export async function tokenRequestKey(parts: ServerParts, request: HttpStageRequest): Promise<{ jkt: string | undefined } | HttpStageReply> {
  const header = request.headers.get('dpop');
  if (parts.dpop === undefined || header === null) return { jkt: undefined };
  try {
    return { jkt: (await parts.dpop.verify(header, { method: request.method, url: parts.settings.endpoints.token })).jkt };
  } catch (error) {
    if (!(error instanceof DpopProofError)) throw error;
    if (error.code === 'use_dpop_nonce') return oauthError(400, 'use_dpop_nonce', error.message, { 'dpop-nonce': await parts.dpop.settings.nonces!.current() });
    return oauthError(400, 'invalid_dpop_proof', error.message);
  }
}
