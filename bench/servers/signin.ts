/**
 * The sign-in bench's server: one `echo` tool over Streamable HTTP, stateless, on 127.0.0.1
 * and a free port (prints "LISTENING <port>" on stdout).
 *
 *   node bench/dist/signin.js             no authentication
 *   node bench/dist/signin.js --signin    behind the `signIn` plugin (development login
 *                                         bench/bench), `echo` under @Scopes('bench:echo')
 *
 * Both are served by `server.httpHandler()` on a node:http server of their own: signIn needs
 * the resource URL, port included, before the server is built, so the port is bound first.
 */
import 'reflect-metadata';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { IsString } from 'class-validator';
import { McpServer, Scopes, Tool } from '@typemcp/core';
import { developmentLogin, signIn } from '@typemcp/auth';

class EchoInput {
  @IsString()
  text!: string;
}

class OpenEcho {
  @Tool('Echoes the text back')
  echo(input: EchoInput): string {
    return input.text;
  }
}

/** The same tool, for a token that carries bench:echo. */
class ScopedEcho {
  @Tool('Echoes the text back')
  @Scopes('bench:echo')
  echo(input: EchoInput): string {
    return input.text;
  }
}

async function main(): Promise<void> {
  const withSignIn = process.argv.includes('--signin');
  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  const server = new McpServer({ name: 'typemcp-bench-signin', version: '1.0.0', providers: [withSignIn ? ScopedEcho : OpenEcho] });
  if (withSignIn) {
    server.plugin(signIn, {
      resource: `http://127.0.0.1:${port}/mcp`,
      // A fixed secret: the bench's keys live and die with the process.
      secret: 'typemcp-bench-signin-secret-of-32-chars-or-more',
      authenticate: developmentLogin({ users: { bench: { password: 'bench' } } }),
      defaultScopes: ['bench:echo'],
    });
  }
  const handler = server.httpHandler({ path: '/mcp', stateless: true });
  http.on('request', (req, res) => void handler(req, res));
  // An exit rather than death by the signal: `node --cpu-prof` writes its profile at exit.
  process.once('SIGTERM', () => process.exit(0));
  process.stdout.write(`LISTENING ${port}\n`);
}

void main();
