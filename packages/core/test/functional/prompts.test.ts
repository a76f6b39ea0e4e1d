import 'reflect-metadata';
import { IsIn, IsOptional, IsString } from 'class-validator';
import { Completion, Context, DefinitionError, Description, McpServer, metadataStore, Prompt, Resource, ToolError } from '@typemcp/core';
import { createTestClient } from '@typemcp/testing';
import { checkedClients } from './rawClient';

class ReviewArgs {
  @IsString() @Description('The code to review') code!: string;
  @IsOptional() @IsIn(['python', 'typescript']) language?: string;
}

const LANGUAGES = ['python', 'typescript', 'typst', 'rust'];

class ReviewPrompts {
  @Prompt({ description: 'Review some code', title: 'Code review' })
  review(args: ReviewArgs): string {
    return `Review this ${args.language ?? 'code'}:\n${args.code}`;
  }

  @Prompt()
  greeting(ctx: Context) {
    return [
      { role: 'user', content: { type: 'text', text: `Hello from ${ctx.clientInfo?.name}` } },
      { role: 'assistant', content: { type: 'text', text: 'Hi!' } },
    ];
  }

  @Prompt({ name: 'with-resource' })
  withResource() {
    return {
      description: 'embeds a resource',
      messages: [{ role: 'user', content: { type: 'resource', resource: { uri: 'docs://readme', mimeType: 'text/plain', text: 'Read me' } } }],
    };
  }

  @Completion({ prompt: 'review', argument: 'language' })
  languages(value: string, context: { arguments: Record<string, string> }): string[] {
    return LANGUAGES.filter((l) => l.startsWith(value) && !(context.arguments.code ?? '').includes(`not ${l}`));
  }
}

class ManyValues {
  @Prompt() pick(args: ReviewArgs): string {
    return args.code;
  }

  @Completion({ prompt: 'pick', argument: 'code' })
  all(): string[] {
    return Array.from({ length: 150 }, (_, i) => `v${i}`);
  }
}

const connect = checkedClients();

const newServer = () => new McpServer({ name: 'prompts', version: '1', providers: [ReviewPrompts, ManyValues] });

describe('prompts', () => {
  it('lists prompts with arguments from the args DTO', async () => {
    const client = await connect(newServer());
    const init = client.received.find((r) => r.requestMethod === 'initialize')!.message.result;
    expect(init.capabilities).toEqual({ logging: {}, prompts: { listChanged: true }, completions: {} });
    const { result } = await client.request('prompts/list');
    expect(result.prompts[0]).toEqual({
      name: 'review',
      title: 'Code review',
      description: 'Review some code',
      arguments: [
        { name: 'code', description: 'The code to review', required: true },
        { name: 'language', required: false },
      ],
    });
    expect(result.prompts[1]).toEqual({ name: 'greeting' });
  });

  it('turns a string into one user message; messages and resources pass through', async () => {
    const client = await connect(newServer());
    const review = await client.request('prompts/get', { name: 'review', arguments: { code: 'x = 1', language: 'python' } });
    expect(review.result).toEqual({ messages: [{ role: 'user', content: { type: 'text', text: 'Review this python:\nx = 1' } }] });
    const greeting = await client.request('prompts/get', { name: 'greeting' });
    expect(greeting.result.messages[0].content.text).toBe('Hello from raw-client');
    const embedded = await client.request('prompts/get', { name: 'with-resource' });
    expect(embedded.result.description).toBe('embeds a resource');
    expect(embedded.result.messages[0].content.type).toBe('resource');
  });

  it('answers -32602 for an unknown prompt, a missing required argument and an invalid one', async () => {
    const client = await connect(newServer());
    expect((await client.request('prompts/get', { name: 'nope' })).error).toEqual({ code: -32602, message: 'Unknown prompt: nope', data: { name: 'nope' } });
    expect((await client.request('prompts/get', { name: 'review', arguments: {} })).error).toEqual({
      code: -32602,
      message: 'Missing required argument for prompt "review": code',
      data: { missing: ['code'] },
    });
    const invalid = await client.request('prompts/get', { name: 'review', arguments: { code: 'x', language: 'cobol' } });
    expect(invalid.error.code).toBe(-32602);
    expect(invalid.error.message).toContain('language');
  });

  it('completes arguments with the other arguments as context, capped at 100', async () => {
    const client = await connect(newServer());
    const typed = await client.request('completion/complete', {
      ref: { type: 'ref/prompt', name: 'review' },
      argument: { name: 'language', value: 'ty' },
      context: { arguments: { code: 'not typst' } },
    });
    expect(typed.result).toEqual({ completion: { values: ['typescript'], total: 1, hasMore: false } });
    const many = await client.request('completion/complete', { ref: { type: 'ref/prompt', name: 'pick' }, argument: { name: 'code', value: '' } });
    expect(many.result.completion.values).toHaveLength(100);
    expect(many.result.completion).toMatchObject({ total: 150, hasMore: true });
    const unknown = await client.request('completion/complete', { ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'x', value: '' } });
    expect(unknown.error.code).toBe(-32602);
  });

  it('refuses non-string prompt arguments and completions of unknown prompts at startup', () => {
    class NumberArgs {
      @IsString() a!: string;
      @IsOptional() n?: number;
    }
    class Bad {
      @Prompt() p(args: NumberArgs): string {
        return args.a;
      }
    }
    expect(() => new McpServer({ name: 'x', version: '1', providers: [Bad] })).toThrow(/Bad\.p: prompt argument "n" of NumberArgs/);
    class Orphan {
      @Completion({ prompt: 'missing', argument: 'a' }) c(): string[] {
        return [];
      }
    }
    expect(() => new McpServer({ name: 'x', version: '1', providers: [Orphan] })).toThrow(DefinitionError);
  });
});

describe('prompt declaration edge cases', () => {
  it('validates args: but passes only the Context to a method that takes only it', async () => {
    class CtxOnly {
      @Prompt({ args: ReviewArgs }) p(ctx: Context): string {
        return `ctx ${ctx instanceof Context}`;
      }
    }
    const client = await connect(new McpServer({ name: 'x', version: '1', providers: [CtxOnly] }));
    expect((await client.request('prompts/get', { name: 'p', arguments: { code: 'x' } })).result.messages[0].content.text).toBe('ctx true');
    expect((await client.request('prompts/get', { name: 'p', arguments: {} })).error.code).toBe(-32602);
  });

  it('refuses two completions for one argument in one class', () => {
    class Twice {
      @Prompt() p(args: ReviewArgs): string {
        return args.code;
      }
      @Completion({ prompt: 'p', argument: 'code' }) a(): string[] {
        return [];
      }
      @Completion({ prompt: 'p', argument: 'code' }) b(): string[] {
        return [];
      }
    }
    expect(() => new McpServer({ name: 'x', version: '1', providers: [Twice] })).toThrow(/Twice\.b: argument "code" already has a @Completion/);
  });
});

describe('errors of resource and prompt methods', () => {
  beforeEach(() => metadataStore.clear());

  it.each(['2025-11-25', '2026-07-28'])('a ToolError keeps its message: -32602, not a hidden -32603 (%s)', async (protocolVersion) => {
    class Lookup {
      @Resource({ uri: 'notes://{id}' })
      note(vars: { id: string }): string {
        throw new ToolError(`No note with id "${vars.id}"`);
      }

      @Prompt({ description: 'Summarize' })
      summarize(): string {
        throw new ToolError('Nothing to summarize yet');
      }
    }
    const errors: string[] = [];
    const server = new McpServer({ name: 'lookup', version: '1', providers: [Lookup], onError: (what) => void errors.push(what) });
    const client = await createTestClient(server, { protocolVersion });
    try {
      await expect(client.readResource('notes://9')).rejects.toMatchObject({ code: -32602, message: 'resources/read failed with -32602: No note with id "9"' });
      await expect(client.getPrompt('summarize')).rejects.toMatchObject({ code: -32602, message: 'prompts/get failed with -32602: Nothing to summarize yet' });
      expect(errors).toEqual([]);
    } finally {
      await client.close();
      await server.close();
    }
  });
});
