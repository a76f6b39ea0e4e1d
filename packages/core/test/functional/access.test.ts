import 'reflect-metadata';
import { IsString } from 'class-validator';
import {
  AccessDeniedError,
  AuthenticationService,
  Completion,
  Context,
  DefinitionError,
  ErrorCode,
  Guard,
  McpServer,
  metadataStore,
  Prompt,
  Public,
  Resource,
  Roles,
  Scopes,
  Tool,
} from '@typemcp/core';
import type { Authentication, GuardInput, Plugin, Principal } from '@typemcp/core';
import { createTestClient, McpRequestError } from '@typemcp/testing';

class NoteInput {
  @IsString() text!: string;
}

class TopicArgs {
  @IsString() topic!: string;
}

const reader: Principal = { subject: 'ann', scopes: ['notes:read'], claims: { sub: 'ann' } };
const writer: Principal = { subject: 'bob', scopes: ['notes:read', 'notes:write'], claims: { sub: 'bob' } };
const admin: Principal = { subject: 'cat', scopes: ['notes:read'], roles: ['admin'], claims: { sub: 'cat' } };

const guardCalls: GuardInput[] = [];
function ownerOnly(input: GuardInput): boolean {
  guardCalls.push(input);
  return input.principal?.subject === 'ann';
}

function declareProviders() {
  @Scopes('notes:read')
  class Notes {
    @Tool({ description: 'Reads the notes' })
    list_notes(ctx: Context): string {
      return `notes for ${ctx.principal?.subject}`;
    }

    @Tool({ description: 'Adds a note', input: NoteInput })
    @Scopes('notes:write')
    add_note(input: NoteInput): string {
      return `added ${input.text}`;
    }

    @Tool({ description: 'Anyone may ask' })
    @Public()
    status(ctx: Context): string {
      return ctx.principal === undefined ? 'anonymous' : `caller ${ctx.principal.subject}`;
    }

    @Tool({ description: 'Admins only' })
    @Roles('admin', 'owner')
    purge(): string {
      return 'purged';
    }

    @Tool({ description: 'Only its owner' })
    @Guard(ownerOnly)
    diary(): string {
      return 'dear diary';
    }

    @Tool({ description: 'Decided later' })
    @Guard(async ({ principal }) => principal?.claims.vip === true)
    lounge(): string {
      return 'welcome';
    }

    @Resource({ uri: 'notes://index', mimeType: 'text/plain' })
    index(): string {
      return 'index';
    }

    @Resource({ uri: 'notes://secret/{id}', mimeType: 'text/plain' })
    @Scopes('notes:write')
    secret(vars: { id: string }): string {
      return `secret ${vars.id}`;
    }

    @Prompt({ description: 'Summarize a topic', args: TopicArgs })
    @Scopes('notes:write')
    summarize(args: TopicArgs): string {
      return `Summarize ${args.topic}`;
    }

    @Completion({ prompt: 'summarize', argument: 'topic' })
    topics(value: string): string[] {
      return ['alpha', 'beta'].filter((t) => t.startsWith(value));
    }
  }
  return { Notes };
}

function declareOpen() {
  class Open {
    @Tool({ description: 'No rules at all' })
    hello(ctx: Context): string {
      return `hello ${ctx.principal?.subject ?? 'stranger'}`;
    }
  }
  return Open;
}

beforeEach(() => {
  metadataStore.clear();
  guardCalls.length = 0;
});

async function refusal(call: Promise<unknown>): Promise<McpRequestError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpRequestError);
  return error as McpRequestError;
}

const text = (result: { content: Array<{ text?: string }> }) => result.content[0].text;

describe.each(['2025-11-25', '2026-07-28'])('access rules (%s)', (protocolVersion) => {
  it('lets a caller with the scopes in, and names the principal to the handler', async () => {
    const { Notes } = declareProviders();
    const client = await createTestClient([Notes], { protocolVersion, principal: writer });
    expect(text(await client.callTool('list_notes'))).toBe('notes for bob');
    expect(text(await client.callTool('add_note', { text: 'hi' }))).toBe('added hi');
    await client.close();
  });

  it('refuses a missing scope with -32003 insufficient_scope, naming granted plus missing scopes to ask for', async () => {
    const { Notes } = declareProviders();
    const client = await createTestClient([Notes], { protocolVersion, principal: reader });
    const error = await refusal(client.callTool('add_note', { text: 'hi' }));
    expect(error.code).toBe(ErrorCode.AccessDenied);
    expect(error.data).toEqual({ reason: 'insufficient_scope', scopes: ['notes:read', 'notes:write'] });
    expect(error.message).toContain('tool "add_note" needs the scope notes:write');
    await client.close();
  });

  it('refuses an anonymous caller everything but @Public targets', async () => {
    const { Notes } = declareProviders();
    const client = await createTestClient([Notes], { protocolVersion });
    expect(text(await client.callTool('status'))).toBe('anonymous');
    const error = await refusal(client.callTool('list_notes'));
    expect(error.data).toEqual({ reason: 'unauthenticated', scopes: ['notes:read'] });
    expect((await client.listTools()).map((t) => t.name)).toEqual(['status']);
    await client.close();
  });

  it('refuses a caller without one of the roles as forbidden', async () => {
    const { Notes } = declareProviders();
    const client = await createTestClient([Notes], { protocolVersion, principal: writer });
    const error = await refusal(client.callTool('purge'));
    expect(error.data).toEqual({ reason: 'forbidden' });
    expect(error.message).toContain('is for the roles admin or owner');
    await client.close();
    const adminClient = await createTestClient([Notes], { protocolVersion, principal: admin });
    expect(text(await adminClient.callTool('purge'))).toBe('purged');
    await adminClient.close();
  });

  it('asks guards, synchronous and asynchronous, with the principal, the target and the request', async () => {
    const { Notes } = declareProviders();
    const ann = await createTestClient([Notes], { protocolVersion, principal: reader });
    expect(text(await ann.callTool('diary'))).toBe('dear diary');
    expect(guardCalls[0].principal).toBe(reader);
    expect(guardCalls[0].target).toMatchObject({ kind: 'tool', name: 'diary', methodName: 'diary' });
    expect(guardCalls[0].context.method).toBe('tools/call');
    expect((await refusal(ann.callTool('lounge'))).message).toContain('tool "lounge" was refused by the guard');
    await ann.close();

    const vip: Principal = { subject: 'dan', scopes: ['notes:read'], claims: { vip: true } };
    const dan = await createTestClient([Notes], { protocolVersion, principal: vip });
    expect(text(await dan.callTool('lounge'))).toBe('welcome');
    expect((await refusal(dan.callTool('diary'))).data).toEqual({ reason: 'forbidden' });
    await dan.close();
  });

  it('shows each caller only the tools it may call, guards included', async () => {
    const { Notes } = declareProviders();
    const lists = async (principal: Principal) => {
      const client = await createTestClient([Notes], { protocolVersion, principal });
      const names = (await client.listTools()).map((t) => t.name);
      await client.close();
      return names;
    };
    expect(await lists(reader)).toEqual(['list_notes', 'status', 'diary']);
    expect(await lists(writer)).toEqual(['list_notes', 'add_note', 'status']);
    expect(await lists(admin)).toEqual(['list_notes', 'status', 'purge']);
  });

  it('guards resources, templates, prompts and completions, reads and lists alike', async () => {
    const { Notes } = declareProviders();
    const client = await createTestClient([Notes], { protocolVersion, principal: reader });
    expect((await client.readResource('notes://index')).contents).toHaveLength(1);
    expect((await refusal(client.readResource('notes://secret/7'))).data).toMatchObject({ reason: 'insufficient_scope' });
    expect(await client.listResourceTemplates()).toEqual([]);
    expect((await client.listResources()).map((r) => r.uri)).toEqual(['notes://index']);
    expect(await client.listPrompts()).toEqual([]);
    expect((await refusal(client.getPrompt('summarize', { topic: 'x' }))).data).toMatchObject({ reason: 'insufficient_scope' });
    expect((await refusal(client.complete({ type: 'ref/prompt', name: 'summarize' }, { name: 'topic', value: 'a' }))).code).toBe(ErrorCode.AccessDenied);
    await client.close();

    const allowed = await createTestClient([Notes], { protocolVersion, principal: writer });
    expect((await allowed.readResource('notes://secret/7')).contents[0]).toMatchObject({ text: 'secret 7' });
    expect((await allowed.listResourceTemplates()).map((t) => t.uriTemplate)).toEqual(['notes://secret/{id}']);
    expect((await allowed.getPrompt('summarize', { topic: 'x' })).messages).toHaveLength(1);
    expect((await allowed.complete({ type: 'ref/prompt', name: 'summarize' }, { name: 'topic', value: 'a' })).completion.values).toEqual(['alpha']);
    await allowed.close();
  });

  it('leaves servers without any rule open, and without cost to the caller', async () => {
    const Open = declareOpen();
    const client = await createTestClient([Open], { protocolVersion, principal: reader });
    expect(text(await client.callTool('hello'))).toBe('hello ann');
    await client.close();
    const anonymous = await createTestClient([Open], { protocolVersion });
    expect(text(await anonymous.callTool('hello'))).toBe('hello stranger');
    expect((await anonymous.request('tools/list', {})).cacheScope).toBe(protocolVersion === '2026-07-28' ? 'public' : undefined);
    await anonymous.close();
  });
});

describe('lists under access rules', () => {
  it('pages each caller through its own list: cursors stay valid, nothing skipped or repeated', async () => {
    class Many {}
    for (let i = 0; i < 7; i++) {
      const name = `t${i}`;
      Object.defineProperty(Many.prototype, name, { value: () => name, configurable: true });
      Tool({ name, description: name })(Many.prototype, name, Object.getOwnPropertyDescriptor(Many.prototype, name)!);
      if (i % 2 === 1) Scopes('odd')(Many.prototype, name, Object.getOwnPropertyDescriptor(Many.prototype, name)!);
    }
    const server = new McpServer({ name: 'paged', version: '1.0.0', providers: [Many], pageSize: 2 });
    const even = await createTestClient(server, { principal: { subject: 'e', scopes: [], claims: {} } });
    const all = await createTestClient(server, { principal: { subject: 'a', scopes: ['odd'], claims: {} } });
    expect((await even.listTools()).map((t) => t.name)).toEqual(['t0', 't2', 't4', 't6']);
    expect((await all.listTools()).map((t) => t.name)).toEqual(['t0', 't1', 't2', 't3', 't4', 't5', 't6']);
    const first = await even.request('tools/list', {});
    expect((first.tools as Array<{ name: string }>).map((t) => t.name)).toEqual(['t0', 't2']);
    const second = await even.request('tools/list', { cursor: first.nextCursor });
    expect((second.tools as Array<{ name: string }>).map((t) => t.name)).toEqual(['t4', 't6']);
    expect(second.nextCursor).toBeUndefined();
    await Promise.all([even.close(), all.close()]);
    await server.close();
  });

  it('marks 2026-07-28 list results private when what they show depends on the caller', async () => {
    const { Notes } = declareProviders();
    const client = await createTestClient([Notes], { protocolVersion: '2026-07-28', principal: writer });
    for (const method of ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']) {
      expect((await client.request(method, {})).cacheScope).toBe('private');
    }
    await client.close();
  });
});

describe('authentication registered by a plugin', () => {
  const authentication = (overrides: Partial<Authentication> = {}): Plugin<void> => ({
    name: 'test-auth',
    register(host) {
      host.provide(AuthenticationService, { authenticate: () => undefined, challenge: () => 'Bearer', ...overrides });
    },
  });

  it('makes every target without @Public need an authenticated caller, rules or not', async () => {
    const Open = declareOpen();
    const server = new McpServer({ name: 'authed', version: '1.0.0', providers: [Open] }).plugin(authentication());
    const anonymous = await createTestClient(server);
    expect((await refusal(anonymous.callTool('hello'))).data).toEqual({ reason: 'unauthenticated' });
    expect(await anonymous.listTools()).toEqual([]);
    const known = await createTestClient(server, { principal: reader });
    expect(text(await known.callTool('hello'))).toBe('hello ann');
    await Promise.all([anonymous.close(), known.close()]);
    await server.close();
  });

  it('refuses a second authentication, and one without its functions', () => {
    const server = new McpServer({ name: 'twice', version: '1.0.0' }).plugin(authentication());
    expect(() => server.plugin({ name: 'other', register: (host) => host.provide(AuthenticationService, { authenticate: () => undefined, challenge: () => '' }) })).toThrow(
      'plugin "other": the authentication service is already provided; add one plugin that provides it',
    );
    expect(() => new McpServer({ name: 'bad', version: '1.0.0' }).plugin({ name: 'bad', register: (host) => host.provide(AuthenticationService, {} as Authentication) })).toThrow(
      'AuthenticationService needs an object with authenticate(req) and challenge(challenge) functions',
    );
  });
});

describe('the access decorators', () => {
  it('refuse empty or malformed scope and role names, and guards that are not functions', () => {
    expect(() => Scopes()).toThrow('@Scopes: name at least one scope');
    expect(() => Scopes('a b')).toThrow('@Scopes: scope #0 must be printable ASCII without spaces, quotes or backslashes (an OAuth scope token), not "a b"');
    expect(() => Roles('admin', '')).toThrow('@Roles: role #1 must be printable ASCII');
    // What a WWW-Authenticate header cannot carry is refused up front.
    expect(() => Scopes('笔记:write')).toThrow('@Scopes: scope #0 must be printable ASCII');
    expect(() => Scopes('a"b')).toThrow(TypeError);
    expect(() => Guard(null as never)).toThrow('@Guard: needs a function');
  });

  it('refuse being applied as standard decorators', () => {
    expect(() => (Scopes('x') as unknown as (value: unknown, context: object) => void)(() => undefined, { kind: 'method', name: 'm' })).toThrow(DefinitionError);
  });

  it('make AccessDeniedError carry its reason and the scopes to ask for', () => {
    const error = new AccessDeniedError('insufficient_scope', 'no', { scopes: ['a'] });
    expect(error.toJSON()).toEqual({ code: -32003, message: 'no', data: { reason: 'insufficient_scope', scopes: ['a'] } });
    expect(error.reason).toBe('insufficient_scope');
  });
});
