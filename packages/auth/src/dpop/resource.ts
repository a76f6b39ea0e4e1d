import { AccessDeniedError } from '@typemcp/core';
import type { AccessGuard, AuthChallenge, AuthChallengeReply, HttpRequestInfo, Principal } from '@typemcp/core';
import { DpopProofError, DpopProofs } from './proofs';
import type { DpopSettings } from './proofs';

/** Writes one challenge of `scheme` (`Bearer` or `DPoP`) with the resource's parameters and `extra`. */
export type ChallengeWriter = (scheme: string, challenge: Pick<AuthChallenge, 'scopes' | 'description'> & { error?: string }, extra: readonly string[]) => string;

const CREDENTIALS = /^(Bearer|DPoP) +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * The resource server's side of DPoP, shared by `auth` and `signIn`: reads the credentials of a
 * request (`Bearer` or `DPoP`), checks a DPoP proof and that the token is bound to its key
 * (`cnf.jkt`, RFC 9449 §7), refuses a bound token presented as a bearer token, and writes the
 * challenges. Undefined settings: DPoP is off, bearer tokens only.
 */
export class ResourceDpop {
  private readonly proofs: DpopProofs | undefined;

  constructor(
    readonly settings: DpopSettings | undefined,
    /** The resource's origin: the `htu` of a proof is this and the request's path (the URL the client used). */
    private readonly origin: string,
  ) {
    this.proofs = settings && new DpopProofs(settings);
  }

  /** The principal of the request's token (`verify` checks the token itself), or undefined without credentials. */
  async authenticate(req: HttpRequestInfo, verify: (token: string) => Promise<Principal>): Promise<Principal | undefined> {
    const authorization = req.headers.get('authorization');
    if (authorization === null || authorization === '') return undefined;
    const match = CREDENTIALS.exec(authorization);
    if (match === null || (this.proofs === undefined && match[1].toLowerCase() !== 'bearer')) {
      const dpop = this.proofs !== undefined && /^dpop /i.test(authorization);
      throw new AccessDeniedError('invalid_token', `Invalid token: the Authorization header must be "${dpop ? 'DPoP' : 'Bearer'} <token>"`);
    }
    const token = match[2];
    if (match[1].toLowerCase() === 'bearer') {
      if (this.settings?.required) throw refusal('Invalid token: this server accepts DPoP-bound tokens only; present one with the DPoP scheme and a proof');
      const principal = await verify(token);
      // Accepted as a bearer token, a bound token would be worth as much to a thief as to its holder.
      if (boundKey(principal) !== undefined) throw refusal('Invalid token: it is bound to a DPoP key (cnf.jkt); present it with the DPoP scheme and a proof');
      return principal;
    }
    let jkt: string;
    try {
      ({ jkt } = await this.proofs!.verify(req.headers.get('dpop'), { method: req.method, url: this.origin + pathOf(req.url), accessToken: token }));
    } catch (error) {
      if (!(error instanceof DpopProofError)) throw error;
      const nonce = error.code === 'use_dpop_nonce' ? await this.settings!.nonces!.current() : undefined;
      throw refusal(error.message, error.code, nonce);
    }
    let principal: Principal;
    try {
      principal = await verify(token);
    } catch (error) {
      if (error instanceof AccessDeniedError) throw new AccessDeniedError(error.reason, error.message, { challenge: { scheme: 'DPoP' } });
      throw error;
    }
    const bound = boundKey(principal);
    if (bound === undefined) throw refusal('Invalid token: it is not bound to a DPoP key (no cnf.jkt); present it with the Bearer scheme');
    if (bound !== jkt) throw refusal('Invalid token: the DPoP proof is signed by another key than the one the token is bound to (cnf.jkt)');
    return principal;
  }

  /**
   * The challenges of a refusal. A refusal of DPoP credentials, or any when DPoP is required,
   * gets a `DPoP` challenge naming the algorithms (and the error), with the `Bearer` one beside
   * it while bearer tokens are accepted; other refusals get the `Bearer` challenge alone, as
   * clients without DPoP know it. A nonce to use goes in `DPoP-Nonce`.
   */
  challenge(challenge: AuthChallenge, write: ChallengeWriter): string | AuthChallengeReply {
    const params = challenge.params ?? {};
    const settings = this.settings;
    if (settings === undefined || (params.scheme !== 'DPoP' && !settings.required)) return write('Bearer', challenge, []);
    const dpop = write('DPoP', { ...challenge, error: params.error ?? challenge.error }, [`algs="${settings.algorithms.join(' ')}"`]);
    const value = settings.required ? dpop : `${dpop}, ${write('Bearer', { scopes: challenge.scopes }, [])}`;
    return params.nonce === undefined ? value : { wwwAuthenticate: value, headers: { 'dpop-nonce': params.nonce } };
  }
}

/** A 401 whose challenge is DPoP's: `error` is invalid_token unless the proof's own error is given. */
function refusal(message: string, error?: string, nonce?: string): AccessDeniedError {
  const challenge: Record<string, string> = { scheme: 'DPoP' };
  if (error !== undefined) challenge.error = error;
  if (nonce !== undefined) challenge.nonce = nonce;
  return new AccessDeniedError('invalid_token', message, { challenge });
}

/** The thumbprint of the key the principal's token is bound to (`cnf.jkt`), if it is. */
export function boundKey(principal: Principal): string | undefined {
  const cnf = principal.claims.cnf as { jkt?: unknown } | undefined;
  return typeof cnf === 'object' && cnf !== null && typeof cnf.jkt === 'string' ? cnf.jkt : undefined;
}

/**
 * An access guard for a tool, resource or prompt that only DPoP-bound tokens may use
 * (`@Guard(dpopBound)`): a bound token gets this far only with a proof of its key, so a
 * bearer token, even a valid one, is refused (403) and does not see the target.
 */
export const dpopBound: AccessGuard = ({ principal }) => boundKey(principal) !== undefined;

/** The path of a request URL: absolute (a `Request`'s), or the path and query Node gives. */
function pathOf(url: string): string {
  if (!url.startsWith('/')) return URL.canParse(url) ? new URL(url).pathname : `/${url}`;
  const end = url.search(/[?#]/);
  return end === -1 ? url : url.slice(0, end);
}
