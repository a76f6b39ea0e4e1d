import type { DpopReplayCache } from './replay';

/**
 * DPoP (RFC 9449): tokens bound to a key the client holds, each request signed with it. A
 * stolen DPoP-bound token is useless without the key. Accepted by default beside bearer tokens;
 * `false` refuses the `DPoP` scheme.
 */
export interface DpopOptions {
  /**
   * Refuse bearer tokens: every request needs a DPoP-bound token and its proof. Default false.
   * A token bound to a key is refused as a bearer token either way.
   */
  readonly required?: boolean;
  /** Proof signing algorithms accepted (asymmetric only); default ES256, ES384, ES512, PS256/384/512, RS256/384/512, EdDSA, Ed25519. */
  readonly algorithms?: readonly string[];
  /** How far a proof's `iat` may be from this server's clock, either way, in seconds; default 60. */
  readonly proofWindowSec?: number;
  /**
   * Where proofs already used are remembered until they are too old to pass the `iat` check;
   * default this process's memory (100,000 proofs). Replicas share one so that a proof used at
   * one is refused at the others.
   */
  readonly replayCache?: DpopReplayCache;
  /**
   * Server-issued nonces (RFC 9449 §8, §9): a proof must carry a nonce this server gave, which
   * limits a proof made in advance to the nonce's lifetime. `true` or settings; default off.
   */
  readonly nonce?: boolean | DpopNonceOptions;
}

/**
 * The settings of DPoP's server-issued nonces (`dpop.nonce`): how long one lasts, and the
 * secret that derives them.
 */
export interface DpopNonceOptions {
  /** A nonce is issued for this long and accepted for up to twice as long; default 300 s. */
  readonly lifetimeSec?: number;
  /**
   * Derives the nonces, so replicas given the same secret accept each other's (at least 32
   * characters or bytes). Default: signIn's secret; for `auth`, one random per process.
   */
  readonly secret?: string | Uint8Array;
}
