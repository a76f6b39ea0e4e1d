export { signIn } from './signIn';
export type { Authenticate, MetadataDocumentSettings, RegistrationSettings, SignInOptions, SignInRequest, SignInUser } from './options';
export { developmentLogin } from './pages/developmentLogin';
export type { DevelopmentLoginOptions, DevelopmentUser } from './pages/developmentLogin';
export { MemorySignInStore } from './store/MemorySignInStore';
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
