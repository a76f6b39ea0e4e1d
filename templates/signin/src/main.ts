import { authenticate, DEVELOPMENT_USERS, signInSecret } from './auth.js';
import { createServer } from './server.js';

// Serves Streamable HTTP on 127.0.0.1:$PORT behind sign-in. --stdio serves stdio instead, for
// npm run inspect and typemcp call: stdio has no sign-in, the local user has every scope.
const port = Number(process.env.PORT ?? 3000);
// The address clients use; behind a proxy or TLS, the public one (ORIGIN=https://mcp.example.com).
const origin = process.env.ORIGIN ?? `http://127.0.0.1:${port}`;

const server = createServer({ resource: `${origin}/mcp`, authenticate, secret: signInSecret() });

if (process.argv.includes('--stdio')) {
  void server.listen({ transport: 'stdio' });
} else {
  // Behind a proxy, requests name the public host: accept it too (without ORIGIN, loopback hosts only).
  const allowedHosts = process.env.ORIGIN === undefined ? undefined : ['127.0.0.1', new URL(origin).host];
  void server.listen({ transport: 'http', host: '127.0.0.1', port, allowedHosts }).then(({ url }) => {
    process.stderr.write(`serving MCP over Streamable HTTP at ${url}, with sign-in at ${origin}/.well-known/oauth-authorization-server\n`);
    const users = Object.entries(DEVELOPMENT_USERS).map(([name, user]) => `${name} (password ${user.password})`);
    process.stderr.write(`development login (src/auth.ts): sign in as ${users.join(' or ')}\n`);
  }, (error: Error & { code?: string }) => {
    // One line and exit 1, not a stack trace: the usual cause is a port already taken.
    process.stderr.write(`${error.message}${error.code === 'EADDRINUSE' ? ` Another port: PORT=${port + 1}` : ''}\n`);
    process.exit(1);
  });
}
