/**
 * A stand-in for GitHub, the only one these tests use (GitHub itself cannot be reached from
 * a test): OAuth 2 without OpenID Connect, as GitHub documents it. The authorization page
 * approves at once as the current user; the token endpoint exchanges codes (PKCE checked) and
 * refresh tokens (expiring user tokens, as a GitHub App's); the REST API answers `/user`,
 * `/user/orgs`, `/user/teams` and the token's deletion. It records what it was asked.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StandInUser {
  id: number;
  login: string;
  name: string;
  orgs?: string[];
  /** `org/team` */
  teams?: string[];
}

interface Issued {
  user: StandInUser;
  refreshToken: string;
  expiresAt: number;
  revoked: boolean;
}

export interface GitHubStandIn {
  origin: string;
  clientId: string;
  clientSecret: string;
  /** Who is signed in at "GitHub"; `deny` makes the authorization page answer access_denied. */
  user: StandInUser | 'deny';
  /** Lifetime of its access tokens. */
  accessTtlSec: number;
  /** What was asked, as `METHOD /path` (with the grant type for the token endpoint). */
  requests: string[];
  /** Every access token issued, and whether it was revoked. */
  tokens: Map<string, Issued>;
  /** The authorization requests, as their query. */
  authorizations: URLSearchParams[];
  close(): Promise<void>;
}

export async function startGitHubStandIn(): Promise<GitHubStandIn> {
  const codes = new Map<string, { user: StandInUser; challenge: string; redirectUri: string }>();
  const refreshes = new Map<string, string>();
  const standIn: Omit<GitHubStandIn, 'origin' | 'close'> = {
    clientId: 'Iv1.standin',
    clientSecret: 'stand-in client secret',
    user: { id: 1, login: 'octocat', name: 'The Octocat' },
    accessTtlSec: 3600,
    requests: [],
    tokens: new Map(),
    authorizations: [],
  };
  const random = () => randomBytes(20).toString('hex');
  const issue = (user: StandInUser) => {
    const accessToken = `ghu_${random()}`;
    const refreshToken = `ghr_${random()}`;
    standIn.tokens.set(accessToken, { user, refreshToken, expiresAt: Date.now() + standIn.accessTtlSec * 1000, revoked: false });
    refreshes.set(refreshToken, accessToken);
    return { access_token: accessToken, token_type: 'bearer', scope: 'read:user,user:email', expires_in: standIn.accessTtlSec, refresh_token: refreshToken, refresh_token_expires_in: 15_897_600 };
  };
  // Either encoding of the pair: RFC 6749's form-encoded one (the token endpoint's clients) or plain (RFC 7617).
  const basicOk = (req: IncomingMessage) => {
    const pair = Buffer.from(/^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '', 'base64').toString();
    const [id, secret] = pair.split(':').map((part) => decodeURIComponent(part.replace(/\+/g, ' ')));
    return id === standIn.clientId && secret === standIn.clientSecret;
  };
  const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const bearerUser = (req: IncomingMessage): StandInUser | undefined => {
    const token = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const issued = token === undefined ? undefined : standIn.tokens.get(token);
    return issued === undefined || issued.revoked || issued.expiresAt <= Date.now() ? undefined : issued.user;
  };

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      let body = '';
      for await (const chunk of req) body += chunk;
      const form = new URLSearchParams(body);
      standIn.requests.push(`${req.method} ${url.pathname}${form.has('grant_type') ? ` ${form.get('grant_type')}` : ''}`);
      if (req.method === 'GET' && url.pathname === '/login/oauth/authorize') {
        standIn.authorizations.push(url.searchParams);
        const back = new URL(url.searchParams.get('redirect_uri')!);
        back.searchParams.set('state', url.searchParams.get('state') ?? '');
        if (standIn.user === 'deny') {
          back.searchParams.set('error', 'access_denied');
        } else {
          const code = random();
          codes.set(code, { user: standIn.user, challenge: url.searchParams.get('code_challenge') ?? '', redirectUri: url.searchParams.get('redirect_uri')! });
          back.searchParams.set('code', code);
        }
        res.writeHead(302, { location: back.href }).end();
        return;
      }
      if (req.method === 'POST' && url.pathname === '/login/oauth/access_token') {
        if (!basicOk(req)) return json(res, 401, { error: 'invalid_client' });
        if (form.get('grant_type') === 'authorization_code') {
          const code = codes.get(form.get('code') ?? '');
          codes.delete(form.get('code') ?? '');
          const verifier = form.get('code_verifier') ?? '';
          if (code === undefined || code.redirectUri !== form.get('redirect_uri') || createHash('sha256').update(verifier).digest('base64url') !== code.challenge) {
            return json(res, 400, { error: 'invalid_grant', error_description: 'The code passed is incorrect or expired.' });
          }
          return json(res, 200, issue(code.user));
        }
        if (form.get('grant_type') === 'refresh_token') {
          const previous = refreshes.get(form.get('refresh_token') ?? '');
          const issued = previous === undefined ? undefined : standIn.tokens.get(previous);
          if (issued === undefined || issued.revoked) return json(res, 400, { error: 'invalid_grant', error_description: 'The refresh token passed is incorrect or expired.' });
          refreshes.delete(form.get('refresh_token')!);
          issued.revoked = true;
          return json(res, 200, issue(issued.user));
        }
        return json(res, 400, { error: 'unsupported_grant_type' });
      }
      if (req.method === 'GET' && url.pathname.startsWith('/user')) {
        const user = bearerUser(req);
        if (user === undefined) return json(res, 401, { message: 'Bad credentials' });
        if (url.pathname === '/user') return json(res, 200, { id: user.id, login: user.login, name: user.name, email: `${user.login}@example.com` });
        if (url.pathname === '/user/orgs') return json(res, 200, (user.orgs ?? []).map((login) => ({ login })));
        if (url.pathname === '/user/teams') return json(res, 200, (user.teams ?? []).map((team) => ({ slug: team.split('/')[1], organization: { login: team.split('/')[0] } })));
      }
      const deletion = /^\/applications\/([^/]+)\/token$/.exec(url.pathname);
      if (req.method === 'DELETE' && deletion !== null) {
        if (!basicOk(req) || decodeURIComponent(deletion[1]) !== standIn.clientId) return json(res, 401, { message: 'Requires authentication' });
        const issued = standIn.tokens.get((JSON.parse(body) as { access_token?: string }).access_token ?? '');
        if (issued === undefined) return json(res, 404, { message: 'Not Found' });
        issued.revoked = true;
        refreshes.delete(issued.refreshToken);
        res.writeHead(204).end();
        return;
      }
      json(res, 404, { message: 'Not Found' });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(standIn, {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  });
}
