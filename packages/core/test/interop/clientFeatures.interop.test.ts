import { mkdtemp, mkdir, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ElicitRequestSchema, ListRootsRequestSchema, RootsListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { connectSdkClient } from '../../../../test-support/sdkClient';
import { stdioServerParams } from '../../../../test-support/spawnServer';
import { expectValidServerMessages } from '../../../../test-support/specSchema';
import { Context, McpServer, Tool } from '@typemcp/core';
import { createServer } from './fixtures/clientFeaturesServer';

const fixture = path.join(__dirname, 'fixtures', 'clientFeaturesServer.ts');
const channels: Array<[string, () => Promise<Transport>]> = [
  ['stdio', async () => new StdioClientTransport(stdioServerParams(fixture))],
  [
    'in-memory',
    async () => {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await createServer().connect(serverSide as never);
      return clientSide;
    },
  ],
];

const textOf = (result: object) => ((result as { content: Array<{ text: string }> }).content)[0].text;

let workspace: string;
beforeAll(async () => {
  workspace = await mkdtemp(path.join(os.tmpdir(), 'typemcp-roots-'));
  await mkdir(path.join(workspace, 'project', 'src'), { recursive: true });
  await mkdir(path.join(workspace, 'secrets'));
  await symlink(path.join(workspace, 'secrets'), path.join(workspace, 'project', 'escape'));
});
afterAll(() => rm(workspace, { recursive: true, force: true }));

describe.each(channels)('elicitation and roots with the official SDK client as host over %s', (_label, open) => {
  it('elicits a form built from a DTO and converts the answer', async () => {
    const seen: ElicitRequest['params'][] = [];
    const answers: ElicitResult[] = [
      { action: 'accept', content: { email: 'ada@example.com', plan: 'pro', seats: 3, newsletter: true } },
      { action: 'decline' },
      { action: 'cancel' },
      { action: 'accept', content: { email: 'not-an-email', plan: 'gold', newsletter: 'yes' } },
    ];
    const { client, recorder } = await connectSdkClient(await open(), { protocolVersion: '2025-11-25', capabilities: { elicitation: { form: {}, url: {} } } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      seen.push(request.params);
      return answers.shift()!;
    });
    try {
      expect(textOf(await client.callTool({ name: 'signup' }))).toBe('account for ada@example.com on pro, 3 seat(s), newsletter true, instance true');
      expect(seen[0]).toEqual({
        mode: 'form',
        message: 'Please fill in your account details',
        requestedSchema: {
          type: 'object',
          properties: {
            email: { type: 'string', title: 'Email', description: 'Where we send the receipt', format: 'email' },
            plan: { type: 'string', oneOf: [{ const: 'free', title: 'Free plan' }, { const: 'pro', title: 'Pro plan' }], default: 'free' },
            seats: { type: 'integer', minimum: 1, maximum: 100 },
            newsletter: { type: 'boolean', default: false },
          },
          required: ['email', 'plan', 'newsletter'],
        },
      });
      expect(textOf(await client.callTool({ name: 'signup' }))).toBe('no account (decline)');
      expect(textOf(await client.callTool({ name: 'signup' }))).toBe('no account (cancel)');
      const invalid = await client.callTool({ name: 'signup' });
      expect(invalid.isError).toBe(true);

      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        seen.push(request.params);
        return { action: 'accept' };
      });
      expect(textOf(await client.callTool({ name: 'open_billing' }))).toBe('billing: accept');
      expect(seen[4]).toEqual({ mode: 'url', message: 'Open the billing page to add a card', url: 'https://billing.example.com/card', elicitationId: 'card-1' });
    } finally {
      await client.close();
    }
    expectValidServerMessages('2025-11-25', recorder.received);
  });

  it('refuses elicitation to a client that did not declare it, sending nothing', async () => {
    const { client, recorder } = await connectSdkClient(await open(), { protocolVersion: '2025-11-25', capabilities: {} });
    try {
      const result = await client.callTool({ name: 'signup' });
      expect(result).toEqual({ content: [{ type: 'text', text: 'The client did not declare the "elicitation" capability' }], isError: true });
      expect(recorder.received.some((r) => 'method' in r.message && r.message.method === 'elicitation/create')).toBe(false);
    } finally {
      await client.close();
    }
  });

  it('asks for roots, caches them until they change, and checks paths safely', async () => {
    const rootsAsked: number[] = [];
    let roots = [{ uri: pathToFileURL(path.join(workspace, 'project')).href, name: 'project' }];
    const { client, recorder } = await connectSdkClient(await open(), { protocolVersion: '2025-06-18', capabilities: { roots: { listChanged: true } } });
    client.setRequestHandler(ListRootsRequestSchema, async () => {
      rootsAsked.push(Date.now());
      return { roots };
    });
    const check = async (target: string) => textOf(await client.callTool({ name: 'inside', arguments: { path: target } }));
    try {
      expect(await check(path.join(workspace, 'project', 'src', 'main.ts'))).toBe(`${path.join(workspace, 'project', 'src', 'main.ts')}: inside 1 root(s)`);
      expect(await check(path.join(workspace, 'project', 'src', '..', '..', 'secrets', 'key'))).toContain('outside');
      expect(await check(path.join(workspace, 'project', 'escape', 'key'))).toContain('outside');
      expect(await check(`${pathToFileURL(path.join(workspace, 'project')).href}/src%2F..%2F..%2Fsecrets`)).toContain('outside');
      expect(rootsAsked).toHaveLength(1);

      roots = [...roots, { uri: pathToFileURL(path.join(workspace, 'secrets')).href, name: 'secrets' }];
      await client.sendRootsListChanged();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await check(path.join(workspace, 'secrets', 'key'))).toBe(`${path.join(workspace, 'secrets', 'key')}: inside 2 root(s)`);
      expect(rootsAsked).toHaveLength(2);
    } finally {
      await client.close();
    }
    expect(RootsListChangedNotificationSchema).toBeDefined();
    expectValidServerMessages('2025-06-18', recorder.received);
  });
});

describe('elicitation with a hand-written form', () => {
  it('sends the schema as written and checks the answer against it', async () => {
    const requestedSchema = {
      type: 'object',
      properties: { size: { type: 'string', enum: ['s', 'm'], enumNames: ['Small', 'Medium'] } },
      required: ['size'],
    };
    class Shop {
      @Tool() async pick(ctx: Context): Promise<string> {
        try {
          const answer = await ctx.elicit('Pick a size', { requestedSchema });
          return JSON.stringify(answer);
        } catch (error) {
          return `${(error as Error).name}: ${(error as Error).message}`;
        }
      }
    }
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await new McpServer({ name: 'shop', version: '1', providers: [Shop] }).connect(serverSide as never);
    const { client, recorder } = await connectSdkClient(clientSide, { protocolVersion: '2025-11-25', capabilities: { elicitation: { form: {} } } });
    const answers: ElicitResult[] = [{ action: 'accept', content: { size: 'm' } }, { action: 'accept', content: { size: 'xl' } }];
    const seen: ElicitRequest['params'][] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      seen.push(request.params);
      return answers.shift()!;
    });
    try {
      expect(textOf(await client.callTool({ name: 'pick' }))).toBe('{"action":"accept","content":{"size":"m"}}');
      expect(seen[0]).toEqual({ mode: 'form', message: 'Pick a size', requestedSchema });
      expect(textOf(await client.callTool({ name: 'pick' }))).toMatch(/^InvalidClientResponseError: .*size/);
    } finally {
      await client.close();
    }
    expectValidServerMessages('2025-11-25', recorder.received);
  });
});
