import type { OAuthClient } from '../clients/Client';

/** A user as the authorization server records them in grants and tokens. */
export interface GrantUser {
  /** Stable and unique: the tokens' `sub`, the handlers' `ctx.principal.subject`. */
  readonly id: string;
  /** For the `roles` claim that `@Roles` reads. */
  readonly roles?: readonly string[];
  /** The upstream provider's sign-in whose tokens the grant holds (sign-in through `upstream`); never in a token. */
  readonly upstream?: string;
}

/** An authorization request the user is being asked to approve. */
export interface PendingAuthorization {
  readonly id: string;
  /** Echoed by the consent form: a cross-site page cannot know it. */
  readonly csrf: string;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly state: string | undefined;
  readonly codeChallenge: string;
  readonly scopes: readonly string[];
  readonly resource: string;
  readonly user: GrantUser;
  /** The `dpop_jkt` of the request: the code is exchanged only with a DPoP proof of that key. */
  readonly dpopJkt?: string;
}

/** An authorization code, stored under the hash of the code. */
export interface AuthorizationCode {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly scopes: readonly string[];
  readonly resource: string;
  readonly user: GrantUser;
  /** The grant the code's exchange creates: revoked when the code is presented twice. */
  readonly grantId: string;
  /** The `dpop_jkt` of the authorization request: the exchange needs a DPoP proof of that key. */
  readonly dpopJkt?: string;
}

/** What a user allowed one client, and the refresh token that carries it on. */
export interface Grant {
  readonly id: string;
  readonly clientId: string;
  readonly user: GrantUser;
  readonly scopes: readonly string[];
  readonly resource: string;
  /** SHA-256 (base64url) of the refresh token that is valid now. */
  readonly refreshHash: string;
  /** Refresh tokens already exchanged: presenting one again revokes the grant. */
  readonly usedRefreshHashes: readonly string[];
  /** Epoch seconds when the current refresh token stops working. */
  readonly refreshExpiresAt: number;
  readonly revoked: boolean;
  /** The thumbprint of the DPoP key the refresh token is bound to: refreshing needs a proof of it. */
  readonly dpopJkt?: string;
}

/** A signing key, its private part encrypted with the author's secret. */
export interface StoredKey {
  readonly kid: string;
  /** Epoch seconds. */
  readonly createdAt: number;
  /** The public JWK, published at the JWKS endpoint. */
  readonly publicJwk: Readonly<Record<string, unknown>>;
  /** The private JWK as compact JWE (`dir`, `A256GCM`). */
  readonly encryptedPrivateJwk: string;
}

/** Clients that registered themselves (RFC 7591); metadata-document clients are not stored. */
export interface ClientStore {
  get(clientId: string): Promise<OAuthClient | undefined>;
  /** Keeps a new client; it is forgotten after `unusedTtlSec` unless `markUsed` comes first. */
  add(client: OAuthClient, unusedTtlSec: number): Promise<void>;
  /** The client completed a sign-in: keep it. */
  markUsed(clientId: string): Promise<void>;
}

/**
 * Authorization codes until they are exchanged for tokens, each taken once: a second use is a
 * replay.
 */
export interface CodeStore {
  add(codeHash: string, code: AuthorizationCode, ttlSec: number): Promise<void>;
  /**
   * Marks the code used and returns it, with whether this was its first use (a later one is
   * a replay, until the code expires); undefined for an unknown or expired code.
   */
  take(codeHash: string): Promise<{ readonly code: AuthorizationCode; readonly firstUse: boolean } | undefined>;
}

/** Grants, the refresh tokens that carry them on, and their revocation. */
export interface GrantStore {
  add(grant: Grant, ttlSec: number): Promise<void>;
  get(grantId: string): Promise<Grant | undefined>;
  /**
   * Replaces the refresh token if `expectedHash` is still the current one (compare and set):
   * false when it is not (another exchange won, or the grant is gone or revoked).
   */
  rotate(grantId: string, expectedHash: string, next: { refreshHash: string; refreshExpiresAt: number }, ttlSec: number): Promise<boolean>;
  /**
   * Ends the grant. An id not added yet (a replayed code racing its first exchange) is
   * remembered for at least ten minutes, and a grant added under it in that time is revoked.
   */
  revoke(grantId: string): Promise<void>;
}

/**
 * The scopes each user allowed each client, so that a client asking for nothing new skips the
 * consent page.
 */
export interface ConsentStore {
  /** The scopes the user already allowed the client. */
  get(userId: string, clientId: string): Promise<readonly string[]>;
  set(userId: string, clientId: string, scopes: readonly string[]): Promise<void>;
}

/** Authorization requests waiting for the user's answer on the consent page. */
export interface PendingAuthorizationStore {
  add(request: PendingAuthorization, ttlSec: number): Promise<void>;
  /** The request, removed: a consent form is answered once. */
  take(id: string): Promise<PendingAuthorization | undefined>;
}

/**
 * The authorization server's signing keys, so that every replica signs with and publishes the
 * same ones.
 */
export interface KeyStore {
  list(): Promise<readonly StoredKey[]>;
  /**
   * Replaces the keys with `next` if they are still `expected` (by kid, in order): false when
   * another replica changed them first, and the caller reads them again.
   */
  replace(expected: readonly StoredKey[], next: readonly StoredKey[]): Promise<boolean>;
}

/** What a client metadata document said when it was last checked: the client, or why it was refused. */
export type CheckedDocument = { readonly expiresAt: number } & ({ readonly client: OAuthClient } | { readonly refusal: string });

/** Client metadata documents already checked, shared so that replicas fetch each once per lifetime. */
export interface ClientDocumentStore {
  get(clientId: string): Promise<CheckedDocument | undefined>;
  /** Keeps the entry until its `expiresAt` (epoch milliseconds). */
  set(clientId: string, entry: CheckedDocument): Promise<void>;
}

/**
 * Counts events per time window for the rate limits (client registration), so replicas count
 * together.
 */
export interface RateCounter {
  /** Counts one more event under `key` in the current window of `windowSec`; the count so far. */
  hit(key: string, windowSec: number): Promise<number>;
}

/**
 * Where the authorization server keeps its state. `MemorySignInStore` keeps it in this
 * process; a store shared by replicas makes every replica accept what any issued.
 */
export interface SignInStore {
  readonly clients: ClientStore;
  readonly codes: CodeStore;
  readonly grants: GrantStore;
  readonly consents: ConsentStore;
  readonly requests: PendingAuthorizationStore;
  readonly keys: KeyStore;
  readonly counters: RateCounter;
  /**
   * Client metadata documents checked by any replica. Optional: without it each replica keeps
   * its own (bounded) cache and fetches a document itself once per lifetime.
   */
  readonly documents?: ClientDocumentStore;
}
