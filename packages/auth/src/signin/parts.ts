import type { DpopProofs } from '../dpop/proofs';
import type { ClientDirectory } from './ClientDirectory';
import type { Settings } from './settings';
import type { AccessTokens } from './tokens/AccessTokens';
import type { KeyRing } from './tokens/KeyRing';

/** What the endpoints share: the settings and the authorization server's parts. */
export interface ServerParts {
  readonly settings: Settings;
  readonly clients: ClientDirectory;
  readonly keyRing: KeyRing;
  readonly accessTokens: AccessTokens;
  /** Checks DPoP proofs at the token endpoint; undefined when DPoP is off. */
  readonly dpop: DpopProofs | undefined;
  /** Every scope a client may ask for now: those the server's targets need. */
  scopes(): readonly string[];
  /** What a request naming no scope gets, and the 401 names. */
  defaultScopes(): readonly string[];
  /** The server's name on the pages. */
  readonly serviceName: string;
}
