import { notesFromEnvironment } from './environment';

/**
 * Serves the notes with sign-in on 127.0.0.1. The users are alice/alice and bob/bob (a
 * development login); connect any MCP client to the URL it prints.
 */
async function main(): Promise<void> {
  const { server, port, banner } = notesFromEnvironment((name) => process.env[name]);
  const { url } = await server.listen({ transport: 'http', host: '127.0.0.1', port, path: '/mcp' });
  process.stderr.write(banner(url));
}

main().catch((error: Error & { code?: string }) => {
  const port = Number(process.env.PORT ?? 3000);
  process.stderr.write(`signin-notes: ${error.message}${error.code === 'EADDRINUSE' ? ` Another port: PORT=${port + 1}` : ''}\n`);
  process.exit(1);
});
