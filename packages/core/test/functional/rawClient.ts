import { InMemoryTransport } from '@typemcp/core';
import type { McpServer } from '@typemcp/core';
import { expectValidServerMessages } from '../../../../test-support/specSchema';

type Message = Record<string, any>;

/**
 * A hand-driven client for functional tests: sends exactly the bytes a test wants and keeps
 * everything the server sent, with the method of the request each response answers.
 */
export class RawClient {
  readonly received: Array<{ message: Message; requestMethod?: string }> = [];
  private readonly methodsById = new Map<unknown, string>();
  private waiters: Array<() => void> = [];
  private nextId = 1;
  /** Answers server-to-client requests; by default, `ping` gets `{}`. */
  onRequest: (request: Message) => Message | undefined = (request) =>
    request.method === 'ping' ? { jsonrpc: '2.0', id: request.id, result: {} } : undefined;

  private constructor(private readonly transport: InMemoryTransport) {
    transport.onmessage = (message) => {
      const list = Array.isArray(message) ? message : [message];
      for (const item of list as Message[]) {
        const requestMethod = 'method' in item ? undefined : this.methodsById.get(item.id);
        this.received.push({ message: item, requestMethod });
        if ('method' in item && 'id' in item) {
          const answer = this.onRequest(item);
          if (answer) void this.transport.send(answer as never);
        }
      }
      if (Array.isArray(message)) this.received.push({ message: { batch: message } });
      for (const wake of this.waiters.splice(0)) wake();
    };
  }

  static async connect(server: McpServer): Promise<RawClient> {
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    const client = new RawClient(clientEnd);
    await server.connect(serverEnd);
    await clientEnd.start();
    return client;
  }

  /** Connects and completes the handshake at the given version. */
  static async initialized(server: McpServer, protocolVersion = '2025-11-25', capabilities: Message = {}): Promise<RawClient> {
    const client = await RawClient.connect(server);
    const response = await client.request('initialize', {
      protocolVersion,
      capabilities,
      clientInfo: { name: 'raw-client', version: '1.0.0' },
    });
    if (!response.result) throw new Error(`initialize failed: ${JSON.stringify(response)}`);
    client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return client;
  }

  send(value: unknown): void {
    const message = value as Message;
    if (message && typeof message === 'object' && 'method' in message && 'id' in message) {
      this.methodsById.set(message.id, message.method);
    }
    if (Array.isArray(value)) for (const item of value as Message[]) if (item?.id !== undefined) this.methodsById.set(item.id, item.method);
    void this.transport.send(value as never);
  }

  /** Sends a request and resolves with the response carrying its id. */
  async request(method: string, params?: Message, id: string | number = this.nextId++): Promise<Message> {
    this.send(params ? { jsonrpc: '2.0', id, method, params } : { jsonrpc: '2.0', id, method });
    return this.waitFor((m) => m.id === id && !('method' in m));
  }

  /** Resolves with the first received message (past or future) that matches. */
  async waitFor(match: (message: Message) => boolean, timeoutMs = 2000): Promise<Message> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.find((r) => match(r.message));
      if (found) return found.message;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`No matching message within ${timeoutMs} ms; received ${JSON.stringify(this.received)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Lets pending deliveries and handlers run. */
  async settle(ms = 20): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, ms));
  }

  async close(): Promise<void> {
    await this.transport.close();
  }
}

/**
 * Initialized clients for one test file: each is checked against the official schema of its
 * version and closed after every test.
 */
export function checkedClients(): (server: McpServer, version?: string, capabilities?: Message) => Promise<RawClient> {
  const open: Array<{ client: RawClient; version: string }> = [];
  afterEach(async () => {
    for (const { client, version } of open.splice(0)) {
      expectValidServerMessages(version, client.received.filter((r) => !('batch' in r.message)));
      await client.close();
    }
  });
  return async (server, version = '2025-11-25', capabilities = {}) => {
    const client = await RawClient.initialized(server, version, capabilities);
    open.push({ client, version });
    return client;
  };
}
