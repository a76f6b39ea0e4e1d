/**
 * A notes server whose users sign in at an upstream provider (`signIn({ upstream })`), on
 * 127.0.0.1 in this process, and a browser without a browser (signInServer's FormBrowser)
 * that walks the flow: authorize → provider → upstream callback → consent → the client.
 */
import 'reflect-metadata';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Context, McpServer, Roles, Scopes, Tool } from '@typemcp/core';
import { MemoryUpstreamSessionStore, signIn, upstreamToken } from '@typemcp/auth';
import type { UpstreamProvider, UpstreamSessionEntry, UpstreamSignInOptions } from '@typemcp/auth';
import { Vault } from '../../../src/signin/upstream/vault';
import { CALLBACK, pkce } from '../securityKit';
import type { CodeRequest } from '../securityKit';
import { consentForm, FormBrowser } from '../signInServer';

/** Tools that use the user's upstream access token: they call the provider's API as the user. */
export class ProviderTools {
  /** The provider's endpoint that names the user (GitHub's /user, OIDC's userinfo). */
  static userUrl = '';

  @Tool({ description: 'Asks the provider who the signed-in user is' })
  @Scopes('notes:read')
  async provider_whoami(ctx: Context): Promise<string> {
    const response = await fetch(ProviderTools.userUrl, { headers: { authorization: `Bearer ${await upstreamToken(ctx)}` } });
    if (!response.ok) throw new Error(`the provider answered ${response.status}`);
    const user = (await response.json()) as { name?: string; login?: string };
    return `${user.name ?? user.login}`;
  }

  @Tool({ description: 'Editors only' })
  @Scopes('notes:write')
  @Roles('editor')
  edit_notes(ctx: Context): string {
    return `edited by ${ctx.principal!.subject} (${(ctx.principal!.roles ?? []).join(' ')})`;
  }
}

export interface RunningProxy {
  origin: string;
  resource: string;
  /** What the server reported (its onError). */
  reports: Array<{ what: string; error: unknown }>;
  close(): Promise<void>;
}

export const SECRET = 'the upstream test secret, at least thirty-two characters';

export async function startProxy(upstream: UpstreamProvider, options: Partial<UpstreamSignInOptions> = {}): Promise<RunningProxy> {
  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const resource = `${origin}/mcp`;
  const reports: RunningProxy['reports'] = [];
  const server = new McpServer({ name: 'notes', version: '1.0.0', providers: [ProviderTools], onError: (what, error) => reports.push({ what, error }) });
  server.plugin(signIn, { resource, secret: SECRET, upstream, defaultScopes: ['notes:read'], registration: { perAddressPerMinute: 1000, perMinute: 1000 }, ...options });
  const handler = server.httpHandler({ path: '/mcp' });
  http.on('request', (req, res) => void handler(req, res));
  return {
    origin,
    resource,
    reports,
    async close() {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
      await server.close();
    },
  };
}

export async function registerClient(proxy: RunningProxy): Promise<string> {
  const response = await fetch(`${proxy.origin}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [CALLBACK], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], client_name: 'Notes client' }),
  });
  if (response.status !== 201) throw new Error(`registration failed: ${await response.text()}`);
  return ((await response.json()) as { client_id: string }).client_id;
}

export function authorizeUrl(proxy: RunningProxy, clientId: string, challenge: string, params: Record<string, string> = {}): string {
  const url = new URL(`${proxy.origin}/oauth/authorize`);
  const all = { response_type: 'code', client_id: clientId, redirect_uri: CALLBACK, code_challenge: challenge, code_challenge_method: 'S256', state: 'client-state', ...params };
  for (const [name, value] of Object.entries(all)) url.searchParams.set(name, value);
  return url.href;
}

/** Each step of one sign-in, as the browser saw it. */
export interface Walk {
  /** TypeMCP's redirect to the provider. */
  toProvider: URL;
  /** The provider's redirect to the upstream callback. */
  toCallback: URL;
  /** The consent page, when one was shown. */
  consent: string | undefined;
  /** Where the browser ended: the client's redirect URI, with a code or an error. */
  back: URL;
  request: CodeRequest;
}

/** Authorizes in `browser` through the provider (which answers at once), approving the consent page. */
export async function walk(proxy: RunningProxy, browser: FormBrowser, clientId: string, params: Record<string, string> = {}): Promise<Walk> {
  const { verifier, challenge } = pkce();
  const start = await browser.request(authorizeUrl(proxy, clientId, challenge, params));
  if (start.status !== 303 || start.location === null) throw new Error(`authorize did not send the browser to the provider: ${start.status} ${start.html.slice(0, 300)}`);
  const toProvider = new URL(start.location);
  const provider = await browser.request(toProvider.href);
  if (provider.location === null) throw new Error(`the provider did not redirect: ${provider.status} ${provider.html.slice(0, 300)}`);
  const toCallback = new URL(provider.location);
  let answer = await browser.request(toCallback.href);
  if (answer.status === 303 && answer.location?.startsWith(`${proxy.origin}/oauth/authorize`)) answer = await browser.request(answer.location);
  let consent: string | undefined;
  if (answer.status === 200) {
    consent = answer.html;
    const form = consentForm(answer.html);
    answer = await browser.request(form.action, { form: { request: form.request, csrf: form.csrf, decision: 'approve' } });
  }
  if (answer.status !== 303 || answer.location === null) throw new Error(`no redirect to the client: ${answer.status} ${answer.html.slice(0, 300)}`);
  return { toProvider, toCallback, consent, back: new URL(answer.location), request: { clientId, redirectUri: CALLBACK, verifier } };
}

export async function exchange(proxy: RunningProxy, code: string, request: CodeRequest): Promise<{ status: number; body: Record<string, string> }> {
  const response = await fetch(`${proxy.origin}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: request.redirectUri, code_verifier: request.verifier, client_id: request.clientId }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

export async function tokenRequest(proxy: RunningProxy, params: Record<string, string>): Promise<{ status: number; body: Record<string, string> }> {
  const response = await fetch(`${proxy.origin}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(params) });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

export async function revokeRequest(proxy: RunningProxy, params: Record<string, string>): Promise<number> {
  const response = await fetch(`${proxy.origin}/oauth/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(params) });
  await response.text();
  return response.status;
}

/** Signs in a fresh client through the provider: its tokens. */
export async function signedIn(proxy: RunningProxy, params: Record<string, string> = {}): Promise<{ clientId: string; tokens: Record<string, string>; walk: Walk }> {
  const clientId = await registerClient(proxy);
  const walked = await walk(proxy, new FormBrowser(), clientId, params);
  const code = walked.back.searchParams.get('code');
  if (code === null) throw new Error(`no code: ${walked.back.href}`);
  const exchanged = await exchange(proxy, code, walked.request);
  if (exchanged.status !== 200) throw new Error(`exchange failed: ${JSON.stringify(exchanged.body)}`);
  return { clientId, tokens: exchanged.body, walk: walked };
}

/** Calls a tool with the access token over MCP (the SDK client); the text, or the error's message. */
export async function callTool(proxy: RunningProxy, accessToken: string, name: string): Promise<{ ok: boolean; text: string }> {
  const client = new Client({ name: 'probe', version: '1.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(proxy.resource), { requestInit: { headers: { authorization: `Bearer ${accessToken}` } } }));
    const result = (await client.callTool({ name, arguments: {} })) as { content: Array<{ text: string }>; isError?: boolean };
    return { ok: result.isError !== true, text: result.content.map((block) => block.text).join('') };
  } catch (error) {
    return { ok: false, text: (error as Error).message };
  } finally {
    await client.close();
  }
}

/** A session store whose entries the test can read: what is kept at rest. */
export class VisibleStore extends MemoryUpstreamSessionStore {
  readonly seen = new Map<string, UpstreamSessionEntry>();
  /** Every entry ever stored, refreshed ones too. */
  readonly history: Array<[string, UpstreamSessionEntry]> = [];
  override async add(id: string, entry: UpstreamSessionEntry, ttlSec: number): Promise<void> {
    this.seen.set(id, entry);
    this.history.push([id, entry]);
    return super.add(id, entry, ttlSec);
  }
  override async replace(id: string, expectedVersion: number, next: UpstreamSessionEntry, ttlSec: number): Promise<boolean> {
    const replaced = await super.replace(id, expectedVersion, next, ttlSec);
    if (replaced) {
      this.seen.set(id, next);
      this.history.push([id, next]);
    }
    return replaced;
  }
}

/** Every upstream token the store has held (opened with the secret): what must never reach the client. */
export async function upstreamSecrets(store: VisibleStore): Promise<{ accessTokens: string[]; refreshTokens: string[] }> {
  const accessTokens: string[] = [];
  const refreshTokens: string[] = [];
  for (const [id, entry] of store.history) {
    const { tokens } = await new Vault(SECRET, 'upstream tokens').open<{ tokens: { accessToken: string; refreshToken?: string } }>(id, entry.sealed);
    accessTokens.push(tokens.accessToken);
    if (tokens.refreshToken !== undefined) refreshTokens.push(tokens.refreshToken);
  }
  return { accessTokens: [...new Set(accessTokens)], refreshTokens: [...new Set(refreshTokens)] };
}
