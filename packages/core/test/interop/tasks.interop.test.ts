import 'reflect-metadata';
import { IsString } from 'class-validator';
import { InMemoryTransport as SdkInMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Context, McpServer, Tool } from '@typemcp/core';
import { connectSdkClient } from '../../../../test-support/sdkClient';
import { expectDefinition } from '../functional/tasksClient';
import { validateServerMessage } from '../../../../test-support/specSchema';

class NameForm {
  @IsString() name!: string;
}

let release: () => void = () => undefined;
let aborted = 0;

class Jobs {
  @Tool({ description: 'A long job', task: 'optional' })
  async job(ctx: Context): Promise<string> {
    await new Promise<void>((resolve) => {
      release = resolve;
      ctx.signal.addEventListener('abort', () => {
        aborted++;
        resolve();
      });
    });
    return 'job done';
  }

  @Tool({ description: 'Asks who is there, then greets them', task: 'optional' })
  async greet(ctx: Context): Promise<string> {
    const answer = await ctx.elicit('Who is there?', NameForm);
    return answer.action === 'accept' ? `Hello, ${answer.content.name}!` : `Nobody (${answer.action})`;
  }

  @Tool({ description: 'Only as a task', task: 'required' })
  quick(): string {
    return 'quick done';
  }
}

// The SDK client (1.32) has experimental task support (client.experimental.tasks): 2025-11-25.
describe('official SDK client and tasks (2025-11-25)', () => {
  it('streams a task-augmented call to its result, gets, lists and cancels tasks', async () => {
    const server = new McpServer({ name: 'jobs', version: '1.0.0', providers: [Jobs], tasks: { pollIntervalMs: 20 } });
    const [clientSide, serverSide] = SdkInMemoryTransport.createLinkedPair();
    await server.connect(serverSide as never);
    const { client, recorder } = await connectSdkClient(clientSide, { protocolVersion: '2025-11-25' });
    try {
      expect(client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });

      const seen: string[] = [];
      let text: string | undefined;
      setTimeout(() => release(), 50);
      for await (const message of client.experimental.tasks.callToolStream({ name: 'job', arguments: {} }, undefined, { task: { ttl: 60_000 } })) {
        seen.push(message.type);
        if (message.type === 'result') text = (message.result.content as Array<{ text: string }>)[0].text;
        if (message.type === 'error') throw message.error;
      }
      expect(seen[0]).toBe('taskCreated');
      expect(seen[seen.length - 1]).toBe('result');
      expect(text).toBe('job done');

      const streamed: string[] = [];
      for await (const message of client.experimental.tasks.callToolStream({ name: 'quick', arguments: {} }, undefined, { task: {} })) {
        streamed.push(message.type);
      }
      expect(streamed[streamed.length - 1]).toBe('result');

      const listed = await client.experimental.tasks.listTasks();
      expect(listed.tasks.length).toBe(2);
      expect(listed.tasks.every((task) => task.status === 'completed')).toBe(true);

      const stream = client.experimental.tasks.callToolStream({ name: 'job', arguments: {} }, undefined, { task: {} });
      const first = await stream.next();
      expect(first.value && first.value.type).toBe('taskCreated');
      const taskId = first.value && first.value.type === 'taskCreated' ? first.value.task.taskId : '';
      const cancelled = await client.experimental.tasks.cancelTask(taskId);
      expect(cancelled.status).toBe('cancelled');
      expect(aborted).toBe(1);
      expect((await client.experimental.tasks.getTask(taskId)).status).toBe('cancelled');
      await stream.return(undefined);

      for (const { message, requestMethod } of recorder.received) {
        const result = (message as { result?: Record<string, unknown> }).result;
        if (requestMethod === 'tools/call' && result?.task) {
          expect(validateServerMessage('2025-11-25', message)).toEqual([]);
          expectDefinition('2025-11-25', 'CreateTaskResult', result);
        } else {
          expect(validateServerMessage('2025-11-25', message, { requestMethod })).toEqual([]);
        }
      }
    } finally {
      await client.close();
      await server.close();
    }
  });
});

describe('official SDK client and a task that asks (2025-11-25, real HTTP)', () => {
  it('sees input_required, calls tasks/result, answers the elicitation sent there, and gets the result', async () => {
    const server = new McpServer({ name: 'jobs', version: '1.0.0', providers: [Jobs], tasks: { pollIntervalMs: 20 } });
    const { url } = await server.listen({ transport: 'http', port: 0, host: '127.0.0.1', handleSignals: false });
    const { client, recorder } = await connectSdkClient(new StreamableHTTPClientTransport(new URL(url)), {
      protocolVersion: '2025-11-25',
      capabilities: { elicitation: { form: {} } },
    });
    const questions: Array<Record<string, unknown>> = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      questions.push(request.params as Record<string, unknown>);
      return { action: 'accept', content: { name: 'Ada' } };
    });
    try {
      const statuses: string[] = [];
      let text: string | undefined;
      for await (const message of client.experimental.tasks.callToolStream({ name: 'greet', arguments: {} }, undefined, { task: {} })) {
        if (message.type === 'taskStatus') statuses.push(message.task.status);
        if (message.type === 'result') text = (message.result.content as Array<{ text: string }>)[0].text;
        if (message.type === 'error') throw message.error;
      }
      expect(statuses).toContain('input_required');
      expect(text).toBe('Hello, Ada!');
      expect(questions).toHaveLength(1);
      expect(questions[0]).toMatchObject({ message: 'Who is there?', _meta: { 'io.modelcontextprotocol/related-task': { taskId: expect.any(String) } } });
      for (const { message, requestMethod } of recorder.received) {
        const result = (message as { result?: Record<string, unknown> }).result;
        const check = requestMethod === 'tools/call' && result?.task ? validateServerMessage('2025-11-25', message) : validateServerMessage('2025-11-25', message, { requestMethod });
        expect(check).toEqual([]);
      }
    } finally {
      await client.close();
      await server.close();
    }
  });
});
