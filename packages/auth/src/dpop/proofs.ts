import { calculateJwkThumbprint, EmbeddedJWK, errors, jwtVerify } from 'jose';
import type { CryptoKey, FlattenedJWSInput, JWK, JWSHeaderParameters, JWTPayload } from 'jose';
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
/** Proof keys kept imported, by the proof header that carries them: a client signs every proof under the same header. */
const MAX_CACHED_KEYS = 1000;
/** Access token hashes kept (`ath`): a client presents the same token with many proofs. */
const MAX_CACHED_HASHES = 1000;

interface ProofKey {
  readonly key: CryptoKey;
  readonly jkt: string;
}

/**
 * Checks DPoP proofs (RFC 9449 §4.3): one well-formed JWT of `typ` `dpop+jwt`, signed by an
 * accepted asymmetric algorithm with the public key in its `jwk` header; `htm` and `htu` those
 * of the request; `iat` within the window; a nonce when nonces are on; `ath` the token's hash
 * when a token comes with it; its `jti` never seen before.
 */
export class DpopProofs {
  private readonly keys = new Map<string, Promise<ProofKey>>();
  /** The keys of `keys` once imported. */
  private readonly imported = new Map<string, ProofKey>();
  private readonly hashes = new Map<string, string>();
  private readonly verifyOptions;

  constructor(readonly settings: DpopSettings) {
    this.verifyOptions = { typ: 'dpop+jwt', algorithms: [...settings.algorithms], requiredClaims: ['jti', 'iat', 'htm', 'htu'] };
  }

  async verify(header: string | null, target: ProofTarget): Promise<VerifiedProof> {
    const refuse = (why: string) => new DpopProofError('invalid_dpop_proof', `Invalid DPoP proof: ${why}`);
    if (header === null || header === '') throw refuse('the request has no DPoP header');
    // Two DPoP headers arrive joined by a comma, which no JWT contains.
    if (header.length > MAX_PROOF_LENGTH || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(header)) throw refuse('the DPoP header must be one signed JWT');
    let payload: JWTPayload;
    const { settings } = this;
    // jose checks the typ, alg and signature of every proof; the key is imported once per header
    // (a client's proofs all have the same), and a key known already is passed as it is.
    const known = this.imported.get(header.slice(0, header.indexOf('.')));
    let jkt = known?.jkt ?? '';
    try {
      const keyOf = async (protectedHeader: JWSHeaderParameters, token: FlattenedJWSInput) => {
        const imported = await this.keyOf(protectedHeader, token);
        jkt = imported.jkt;
        return imported.key;
      };
      ({ payload } = await jwtVerify(header, known?.key ?? keyOf, this.verifyOptions));
    } catch (error) {
      throw error instanceof DpopProofError ? error : refuse(reasonOf(error));
    }
    if (payload.htm !== target.method) throw refuse(`htm is ${String(payload.htm)}, not the request's method ${target.method}`);
    if (typeof payload.htu !== 'string' || (payload.htu !== target.url && !sameTarget(payload.htu, target.url))) throw refuse(`htu is ${String(payload.htu)}, not the request's URL ${withoutQuery(target.url)}`);
    const now = settings.now() / 1000;
    const iat = payload.iat!;
    if (Math.abs(now - iat) > settings.windowSec) throw refuse(`iat is ${Math.round(iat - now)} s from the server's clock; at most ${settings.windowSec} s either way`);
    if (settings.nonces !== undefined && (typeof payload.nonce !== 'string' || !(await settings.nonces.accepts(payload.nonce)))) {
      throw new DpopProofError('use_dpop_nonce', payload.nonce === undefined ? 'A DPoP nonce is required: sign the proof again with the DPoP-Nonce given' : 'The DPoP nonce is unknown or expired: sign the proof again with the DPoP-Nonce given');
    }
    if (target.accessToken !== undefined && payload.ath !== (await this.hashOf(target.accessToken))) throw refuse('ath is not the hash of the access token it comes with');
    if (typeof payload.jti !== 'string' || payload.jti === '' || payload.jti.length > MAX_JTI_LENGTH) throw refuse(`jti must be a string of 1 to ${MAX_JTI_LENGTH} characters`);
    // Remembered until the proof is too old to pass the iat check anyway; a replay elsewhere needs the same key, hence the thumbprint.
    if (!(await settings.replayCache.add(`${jkt}.${payload.jti}`, (iat + settings.windowSec) * 1000 + 1000))) throw refuse('it was used before (jti)');
    return { jkt };
  }

  /** The public key of a proof's `jwk` header and its RFC 7638 thumbprint, imported once per header. */
  private keyOf(protectedHeader: JWSHeaderParameters, token: FlattenedJWSInput): Promise<ProofKey> {
    const cacheKey = token.protected ?? '';
    let known = this.keys.get(cacheKey);
    if (known === undefined) {
      known = (async () => {
        const jwk = protectedHeader.jwk as JWK | undefined;
        if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) throw new DpopProofError('invalid_dpop_proof', 'Invalid DPoP proof: its header has no jwk');
        if (PRIVATE_MEMBERS.some((member) => member in jwk)) throw new DpopProofError('invalid_dpop_proof', 'Invalid DPoP proof: its jwk is not a public key');
        const key = (await EmbeddedJWK(protectedHeader, token)) as CryptoKey;
        return { key, jkt: await calculateJwkThumbprint(jwk, 'sha256') };
      })();
      if (this.keys.size >= MAX_CACHED_KEYS) {
        const oldest = this.keys.keys().next().value!;
        this.keys.delete(oldest);
        this.imported.delete(oldest);
      }
      this.keys.set(cacheKey, known);
      known.then(
        (key) => this.keys.get(cacheKey) === known && this.imported.set(cacheKey, key),
        // A header that did not give a key is not kept.
        () => this.keys.delete(cacheKey),
      );
    }
    return known;
  }

  private async hashOf(token: string): Promise<string> {
    let hash = this.hashes.get(token);
    if (hash === undefined) {
      hash = await tokenHash(token);
      if (this.hashes.size >= MAX_CACHED_HASHES) this.hashes.delete(this.hashes.keys().next().value!);
      this.hashes.set(token, hash);
    }
    return hash;
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
