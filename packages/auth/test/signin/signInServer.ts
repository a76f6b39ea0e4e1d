import 'reflect-metadata';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Context, McpServer, Scopes, Tool } from '@typemcp/core';
import { developmentLogin, signIn } from '@typemcp/auth';
import type { SignInOptions } from '@typemcp/auth';

export class Notes {
  @Tool({ description: 'Reads the notes of the signed-in user' })
  @Scopes('notes:read')
  read_notes(ctx: Context): string {
    return `notes of ${ctx.principal!.subject} (${ctx.principal!.scopes.join(' ')})`;
  }

  @Tool({ description: 'Writes a note' })
  @Scopes('notes:write')
  write_note(ctx: Context): string {
    return `written by ${ctx.principal!.subject}`;
  }
}

export interface RunningSignIn {
  origin: string;
  resource: string;
  server: McpServer;
  close(): Promise<void>;
}

/** A notes server behind signIn with a development login (alice/alice, bob/bob), on 127.0.0.1. */
export async function startSignInServer(options: Partial<SignInOptions> = {}): Promise<RunningSignIn> {
  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const resource = `${origin}/mcp`;
  const server = new McpServer({ name: 'notes', version: '1.0.0', providers: [Notes] });
  server.plugin(signIn, {
    resource,
    secret: 'a test secret of at least thirty-two characters',
    authenticate: developmentLogin({ users: { alice: { password: 'alice', name: 'Alice' }, bob: { password: 'bob' } } }),
    defaultScopes: ['notes:read'],
    ...options,
  });
  const handler = server.httpHandler({ path: '/mcp' });
  http.on('request', (req, res) => void handler(req, res));
  return {
    origin,
    resource,
    server,
    async close() {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
      await server.close();
    },
  };
}

/** A browser without a browser: cookies kept, redirects left to the caller, forms read from the HTML. */
export class FormBrowser {
  private readonly cookies = new Map<string, string>();

  async request(url: string, init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {}): Promise<{ status: number; location: string | null; html: string; headers: Headers }> {
    const headers: Record<string, string> = { ...init.headers };
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    let body: string | undefined;
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      headers.origin ??= new URL(url).origin;
      body = new URLSearchParams(init.form).toString();
    }
    const response = await fetch(url, { method: init.method ?? (body ? 'POST' : 'GET'), headers, body, redirect: 'manual' });
    const cookie = response.headers.get('set-cookie');
    if (cookie) {
      const [pair] = cookie.split(';');
      const at = pair.indexOf('=');
      this.cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return { status: response.status, location: response.headers.get('location'), html: await response.text(), headers: response.headers };
  }

  /** Logs in through the development form and returns the page the authorization URL shows then. */
  async signIn(authorizationUrl: string, username: string, password: string) {
    const first = await this.request(authorizationUrl);
    if (!first.html.includes('name="password"')) return first;
    const login = await this.request(authorizationUrl, { form: { username, password } });
    if (login.status !== 303) throw new Error(`login failed: ${login.status} ${login.html}`);
    return this.request(login.location!);
  }
}

/** The hidden fields and the action of the consent form. */
export function consentForm(html: string): { action: string; request: string; csrf: string } {
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
  const action = /<form method="post" action="([^"]*)"/.exec(html)?.[1];
  if (!action || !field('request') || !field('csrf')) throw new Error(`no consent form in: ${html.slice(0, 500)}`);
  return { action: action.replace(/&#(\d+);/g, (_, code) => String.fromCharCode(Number(code))), request: field('request')!, csrf: field('csrf')! };
}
