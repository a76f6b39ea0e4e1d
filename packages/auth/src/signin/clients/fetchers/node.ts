import type { IncomingMessage } from 'node:http';
import type { LookupFunction } from 'node:net';
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
import type { DocumentFetcher, DocumentFetchOptions, FetchedDocument } from './document';

/**
 * Fetches documents with `node:https`, pinning the address: the host name is resolved once,
 * every address it has is checked, and the socket is handed exactly the addresses checked, so
 * a second answer from DNS (rebinding) is never asked for. Node's modules are imported on
 * first use, so this file loads on runtimes without them.
 */
export function nodeDocumentFetcher(options: DocumentFetchOptions): DocumentFetcher {
  return async (url) => {
    checkHttps(url);
    const literal = literalAddressOf(url);
    if (literal !== undefined) checkAddress(url, literal, options);
    const [https, tls, dns, net] = await Promise.all([nodeModule<typeof import('node:https')>('https'), nodeModule<typeof import('node:tls')>('tls'), nodeModule<typeof import('node:dns')>('dns'), nodeModule<typeof import('node:net')>('net')]);
    const resolve = options.resolve ?? (async (hostname: string) => (await dns.promises.lookup(hostname, { all: true })).map((found) => found.address));

    return new Promise<FetchedDocument>((settle, fail) => {
      let finished = false;
      const finish = (outcome: () => void) => {
        if (finished) return;
        finished = true;
        clearTimeout(deadline);
        outcome();
      };
      const refuse = (error: ClientMetadataError) => {
        finish(() => fail(error));
        request.destroy();
      };

      /** Resolves once and hands over only addresses that passed: what was checked is what is connected to. */
      const pinnedLookup: LookupFunction = (hostname, lookupOptions, callback) => {
        const checkedAddresses = async () => {
          const addresses = await resolve(hostname);
          if (addresses.length === 0) throw new ClientMetadataError(`${url.hostname} has no address`);
          for (const address of addresses) {
            if (net.isIP(address) === 0) throw new ClientMetadataError(`${url.hostname} resolved to ${JSON.stringify(address)}, which is not an IP address`);
            checkAddress(url, address, options);
          }
          return addresses.map((address) => ({ address, family: net.isIP(address) }));
        };
        checkedAddresses().then(
          (found) => (lookupOptions.all ? callback(null, found) : callback(null, found[0]!.address, found[0]!.family)),
          (error: unknown) => {
            const code = (error as NodeJS.ErrnoException | undefined)?.code;
            const refusal = error instanceof ClientMetadataError ? error : new ClientMetadataError(`${url.hostname} could not be resolved${code ? ` (${code})` : ''}`, { cause: error });
            callback(refusal as NodeJS.ErrnoException, '');
          },
        );
      };

      const request = https.request({
        host: literal ?? url.hostname,
        port: url.port === '' ? 443 : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers: { accept: 'application/json', 'user-agent': 'TypeMCP sign-in (client metadata document)' },
        agent: false,
        lookup: pinnedLookup,
        ...(options.ca === undefined ? {} : { ca: [...tls.rootCertificates, options.ca] }),
      });
      // The deadline covers resolving, connecting and every byte: a server that trickles is cut too.
      const deadline = setTimeout(() => refuse(tooSlow(url, options.timeoutMs)), options.timeoutMs);

      request.on('error', (error) => {
        refuse(error instanceof ClientMetadataError ? error : new ClientMetadataError(`${url.href} could not be fetched: ${error.message}`, { cause: error }));
      });
      request.on('response', (response: IncomingMessage) => {
        try {
          checkStatus(url, response.statusCode ?? 0);
          checkContentType(url, response.headers['content-type']);
          checkContentLength(url, response.headers['content-length'], options.maxBytes);
        } catch (error) {
          return refuse(error as ClientMetadataError);
        }
        const chunks: Buffer[] = [];
        let received = 0;
        response.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > options.maxBytes) return refuse(tooLarge(url, options.maxBytes));
          chunks.push(chunk);
        });
        response.on('error', () => refuse(new ClientMetadataError(`${url.href} was cut off before its end`)));
        response.on('end', () => {
          if (!response.complete) return refuse(new ClientMetadataError(`${url.href} was cut off before its end`));
          try {
            const body = parseJsonBody(url, Buffer.concat(chunks));
            finish(() => settle({ body, maxAgeSec: maxAgeOf(response.headers['cache-control']) }));
          } catch (error) {
            refuse(error as ClientMetadataError);
          }
        });
      });
      request.end();
    });
  };
}

/**
 * One of Node's modules. The specifier is not a literal, so a bundler leaves it to run time: a
 * Worker's bundle (esbuild's browser platform) cannot resolve Node's modules, and on Workers
 * this fetcher is never chosen.
 */
const nodeModule = <T>(name: string): Promise<T> => import(`node:${name}`) as Promise<T>;

function checkAddress(url: URL, address: string, options: DocumentFetchOptions): void {
  if (options.allowPrivateAddresses) return;
  const refusal = addressRefusal(address);
  if (refusal === undefined) return;
  const reason = literalAddressOf(url) === undefined ? `${url.hostname} resolves to an address that may not be reached (${refusal})` : refusal;
  throw new ClientMetadataError(`${url.href} is not fetched: ${reason}`);
}
