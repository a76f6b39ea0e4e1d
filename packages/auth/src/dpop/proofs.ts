import { calculateJwkThumbprint, decodeProtectedHeader, EmbeddedJWK, errors, jwtVerify } from 'jose';
import type { JWK, JWTPayload } from 'jose';
import { base64url } from '../signin/tokens/secrets';
import type { DpopNonces } from './nonces';
import type { DpopReplayCache } from './replay';

/** A proof is refused: `invalid_dpop_proof`, or `use_dpop_nonce` when it lacks a current nonce. */
export class DpopProofError extends Error {
  constructor(
    readonly code: 'invalid_dpop_proof' | 'use_dpop_nonce',
    message: string,
  ) {
    super(message);
    this.name = 'DpopProofError';
  }
}

/** What a request is, for its proof: the method, and the URL the client used, without query. */
export interface ProofTarget {
  readonly method: string;
  /** Absolute: compared with `htu` after both are normalized, query and fragment left out. */
  readonly url: string;
  /** The access token presented with the proof: `ath` must be its hash. */
  readonly accessToken?: string;
}

/** A proof that passed: the RFC 7638 thumbprint of its key. */
export interface VerifiedProof {
  readonly jkt: string;
}

/** The checked DPoP settings, shared by the resource server and the token endpoint. */
export interface DpopSettings {
  readonly required: boolean;
  readonly algorithms: readonly string[];
  readonly windowSec: number;
  readonly replayCache: DpopReplayCache;
  readonly nonces: DpopNonces | undefined;
  readonly now: () => number;
}

/** Members only a private or symmetric JWK has (RFC 7518 §6.2.2, §6.3.2, §6.4; RFC 8037). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
/** Longest proof read: a proof with an RSA-4096 key is under 2 KiB. */
const MAX_PROOF_LENGTH = 8192;
/** Longest `jti` remembered: enough for any random id, and the replay cache stays bounded. */
const MAX_JTI_LENGTH = 256;

/**
 * Checks DPoP proofs (RFC 9449 §4.3): one well-formed JWT of `typ` `dpop+jwt`, signed by an
 * accepted asymmetric algorithm with the public key in its `jwk` header; `htm` and `htu` those
 * of the request; `iat` within the window; a nonce when nonces are on; `ath` the token's hash
 * when a token comes with it; its `jti` never seen before.
 */
export class DpopProofs {
  constructor(readonly settings: DpopSettings) {}

  async verify(header: string | null, target: ProofTarget): Promise<VerifiedProof> {
    const refuse = (why: string) => new DpopProofError('invalid_dpop_proof', `Invalid DPoP proof: ${why}`);
    if (header === null || header === '') throw refuse('the request has no DPoP header');
    // Two DPoP headers arrive joined by a comma, which no JWT contains.
    if (header.length > MAX_PROOF_LENGTH || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(header)) throw refuse('the DPoP header must be one signed JWT');
    let jwk: JWK;
    try {
      jwk = decodeProtectedHeader(header).jwk as JWK;
    } catch {
      throw refuse('its header cannot be read');
    }
    if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) throw refuse('its header has no jwk');
    if (PRIVATE_MEMBERS.some((member) => member in jwk)) throw refuse('its jwk is not a public key');
    let payload: JWTPayload;
    const { settings } = this;
    try {
      ({ payload } = await jwtVerify(header, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: [...settings.algorithms], requiredClaims: ['jti', 'iat', 'htm', 'htu'] }));
    } catch (error) {
      throw refuse(reasonOf(error));
    }
    if (payload.htm !== target.method) throw refuse(`htm is ${String(payload.htm)}, not the request's method ${target.method}`);
    if (typeof payload.htu !== 'string' || !sameTarget(payload.htu, target.url)) throw refuse(`htu is ${String(payload.htu)}, not the request's URL ${withoutQuery(target.url)}`);
    const now = settings.now() / 1000;
    const iat = payload.iat!;
    if (Math.abs(now - iat) > settings.windowSec) throw refuse(`iat is ${Math.round(iat - now)} s from the server's clock; at most ${settings.windowSec} s either way`);
    if (settings.nonces !== undefined && (typeof payload.nonce !== 'string' || !(await settings.nonces.accepts(payload.nonce)))) {
      throw new DpopProofError('use_dpop_nonce', payload.nonce === undefined ? 'A DPoP nonce is required: sign the proof again with the DPoP-Nonce given' : 'The DPoP nonce is unknown or expired: sign the proof again with the DPoP-Nonce given');
    }
    if (target.accessToken !== undefined && payload.ath !== (await tokenHash(target.accessToken))) throw refuse('ath is not the hash of the access token it comes with');
    if (typeof payload.jti !== 'string' || payload.jti === '' || payload.jti.length > MAX_JTI_LENGTH) throw refuse(`jti must be a string of 1 to ${MAX_JTI_LENGTH} characters`);
    const jkt = await calculateJwkThumbprint(jwk, 'sha256');
    // Remembered until the proof is too old to pass the iat check anyway; a replay elsewhere needs the same key, hence the thumbprint.
    if (!(await settings.replayCache.add(`${jkt}.${payload.jti}`, (iat + settings.windowSec) * 1000 + 1000))) throw refuse('it was used before (jti)');
    return { jkt };
  }
}

/** base64url(SHA-256(token)): a proof's `ath` (RFC 9449 §4.2). */
export async function tokenHash(token: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token))));
}

/** Whether `htu` names `url`: scheme, host, port and path, normalized as URLs are (RFC 9449 §4.3 step 9). */
function sameTarget(htu: string, url: string): boolean {
  if (!URL.canParse(htu)) return false;
  const claimed = new URL(htu);
  const actual = new URL(url);
  return claimed.origin === actual.origin && claimed.pathname === actual.pathname;
}

function withoutQuery(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

function reasonOf(error: unknown): string {
  if (error instanceof errors.JOSEAlgNotAllowed) return 'its algorithm is not accepted (asymmetric ones only)';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'its signature does not verify with its jwk';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'typ') return 'its typ must be dpop+jwt';
    return `the claim ${error.claim} is ${error.reason === 'missing' ? 'missing' : 'invalid'}`;
  }
  if (error instanceof errors.JWTExpired) return 'it has expired';
  if (error instanceof errors.JOSEError) return `it is not a valid signed JWT with a public jwk (${error.message})`;
  return 'it cannot be verified';
}
