import { CompactEncrypt, compactDecrypt } from 'jose';

/**
 * Seals values under a key derived from signIn's `secret` (HKDF-SHA-256, one key per
 * purpose) as compact JWE (`dir`, `A256GCM`): upstream tokens where they are stored, and the
 * state of an upstream sign-in in the browser's cookie. Each sealed value names what it is
 * for (`label`), so one sealed for another label or id does not open as this one.
 */
export class Vault {
  private key: Promise<Uint8Array> | undefined;

  constructor(
    private readonly secret: string | Uint8Array,
    private readonly purpose: string,
  ) {}

  async seal(label: string, value: unknown): Promise<string> {
    const plaintext = new TextEncoder().encode(JSON.stringify({ label, value }));
    return new CompactEncrypt(plaintext).setProtectedHeader({ alg: 'dir', enc: 'A256GCM' }).encrypt(await this.cipherKey());
  }

  /** The value sealed under `label`; throws for anything else (another key, label, or tampering). */
  async open<T>(label: string, sealed: string): Promise<T> {
    const { plaintext } = await compactDecrypt(sealed, await this.cipherKey(), { keyManagementAlgorithms: ['dir'], contentEncryptionAlgorithms: ['A256GCM'] });
    const opened = JSON.parse(new TextDecoder().decode(plaintext)) as { label?: unknown; value: T };
    if (opened.label !== label) throw new Error('the sealed value belongs to something else');
    return opened.value;
  }

  private cipherKey(): Promise<Uint8Array> {
    this.key ??= (async () => {
      const bytes = typeof this.secret === 'string' ? new TextEncoder().encode(this.secret) : this.secret;
      const material = await crypto.subtle.importKey('raw', bytes, 'HKDF', false, ['deriveBits']);
      const info = new TextEncoder().encode(`typemcp sign-in ${this.purpose}`);
      return new Uint8Array(await crypto.subtle.deriveBits({ name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info }, material, 256));
    })();
    return this.key;
  }
}
