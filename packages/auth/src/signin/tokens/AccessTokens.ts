import { AccessDeniedError } from '@typemcp/core';
import type { Principal } from '@typemcp/core';
import { createLocalJWKSet, jwtVerify, SignJWT } from 'jose';
import { isCanonicalBase64url, principalOf, refusalOf } from '../../JwtVerifier';
import type { GrantUser } from '../store/SignInStore';
import type { KeyRing } from './KeyRing';
import { randomToken } from './secrets';

/** What an access token says: who, through which client and grant, for what. */
export interface AccessTokenSubject {
  readonly grantId: string;
  readonly clientId: string;
  readonly user: GrantUser;
  readonly scopes: readonly string[];
  readonly resource: string;
  /** The thumbprint of the DPoP key the token is bound to (`cnf.jkt`, RFC 9449 §6.1). */
  readonly jkt?: string;
}

/** A verified access token: its principal, and the grant that must still stand. */
export interface VerifiedAccessToken {
  readonly principal: Principal;
  readonly grantId: string;
}

/** Verified tokens kept, so a client's next requests skip the signature check. */
const MAX_CACHED_TOKENS = 10_000;

/**
 * Access tokens as RFC 9068 JWTs (`typ: at+jwt`), signed with the key ring's current key:
 * `iss`, `sub`, `aud` (the resource, RFC 8707), `client_id`, `scope`, `sid` (the grant),
 * `roles`, `iat`, `exp`, `jti`. The resource server in this process verifies them locally.
 */
export class AccessTokens {
  private readonly verified = new Map<string, { token: VerifiedAccessToken; until: number }>();

  constructor(
    private readonly keyRing: KeyRing,
    private readonly issuer: string,
    private readonly ttlSec: number,
    private readonly now: () => number,
  ) {}

  async issue(subject: AccessTokenSubject): Promise<{ token: string; expiresIn: number }> {
    const current = await (await this.keyRing.keys()).current;
    const iat = Math.floor(this.now() / 1000);
    const claims: Record<string, unknown> = { client_id: subject.clientId, scope: subject.scopes.join(' '), sid: subject.grantId };
    if (subject.user.roles !== undefined && subject.user.roles.length > 0) claims.roles = [...subject.user.roles];
    if (subject.jkt !== undefined) claims.cnf = { jkt: subject.jkt };
    const token = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: current.kid })
      .setIssuer(this.issuer)
      .setSubject(subject.user.id)
      .setAudience(subject.resource)
      .setIssuedAt(iat)
      .setExpirationTime(iat + this.ttlSec)
      .setJti(randomToken(16))
      .sign(current.key);
    return { token, expiresIn: this.ttlSec };
  }

  /** The token's principal and grant, when it was verified before and has not expired. */
  cached(token: string): VerifiedAccessToken | undefined {
    const cached = this.verified.get(token);
    return cached !== undefined && cached.until > this.now() ? cached.token : undefined;
  }

  /** The token's principal and grant; throws AccessDeniedError('invalid_token') for a token this server did not issue for `resource`. */
  async verify(token: string, resource: string): Promise<VerifiedAccessToken> {
    const now = this.now();
    const cached = this.verified.get(token);
    if (cached !== undefined && cached.until > now) return cached.token;
    if (cached !== undefined) this.verified.delete(token);
    if (!token.split('.').every(isCanonicalBase64url)) throw new AccessDeniedError('invalid_token', 'Invalid token: it is not a well-formed signed JWT');
    const { jwks } = await this.keyRing.keys();
    let payload;
    try {
      ({ payload } = await jwtVerify(token, createLocalJWKSet(jwks), {
        issuer: this.issuer,
        audience: resource,
        algorithms: ['ES256'],
        typ: 'at+jwt',
        clockTolerance: 5,
        currentDate: new Date(now),
        requiredClaims: ['exp', 'sub', 'sid', 'client_id'],
      }));
    } catch (error) {
      throw refusalOf(error) ?? error;
    }
    if (typeof payload.sid !== 'string') throw new AccessDeniedError('invalid_token', 'Invalid token: it names no grant (sid)');
    const verified = { principal: principalOf(payload, 'roles'), grantId: payload.sid };
    if (this.verified.size >= MAX_CACHED_TOKENS) this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(token, { token: verified, until: payload.exp! * 1000 });
    return verified;
  }
}
