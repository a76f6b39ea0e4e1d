import 'reflect-metadata';
import { IsString } from 'class-validator';
import { injectable } from 'tsyringe';
import { Context, McpServer, metadataStore, Tool } from '@typemcp/core';
import type { TaskStatus } from '@typemcp/client';
import { inMemory, text } from './everything';

class ColourAnswer {
  @IsString() colour!: string;
}

/** callTool(…, { task }) in both eras: the 2025-11-25 task of the protocol, and the 2026-07-28 tasks extension. */
function tasksServer(): McpServer {
  @injectable()
  class Slow {
    @Tool({ task: 'optional', description: 'Takes a while' })
    async slow(): Promise<string> {
      await new Promise((resolve) => setTimeout(resolve, 60));
      return 'slow done';
    }

    @Tool({ task: 'optional', description: 'Asks, as a task' })
    async asking(ctx: Context): Promise<string> {
      const answer = await ctx.elicit('Colour?', ColourAnswer);
      return answer.action === 'accept' ? `colour ${answer.content.colour}` : answer.action;
    }
  }
  return new McpServer({ name: 'tasks', version: '1.0.0', providers: [Slow], tasks: { pollIntervalMs: 20 } });
}

let server: McpServer;
beforeEach(() => {
  metadataStore.clear();
  server = tasksServer();
});
afterEach(() => server.close());

it.each(['2025-11-25', '2026-07-28'])('runs a tool as a task at %s: created, polled, its result fetched; questions answered meanwhile', async (protocolVersion) => {
  const client = await inMemory(server, { protocolVersion, onElicit: async () => ({ action: 'accept', content: { colour: 'teal' } }) });
  const seen: TaskStatus[] = [];
  const result = await client.callTool('slow', undefined, { task: { ttl: 60_000 }, onTask: (task) => seen.push(task) });
  expect(text(result)).toBe('slow done');
  expect(seen[0]).toMatchObject({ taskId: expect.any(String), status: 'working' });
  expect(new Set(seen.map((task) => task.taskId)).size).toBe(1);
  expect(text(await client.callTool('asking', undefined, { task: true }))).toBe('colour teal');
  await client.close();
});
