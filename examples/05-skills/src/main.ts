import { createSkillsServer } from './server';

const server = createSkillsServer({ watch: process.argv.includes('--watch') });

if (process.argv.includes('--stdio')) {
  void server.listen({ transport: 'stdio' });
} else {
  const port = Number(process.env.PORT ?? 3000);
  void server.listen({ transport: 'http', host: '127.0.0.1', port }).then(({ url }) => {
    process.stderr.write(
      [
        `skills: serving MCP with the Skills extension at ${url}`,
        `List the skills: npx -y -p node@22 -p @modelcontextprotocol/inspector@2.12.0 mcp-inspector --cli --method skills/list ${url}`,
        `Run "node ${process.argv[1]} --stdio" to serve over stdio, add --watch to reload the skills folder on change.`,
        '',
      ].join('\n'),
    );
  }, (error: Error & { code?: string }) => {
    // One line and exit 1, not a stack trace: the usual cause is a port already taken.
    process.stderr.write(`skills: ${error.message}${error.code === 'EADDRINUSE' ? ` Another port: PORT=${port + 1}` : ''}\n`);
    process.exit(1);
  });
}
