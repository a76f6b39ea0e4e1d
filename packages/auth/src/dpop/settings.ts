import { DefinitionError } from '@typemcp/core';
import { DpopNonces } from './nonces';
import type { DpopOptions } from './options';
import type { DpopSettings } from './proofs';
import { MemoryDpopReplayCache } from './replay';

/** The asymmetric JWS algorithms a proof may use (RFC 9449 §11.6: never `none` nor a MAC). */
export const DPOP_ALGORITHMS: readonly string[] = ['ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512', 'RS256', 'RS384', 'RS512', 'EdDSA', 'Ed25519'];

/**
 * The checked DPoP settings of a plugin; undefined when DPoP is off (`false`). `defaultSecret`
 * derives the nonces when the options name no secret; without either each process has its own.
 */
export function dpopSettingsOf(options: DpopOptions | boolean | undefined, plugin: string, now: () => number, defaultSecret?: string | Uint8Array): DpopSettings | undefined {
  const fail = (message: string): never => {
    throw new DefinitionError('INVALID_OPTION', `${plugin}: dpop.${message}`);
  };
  if (options === false) return undefined;
  const given: DpopOptions = options === true || options === undefined ? {} : options;
  if (typeof given !== 'object' || given === null) return fail(`options must be an object, true or false, not ${JSON.stringify(options)}`);
  if (given.required !== undefined && typeof given.required !== 'boolean') fail('required must be true or false');
  const algorithms = given.algorithms ?? DPOP_ALGORITHMS;
  if (!Array.isArray(algorithms) || algorithms.length === 0 || !algorithms.every((alg) => DPOP_ALGORITHMS.includes(alg))) {
    fail(`algorithms must name some of ${DPOP_ALGORITHMS.join(', ')} (asymmetric ones only)`);
  }
  const positive = (name: string, value: number | undefined, fallback: number): number => {
    if (value === undefined) return fallback;
    if (!Number.isInteger(value) || value <= 0) fail(`${name} must be a positive whole number of seconds, not ${String(value)}`);
    return value;
  };
  const windowSec = positive('proofWindowSec', given.proofWindowSec, 60);
  if (given.replayCache !== undefined && typeof given.replayCache?.add !== 'function') fail('replayCache must have add(id, expiresAt)');
  let nonces: DpopNonces | undefined;
  if (given.nonce !== undefined && given.nonce !== false) {
    const nonce = given.nonce === true ? {} : given.nonce;
    if (typeof nonce !== 'object' || nonce === null) fail('nonce must be true, false or { lifetimeSec, secret }');
    const secret = nonce.secret ?? defaultSecret;
    const bytes = secret === undefined ? crypto.getRandomValues(new Uint8Array(32)) : typeof secret === 'string' ? new TextEncoder().encode(secret) : secret;
    if (!(bytes instanceof Uint8Array) || bytes.byteLength < 32) fail('nonce.secret must be at least 32 characters (or bytes)');
    nonces = new DpopNonces(positive('nonce.lifetimeSec', nonce.lifetimeSec, 300), bytes, now);
  }
  return { required: given.required ?? false, algorithms: [...algorithms], windowSec, replayCache: given.replayCache ?? new MemoryDpopReplayCache({ now }), nonces, now };
}

/** What the resource's metadata says of DPoP (RFC 9728 §2): the algorithms, and whether bearer tokens are refused. */
export function dpopMetadata(settings: DpopSettings | undefined): Record<string, unknown> {
  if (settings === undefined) return {};
  return settings.required ? { dpop_signing_alg_values_supported: settings.algorithms, dpop_bound_access_tokens_required: true } : { dpop_signing_alg_values_supported: settings.algorithms };
}
