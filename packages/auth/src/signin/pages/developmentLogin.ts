import type { Authenticate, SignInRequest, SignInUser } from '../options';
import { base64url, equalStrings, sha256 } from '../tokens/secrets';
import { escapeHtml, page } from './html';

/** A user of the development login. */
export interface DevelopmentUser {
  readonly password: string;
  /** Shown on the consent page; default the username. */
  readonly name?: string;
  readonly roles?: readonly string[];
}

/** The options of `developmentLogin`: its users, and how long a login lasts. */
export interface DevelopmentLoginOptions {
  /** Username to user: `{ alice: { password: 'alice' } }`. */
  readonly users: Readonly<Record<string, DevelopmentUser>>;
  /** How long a login lasts; default 8 hours. */
  readonly sessionTtlSec?: number;
}

const COOKIE = 'typemcp_dev_login';

/**
 * A username and password form for trying sign-in locally: the users are in the code, the
 * session is an HMAC-signed cookie under a key made when the process starts. Not for
 * production, where `authenticate` reads the app's own session.
 */
export function developmentLogin(options: DevelopmentLoginOptions): Authenticate {
  const users = new Map(Object.entries(options.users));
  if (users.size === 0) throw new TypeError('developmentLogin needs at least one user: { users: { alice: { password: "…" } } }');
  const ttlSec = options.sessionTtlSec ?? 8 * 3600;
  const key = crypto.subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
  const sign = async (text: string) => base64url(new Uint8Array(await crypto.subtle.sign('HMAC', await key, new TextEncoder().encode(text))));
  const userOf = (username: string): SignInUser => {
    const user = users.get(username)!;
    return { id: username, name: user.name ?? username, roles: user.roles };
  };

  return async (request: SignInRequest) => {
    const session = await sessionOf(request, sign);
    if (session !== undefined && users.has(session)) return userOf(session);
    if (request.method !== 'POST') return loginPage(request, undefined, 200);
    const form = await request.form();
    const username = form.get('username') ?? '';
    const password = form.get('password') ?? '';
    if (!form.has('username')) return loginPage(request, undefined, 200);
    if (!sameOrigin(request)) return loginPage(request, 'This login form was sent from another site.', 403);
    const user = users.get(username);
    // Hashes of equal length: the comparison takes as long whatever the password.
    if (user === undefined || !equalStrings(await sha256(password), await sha256(user.password))) {
      return loginPage(request, 'Unknown username or wrong password.', 401);
    }
    const expires = Math.floor(Date.now() / 1000) + ttlSec;
    const value = `${base64url(new TextEncoder().encode(username))}.${expires}`;
    const secure = new URL(request.url).protocol === 'https:' ? '; Secure' : '';
    return new Response(null, {
      status: 303,
      headers: {
        location: request.url,
        'set-cookie': `${COOKIE}=${value}.${await sign(value)}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${ttlSec}${secure}`,
        'cache-control': 'no-store',
      },
    });
  };
}

async function sessionOf(request: SignInRequest, sign: (text: string) => Promise<string>): Promise<string | undefined> {
  const cookie = (request.headers.get('cookie') ?? '')
    .split(';')
    .map((part) => part.trim())
    .find((part) => part.startsWith(`${COOKIE}=`));
  if (cookie === undefined) return undefined;
  const [username, expires, signature] = cookie.slice(COOKIE.length + 1).split('.');
  if (signature === undefined || !equalStrings(signature, await sign(`${username}.${expires}`))) return undefined;
  if (!(Number(expires) * 1000 > Date.now())) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(atob(username.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
}

/** A form POST comes from the page it was on: its Origin, when sent, is the request's own. */
function sameOrigin(request: SignInRequest): boolean {
  const origin = request.headers.get('origin');
  const site = request.headers.get('sec-fetch-site');
  if (site !== null && site !== 'same-origin') return false;
  return origin === null || origin === new URL(request.url).origin;
}

function loginPage(request: SignInRequest, error: string | undefined, status: number): Response {
  const html = page(
    'Sign in',
    `<h1>Sign in</h1>
<p>Development login: the users are in the server's code.</p>
${error !== undefined ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="${escapeHtml(request.url)}">
<label for="username">Username</label>
<input id="username" name="username" autocomplete="username" required autofocus>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<div class="actions"><button type="submit" class="primary">Sign in</button></div>
</form>`,
  );
  return new Response(html, {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
      'x-frame-options': 'DENY',
      'cache-control': 'no-store',
    },
  });
}
