'use strict';
// Two replicas of one server as plain CommonJS, with the installed packages only, sharing the
// Redis at REDIS_URL: a session opened on one is served by the other. Prints one JSON line and
// exits by itself once both servers are closed (no connection left open).
require('reflect-metadata');
const { McpServer, Tool } = require('@typemcp/core');
const { redis, RedisSessionStore } = require('@typemcp/redis');
const { IsString } = require('class-validator');

class EchoInput {}
Reflect.decorate([IsString(), Reflect.metadata('design:type', String)], EchoInput.prototype, 'text', undefined);

class Echo {
  echo(input) {
    return `echo ${input.text}`;
  }
}
Reflect.decorate(
  [Tool({ description: 'Echo' }), Reflect.metadata('design:type', Function), Reflect.metadata('design:paramtypes', [EchoInput])],
  Echo.prototype,
  'echo',
  Object.getOwnPropertyDescriptor(Echo.prototype, 'echo'),
);

async function main() {
  const replicas = [];
  for (const replicaId of ['a', 'b']) {
    const server = new McpServer({ name: 'packed-redis', version: '1.0.0', providers: [Echo], requestState: { secret: 'packed-redis-secret-0123456789abcdef' } });
    server.plugin(redis, { url: process.env.REDIS_URL, keyPrefix: 'packed:', replicaId });
    const address = await server.listen({ transport: 'http', port: 0, host: '127.0.0.1', handleSignals: false });
    replicas.push({ server, url: address.url });
  }
  const post = (url, body, session) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', ...(session ? { 'mcp-session-id': session } : {}) },
      body: JSON.stringify(body),
    });
  const readJson = async (response) => {
    const text = await response.text();
    const data = text.startsWith('{') ? text : text.split('\n').find((line) => line.startsWith('data: ')).slice(6);
    return JSON.parse(data);
  };
  const opened = await post(replicas[0].url, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } });
  const session = opened.headers.get('mcp-session-id');
  const initialized = await readJson(opened);
  await (await post(replicas[1].url, { jsonrpc: '2.0', method: 'notifications/initialized' }, session)).text();
  const called = await readJson(await post(replicas[1].url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'across' } } }, session));
  const stored = typeof RedisSessionStore === 'function';
  for (const { server } of replicas) await server.close();
  console.log(JSON.stringify({ serverInfo: initialized.result.serverInfo, session: typeof session, text: called.result.content[0].text, stored }));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
