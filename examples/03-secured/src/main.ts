import { TestIssuer } from '@typemcp/auth/testing';
import { createNotesServer, SCOPES } from './server';

/**
 * Serves the notes over HTTP. With ISSUER set, tokens of that authorization server are
 * accepted (its keys from its metadata, or JWKS_URI). Without, a local development issuer
 * starts beside the server, with one client to get tokens from.
 */
async function main(): Promise<void> {
  const port = Number(process.env.PORT ?? 3000);
  const resource = process.env.RESOURCE ?? `http://127.0.0.1:${port}/mcp`;
  let issuer = process.env.ISSUER;
  const lines: string[] = [];
  if (issuer === undefined) {
    const clientId = 'notes-cli';
    const clientSecret = 'dev-secret';
    const dev = await TestIssuer.start({ clients: [{ clientId, clientSecret, scopes: SCOPES }] });
    issuer = dev.url;
    lines.push(
      `secured-notes: a local development issuer runs at ${dev.url} (set ISSUER to use a real one).`,
      `Get a token: curl -s -u ${clientId}:${clientSecret} -d grant_type=client_credentials -d "scope=notes:read notes:write" -d resource=${resource} ${dev.tokenEndpoint}`,
    );
  }
  const server = createNotesServer({ resource, issuer, jwksUri: process.env.JWKS_URI });
  const { url } = await server.listen({ transport: 'http', host: '127.0.0.1', port });
  lines.push(
    `secured-notes: serving MCP at ${url}; requests need "Authorization: Bearer <token>" (audience ${resource}).`,
    `Clients find the authorization server in ${new URL('/.well-known/oauth-protected-resource/mcp', url)}. Stop with Ctrl+C.`,
    '',
  );
  process.stderr.write(lines.join('\n'));
}

main().catch((error: Error & { code?: string }) => {
  // One line and exit 1, not a stack trace: the usual cause is a port already taken.
  const port = Number(process.env.PORT ?? 3000);
  process.stderr.write(`secured-notes: ${error.message}${error.code === 'EADDRINUSE' ? ` Another port: PORT=${port + 1}` : ''}\n`);
  process.exit(1);
});
