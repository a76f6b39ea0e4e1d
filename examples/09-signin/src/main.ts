import { developmentLogin } from '@typemcp/auth';
import { createSignInServer } from './server';

const DEVELOPMENT_SECRET = 'development secret: set SIGNIN_SECRET in production';

/**
 * Serves the notes with sign-in on 127.0.0.1. The users are alice/alice and bob/bob (a
 * development login); connect any MCP client to the URL it prints.
 */
async function main(): Promise<void> {
  const port = Number(process.env.PORT ?? 3000);
  const origin = process.env.ORIGIN ?? `http://127.0.0.1:${port}`;
  const secret = process.env.SIGNIN_SECRET ?? DEVELOPMENT_SECRET;
  const server = createSignInServer({
    resource: `${origin}/mcp`,
    secret,
    authenticate: developmentLogin({ users: { alice: { password: 'alice', name: 'Alice' }, bob: { password: 'bob', name: 'Bob' } } }),
    // For trying metadata-document clients served on this machine; never in production.
    metadataDocuments: { allowPrivateAddresses: process.env.SIGNIN_ALLOW_PRIVATE_CLIENT_DOCUMENTS === '1' },
    accessTokenTtlSec: process.env.ACCESS_TOKEN_TTL_SEC === undefined ? undefined : Number(process.env.ACCESS_TOKEN_TTL_SEC),
  });
  const { url } = await server.listen({ transport: 'http', host: '127.0.0.1', port, path: '/mcp' });
  process.stderr.write(
    [
      `signin-notes: serving MCP at ${url}, with sign-in at ${origin}/.well-known/oauth-authorization-server.`,
      'Sign in as alice (password alice) or bob (password bob). Stop with Ctrl+C.',
      secret === DEVELOPMENT_SECRET ? 'signin-notes: using the development secret; set SIGNIN_SECRET (32+ characters) anywhere else.' : '',
      '',
    ].join('\n'),
  );
}

main().catch((error: Error & { code?: string }) => {
  const port = Number(process.env.PORT ?? 3000);
  process.stderr.write(`signin-notes: ${error.message}${error.code === 'EADDRINUSE' ? ` Another port: PORT=${port + 1}` : ''}\n`);
  process.exit(1);
});
