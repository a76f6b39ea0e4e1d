/**
 * Progress the official SDK clients see: they handle a notification a tick after they read it,
 * and drop progress read together with its response. A tool that reports every step and
 * answers at once must still show every step, over stdio and over HTTP, with SDK v1 and v2.
 */
import path from 'node:path';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import type { McpServer } from '@typemcp/core';
import { stdioServerParams } from '../../../../test-support/spawnServer';
import { createProgressServer } from './fixtures/progressServer';

const FIXTURE = path.join(__dirname, 'fixtures', 'progressServer.ts');

interface AnyClient {
  connect(transport: unknown): Promise<void>;
  callTool(params: { name: string; arguments: Record<string, unknown> }, schema?: unknown, options?: { onprogress(progress: { progress: number }): void }): Promise<{ content: unknown }>;
  close(): Promise<void>;
}

/** The progress values one call showed, for 1 and for 3 steps, twice each. */
async function stepsSeen(client: AnyClient, v2: boolean): Promise<number[][]> {
  const seen: number[][] = [];
  for (const steps of [1, 3, 1, 3]) {
    const progress: number[] = [];
    const options = { onprogress: (p: { progress: number }) => void progress.push(p.progress) };
    const result = v2
      ? await (client.callTool as unknown as (p: object, o: object) => Promise<{ content: unknown }>)({ name: 'work', arguments: { steps } }, options)
      : await client.callTool({ name: 'work', arguments: { steps } }, undefined, options);
    expect(result.content).toEqual([{ type: 'text', text: `did ${steps} steps` }]);
    seen.push(progress);
  }
  return seen;
}

const EXPECTED = [[1], [1, 2, 3], [1], [1, 2, 3]];

describe('progress reported just before the answer reaches the official clients', () => {
  let server: McpServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('SDK v1 over stdio', async () => {
    const client = new ClientV1({ name: 'v1', version: '1' }) as unknown as AnyClient;
    await client.connect(new StdioV1(stdioServerParams(FIXTURE)));
    try {
      expect(await stepsSeen(client, false)).toEqual(EXPECTED);
    } finally {
      await client.close();
    }
  });

  it('SDK v2 over stdio', async () => {
    const client = new ClientV2({ name: 'v2', version: '1' }) as unknown as AnyClient;
    await client.connect(new StdioV2(stdioServerParams(FIXTURE)));
    try {
      expect(await stepsSeen(client, true)).toEqual(EXPECTED);
    } finally {
      await client.close();
    }
  });

  it('SDK v1 over HTTP', async () => {
    server = createProgressServer();
    const { url } = await server.listen({ transport: 'http', port: 0, handleSignals: false });
    const client = new ClientV1({ name: 'v1', version: '1' }) as unknown as AnyClient;
    await client.connect(new HttpV1(new URL(url)));
    try {
      expect(await stepsSeen(client, false)).toEqual(EXPECTED);
    } finally {
      await client.close();
    }
  });

  it('SDK v2 over HTTP', async () => {
    server = createProgressServer();
    const { url } = await server.listen({ transport: 'http', port: 0, handleSignals: false });
    const client = new ClientV2({ name: 'v2', version: '1' }) as unknown as AnyClient;
    await client.connect(new HttpV2(new URL(url)));
    try {
      expect(await stepsSeen(client, true)).toEqual(EXPECTED);
    } finally {
      await client.close();
    }
  });
});
