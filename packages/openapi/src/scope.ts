/** Decides whether a `$ref` may name a document outside the first one's origin or folder (the `allowRef` option). */
export type RefCheck = (url: string, from: string) => boolean;

/**
 * Why a document is not read. `predicate` follows the document's URL: `<url> is outside the
 * folder of the document…`, `<url> did not answer within 30000 ms`.
 */
export class ReadError extends Error {
  constructor(readonly predicate: string) {
    super(predicate);
  }
}

/**
 * Where the `$ref`s of a description may lead: within the first document's origin (read over
 * http(s)) or under its folder (read from a file, or the working directory for a document
 * given as an object), or where `allowRef` allows. A document read over http(s) never names a
 * local file. The check is on the URL as resolved (`..` steps, `%2e`, `0x7f.1`, `[::ffff:…]`
 * normalized by the URL parser); the reader checks a file's real path besides (symbolic links).
 */
export class RefScope {
  private readonly root: URL;
  /** The folder of a file document, ending in `/`: its URL. */
  readonly folder?: string;
  private realFolder?: Promise<string>;

  /**
   * @param rootUrl the first document's URL; for a document given as an object, the working directory's
   * @param folderName how messages name the folder of a file document
   */
  constructor(
    rootUrl: string,
    private readonly allowRef: RefCheck | undefined,
    private readonly folderName = 'the folder of the document',
  ) {
    this.root = new URL(rootUrl);
    if (this.root.protocol === 'file:') this.folder = new URL('.', this.root).href;
  }

  /** How `url`, named in the document at `from`, may be read: within the scope, or allowed by allowRef; a ReadError when not at all. */
  check(url: string, from: string): 'within' | 'allowed' {
    const target = new URL(url);
    if (target.protocol === 'file:' && /^https?:$/.test(new URL(from).protocol)) {
      throw new ReadError('is a local file, which a document read over http(s) may not name: refused');
    }
    if (this.within(target)) return 'within';
    if (this.allowRef !== undefined && this.allowRef(target.href, from) === true) return 'allowed';
    if (this.folder !== undefined) {
      const which = target.protocol === 'file:' ? 'files' : 'origins';
      throw new ReadError(`is outside ${this.folderName} (${this.folder}): refused (allowRef decides which other ${which} a ref may name)`);
    }
    const address = addressKind(target.hostname);
    throw new ReadError(`is on another origin than the document${address ? `, and ${address}` : ''}: refused (allowRef decides which other origins a ref may name)`);
  }

  /** The real path of the document's folder (symbolic links followed), for files read from disk. */
  folderRealPath(): Promise<string> {
    this.realFolder ??= (async () => {
      const { realpath } = await import('node:fs/promises');
      const { fileURLToPath } = await import('node:url');
      return realpath(fileURLToPath(this.folder!));
    })();
    return this.realFolder;
  }

  private within(target: URL): boolean {
    if (this.folder !== undefined) return target.protocol === 'file:' && target.host === this.root.host && target.href.startsWith(this.folder);
    if (/^https?:$/.test(this.root.protocol)) return target.origin === this.root.origin;
    // Schemes only a loadRef reads (`mem://specs/a.json`): the same scheme and host.
    return target.protocol === this.root.protocol && target.host === this.root.host;
  }
}

/**
 * What kind of address a URL's host is, when it says so itself: a loopback, private,
 * link-local or unspecified IP address (IPv4, or IPv6 with IPv4 mapped into it) or a
 * `localhost` name; undefined for other hosts. Names that resolve to such addresses are not
 * recognized (no DNS lookup here): the messages use this, not the decision, which is by origin.
 */
export function addressKind(hostname: string): string | undefined {
  const host = hostname.replace(/\.$/, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return 'a loopback address';
  const v4 = ipv4Of(host);
  if (v4) return ipv4Kind(v4);
  if (!host.startsWith('[')) return undefined;
  const v6 = host.slice(1, -1);
  if (v6 === '::1') return 'a loopback address';
  if (v6 === '::') return 'an unspecified address';
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(v6);
  if (mapped) {
    const high = parseInt(mapped[1], 16);
    const low = parseInt(mapped[2], 16);
    return ipv4Kind([high >> 8, high & 255, low >> 8, low & 255]);
  }
  if (/^f[cd][0-9a-f]{2}:/.test(v6)) return 'a private address';
  if (/^fe[89ab][0-9a-f]:/.test(v6)) return 'a link-local address';
  return undefined;
}

/** The four numbers of a dotted IPv4 address (the URL parser writes every IPv4 form so). */
function ipv4Of(host: string): number[] | undefined {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  return match ? match.slice(1).map(Number) : undefined;
}

function ipv4Kind([a, b]: number[]): string | undefined {
  if (a === 127) return 'a loopback address';
  if (a === 0) return 'an unspecified address';
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127)) return 'a private address';
  if (a === 169 && b === 254) return 'a link-local address';
  return undefined;
}
