import { AccessDeniedError, UnavailableError } from '@typemcp/core';
import type { Principal } from '@typemcp/core';
import { createLocalJWKSet, createRemoteJWKSet, errors, jwtVerify } from 'jose';
import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import type { AuthOptions } from './options';

const ASYMMETRIC = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];
/** Verified tokens kept, so a client's next requests skip the signature check. */
const MAX_CACHED_TOKENS = 10_000;
/** How long a verified token is trusted without checking it again (at most until it expires). */
const CACHE_MS = 60_000;
/** A token naming a key id not in the cached set re-reads the issuer's keys at once, at most this often. */
const KEY_REREAD_MS = 1_000;
/** When a client may try again after the issuer could not be reached (`Retry-After`). */
const RETRY_AFTER_SEC = 10;

/**
 * Checks bearer JWTs: signature against the issuer's keys, `iss`, `aud` (the resource), `exp`
 * and `nbf`; turns the claims into a principal. Keys are fetched once and refreshed by jose
 * when a token names an unknown key id.
 */
export class JwtVerifier {
  private keys: Promise<JWTVerifyGetKey> | undefined;
  private readonly verified = new Map<string, { principal: Principal; until: number }>();

  constructor(private readonly options: AuthOptions) {}

  async verify(token: string): Promise<Principal> {
    const cached = this.verified.get(token);
    if (cached && cached.until > Date.now()) return cached.principal;
    if (cached) this.verified.delete(token);
    // One token, one spelling: base64url whose unused bits are not zero decodes to the same bytes.
    if (!token.split('.').every(isCanonicalBase64url)) throw new AccessDeniedError('invalid_token', 'Invalid token: it is not a well-formed signed JWT');
    let payload: JWTPayload;
    let keys: JWTVerifyGetKey;
    try {
      keys = await this.keySet();
    } catch (error) {
      throw this.unreachable(error);
    }
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: this.options.issuer,
        audience: this.options.audience ?? this.options.resource,
        algorithms: this.options.algorithms ?? ASYMMETRIC,
        clockTolerance: this.options.clockToleranceSec ?? 5,
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      throw refusalOf(error) ?? this.unreachable(error);
    }
    const principal = principalOf(payload, this.options.rolesClaim ?? 'roles');
    if (this.verified.size >= MAX_CACHED_TOKENS) this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(token, { principal, until: Math.min(Date.now() + CACHE_MS, payload.exp! * 1000) });
    return principal;
  }

  private keySet(): Promise<JWTVerifyGetKey> {
    if (this.options.jwks) return (this.keys ??= Promise.resolve(createLocalJWKSet(this.options.jwks)));
    this.keys ??= this.jwksUri().then(
      // Keys are re-read at least every minute, so a key the issuer withdraws stops working soon,
      // and at once (at most every second) for a key id not seen yet, so a new key works at once.
      (uri) => createRemoteJWKSet(new URL(uri), { cacheMaxAge: CACHE_MS, cooldownDuration: KEY_REREAD_MS }),
      (error) => {
        this.keys = undefined; // the next request tries again
        throw error;
      },
    );
    return this.keys;
  }

  /** The issuer's keys could not be read: not the token's fault, so 503 and a retry, and the cause logged. */
  private unreachable(error: unknown): UnavailableError {
    const why = error instanceof Error ? error.message + (error.cause instanceof Error ? ` (${error.cause.message})` : '') : String(error);
    return new UnavailableError(`the keys of the issuer ${this.options.issuer} cannot be read: ${why}`, RETRY_AFTER_SEC, { cause: error });
  }

  /** `jwksUri`, or the `jwks_uri` of the issuer's metadata (RFC 8414, then OpenID Connect Discovery). */
  private async jwksUri(): Promise<string> {
    if (this.options.jwksUri) return this.options.jwksUri;
    const issuer = new URL(this.options.issuer);
    const path = issuer.pathname === '/' ? '' : issuer.pathname.replace(/\/$/, '');
    const candidates = [`${issuer.origin}/.well-known/oauth-authorization-server${path}`, `${issuer.origin}${path}/.well-known/openid-configuration`];
    for (const url of candidates) {
      const response = await fetch(url, { signal: AbortSignal.timeout(5_000), headers: { accept: 'application/json' } });
      if (!response.ok) continue;
      const metadata = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown };
      if (metadata.issuer !== this.options.issuer) throw new Error(`auth: ${url} names the issuer ${JSON.stringify(metadata.issuer)}, not ${this.options.issuer}`);
      if (typeof metadata.jwks_uri !== 'string') throw new Error(`auth: ${url} has no jwks_uri`);
      return metadata.jwks_uri;
    }
    throw new Error(`auth: the issuer ${this.options.issuer} publishes no metadata at ${candidates.join(' or ')}; set jwksUri`);
  }
}

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * Whether `part` is base64url as its bytes encode to: no padding, only the alphabet, and the
 * bits the last character carries beyond the bytes all zero (RFC 4648 §3.5).
 */
export function isCanonicalBase64url(part: string): boolean {
  if (!/^[A-Za-z0-9_-]*$/.test(part) || part.length % 4 === 1) return false;
  const rest = part.length % 4;
  if (rest === 0) return true;
  const last = BASE64URL.indexOf(part[part.length - 1]);
  // Two characters carry one byte (4 spare bits), three carry two (2 spare bits).
  return (last & (rest === 2 ? 0b1111 : 0b11)) === 0;
}

/** The principal of a verified token's claims. */
export function principalOf(payload: JWTPayload, rolesClaim: string): Principal {
  if (typeof payload.sub !== 'string' || payload.sub === '') throw new AccessDeniedError('invalid_token', 'Invalid token: it has no subject (sub)');
  return { subject: payload.sub, scopes: namesIn(payload.scope ?? payload.scp), roles: namesIn(payload[rolesClaim]), claims: payload };
}

/** Names from a space-separated string or an array of strings. */
function namesIn(value: unknown): string[] {
  if (typeof value === 'string') return value.split(' ').filter((name) => name !== '');
  if (Array.isArray(value)) return value.filter((name): name is string => typeof name === 'string');
  return [];
}

/** What a failed check tells the client, when the token is at fault; undefined when it is not. */
export function refusalOf(error: unknown): Error | undefined {
  const refuse = (why: string) => new AccessDeniedError('invalid_token', `Invalid token: ${why}`);
  if (error instanceof errors.JWTExpired) return refuse('it has expired');
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return refuse('it is not meant for this resource (aud)');
    if (error.claim === 'iss') return refuse('it was issued by another authorization server (iss)');
    if (error.claim === 'nbf') return refuse('it is not valid yet (nbf)');
    return refuse(`the claim "${error.claim}" is ${error.reason === 'missing' ? 'missing' : 'invalid'}`);
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return refuse('its signature does not verify');
  if (error instanceof errors.JWKSNoMatchingKey) return refuse('no key of the issuer matches it');
  if (error instanceof errors.JOSEAlgNotAllowed) return refuse('its signing algorithm is not accepted');
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid || error instanceof errors.JOSENotSupported) return refuse('it is not a well-formed signed JWT');
  if (error instanceof AccessDeniedError) return error;
  return undefined;
}
