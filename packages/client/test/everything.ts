import 'reflect-metadata';
import { IsString } from 'class-validator';
import { injectable } from 'tsyringe';
import { Completion, Context, Description, InMemoryTransport, McpServer, Prompt, Resource, Tool, ToolError } from '@typemcp/core';
import { Client } from '@typemcp/client';
import type { ClientOptions } from '@typemcp/client';

class EchoInput {
  @IsString() @Description('What to echo') text!: string;
}

class NameArgs {
  @IsString() name!: string;
}

class ColourAnswer {
  @IsString() colour!: string;
}

/** A server with one of everything a client uses, declared anew for each test file. */
export function everythingServer(): McpServer {
  @injectable()
  class Everything {
    @Tool({ description: 'Echoes its input' })
    echo(input: EchoInput): string {
      return input.text;
    }

    @Tool({ description: 'Always fails' })
    broken(): string {
      throw new ToolError('broken on purpose');
    }

    @Tool({ description: 'Reports progress twice' })
    async slow(ctx: Context): Promise<string> {
      ctx.progress(1, 2, 'half');
      ctx.progress(2, 2, 'done');
      await new Promise((resolve) => setTimeout(resolve, 5));
      return 'finished';
    }

    @Tool({ description: 'Waits until cancelled' })
    async hang(ctx: Context): Promise<string> {
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
      return 'cancelled';
    }

    @Tool({ description: 'Asks the model' })
    async ask(ctx: Context): Promise<string> {
      const answer = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 10 });
      const [first] = Array.isArray(answer.content) ? answer.content : [answer.content];
      return first.type === 'text' ? first.text : '?';
    }

    @Tool({ description: 'Asks the user' })
    async favourite(ctx: Context): Promise<string> {
      const answer = await ctx.elicit('Favourite colour?', ColourAnswer);
      return answer.action === 'accept' ? answer.content.colour : answer.action;
    }

    @Tool({ description: 'Lists the roots' })
    async where(ctx: Context): Promise<string> {
      return (await ctx.roots()).map((r) => r.uri).join(' ');
    }

    @Tool({ description: 'Asks the user, then the model' })
    async both(ctx: Context): Promise<string> {
      const answer = await ctx.elicit('Favourite colour?', ColourAnswer);
      const sampled = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 10 });
      const [first] = Array.isArray(sampled.content) ? sampled.content : [sampled.content];
      return `${answer.action === 'accept' ? answer.content.colour : answer.action} ${first.type === 'text' ? first.text : '?'}`;
    }

    @Tool({ description: 'Logs at info and at debug' })
    chatty(ctx: Context): string {
      ctx.log.info('an info line');
      ctx.log.debug('a debug line');
      return 'logged';
    }

    @Resource({ uri: 'mem://fixed', mimeType: 'text/plain' })
    fixed(): string {
      return 'fixed text';
    }

    @Resource({ uri: 'mem://items/{id}', mimeType: 'text/plain' })
    item(vars: { id: string }): string {
      return `item ${vars.id}`;
    }

    @Completion({ resource: 'mem://items/{id}', argument: 'id' })
    ids(value: string): string[] {
      return ['a1', 'a2', 'b1'].filter((id) => id.startsWith(value));
    }

    @Prompt({ description: 'Greets' })
    greet(args: NameArgs): string {
      return `Hello ${args.name}`;
    }
  }
  return new McpServer({ name: 'everything', version: '1.0.0', instructions: 'Be kind', providers: [Everything], pageSize: 3 });
}

/** A client connected in memory to `server`. */
export async function inMemory(server: McpServer, options: ClientOptions = {}): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  return Client.connect(clientSide, options);
}

export const text = (result: { content: Array<{ text?: string }> }) => result.content.map((c) => c.text).join('');

/** Handlers for the client features: a fixed colour, a fixed model answer, two roots. */
export const handlers: ClientOptions = {
  onElicit: async () => ({ action: 'accept', content: { colour: 'teal' } }),
  onSample: async () => ({ role: 'assistant', content: { type: 'text', text: 'hi there' }, model: 'fake' }),
  onRoots: [{ uri: 'file:///work', name: 'work' }, { uri: 'file:///home' }],
};
