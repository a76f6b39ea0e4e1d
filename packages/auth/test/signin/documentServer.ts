import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Host names the test certificate is valid for, beside IP:127.0.0.1. */
export const CERTIFICATE_NAMES = ['documents.test', 'rebind.test', 'private.test'];

/** A test CA and a server certificate it signed, made with openssl in a temporary folder. */
export interface TestCertificates {
  /** The CA certificate (PEM), to trust. */
  readonly ca: string;
  readonly caPath: string;
  readonly key: string;
  readonly cert: string;
  /** Removes the folder. */
  remove(): void;
}

export function makeTestCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'cimd-ca-'));
  const at = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  try {
    openssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=Metadata document test CA',
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
    openssl('req', ...ec, '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', '/CN=documents.test');
    writeFileSync(at('leaf.ext'), [
      'basicConstraints=critical,CA:FALSE',
      'keyUsage=critical,digitalSignature',
      'extendedKeyUsage=serverAuth',
      `subjectAltName=IP:127.0.0.1,${CERTIFICATE_NAMES.map((name) => `DNS:${name}`).join(',')}`,
    ].join('\n'));
    openssl('x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'leaf.crt', '-days', '2', '-extfile', 'leaf.ext');
    return {
      ca: readFileSync(at('ca.crt'), 'utf8'),
      caPath: at('ca.crt'),
      key: readFileSync(at('leaf.key'), 'utf8'),
      cert: readFileSync(at('leaf.crt'), 'utf8'),
      remove: () => rmSync(dir, { recursive: true, force: true }),
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

export type Route = (request: IncomingMessage, response: ServerResponse) => void;

/** An HTTPS server on 127.0.0.1 answering by path, recording every request it gets. */
export interface DocumentServer {
  readonly port: number;
  /** The paths requested, in order. */
  readonly requests: string[];
  /** Answers `path` with `route` from now on. */
  route(path: string, route: Route): void;
  close(): Promise<void>;
}

export async function startDocumentServer(certificates: TestCertificates): Promise<DocumentServer> {
  const routes = new Map<string, Route>();
  const requests: string[] = [];
  const server = createServer({ key: certificates.key, cert: certificates.cert }, (request, response) => {
    requests.push(request.url!);
    const route = routes.get(request.url!);
    if (route) route(request, response);
    else response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  // Handshakes that tests abandon (refused hosts, untrusted certificates) are no concern.
  server.on('tlsClientError', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    route: (path, route) => void routes.set(path, route),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Answers a JSON document, with headers of the test's choosing. */
export function json(body: unknown, headers: Record<string, string> = {}): Route {
  return (_request, response) => response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(JSON.stringify(body));
}
