import { DefinitionError } from '@typemcp/core';
import type { Authenticate, RegistrationSettings, SignInOptions } from './options';
import type { SignInStore } from './store/SignInStore';
import { MemorySignInStore } from './store/MemorySignInStore';

/** The options with their defaults, checked once. */
export interface Settings {
  readonly resource: string;
  readonly issuer: string;
  /** The issuer's origin: where every endpoint is served. */
  readonly origin: string;
  readonly authenticate: Authenticate;
  readonly secret: string | Uint8Array;
  readonly store: SignInStore;
  readonly defaultScopes: readonly string[] | undefined;
  readonly scopeDescriptions: Readonly<Record<string, string>>;
  readonly registration: Required<RegistrationSettings> | undefined;
  readonly accessTokenTtlSec: number;
  readonly refreshTokenTtlSec: number;
  readonly keyRotationSec: number;
  readonly serviceName: string | undefined;
  readonly now: () => number;
  /** Absolute URLs and paths of the endpoints. */
  readonly endpoints: Endpoints;
}

export interface Endpoints {
  readonly authorize: string;
  readonly consent: string;
  readonly token: string;
  readonly register: string;
  readonly revoke: string;
  readonly jwks: string;
  /** RFC 8414 metadata paths: the path-inserted one first. */
  readonly metadataPaths: readonly string[];
  /** RFC 9728 metadata paths of the resource: the path-inserted one first. */
  readonly resourceMetadataPaths: readonly string[];
  readonly resourceMetadataUrl: string;
}

const DAY = 24 * 3600;

export function settingsOf(options: SignInOptions | undefined): Settings {
  const fail = (message: string): never => {
    throw new DefinitionError('INVALID_OPTION', `signIn: ${message}`);
  };
  if (typeof options !== 'object' || options === null) return fail('options are required: server.plugin(signIn, { resource, authenticate, secret })');
  if (typeof options.resource !== 'string' || !URL.canParse(options.resource)) return fail(`resource must be the absolute URL of the MCP endpoint, not ${JSON.stringify(options.resource)}`);
  const resource = new URL(options.resource);
  if (resource.search !== '' || resource.hash !== '') fail(`resource must be a URL without query or fragment, not ${options.resource}`);
  const issuerText = options.issuer ?? resource.origin;
  if (typeof issuerText !== 'string' || !URL.canParse(issuerText)) return fail(`issuer must be an absolute URL, not ${JSON.stringify(options.issuer)}`);
  const issuer = new URL(issuerText);
  // RFC 8414 §2: an https URL (http on loopback for development) without query or fragment.
  if (issuer.search !== '' || issuer.hash !== '') fail(`issuer must be a URL without query or fragment, not ${issuerText}`);
  if (issuer.protocol !== 'https:' && !(issuer.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(issuer.hostname))) {
    fail(`issuer must be https (http only on 127.0.0.1, [::1] or localhost), not ${issuerText}`);
  }
  if (typeof options.authenticate !== 'function') fail('authenticate must be a function (request) => user | Response; developmentLogin({ users }) is one for trying it out');
  const secretLength = typeof options.secret === 'string' ? options.secret.length : options.secret instanceof Uint8Array ? options.secret.byteLength : -1;
  if (secretLength < 32) fail('secret must be at least 32 characters (or bytes) that encrypt the signing keys at rest; read it from the environment');
  const positive = (name: string, value: number | undefined, fallback: number): number => {
    if (value === undefined) return fallback;
    if (!Number.isInteger(value) || value <= 0) fail(`${name} must be a positive whole number, not ${String(value)}`);
    return value;
  };
  const accessTokenTtlSec = positive('accessTokenTtlSec', options.accessTokenTtlSec, 3600);
  const keyRotationSec = positive('keyRotationSec', options.keyRotationSec, 30 * DAY);
  // The previous key stays published for one rotation: tokens it signed must expire by then.
  if (keyRotationSec < accessTokenTtlSec) fail(`keyRotationSec (${keyRotationSec}) must be at least accessTokenTtlSec (${accessTokenTtlSec})`);
  if (options.defaultScopes !== undefined && (!Array.isArray(options.defaultScopes) || !options.defaultScopes.every((scope) => isScopeToken(scope)))) {
    fail('defaultScopes must be an array of scope names (printable ASCII without spaces, quotes or backslashes)');
  }
  // The default store is this isolate's memory, and a Worker's next request may reach another isolate.
  if (options.store === undefined && onCloudflareWorkers()) {
    fail(
      'store is required on Cloudflare Workers: the default keeps clients, sign-ins, codes, grants and keys in memory, and each Worker isolate has its own, so a sign-in begun in one isolate is unknown to the next. Pass a store shared by every isolate, such as one kept by a Durable Object (docs/guides/signin.md, "Runtimes")',
    );
  }
  const registration =
    options.registration === false
      ? undefined
      : {
          perAddressPerMinute: positive('registration.perAddressPerMinute', options.registration?.perAddressPerMinute, 10),
          perMinute: positive('registration.perMinute', options.registration?.perMinute, 100),
          unusedTtlSec: positive('registration.unusedTtlSec', options.registration?.unusedTtlSec, DAY),
        };
  const base = issuer.href.replace(/\/$/, '');
  const issuerPath = issuer.pathname === '/' ? '' : issuer.pathname.replace(/\/$/, '');
  const resourcePath = resource.pathname === '/' ? '' : resource.pathname.replace(/\/$/, '');
  const at = (name: string) => `${base}/oauth/${name}`;
  const resourceMetadataPaths = resourcePath === '' ? ['/.well-known/oauth-protected-resource'] : [`/.well-known/oauth-protected-resource${resourcePath}`, '/.well-known/oauth-protected-resource'];
  return {
    resource: options.resource,
    issuer: base,
    origin: issuer.origin,
    authenticate: options.authenticate,
    secret: options.secret,
    store: options.store ?? new MemorySignInStore(options.now),
    defaultScopes: options.defaultScopes,
    scopeDescriptions: options.scopeDescriptions ?? {},
    registration,
    accessTokenTtlSec,
    refreshTokenTtlSec: positive('refreshTokenTtlSec', options.refreshTokenTtlSec, 30 * DAY),
    keyRotationSec,
    serviceName: options.serviceName,
    now: options.now ?? Date.now,
    endpoints: {
      authorize: at('authorize'),
      consent: at('consent'),
      token: at('token'),
      register: at('register'),
      revoke: at('revoke'),
      jwks: at('jwks'),
      metadataPaths: issuerPath === '' ? ['/.well-known/oauth-authorization-server'] : [`/.well-known/oauth-authorization-server${issuerPath}`],
      resourceMetadataPaths,
      resourceMetadataUrl: `${resource.origin}${resourceMetadataPaths[0]}`,
    },
  };
}

/** Cloudflare's documented way to tell its runtime: `navigator.userAgent` is "Cloudflare-Workers". */
function onCloudflareWorkers(): boolean {
  return (globalThis as { navigator?: { userAgent?: unknown } }).navigator?.userAgent === 'Cloudflare-Workers';
}

/** A scope token (RFC 6749 §3.3): printable ASCII but space, `"` and `\`. */
export function isScopeToken(scope: unknown): scope is string {
  return typeof scope === 'string' && /^[\x21\x23-\x5B\x5D-\x7E]+$/.test(scope);
}
