import type { HttpStageReply, HttpStageRequest } from '@typemcp/core';
import { ClientDirectory } from './ClientDirectory';
import { authorize, consent } from './endpoints/authorize';
import { authorizationServerMetadata, protectedResourceMetadata } from './endpoints/metadata';
import { register } from './endpoints/register';
import { revoke, token } from './endpoints/token';
import { documentReply, oauthError, preflightReply } from './http';
import type { MetadataDocumentSettings } from './options';
import type { ServerParts } from './parts';
import type { Settings } from './settings';
import { AccessTokens } from './tokens/AccessTokens';
import { KeyRing } from './tokens/KeyRing';
import { DpopProofs } from '../dpop/proofs';
import type { DpopSettings } from '../dpop/proofs';
import { dpopMetadata } from '../dpop/settings';

type Endpoint = (parts: ServerParts, request: HttpStageRequest) => Promise<HttpStageReply>;

/**
 * The authorization server's endpoints, by path: `handle` answers a request for one of them
 * and passes every other request on.
 */
export class AuthorizationServer implements ServerParts {
  readonly clients: ClientDirectory;
  readonly keyRing: KeyRing;
  readonly accessTokens: AccessTokens;
  readonly dpop: DpopProofs | undefined;
  private readonly routes = new Map<string, { endpoint: Endpoint; methods: string; crossOrigin: boolean }>();
  private readonly documents = new Map<string, () => Promise<unknown>>();

  constructor(
    readonly settings: Settings,
    metadataDocuments: MetadataDocumentSettings | false | undefined,
    private readonly declaredScopes: () => readonly string[],
    readonly serviceName: string,
    dpop?: DpopSettings,
  ) {
    this.dpop = dpop && new DpopProofs(dpop);
    this.clients = new ClientDirectory(settings.store.clients, metadataDocuments, settings.now, settings.store.documents);
    this.keyRing = new KeyRing(settings.store.keys, settings.secret, settings.keyRotationSec, settings.now);
    this.accessTokens = new AccessTokens(this.keyRing, settings.issuer, settings.accessTokenTtlSec, settings.now);
    const { endpoints } = settings;
    const route = (url: string, endpoint: Endpoint, methods: string, crossOrigin: boolean) => this.routes.set(new URL(url).pathname, { endpoint, methods, crossOrigin });
    route(endpoints.authorize, authorize, 'GET, POST', false);
    route(endpoints.consent, consent, 'POST', false);
    route(endpoints.token, token, 'POST', true);
    route(endpoints.revoke, revoke, 'POST', true);
    if (settings.registration !== undefined) route(endpoints.register, register, 'POST', true);
    this.documents.set(new URL(endpoints.jwks).pathname, async () => (await this.keyRing.keys()).jwks);
    const dpopServer = dpop === undefined ? {} : { dpop_signing_alg_values_supported: dpop.algorithms };
    for (const path of endpoints.metadataPaths) this.documents.set(path, async () => ({ ...authorizationServerMetadata(settings, this.scopes(), this.clients.acceptsMetadataDocuments), ...dpopServer }));
    for (const path of endpoints.resourceMetadataPaths) this.documents.set(path, async () => ({ ...protectedResourceMetadata(settings, this.scopes(), this.serviceName), ...dpopMetadata(dpop) }));
  }

  scopes(): readonly string[] {
    return this.declaredScopes();
  }

  defaultScopes(): readonly string[] {
    return this.settings.defaultScopes ?? this.declaredScopes();
  }

  /** The answer for one of the server's paths; undefined, at once, for any other (every MCP request asks). */
  handle(request: HttpStageRequest): Promise<HttpStageReply> | undefined {
    const document = this.documents.get(request.pathname);
    if (document !== undefined) return serveDocument(request, document);
    const route = this.routes.get(request.pathname);
    if (route === undefined) return undefined;
    if (request.method === 'OPTIONS' && route.crossOrigin) return Promise.resolve(preflightReply(route.methods));
    return route.endpoint(this, request);
  }
}

async function serveDocument(request: HttpStageRequest, document: () => Promise<unknown>): Promise<HttpStageReply> {
  if (request.method === 'OPTIONS') return preflightReply('GET');
  if (request.method !== 'GET' && request.method !== 'HEAD') return oauthError(405, 'invalid_request', 'use GET', { allow: 'GET' });
  return documentReply(await document(), 300);
}
