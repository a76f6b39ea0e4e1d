import type { CryptoKey } from 'jose';
import { base64url, equalStrings } from '../signin/tokens/secrets';

/**
 * Server-issued DPoP nonces (RFC 9449 §8, §9) without state: a nonce names its time window and
 * carries an HMAC of it, so any replica with the same secret accepts it. A nonce is accepted in
 * the window it was issued in and the next one.
 */
export class DpopNonces {
  private key: Promise<CryptoKey> | undefined;
  /** The nonces of the windows computed lately, by window. */
  private readonly byWindow = new Map<number, Promise<string>>();

  constructor(
    private readonly lifetimeSec: number,
    private readonly secret: Uint8Array,
    private readonly now: () => number,
  ) {}

  /** The nonce to give a client now. */
  current(): Promise<string> {
    return this.of(this.window());
  }

  /** Whether `nonce` is one this server issued in the current window or the one before. */
  async accepts(nonce: string): Promise<boolean> {
    const at = nonce.indexOf('.');
    const window = Number.parseInt(nonce.slice(0, at), 36);
    const current = this.window();
    if (at <= 0 || !(window === current || window === current - 1)) return false;
    return equalStrings(nonce, await this.of(window));
  }

  private window(): number {
    return Math.floor(this.now() / 1000 / this.lifetimeSec);
  }

  private of(window: number): Promise<string> {
    let nonce = this.byWindow.get(window);
    if (nonce === undefined) {
      nonce = this.sign(window);
      this.byWindow.set(window, nonce);
      for (const old of this.byWindow.keys()) if (old < window - 1) this.byWindow.delete(old);
    }
    return nonce;
  }

  private async sign(window: number): Promise<string> {
    this.key ??= deriveKey(this.secret);
    const label = window.toString(36);
    const mac = await crypto.subtle.sign('HMAC', await this.key, new TextEncoder().encode(`dpop-nonce.${label}`));
    return `${label}.${base64url(new Uint8Array(mac))}`;
  }
}

/** An HMAC key of its own derived from the secret (HKDF-SHA-256), so the secret's other uses stay apart. */
async function deriveKey(secret: Uint8Array): Promise<CryptoKey> {
  const base = await crypto.subtle.importKey('raw', secret, 'HKDF', false, ['deriveKey']);
  return crypto.subtle.deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: new TextEncoder().encode('typemcp dpop nonce') },
    base,
    { name: 'HMAC', hash: 'SHA-256', length: 256 },
    false,
    ['sign'],
  );
}
