import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import type { CryptoKey, JSONWebKeySet } from 'jose';

/** The algorithm of every token the issuer signs. */
export const ALGORITHM = 'ES256';

/** The issuer's signing key, the JWKS that publishes it, and an unpublished key for negative tests. */
export interface SigningKeys {
  kid: string;
  privateKey: CryptoKey;
  /** Same algorithm, never published: its signatures fail against the JWKS. */
  wrongKey: CryptoKey;
  jwks: JSONWebKeySet;
}

/** Fresh keys for one issuer; nothing is kept between runs. */
export async function createSigningKeys(): Promise<SigningKeys> {
  const [signing, wrong] = await Promise.all([generateKeyPair(ALGORITHM), generateKeyPair(ALGORITHM)]);
  const jwk = await exportJWK(signing.publicKey);
  // The RFC 7638 thumbprint: a stable id derived from the key itself.
  const kid = await calculateJwkThumbprint(jwk);
  return {
    kid,
    privateKey: signing.privateKey,
    wrongKey: wrong.privateKey,
    jwks: { keys: [{ ...jwk, kid, alg: ALGORITHM, use: 'sig' }] },
  };
}
