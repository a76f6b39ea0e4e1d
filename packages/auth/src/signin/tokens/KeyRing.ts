import { CompactEncrypt, compactDecrypt, exportJWK, generateKeyPair, importJWK } from 'jose';
import type { CryptoKey, JSONWebKeySet, JWK } from 'jose';
import type { KeyStore, StoredKey } from '../store/SignInStore';
import { randomToken } from './secrets';

const ALGORITHM = 'ES256';

/** The key that signs now, and every key a token still in use may name. */
export interface SigningKeys {
  /**
   * The newest key, decrypted: rejects when the secret cannot open it, which stops issuing
   * only; tokens already issued still verify against the public keys.
   */
  readonly current: Promise<{ readonly kid: string; readonly key: CryptoKey }>;
  readonly jwks: JSONWebKeySet;
}

/**
 * The signing keys: made when there are none or the newest is older than the rotation period,
 * the previous one kept published so tokens it signed stay valid until they expire. Private
 * keys are stored encrypted with a key derived from the author's secret.
 */
export class KeyRing {
  private loaded: { keys: Promise<SigningKeys>; until: number } | undefined;
  private encryptionKey: Promise<Uint8Array> | undefined;

  constructor(
    private readonly store: KeyStore,
    private readonly secret: string | Uint8Array,
    private readonly rotationSec: number,
    private readonly now: () => number,
  ) {}

  /** The keys, read from the store at most once a minute (other replicas may rotate them). */
  keys(): Promise<SigningKeys> {
    const now = this.now();
    if (this.loaded !== undefined && this.loaded.until > now) return this.loaded.keys;
    const keys = this.load();
    this.loaded = { keys, until: now + 60_000 };
    keys.catch(() => {
      if (this.loaded?.keys === keys) this.loaded = undefined;
    });
    return keys;
  }

  private async load(): Promise<SigningKeys> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const stored = await this.store.list();
      const newest = stored[stored.length - 1];
      if (newest !== undefined && newest.createdAt * 1000 + this.rotationSec * 1000 > this.now()) return this.open(stored);
      // The newest key and the one before it stay: the tokens signed before this rotation live on.
      const next = [...stored.slice(-1), await this.make()];
      if (await this.store.replace(stored, next)) return this.open(next);
    }
    throw new Error('the signing keys keep changing under this replica; is another writing them in a loop?');
  }

  private async make(): Promise<StoredKey> {
    const { publicKey, privateKey } = await generateKeyPair(ALGORITHM, { extractable: true });
    const kid = randomToken(12);
    const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: ALGORITHM, use: 'sig' };
    const plaintext = new TextEncoder().encode(JSON.stringify(await exportJWK(privateKey)));
    const encryptedPrivateJwk = await new CompactEncrypt(plaintext).setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid }).encrypt(await this.cipherKey());
    return { kid, createdAt: Math.floor(this.now() / 1000), publicJwk, encryptedPrivateJwk };
  }

  private open(stored: readonly StoredKey[]): SigningKeys {
    const current = this.decrypt(stored[stored.length - 1]);
    current.catch(() => undefined); // awaited, and reported, where a token is issued
    return { current, jwks: { keys: stored.map((entry) => ({ ...entry.publicJwk }) as JWK) } };
  }

  private async decrypt(newest: StoredKey): Promise<{ kid: string; key: CryptoKey }> {
    let privateJwk: JWK;
    try {
      const { plaintext } = await compactDecrypt(newest.encryptedPrivateJwk, await this.cipherKey());
      privateJwk = JSON.parse(new TextDecoder().decode(plaintext)) as JWK;
    } catch (error) {
      throw new Error(
        `the signing key ${newest.kid} cannot be decrypted with the secret: was the secret changed? Give the secret it was stored under, or delete the stored keys (new ones are made; tokens already issued then stop verifying and clients refresh)`,
        { cause: error },
      );
    }
    return { kid: newest.kid, key: (await importJWK(privateJwk, ALGORITHM)) as CryptoKey };
  }

  /** A 256-bit key derived from the secret (HKDF-SHA-256), so any secret of 32 characters or more encrypts with A256GCM. */
  private cipherKey(): Promise<Uint8Array> {
    this.encryptionKey ??= (async () => {
      const bytes = typeof this.secret === 'string' ? new TextEncoder().encode(this.secret) : this.secret;
      const material = await crypto.subtle.importKey('raw', bytes, 'HKDF', false, ['deriveBits']);
      const info = new TextEncoder().encode('typemcp sign-in signing keys');
      return new Uint8Array(await crypto.subtle.deriveBits({ name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info }, material, 256));
    })();
    return this.encryptionKey;
  }
}
