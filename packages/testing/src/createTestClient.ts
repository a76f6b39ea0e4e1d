import { InMemoryTransport, McpServer } from '@typemcp/core';
import type { Constructor, McpServerOptions } from '@typemcp/core';
import { TestClient } from './TestClient';
import type { TestClientOptions } from './types';

/** What a test client talks to: a server, the provider classes of one, or its options. */
export type TestTarget = McpServer | Constructor[] | McpServerOptions;

/**
 * Connects a TestClient to a server in memory. Given provider classes or server options, it
 * creates the server (named "test-server" when only providers are given) and closes it with
 * the client; a server passed in stays open for the test to close.
 */
export async function createTestClient(target: TestTarget, options: TestClientOptions = {}): Promise<TestClient> {
  const created = isServer(target) ? undefined : new McpServer(Array.isArray(target) ? { name: 'test-server', version: '0.0.0', providers: target } : target);
  const server = created ?? (target as McpServer);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide, options.principal === undefined ? {} : { principal: options.principal });
  const client = await TestClient.connect(clientSide, options);
  if (created) client.afterClose = () => created.close();
  return client;
}

/** Duck-typed, so a server made by another copy of @typemcp/core is recognized too. */
function isServer(target: TestTarget): target is McpServer {
  return !Array.isArray(target) && typeof (target as McpServer).connect === 'function' && typeof (target as McpServer).listen === 'function';
}
