import 'reflect-metadata';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Type } from 'class-transformer';
import { IsArray, IsOptional, IsString, IsUrl, ValidateNested } from 'class-validator';
import { Context, DefinitionError, McpError, McpServer, metadataStore, Prompt, Resource, Sensitive, Tool, ToolError } from '@typemcp/core';
import type { Principal } from '@typemcp/core';
import { createTestClient, McpRequestError } from '@typemcp/testing';
import type { TestClient } from '@typemcp/testing';
import { AuditArguments, auditLog, jsonLinesLogger } from '@typemcp/guards';
import type { AuditEntry, AuditLogger, AuditLogOptions } from '@typemcp/guards';

const SECRET = 'sig=TOP-s3cret-4711';
const TAG_VALUE = 'reading-list';

function declareProviders() {
  class BookmarkInput {
    @Sensitive() @IsUrl() url!: string;
    @IsOptional() @IsArray() @IsString({ each: true }) tags?: string[];
    @IsOptional() @IsString() note?: string;
  }

  class Account {
    @IsString() user!: string;
    @Sensitive() @IsString() password!: string;
  }

  class LoginInput {
    @ValidateNested() @Type(() => Account) account!: Account;
    @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => Account) others?: Account[];
  }

  class Folder {
    @IsString() name!: string;
    @IsOptional() @Sensitive() @IsString() secret?: string;
    @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => Folder) children?: Folder[];
  }

  class FolderInput {
    @ValidateNested() @Type(() => Folder) root!: Folder;
  }

  class Bookmarks {
    @Tool({ description: 'Logs in' })
    login(input: LoginInput): string {
      return `hello ${input.account.user}`;
    }

    @Tool({ description: 'Saves a tree of folders' })
    save_tree(input: FolderInput): string {
      return `saved ${input.root.name}`;
    }

    @Tool({ description: 'Saves a bookmark' })
    add_bookmark(input: BookmarkInput): string {
      return `saved with ${input.tags?.length ?? 0} tags`;
    }

    @Tool({ description: 'Saves a bookmark, arguments named by its decorator' })
    @AuditArguments('tags', 'url')
    add_marked(input: BookmarkInput): string {
      return `saved ${input.tags?.join(',') ?? ''}`;
    }

    @Tool({ description: 'Never finds it' })
    find(): string {
      throw new ToolError('No such bookmark');
    }

    @Tool({ description: 'Over quota' })
    quota(): string {
      throw new McpError(-32010, 'Quota exceeded');
    }

    @Tool({ description: 'Waits until cancelled' })
    async wait(ctx: Context): Promise<string> {
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
      return 'stopped';
    }

    @Prompt({ description: 'Greets' })
    greet(): string {
      return 'héllo ✓';
    }

    @Resource('docs://readme')
    readme(): string {
      return 'readme';
    }
  }
  return { Bookmarks };
}

let Bookmarks: ReturnType<typeof declareProviders>['Bookmarks'];
beforeEach(() => {
  metadataStore.clear();
  ({ Bookmarks } = declareProviders());
});

/** A pino-like logger that keeps what it is given, by level. */
function recordingLogger(withWarn = true) {
  const lines: Array<{ level: 'info' | 'warn'; entry: AuditEntry; message?: string }> = [];
  const logger: AuditLogger = { info: (entry, message) => void lines.push({ level: 'info', entry, message }) };
  if (withWarn) logger.warn = (entry, message) => void lines.push({ level: 'warn', entry, message });
  return { lines, logger, of: (method: string) => lines.filter((l) => l.entry.method === method) };
}

const clients: TestClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
});

async function serve(options: AuditLogOptions, extra: { principal?: Principal; onError?: (what: string, error: unknown) => void } = {}) {
  const server = new McpServer({ name: 'audit', version: '1.0.0', providers: [Bookmarks], onError: extra.onError }).plugin(auditLog, options);
  const client = await createTestClient(server, { principal: extra.principal });
  clients.push(client);
  return client;
}

const callRejected = async (promise: Promise<unknown>): Promise<McpRequestError> => {
  try {
    await promise;
  } catch (error) {
    if (error instanceof McpRequestError) return error;
    throw error;
  }
  throw new Error('expected the call to be refused');
};

/** Lets the observer's outcome land (answers are written as they settle). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('auditLog: one entry per request', () => {
  it('records each request once, with its outcome, at info for results and warn for errors and tool errors', async () => {
    const { lines, logger, of } = recordingLogger();
    const client = await serve({ logger });
    await client.callTool('add_bookmark', { url: 'https://example.com/a', tags: [TAG_VALUE] });
    await client.callTool('find', {});
    await callRejected(client.callTool('quota', {}));
    await callRejected(client.callTool('nope', {}));
    await client.getPrompt('greet');
    await client.readResource('docs://readme');
    await client.listTools();
    await settle();

    const calls = of('tools/call');
    expect(calls.map((l) => [l.entry.item, l.entry.outcome, l.entry.errorCode, l.level])).toEqual([
      ['add_bookmark', 'result', undefined, 'info'],
      ['find', 'tool_error', undefined, 'warn'],
      ['quota', 'error', -32010, 'warn'],
      ['nope', 'error', -32602, 'warn'],
    ]);
    expect(of('prompts/get').map((l) => [l.entry.item, l.entry.outcome])).toEqual([['greet', 'result']]);
    expect(of('resources/read').map((l) => [l.entry.item, l.entry.outcome])).toEqual([['docs://readme', 'result']]);
    expect(of('tools/list')).toHaveLength(1);
    expect(of('tools/list')[0].entry.item).toBeUndefined();
    // Every request the client sent, and only those (the handshake's initialize among them).
    expect(lines.map((l) => l.entry.method)).toEqual(['initialize', 'tools/call', 'tools/call', 'tools/call', 'tools/call', 'prompts/get', 'resources/read', 'tools/list']);
    expect(new Set(lines.map((l) => l.entry.requestId)).size).toBe(lines.length);
  });

  it('says when, who, how long and how big, in UTF-8 bytes of the params and of the answer', async () => {
    const { logger, of } = recordingLogger();
    const client = await serve({ logger });
    const before = Date.now();
    const prompt = await client.getPrompt('greet');
    await settle();
    const [{ entry, message }] = of('prompts/get');
    expect(message).toBe('mcp request');
    expect(Date.parse(entry.time)).toBeGreaterThanOrEqual(before - 1);
    expect(entry.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(entry.caller).toEqual({ kind: 'local' });
    expect(entry.protocolVersion).toBe('2025-11-25');
    expect(entry.durationMs).toBeGreaterThanOrEqual(0);
    expect(typeof entry.sessionId).toBe('string');
    expect(entry.requestBytes).toBe(Buffer.byteLength(JSON.stringify({ name: 'greet' })));
    // "héllo ✓" is 7 characters and 10 bytes: the count is of bytes.
    expect(entry.responseBytes).toBe(Buffer.byteLength(JSON.stringify(prompt)));
    expect(entry.responseBytes).toBeGreaterThan(JSON.stringify(prompt).length);
    expect(Object.keys(entry)).toEqual(['time', 'requestId', 'sessionId', 'caller', 'method', 'item', 'outcome', 'durationMs', 'requestBytes', 'responseBytes', 'protocolVersion']);
  });

  it('counts the bytes of params and result as UTF-8 JSON, for ASCII text and for text that is not', async () => {
    const { logger, of } = recordingLogger();
    const client = await serve({ logger });
    const plain = { url: 'https://example.com/a', tags: ['x'] };
    // "é" is 2 bytes, "✓" 3, "😀" (a surrogate pair) 4.
    const wide = { url: 'https://example.com/é', tags: ['✓', '😀'], note: 'café 😀' };
    await client.callTool('add_bookmark', plain);
    await client.callTool('add_bookmark', wide);
    await settle();
    const [first, second] = of('tools/call').map((l) => l.entry);
    expect(first.requestBytes).toBe(JSON.stringify({ name: 'add_bookmark', arguments: plain }).length);
    expect(second.requestBytes).toBe(Buffer.byteLength(JSON.stringify({ name: 'add_bookmark', arguments: wide })));
    expect(second.requestBytes).toBe(JSON.stringify({ name: 'add_bookmark', arguments: wide }).length + 1 + 2 + 2 + 1 + 2);
    expect(first.responseBytes).toBe(Buffer.byteLength(JSON.stringify({ content: [{ type: 'text', text: 'saved with 1 tags' }] })));
  });

  it('names the principal as the caller', async () => {
    const { of, logger } = recordingLogger();
    const client = await serve({ logger }, { principal: { subject: 'user-42', scopes: [], claims: { iss: 'https://id.example.com' } } });
    await client.listTools();
    await settle();
    expect(of('tools/list')[0].entry.caller).toEqual({ kind: 'principal', id: 'user-42' });
  });

  it('records a cancelled request once, as cancelled, with nothing answered', async () => {
    const { of, logger } = recordingLogger();
    const client = await serve({ logger });
    const abort = new AbortController();
    const pending = client.callTool('wait', {}, { signal: abort.signal });
    await new Promise((resolve) => setTimeout(resolve, 30));
    abort.abort();
    await expect(pending).rejects.toThrow();
    for (let i = 0; i < 50 && of('tools/call').length === 0; i++) await settle();
    expect(of('tools/call').map((l) => [l.entry.item, l.entry.outcome, l.entry.responseBytes, l.level])).toEqual([['wait', 'cancelled', 0, 'info']]);
  });

  it('writes errors at info when the logger has no warn', async () => {
    const { of, logger } = recordingLogger(false);
    const client = await serve({ logger });
    await client.callTool('find', {});
    await settle();
    expect(of('tools/call').map((l) => [l.entry.outcome, l.level])).toEqual([['tool_error', 'info']]);
  });

  it('names the client address over HTTP', async () => {
    const { of, logger } = recordingLogger();
    const server = new McpServer({ name: 'audit', version: '1.0.0', providers: [Bookmarks] }).plugin(auditLog, { logger });
    const handler = server.httpHandler();
    const listener = http.createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/mcp`;
      const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
      const answer = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'find' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'find', arguments: {}, _meta: meta } }),
      });
      expect(answer.status).toBe(200);
      await answer.text();
      await settle();
      const [{ entry }] = of('tools/call');
      expect(entry.caller.kind).toBe('address');
      expect(entry.caller.id).toMatch(/^(127\.0\.0\.1|::ffff:127\.0\.0\.1)$/);
      expect(entry.requestId).toBe(7);
      expect(entry.protocolVersion).toBe('2026-07-28');
    } finally {
      await server.close();
      listener.closeAllConnections();
      await new Promise((resolve) => listener.close(resolve));
    }
  });
});

describe('auditLog: arguments', () => {
  const args = { url: `https://example.com/a?${SECRET}`, tags: [TAG_VALUE], note: 'private note' };

  it('records no argument unless opted in', async () => {
    const { lines, logger, of } = recordingLogger();
    const client = await serve({ logger });
    await client.callTool('add_bookmark', args);
    await settle();
    expect(of('tools/call')[0].entry.arguments).toBeUndefined();
    const written = JSON.stringify(lines);
    for (const value of [SECRET, TAG_VALUE, 'private note']) expect(written).not.toContain(value);
  });

  it('records each call\'s own arguments, call after call of the same tool', async () => {
    const { logger, of } = recordingLogger();
    const client = await serve({ logger, arguments: { tools: { add_bookmark: ['tags', 'note'] } } });
    await client.callTool('add_bookmark', { url: 'https://example.com/1', tags: ['one'] });
    await client.callTool('add_bookmark', { url: 'https://example.com/2', tags: ['two'], note: 'second' });
    await client.callTool('add_bookmark', { url: 'https://example.com/3' });
    await settle();
    expect(of('tools/call').map((l) => l.entry.arguments)).toEqual([{ tags: ['one'] }, { tags: ['two'], note: 'second' }, {}]);
  });

  it('records the arguments named for the tool, and a @Sensitive one as "[sensitive]" even when named', async () => {
    const { lines, logger, of } = recordingLogger();
    const client = await serve({ logger, arguments: { tools: { add_bookmark: ['url', 'tags', 'missing'] } } });
    await client.callTool('add_bookmark', args);
    await client.callTool('find', {});
    await settle();
    const [bookmark, find] = of('tools/call');
    expect(bookmark.entry.arguments).toEqual({ url: '[sensitive]', tags: [TAG_VALUE] });
    expect(find.entry.arguments).toBeUndefined();
    const written = JSON.stringify(lines);
    expect(written).not.toContain(SECRET);
    expect(written).not.toContain('private note');
  });

  it('hides the sensitive fields inside an opted-in object or list, through nested and recursive ($ref) schemas', async () => {
    const { lines, logger, of } = recordingLogger();
    const client = await serve({ logger, arguments: { tools: { login: ['account', 'others'], save_tree: ['root'] } } });
    await client.callTool('login', { account: { user: 'ann', password: SECRET }, others: [{ user: 'bob', password: SECRET }] });
    await client.callTool('save_tree', { root: { name: 'top', secret: SECRET, children: [{ name: 'inner', secret: SECRET, children: [{ name: 'leaf', secret: SECRET }] }] } });
    await settle();
    const [login, tree] = of('tools/call');
    expect(login.entry.arguments).toEqual({ account: { user: 'ann', password: '[sensitive]' }, others: [{ user: 'bob', password: '[sensitive]' }] });
    expect(tree.entry.arguments).toEqual({
      root: { name: 'top', secret: '[sensitive]', children: [{ name: 'inner', secret: '[sensitive]', children: [{ name: 'leaf', secret: '[sensitive]' }] }] },
    });
    expect(JSON.stringify(lines)).not.toContain(SECRET);
  });

  it('records the arguments @AuditArguments names, sensitive ones hidden too', async () => {
    const { lines, logger, of } = recordingLogger();
    const client = await serve({ logger });
    await client.callTool('add_marked', args);
    await settle();
    expect(of('tools/call')[0].entry.arguments).toEqual({ tags: [TAG_VALUE], url: '[sensitive]' });
    expect(JSON.stringify(lines)).not.toContain(SECRET);
  });

  it('keeps a refused sensitive value out of the line and out of the answer', async () => {
    const { lines, logger, of } = recordingLogger();
    const client = await serve({ logger, arguments: { tools: { add_bookmark: ['url'] } } });
    const bad = `https://${SECRET}`;
    let answered: string;
    try {
      answered = JSON.stringify(await client.callTool('add_bookmark', { url: bad }));
    } catch (error) {
      if (!(error instanceof McpRequestError)) throw error;
      answered = JSON.stringify({ message: error.message, data: error.data });
    }
    await settle();
    expect(answered).toContain('must be a URL');
    expect(answered).not.toContain(SECRET);
    expect(of('tools/call')[0].entry.arguments).toEqual({ url: '[sensitive]' });
    expect(JSON.stringify(lines)).not.toContain(SECRET);
  });
});

describe('auditLog: a failing logger', () => {
  it('is reported, and the request is answered', async () => {
    const reported: Array<[string, unknown]> = [];
    const logger: AuditLogger = {
      info: () => {
        throw new Error('disk full');
      },
    };
    const client = await serve({ logger }, { onError: (what, error) => void reported.push([what, error]) });
    expect((await client.callTool('add_bookmark', { url: 'https://example.com/a' })).content[0].text).toBe('saved with 0 tags');
    await settle();
    expect(reported.length).toBeGreaterThanOrEqual(2);
    expect(reported[0][0]).toBe('plugin "guards:audit": the audit logger failed');
    expect((reported[0][1] as Error).message).toBe('disk full');
  });

  it('one that rejects later is reported too', async () => {
    const reported: string[] = [];
    const logger: AuditLogger = { info: () => Promise.reject(new Error('shipper down')) };
    const client = await serve({ logger }, { onError: (what, error) => void reported.push(`${what}: ${(error as Error).message}`) });
    await client.listTools();
    await settle();
    expect(reported).toContain('plugin "guards:audit": the audit logger failed: shipper down');
  });
});

describe('auditLog: options', () => {
  const server = () => new McpServer({ name: 'audit', version: '1.0.0', providers: [Bookmarks] });

  it('refuses a missing or unusable logger, naming the option', () => {
    expect(() => server().plugin(auditLog, undefined as never)).toThrow(new TypeError('guards:audit: options are required: { logger, arguments? }'));
    expect(() => server().plugin(auditLog, { logger: {} as never })).toThrow(/options\.logger must have an info\(object, message\?\) function/);
    expect(() => server().plugin(auditLog, { logger: { info: () => {}, warn: 'loud' } as never })).toThrow(/options\.logger\.warn must be a function/);
  });

  it('refuses arguments that are not lists of names per tool, and arguments of anything but tools', () => {
    const logger = { info: () => {} };
    expect(() => server().plugin(auditLog, { logger, arguments: { tools: { add_bookmark: 'url' } } as never })).toThrow(
      new TypeError('guards:audit: options.arguments.tools.add_bookmark must be a list of argument names (non-empty strings)'),
    );
    expect(() => server().plugin(auditLog, { logger, arguments: { tools: [] } as never })).toThrow(/options\.arguments\.tools must be an object/);
    expect(() => server().plugin(auditLog, { logger, arguments: { prompts: { greet: ['name'] } } as never })).toThrow(DefinitionError);
    expect(() => server().plugin(auditLog, { logger, arguments: { prompts: { greet: ['name'] } } as never })).toThrow(/options\.arguments\.prompts is not an option/);
    expect(() => AuditArguments('')).toThrow(/@AuditArguments must be a list of argument names/);
  });
});

describe('jsonLinesLogger', () => {
  const entry = { time: '2026-01-01T00:00:00.000Z', requestId: 1, caller: { kind: 'local' }, method: 'ping', outcome: 'result', durationMs: 1, requestBytes: 2, responseBytes: 2 } as AuditEntry;

  it('writes one JSON line per entry, with its level and message', () => {
    const written: string[] = [];
    const logger = jsonLinesLogger((line) => written.push(line));
    logger.info(entry, 'mcp request');
    logger.warn!({ ...entry, outcome: 'error', errorCode: -32603 }, 'mcp request');
    expect(written).toHaveLength(2);
    expect(written.every((line) => !line.includes('\n'))).toBe(true);
    expect(JSON.parse(written[0])).toEqual({ level: 'info', ...entry, msg: 'mcp request' });
    expect(JSON.parse(written[1])).toMatchObject({ level: 'warn', outcome: 'error', errorCode: -32603 });
  });

  it('writes the level first, then the entry\'s fields in their order, then the message', () => {
    const written: string[] = [];
    const logger = jsonLinesLogger((line) => written.push(line));
    const full = { ...entry, sessionId: 's-1', item: 'tëst ✓', arguments: { tags: ['a'] } } as AuditEntry;
    logger.info(full, 'mcp request');
    logger.warn!(full);
    expect(written).toEqual([JSON.stringify({ level: 'info', ...full, msg: 'mcp request' }), JSON.stringify({ level: 'warn', ...full })]);
  });

  it('writes to stderr by default, never stdout', () => {
    const toStderr = jest.spyOn(console, 'error').mockImplementation(() => {});
    const toStdout = jest.spyOn(console, 'log').mockImplementation(() => {});
    const stdout = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      jsonLinesLogger().info(entry);
      expect(toStderr).toHaveBeenCalledTimes(1);
      expect(JSON.parse(toStderr.mock.calls[0][0] as string)).toEqual({ level: 'info', ...entry });
      expect(toStdout).not.toHaveBeenCalled();
      expect(stdout).not.toHaveBeenCalled();
    } finally {
      toStderr.mockRestore();
      toStdout.mockRestore();
      stdout.mockRestore();
    }
  });

  it('is a logger auditLog takes', async () => {
    const written: string[] = [];
    const client = await serve({ logger: jsonLinesLogger((line) => written.push(line)) });
    await client.callTool('find', {});
    await settle();
    const calls = written.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.method === 'tools/call');
    expect(calls).toEqual([expect.objectContaining({ level: 'warn', item: 'find', outcome: 'tool_error', msg: 'mcp request' })]);
  });
});
