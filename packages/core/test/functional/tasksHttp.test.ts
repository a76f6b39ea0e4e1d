import 'reflect-metadata';
import { IsString } from 'class-validator';
import { Context, McpServer, Tool } from '@typemcp/core';
import { expectValidTaskMessages, TASKS_EXTENSION } from './tasksClient';
import type { TasksClient } from './tasksClient';

class NameForm {
  @IsString() name!: string;
}

class Greeter {
  @Tool({ task: 'optional', description: 'Asks a name from the task, then greets' })
  async greet(ctx: Context): Promise<string> {
    const answer = await ctx.elicit('Who are you?', NameForm);
    return answer.action === 'accept' ? `Hello, ${answer.content.name}!` : 'nobody';
  }
}

const VERSION = '2026-07-28';
let server: McpServer;
let url: string;
/** What the server sent, with the method each response answers: checked against the schema and the extension after each test. */
const received: TasksClient['received'] = [];

beforeEach(async () => {
  server = new McpServer({ name: 'tasks-http', version: '1', providers: [Greeter], tasks: { pollIntervalMs: 20 } });
  ({ url } = await server.listen({ transport: 'http', port: 0, host: '127.0.0.1', handleSignals: false }));
});

afterEach(async () => {
  await server.close();
  expectValidTaskMessages(VERSION, { received: received.splice(0) } as unknown as TasksClient);
});

const meta = {
  'io.modelcontextprotocol/protocolVersion': VERSION,
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, extensions: { [TASKS_EXTENSION]: {} } },
};

function request(method: string, params: Record<string, unknown>, headers: Record<string, string | undefined> = {}): Promise<Response> {
  const all: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': VERSION, 'mcp-method': method };
  const name = params.name ?? params.taskId;
  if (typeof name === 'string') all['mcp-name'] = name;
  for (const [key, value] of Object.entries(headers)) {
    if (value === undefined) delete all[key];
    else all[key] = value;
  }
  return fetch(url, { method: 'POST', headers: all, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta } }) });
}

async function post(method: string, params: Record<string, unknown>, headers: Record<string, string | undefined> = {}): Promise<{ status: number; body: Record<string, any> }> {
  const response = await request(method, params, headers);
  const body = (await response.json()) as Record<string, any>;
  received.push({ message: body, requestMethod: method, taskCall: method === 'tools/call' });
  return { status: response.status, body };
}

/** The JSON-RPC messages of an open SSE response, as they arrive. */
async function* events(response: Response): AsyncGenerator<Record<string, any>> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const data = buffer
        .slice(0, end)
        .split('\n')
        .find((line) => line.startsWith('data: '));
      buffer = buffer.slice(end + 2);
      if (data) yield JSON.parse(data.slice(6)) as Record<string, any>;
    }
  }
}

describe('tasks over Streamable HTTP, protocol 2026-07-28', () => {
  it('streams notifications/tasks on a subscriptions/listen POST: the state at once, then every change to the end', async () => {
    const { taskId } = (await post('tools/call', { name: 'greet', arguments: {} })).body.result;
    const abort = new AbortController();
    const listen = await fetch(url, {
      method: 'POST',
      signal: abort.signal,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': VERSION, 'mcp-method': 'subscriptions/listen' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'listen-1', method: 'subscriptions/listen', params: { notifications: { taskIds: [taskId] }, _meta: meta } }),
    });
    expect(listen.headers.get('content-type')).toContain('text/event-stream');
    const stream = events(listen);
    const next = async () => {
      const { value } = await stream.next();
      received.push({ message: value! });
      return value!;
    };
    expect(await next()).toMatchObject({ method: 'notifications/subscriptions/acknowledged', params: { notifications: { taskIds: [taskId] } } });
    let task = (await next()).params;
    while (task.status !== 'input_required') task = (await next()).params;
    expect(task).toMatchObject({ taskId, inputRequests: { 'elicitation-1': { method: 'elicitation/create' } }, _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen-1' } });
    await post('tasks/update', { taskId, inputResponses: { 'elicitation-1': { action: 'accept', content: { name: 'Ada' } } } });
    while (task.status !== 'completed') task = (await next()).params;
    expect(task.result.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
    abort.abort();
  });

  it('refuses tasks/get, tasks/update and tasks/cancel whose Mcp-Name is not the task id, or missing (-32020, HTTP 400)', async () => {
    const { taskId } = (await post('tools/call', { name: 'greet', arguments: {} })).body.result;
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const params = method === 'tasks/update' ? { taskId, inputResponses: {} } : { taskId };
      const wrong = await post(method, params, { 'mcp-name': 'another-task' });
      expect(wrong.status).toBe(400);
      expect(wrong.body.error).toMatchObject({ code: -32020, message: expect.stringContaining("Mcp-Name header value 'another-task'") });
      const missing = await post(method, params, { 'mcp-name': undefined });
      expect(missing).toMatchObject({ status: 400, body: { error: { code: -32020, message: `Header mismatch: the Mcp-Name header is required for ${method}` } } });
    }
    expect((await post('tasks/get', { taskId })).body.result.taskId).toBe(taskId);
  });
});
