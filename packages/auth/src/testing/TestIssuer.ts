import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DefinitionError } from '@typemcp/core';
import { checkIssuerOptions, checkTokenOptions, copyClients } from './checkOptions';
import { OAuthErrorResponse, sendJson, sendOAuthError } from './http';
import { createSigningKeys } from './keys';
import type { SigningKeys } from './keys';
import { authorizationServerMetadata, PATHS } from './metadata';
import { mint } from './mint';
import type { ServedRequest, TestIssuerClient, TestIssuerOptions, TokenOptions } from './options';
import { tokenRequest } from './tokenEndpoint';
import type { TokenEndpoint } from './tokenEndpoint';

/** Lifetime of tokens from the token endpoint: an hour, long enough for a local session. */
const ENDPOINT_TOKEN_SECONDS = 3600;

/**
 * An OAuth 2.1 authorization server for tests and local development, in-process on node:http:
 * RFC 8414 metadata, a JWKS with one ES256 key generated at start, and a token endpoint for the
 * `client_credentials` grant (`client_secret_basic` or `client_secret_post`; `scope` limited to
 * the client's scopes; `resource` becomes `aud`). `token()` mints tokens directly.
 *
 * @example
 * const issuer = await TestIssuer.start({ clients: [{ clientId: 'ci', clientSecret: 's', scopes: ['notes:read'] }] });
 * const token = await issuer.token({ audience: 'http://127.0.0.1:3000/mcp', scopes: ['notes:read'] });
 * await issuer.close();
 */
export class TestIssuer {
  /** The issuer identifier, `http://host:port` without a trailing slash: the `iss` of its tokens. */
  readonly url: string;
  /** Where its signing keys are published (JWKS). */
  readonly jwksUri: string;
  /** Where its RFC 8414 metadata is served. */
  readonly metadataUrl: string;
  /** Its token endpoint (`client_credentials`). */
  readonly tokenEndpoint: string;

  private readonly metadata: Record<string, unknown>;
  private readonly endpoint: TokenEndpoint;
  private readonly served: ServedRequest[] = [];
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly server: Server,
    url: string,
    private readonly keys: SigningKeys,
    clients: TestIssuerClient[],
  ) {
    this.url = url;
    this.jwksUri = `${url}${PATHS.jwks}`;
    this.metadataUrl = `${url}${PATHS.metadata}`;
    this.tokenEndpoint = `${url}${PATHS.token}`;
    this.metadata = authorizationServerMetadata(url, clients);
    this.endpoint = {
      clients: new Map(clients.map((client) => [client.clientId, client])),
      lifetime: ENDPOINT_TOKEN_SECONDS,
      // RFC 9068 §2.2: a client_credentials token's subject is the client itself.
      issue: (client, audience, scopes) =>
        mint(this.keys, { iss: this.url, sub: client.clientId, aud: audience, clientId: client.clientId, scopes, expiresIn: ENDPOINT_TOKEN_SECONDS, claims: client.claims, key: 'valid' }),
    };
  }

  /**
   * Generates keys and starts serving (on `127.0.0.1` and a free port unless told otherwise).
   * Rejects when an option is invalid or the port cannot be bound. Call {@link close} when done.
   */
  static async start(options: TestIssuerOptions = {}): Promise<TestIssuer> {
    checkIssuerOptions(options);
    const host = options.host ?? '127.0.0.1';
    const keys = await createSigningKeys();
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error) => reject(new Error(`TestIssuer could not listen on ${host}:${options.port ?? 0}: ${error.message}`, { cause: error })));
      server.listen(options.port ?? 0, host, resolve);
    });
    const { port } = server.address() as AddressInfo;
    const issuer = new TestIssuer(server, `http://${host.includes(':') ? `[${host}]` : host}:${port}`, keys, copyClients(options.clients));
    server.on('request', (req: IncomingMessage, res: ServerResponse) => void issuer.handle(req, res));
    return issuer;
  }

  /** Every request it answered, in arrival order, so a test can check what a client fetched. */
  get requests(): readonly ServedRequest[] {
    return this.served;
  }

  /**
   * Mints a signed access token (ES256, with the key id of the JWKS, `typ: at+jwt`) carrying
   * `iss`, `sub`, `aud`, `iat`, `exp`, `jti`, `client_id`, `scope` and `claims`. With
   * `key: 'wrong'` its signature does not verify; with a negative `expiresIn` it has expired.
   */
  async token(options: TokenOptions): Promise<string> {
    checkTokenOptions(options);
    try {
      return await mint(this.keys, {
        iss: options.issuer ?? this.url,
        sub: options.subject ?? 'test-user',
        aud: options.audience,
        clientId: options.clientId ?? 'test-client',
        scopes: options.scopes ?? [],
        expiresIn: options.expiresIn ?? '5m',
        claims: options.claims,
        key: options.key ?? 'valid',
      });
    } catch (error) {
      if (error instanceof TypeError && /time period/i.test(error.message)) {
        throw new DefinitionError('INVALID_OPTION', `@typemcp/auth/testing: expiresIn ${JSON.stringify(options.expiresIn)} is not a duration; use e.g. '30s', '5m', '2h', '-1m' or seconds`);
      }
      throw error;
    }
  }

  /** Stops serving and drops open connections; resolves when the port is free. Safe to call twice. */
  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve, reject) => {
      this.server.close((error) => (error ? reject(error) : resolve()));
      // Keep-alive connections of fetch would hold close() open until they time out.
      this.server.closeAllConnections();
    });
    return this.closing;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    this.served.push({ method: req.method ?? 'GET', path });
    try {
      switch (path) {
        case PATHS.metadata:
          return document(req, res, this.metadata);
        case PATHS.jwks:
          return document(req, res, this.keys.jwks);
        case PATHS.token:
          return await tokenRequest(req, res, this.endpoint);
        case PATHS.authorize:
          throw new OAuthErrorResponse(400, 'unsupported_response_type', 'TestIssuer has no authorization code flow; get tokens with client_credentials at the token endpoint, or with issuer.token()');
        default:
          return sendJson(res, 404, { error: 'not_found', error_description: `TestIssuer serves nothing at ${path}` });
      }
    } catch (error) {
      if (res.headersSent) return void res.destroy();
      if (error instanceof OAuthErrorResponse) return sendOAuthError(res, error);
      sendJson(res, 500, { error: 'server_error', error_description: error instanceof Error ? error.message : String(error) });
    }
  }
}

/** A JSON document for GET and HEAD. */
function document(req: IncomingMessage, res: ServerResponse, body: unknown): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') return sendJson(res, 405, { error: 'invalid_request', error_description: 'use GET' }, { allow: 'GET, HEAD' });
  sendJson(res, 200, body);
}
