import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { SignInOptions } from '@typemcp/auth';
import { consentForm, FormBrowser, startSignInServer } from './signInServer';
import type { RunningSignIn } from './signInServer';

/** A loopback callback (RFC 8252): any port matches it. */
export const CALLBACK = 'http://127.0.0.1:9/callback';
/** An https callback: matched exactly. */
export const WEB_CALLBACK = 'https://app.example/callback';

export const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

export interface Reply {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

/** What a code exchange needs besides the code. */
export interface CodeRequest {
  clientId: string;
  redirectUri: string;
  verifier: string;
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
  scope: string;
}

/**
 * A signIn server and the moves of its clients and attackers: registration, authorization
 * through a browser, token and revocation requests, and calls to the MCP endpoint.
 */
export class SignInKit {
  private constructor(readonly running: RunningSignIn) {}

  /** Registration limits are high unless the options say otherwise: every test registers clients from 127.0.0.1. */
  static async start(options: Partial<SignInOptions> = {}): Promise<SignInKit> {
    return new SignInKit(await startSignInServer({ registration: { perAddressPerMinute: 1000, perMinute: 1000 }, ...options }));
  }

  get origin(): string {
    return this.running.origin;
  }

  get resource(): string {
    return this.running.resource;
  }

  endpoint(name: 'authorize' | 'consent' | 'token' | 'register' | 'revoke' | 'jwks'): string {
    return `${this.origin}/oauth/${name}`;
  }

  close(): Promise<void> {
    return this.running.close();
  }

  async register(metadata: unknown, init: { contentType?: string; raw?: string; localAddress?: string } = {}): Promise<Reply> {
    const body = init.raw ?? JSON.stringify(metadata);
    const contentType = init.contentType ?? 'application/json';
    if (init.localAddress !== undefined) return postFrom(this.endpoint('register'), body, contentType, init.localAddress);
    return reply(await fetch(this.endpoint('register'), { method: 'POST', headers: { 'content-type': contentType }, body }));
  }

  /** A public client (PKCE only) with the loopback and the https callback. */
  async publicClient(extra: Record<string, unknown> = {}): Promise<string> {
    const registered = await this.register({ redirect_uris: [CALLBACK, WEB_CALLBACK], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], client_name: 'Notes client', ...extra });
    if (registered.status !== 201) throw new Error(`registration failed: ${JSON.stringify(registered.body)}`);
    return registered.body.client_id as string;
  }

  /** An authorization URL; a parameter given as undefined is left out. */
  authorizeUrl(clientId: string, challenge: string, params: Record<string, string | undefined> = {}): string {
    const all: Record<string, string | undefined> = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: CALLBACK,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'state-123',
      resource: this.resource,
      scope: 'notes:read',
      ...params,
    };
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(all)) if (value !== undefined) query.append(name, value);
    return `${this.endpoint('authorize')}?${query}`;
  }

  /** `user` signs in for a fresh client (or `clientId`) and is shown the consent page: the form an attacker would need. */
  async consentPage(user: 'alice' | 'bob', params: Record<string, string | undefined> = {}, clientId?: string) {
    const id = clientId ?? (await this.publicClient());
    const browser = new FormBrowser();
    const page = await browser.signIn(this.authorizeUrl(id, pkce().challenge, params), user, user);
    if (page.status !== 200) throw new Error(`no consent page: ${page.status} ${page.location}`);
    return { clientId: id, browser, page, form: consentForm(page.html) };
  }

  /** A browser signed in as `user` (through an authorization request it leaves unanswered). */
  async browser(user: 'alice' | 'bob', clientId: string): Promise<FormBrowser> {
    const browser = new FormBrowser();
    await browser.signIn(this.authorizeUrl(clientId, pkce().challenge), user, user);
    return browser;
  }

  /** Authorizes in `browser`, approving the consent page when one comes: the redirect back to the client. */
  async authorize(browser: FormBrowser, clientId: string, params: Record<string, string | undefined> = {}): Promise<{ location: URL; request: CodeRequest }> {
    const { verifier, challenge } = pkce();
    let answer = await browser.request(this.authorizeUrl(clientId, challenge, params));
    if (answer.status === 200) {
      const form = consentForm(answer.html);
      answer = await browser.request(form.action, { form: { request: form.request, csrf: form.csrf, decision: 'approve' } });
    }
    if (answer.status !== 303 || answer.location === null) throw new Error(`no redirect: ${answer.status} ${answer.html.slice(0, 300)}`);
    return { location: new URL(answer.location), request: { clientId, redirectUri: params.redirect_uri ?? CALLBACK, verifier } };
  }

  /** A code for `clientId`, approved by alice (or `user`). */
  async code(clientId: string, params: Record<string, string | undefined> = {}, user: 'alice' | 'bob' = 'alice'): Promise<{ code: string; request: CodeRequest }> {
    const { location, request } = await this.authorize(await this.browser(user, clientId), clientId, params);
    const code = location.searchParams.get('code');
    if (code === null) throw new Error(`no code: ${location.href}`);
    return { code, request };
  }

  async token(params: Record<string, string>, headers: Record<string, string> = {}): Promise<Reply> {
    return reply(await fetch(this.endpoint('token'), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(params) }));
  }

  exchange(code: string, request: CodeRequest, extra: Record<string, string> = {}): Promise<Reply> {
    return this.token({ grant_type: 'authorization_code', code, redirect_uri: request.redirectUri, code_verifier: request.verifier, client_id: request.clientId, ...extra });
  }

  refresh(clientId: string, refreshToken: string, extra: Record<string, string> = {}): Promise<Reply> {
    return this.token({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId, ...extra });
  }

  /** Tokens for a fresh public client, signed in by alice. */
  async tokens(clientId?: string, params: Record<string, string | undefined> = {}): Promise<{ clientId: string; tokens: Tokens }> {
    const id = clientId ?? (await this.publicClient());
    const { code, request } = await this.code(id, params);
    const exchanged = await this.exchange(code, request);
    if (exchanged.status !== 200) throw new Error(`exchange failed: ${JSON.stringify(exchanged.body)}`);
    return { clientId: id, tokens: exchanged.body as unknown as Tokens };
  }

  async revoke(params: Record<string, string>, headers: Record<string, string> = {}): Promise<Reply> {
    return reply(await fetch(this.endpoint('revoke'), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(params) }));
  }

  /** How the MCP endpoint answers an initialize carrying the token (200: accepted). */
  async mcp(accessToken: string): Promise<{ status: number; challenge: string | null }> {
    const response = await fetch(this.resource, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '1' } } }),
    });
    await response.text();
    return { status: response.status, challenge: response.headers.get('www-authenticate') };
  }
}

async function reply(response: Response): Promise<Reply> {
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { text };
  }
  return { status: response.status, headers: response.headers, body };
}

/** A POST from another loopback address (127.0.0.2, …): a second client as the server sees it. */
function postFrom(url: string, body: string, contentType: string, localAddress: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', localAddress, headers: { 'content-type': contentType, 'content-length': Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') headers.set(name, value);
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: Record<string, unknown>;
        try {
          parsed = JSON.parse(text) as Record<string, unknown>;
        } catch {
          parsed = { text };
        }
        resolve({ status: res.statusCode ?? 0, headers, body: parsed });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}
