export { signIn } from './signIn';
export type { Authenticate, MetadataDocumentSettings, RegistrationSettings, SignInOptions, SignInRequest, SignInUser } from './options';
export { developmentLogin } from './pages/developmentLogin';
export type { DevelopmentLoginOptions, DevelopmentUser } from './pages/developmentLogin';
export { MemorySignInStore } from './store/MemorySignInStore';
export { entraUpstream, githubUpstream, googleUpstream, mapGroups, oidcUpstream, UpstreamProvider } from './upstream/providers';
export type { EntraUpstreamOptions, GitHubUpstreamOptions, GoogleUpstreamOptions, OidcUpstreamOptions, UpstreamAccess, UpstreamIdentity, UpstreamMapping, UpstreamOptions, UpstreamTokenSet } from './upstream/providers';
export { upstreamToken } from './upstream/registry';
export { MemoryUpstreamSessionStore } from './upstream/store';
export type { UpstreamSessionEntry, UpstreamSessionStore } from './upstream/store';
export type { UpstreamSignInOptions } from './upstream/UpstreamProxy';
export type {
  AuthorizationCode,
  CheckedDocument,
  ClientDocumentStore,
  ClientStore,
  CodeStore,
  ConsentStore,
  Grant,
  GrantStore,
  GrantUser,
  KeyStore,
  PendingAuthorization,
  PendingAuthorizationStore,
  RateCounter,
  SignInStore,
  StoredKey,
} from './store/SignInStore';
export type { ClientAuthMethod, ClientOrigin, OAuthClient } from './clients/Client';
export type { DocumentFetcher, FetchedDocument } from './clients/fetchers';
