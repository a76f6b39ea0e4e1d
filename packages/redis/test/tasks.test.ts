import 'reflect-metadata';
import { IsString } from 'class-validator';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Context, McpServer, Tool } from '@typemcp/core';
import { redis } from '@typemcp/redis';
import { useRedis } from './redisTestSupport';
import { roundRobinFetch } from '../../../test-support/roundRobinFetch';

const redisServer = useRedis();
const TASKS = 'io.modelcontextprotocol/tasks';

class NameForm {
  @IsString() name!: string;
}

class Greeter {
  @Tool({ description: 'Asks who is there, then greets them', task: 'optional' })
  async greet(ctx: Context): Promise<string> {
    const answer = await ctx.elicit('Who is there?', NameForm);
    return answer.action === 'accept' ? `Hello, ${answer.content.name}!` : `Nobody (${answer.action})`;
  }
}

const servers: McpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function replicas(): Promise<Array<{ name: string; url: URL; server: McpServer }>> {
  const keyPrefix = redisServer.prefix();
  const started = [];
  for (const name of ['r0', 'r1']) {
    const server = new McpServer({ name: 'tasks', version: '1', providers: [Greeter], requestState: { secret: 'redis-tasks-test-secret-0123456789' }, tasks: { pollIntervalMs: 5000 } });
    servers.push(server.plugin(redis, { url: redisServer.url, keyPrefix, replicaId: name }));
    const { url } = await server.listen({ transport: 'http', port: 0, host: '127.0.0.1', handleSignals: false });
    started.push({ name, url: new URL(url), server });
  }
  return started;
}

/** One 2026-07-28 request over HTTP, with the headers that mirror its body. */
async function post(url: URL, method: string, params: Record<string, unknown>): Promise<Record<string, any>> {
  const name = (params.name ?? params.taskId) as string | undefined;
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(name === undefined ? {} : { 'mcp-name': name }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, extensions: { [TASKS]: {} } },
        },
      },
    }),
  });
  return (await response.json()) as Record<string, any>;
}

async function until(url: URL, taskId: string, status: string): Promise<Record<string, any>> {
  for (let i = 0; i < 300; i++) {
    const task = (await post(url, 'tasks/get', { taskId })).result;
    if (task.status === status) return task;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`task ${taskId} never became ${status}`);
}

it('2026-07-28: a task asks on one replica, is answered on the other, and resumes where it waits (Redis store and broadcaster)', async () => {
  const [r0, r1] = await replicas();
  const created = (await post(r0.url, 'tools/call', { name: 'greet', arguments: {} })).result;
  expect(created).toMatchObject({ resultType: 'task', status: 'working' });
  const waiting = await until(r1.url, created.taskId, 'input_required');
  expect(waiting.inputRequests).toEqual({ 'elicitation-1': { method: 'elicitation/create', params: expect.objectContaining({ message: 'Who is there?' }) } });
  const ack = (await post(r1.url, 'tasks/update', { taskId: created.taskId, inputResponses: { 'elicitation-1': { action: 'accept', content: { name: 'Ada' } } } })).result;
  expect(ack.resultType).toBe('complete');
  expect(Object.keys(ack).filter((key) => key !== '_meta' && key !== 'resultType')).toEqual([]);
  // The poll interval is 5 s: the run on r0 resumed because r1 announced the answer.
  const done = await until(r1.url, created.taskId, 'completed');
  expect(done.result.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
  expect(r0.server.runtime.tasks.runningTaskIds).toEqual([]);
});

it('2025-11-25: the official SDK client behind a round-robin balancer streams a task that asks to its result', async () => {
  const targets = await replicas();
  const transport = new StreamableHTTPClientTransport(targets[0].url, { fetch: roundRobinFetch(targets) });
  const client = new Client({ name: 'balanced', version: '1' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Grace' } }));
  await client.connect(transport);
  try {
    let text: string | undefined;
    for await (const message of client.experimental.tasks.callToolStream({ name: 'greet', arguments: {} }, undefined, { task: {} })) {
      if (message.type === 'result') text = (message.result.content as Array<{ text: string }>)[0].text;
      if (message.type === 'error') throw message.error;
    }
    expect(text).toBe('Hello, Grace!');
  } finally {
    await client.close();
  }
});
