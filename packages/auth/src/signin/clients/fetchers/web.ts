import { addressRefusal } from '../addresses';
import {
  checkContentLength,
  checkContentType,
  checkHttps,
  checkStatus,
  ClientMetadataError,
  literalAddressOf,
  maxAgeOf,
  parseJsonBody,
  tooLarge,
  tooSlow,
} from './document';
import type { DocumentFetcher, DocumentFetchOptions } from './document';

/**
 * Fetches documents with the platform's `fetch` (Bun, Deno, Workers), redirects not followed.
 *
 * This host cannot pin the address: `fetch` resolves the host name itself, out of reach, so
 * only what the URL shows is checked (a literal IP address, `localhost`). A host name that
 * resolves to a private address is not caught here; where that matters, fetch through an
 * egress proxy that refuses private addresses, or run on Node ({@link nodeDocumentFetcher}).
 * `options.resolve` and `options.ca` are not used.
 */
export function webDocumentFetcher(options: DocumentFetchOptions): DocumentFetcher {
  return async (url) => {
    checkHttps(url);
    if (!options.allowPrivateAddresses) checkHost(url);

    const abort = new AbortController();
    let deadline: ReturnType<typeof setTimeout> | undefined;
    // Raced as well as aborted: a runtime that is slow to abort a body read still answers in time.
    const timedOut = new Promise<never>((_, fail) => {
      deadline = setTimeout(() => {
        fail(tooSlow(url, options.timeoutMs));
        abort.abort();
      }, options.timeoutMs);
    });
    timedOut.catch(() => {}); // settled by the race below, or by nobody when the fetch wins first

    try {
      return await Promise.race([fetchDocument(url, options, abort.signal), timedOut]);
    } finally {
      clearTimeout(deadline);
      abort.abort(); // an unread body is released
    }
  };
}

async function fetchDocument(url: URL, options: DocumentFetchOptions, signal: AbortSignal) {
  let response: Response;
  try {
    response = await fetch(url, { method: 'GET', headers: { accept: 'application/json' }, redirect: 'manual', signal });
  } catch (error) {
    throw new ClientMetadataError(`${url.href} could not be fetched${error instanceof Error ? `: ${error.message}` : ''}`, { cause: error });
  }
  // A browser-like fetch hides a manual redirect behind an opaque response of status 0.
  if (response.type === 'opaqueredirect') throw new ClientMetadataError(`${url.href} answered a redirect; metadata documents are not fetched through redirects`);
  checkStatus(url, response.status);
  checkContentType(url, response.headers.get('content-type'));
  checkContentLength(url, response.headers.get('content-length'), options.maxBytes);
  const body = parseJsonBody(url, await readAtMost(url, response, options.maxBytes, signal));
  return { body, maxAgeSec: maxAgeOf(response.headers.get('cache-control')) };
}

/** The body, stopping (and refusing) as soon as it passes `maxBytes`. */
async function readAtMost(url: URL, response: Response, maxBytes: number, signal: AbortSignal): Promise<Uint8Array> {
  if (response.body === null) return new Uint8Array();
  const reader = response.body.getReader();
  // Past the deadline the read stops here too, whether or not the runtime ends the body on abort.
  const stop = () => void reader.cancel().catch(() => {});
  signal.addEventListener('abort', stop, { once: true });
  const chunks: Uint8Array[] = [];
  let received = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (signal.aborted) throw new ClientMetadataError(`${url.href} was abandoned`); // what was read is not the whole body
      if (done) break;
      received += value.byteLength;
      if (received > maxBytes) {
        stop();
        throw tooLarge(url, maxBytes);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof ClientMetadataError) throw error;
    throw new ClientMetadataError(`${url.href} was cut off before its end`, { cause: error });
  } finally {
    signal.removeEventListener('abort', stop);
  }
  const bytes = new Uint8Array(received);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** What can be checked without resolving: a literal IP address, and `localhost` names. */
function checkHost(url: URL): void {
  const literal = literalAddressOf(url);
  const refusal = literal !== undefined ? addressRefusal(literal) : isLocalhostName(url.hostname) ? `${url.hostname} is a loopback name` : undefined;
  if (refusal !== undefined) throw new ClientMetadataError(`${url.href} is not fetched: ${refusal}`);
}

/** `localhost` and its subdomains always mean this machine (RFC 6761 §6.3). */
function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}
