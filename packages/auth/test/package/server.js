'use strict';
// A secured server as plain CommonJS, decorated the way tsc compiles legacy decorators, with
// the installed packages only. Prints one JSON line of what a client got over HTTP.
require('reflect-metadata');
const { Context, McpServer, Scopes, Tool } = require('@typemcp/core');
const { auth } = require('@typemcp/auth');
const { TestIssuer } = require('@typemcp/auth/testing');
const { createServer } = require('node:http');

class Notes {
  whoami(ctx) {
    return `${ctx.principal.subject}: ${ctx.principal.scopes.join(' ')}`;
  }
}
Reflect.decorate(
  [Tool({ description: 'Who is asking' }), Scopes('notes:read'), Reflect.metadata('design:type', Function), Reflect.metadata('design:paramtypes', [Context])],
  Notes.prototype,
  'whoami',
  Object.getOwnPropertyDescriptor(Notes.prototype, 'whoami'),
);

async function main() {
  const issuer = await TestIssuer.start({ clients: [{ clientId: 'ci', clientSecret: 'secret', scopes: ['notes:read'] }] });
  const http = createServer();
  await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${http.address().port}/mcp`;
  const server = new McpServer({ name: 'packed-auth', version: '1.0.0', providers: [Notes] }).plugin(auth, { resource: url, issuer: issuer.url });
  const handler = server.httpHandler();
  http.on('request', (req, res) => void handler(req, res));

  const call = (token) =>
    fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'whoami',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'whoami', _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
      }),
    });
  const anonymous = await call();
  const granted = await fetch(issuer.tokenEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('ci:secret').toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource: url }),
  }).then((r) => r.json());
  const answered = await call(granted.access_token);
  console.log(
    JSON.stringify({
      anonymous: { status: anonymous.status, challenge: anonymous.headers.get('www-authenticate') },
      metadata: await fetch(new URL('/.well-known/oauth-protected-resource/mcp', url)).then((r) => r.json()),
      answered: { status: answered.status, body: await answered.json() },
      url,
      issuer: issuer.url,
    }),
  );
  await server.close();
  http.closeAllConnections();
  http.close();
  await issuer.close();
}

void main();
