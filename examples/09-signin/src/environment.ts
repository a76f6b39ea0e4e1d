import { developmentLogin } from '@typemcp/auth';
import type { DpopOptions, SignInStore } from '@typemcp/auth';
import type { McpServer } from '@typemcp/core';
import { createSignInServer } from './server';

const DEVELOPMENT_SECRET = 'development secret: set SIGNIN_SECRET in production';

/** The notes server as an entry configured it, and what to tell the person who started it. */
export interface ConfiguredNotes {
  server: McpServer;
  port: number;
  /** Where the MCP endpoint and the sign-in pages are served. */
  origin: string;
  /** The lines to print once the server listens at `url`. */
  banner(url: string): string;
}

/**
 * The notes server from an environment: Node's `process.env`, `Bun.env`, `Deno.env` or a
 * Worker's `env`, read through `get`. PORT, ORIGIN (default http://127.0.0.1:PORT),
 * SIGNIN_SECRET, MCP_REQUEST_STATE_SECRET, SIGNIN_ALLOW_PRIVATE_CLIENT_DOCUMENTS=1,
 * ACCESS_TOKEN_TTL_SEC, DPOP (`required`, `nonce` or `nonce=<lifetime in s>`, both as
 * `required,nonce`, or `off`).
 */
export function notesFromEnvironment(get: (name: string) => string | undefined, options: { store?: SignInStore } = {}): ConfiguredNotes {
  const port = Number(get('PORT') ?? 3000);
  const origin = get('ORIGIN') ?? `http://127.0.0.1:${port}`;
  const secret = get('SIGNIN_SECRET') ?? DEVELOPMENT_SECRET;
  const ttl = get('ACCESS_TOKEN_TTL_SEC');
  const server = createSignInServer(
    {
      resource: `${origin}/mcp`,
      secret,
      authenticate: developmentLogin({ users: { alice: { password: 'alice', name: 'Alice' }, bob: { password: 'bob', name: 'Bob' } } }),
      // For trying metadata-document clients served on this machine; never in production.
      metadataDocuments: { allowPrivateAddresses: get('SIGNIN_ALLOW_PRIVATE_CLIENT_DOCUMENTS') === '1' },
      accessTokenTtlSec: ttl === undefined ? undefined : Number(ttl),
      dpop: dpopFrom(get('DPOP')),
      store: options.store,
    },
    get('MCP_REQUEST_STATE_SECRET'),
  );
  const banner = (url: string) =>
    [
      `signin-notes: serving MCP at ${url}, with sign-in at ${origin}/.well-known/oauth-authorization-server.`,
      'Sign in as alice (password alice) or bob (password bob). Stop with Ctrl+C.',
      secret === DEVELOPMENT_SECRET ? 'signin-notes: using the development secret; set SIGNIN_SECRET (32+ characters) anywhere else.' : '',
      '',
    ].join('\n');
  return { server, port, origin, banner };
}

/** DPoP as the DPOP variable sets it: accepted beside bearer tokens unless it says otherwise. */
function dpopFrom(value: string | undefined): DpopOptions | boolean | undefined {
  if (value === undefined || value === '') return undefined;
  if (value === 'off') return false;
  const words = value.split(',');
  const nonce = words.find((word) => word === 'nonce' || word.startsWith('nonce='));
  return { required: words.includes('required'), nonce: nonce === undefined ? false : nonce === 'nonce' ? true : { lifetimeSec: Number(nonce.slice(6)) } };
}
