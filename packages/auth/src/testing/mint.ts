import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { ALGORITHM } from './keys';
import type { SigningKeys } from './keys';

/** The claims of one access token, before signing. */
export interface Grant {
  iss: string;
  sub: string;
  aud: string | string[];
  clientId: string;
  scopes: readonly string[];
  /** A jose duration (`'5m'`, `'-1h'`) or seconds. */
  expiresIn: string | number;
  claims?: Record<string, unknown>;
  key: 'valid' | 'wrong';
}

/** Signs an RFC 9068 access token (`typ: at+jwt`); `claims` override the registered ones. */
export async function mint(keys: SigningKeys, grant: Grant): Promise<string> {
  const iat = Math.floor(Date.now() / 1000);
  const payload: Record<string, unknown> = {
    iss: grant.iss,
    sub: grant.sub,
    aud: grant.aud,
    iat,
    jti: randomUUID(),
    client_id: grant.clientId,
  };
  if (grant.scopes.length > 0) payload.scope = grant.scopes.join(' ');
  if (typeof grant.expiresIn === 'number') payload.exp = iat + Math.trunc(grant.expiresIn);
  Object.assign(payload, grant.claims);
  const jwt = new SignJWT(payload).setProtectedHeader({ alg: ALGORITHM, kid: keys.kid, typ: 'at+jwt' });
  // jose reads duration strings relative to now; a caller's own `exp` claim wins.
  if (typeof grant.expiresIn === 'string' && grant.claims?.exp === undefined) jwt.setExpirationTime(grant.expiresIn);
  return jwt.sign(grant.key === 'wrong' ? keys.wrongKey : keys.privateKey);
}
