/**
 * Attacks on the audit log (`auditLog`, `jsonLinesLogger`) and `@Sensitive`: hostile text that
 * would break a JSON line or a terminal, sensitive values reaching the log by other paths, and
 * loggers or requests meant to drop an entry. Each test asserts the safe outcome.
 */
import 'reflect-metadata';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Type } from 'class-transformer';
import { IsString, MinLength, ValidateNested } from 'class-validator';
import { McpServer, metadataStore, Resource, Sensitive, Tool, ToolError } from '@typemcp/core';
import type { Principal } from '@typemcp/core';
import { ProxyServer } from '@typemcp/proxy';
import { createTestClient } from '@typemcp/testing';
import type { TestClient } from '@typemcp/testing';
import { AuditArguments, auditLog, jsonLinesLogger } from '@typemcp/guards';
import type { AuditLogOptions } from '@typemcp/guards';

const SECRET = 'hunter2-SECRET-7731';

/** Hand-written schemas as other generators and remote servers write them, each with one writeOnly field. */
const SCHEMAS: Record<string, Record<string, unknown>> = {
  // The whole input through a root $ref.
  rootRef: { type: 'object', $ref: '#/$defs/Input', $defs: { Input: { type: 'object', properties: { password: { type: 'string', writeOnly: true }, user: { type: 'string' } } } } },
  // Draft-07 style definitions (zod-to-json-schema, older generators).
  definitions: { type: 'object', properties: { account: { $ref: '#/definitions/Account' } }, definitions: { Account: { type: 'object', properties: { password: { type: 'string', writeOnly: true } } } } },
  // The input as allOf at the root.
  rootAllOf: { type: 'object', allOf: [{ type: 'object', properties: { password: { type: 'string', writeOnly: true } } }, { type: 'object', properties: { user: { type: 'string' } } }] },
  // A map of secrets.
  additional: { type: 'object', properties: { vault: { type: 'object', additionalProperties: { type: 'string', writeOnly: true } } } },
  patterns: { type: 'object', properties: { vault: { type: 'object', properties: {}, patternProperties: { '^key_': { type: 'string', writeOnly: true } } } } },
  // A tuple whose second item is a secret.
  tuple: { type: 'object', properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'string', writeOnly: true }] } } },
  // A nullable secret.
  nullable: { type: 'object', properties: { password: { anyOf: [{ type: 'string', writeOnly: true }, { type: 'null' }] } } },
  // A $ref to another place of the schema than $defs.
  pointer: { type: 'object', properties: { current: { type: 'string', writeOnly: true }, password: { $ref: '#/properties/current' } } },
  // A recursive schema, for values nested deep.
  recursive: { type: 'object', properties: { node: { $ref: '#/$defs/Node' } }, $defs: { Node: { type: 'object', properties: { secret: { type: 'string', writeOnly: true }, next: { $ref: '#/$defs/Node' } } } } },
};

/** The arguments sent to each of SCHEMAS' tools, and the one argument recorded. */
const SENT: Record<string, { args: Record<string, unknown>; recorded: string }> = {
  rootRef: { args: { user: 'ann', password: SECRET }, recorded: 'password' },
  definitions: { args: { account: { password: SECRET } }, recorded: 'account' },
  rootAllOf: { args: { user: 'ann', password: SECRET }, recorded: 'password' },
  additional: { args: { vault: { github: SECRET } }, recorded: 'vault' },
  patterns: { args: { vault: { key_github: SECRET } }, recorded: 'vault' },
  tuple: { args: { pair: ['github', SECRET] }, recorded: 'pair' },
  nullable: { args: { password: SECRET }, recorded: 'password' },
  pointer: { args: { password: SECRET }, recorded: 'password' },
  recursive: { args: { node: { next: { next: { secret: SECRET } } } }, recorded: 'node' },
};

function declareProviders() {
  class Account {
    @IsString() user!: string;
    @Sensitive() @IsString() @MinLength(40) password!: string;
  }
  class LoginInput {
    @ValidateNested() @Type(() => Account) account!: Account;
  }

  class Probe {
    @Tool({ description: 'Logs in' })
    @AuditArguments('account')
    login(input: LoginInput): string {
      // A tool error naming the secret: the author's text, which the log does not hold.
      throw new ToolError(`wrong password ${input.account.password}`);
    }

    @Resource({ uri: 'files://{name}', mimeType: 'text/plain' })
    file(vars: { name: string }): string {
      return `file ${vars.name}`;
    }
  }
  // One tool per hand-written schema, all recording their argument.
  for (const name of Object.keys(SCHEMAS)) {
    const method = function (this: unknown): string {
      return 'ok';
    };
    Object.defineProperty(Probe.prototype, name, { value: method, configurable: true, writable: true });
    const descriptor = Object.getOwnPropertyDescriptor(Probe.prototype, name)!;
    AuditArguments(SENT[name].recorded)(Probe.prototype, name, descriptor);
    Tool({ description: `Schema ${name}`, inputSchema: SCHEMAS[name] })(Probe.prototype, name, descriptor);
  }
  return { Probe };
}

let Probe: ReturnType<typeof declareProviders>['Probe'];
const cleanups: Array<() => Promise<unknown> | void> = [];
beforeEach(() => {
  metadataStore.clear();
  ({ Probe } = declareProviders());
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A jsonLinesLogger whose lines are kept (each write is one line as written). */
function lines() {
  const written: string[] = [];
  return { written, logger: jsonLinesLogger((line) => void written.push(line)) };
}

function serverWith(options: AuditLogOptions, onError: (what: string, error: unknown) => void = () => undefined, server?: McpServer): McpServer {
  const served = server ?? new McpServer({ name: 'audit-probe', version: '1.0.0', providers: [Probe], onError });
  served.plugin(auditLog, options);
  cleanups.push(() => served.close());
  return served;
}

async function clientOf(server: McpServer, principal?: Principal): Promise<TestClient> {
  const client = await createTestClient(server, { principal });
  cleanups.push(() => client.close());
  return client;
}

async function listen(server: McpServer): Promise<string> {
  const http: Server = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => (http.close(() => resolve()), http.closeAllConnections())));
  const handler = server.httpHandler();
  http.on('request', (req, res) => void handler(req, res));
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 30));

/** Each write is one line of valid JSON, nothing a terminal or a line reader would take for a break or an escape. */
function expectCleanLines(written: string[]): Array<Record<string, unknown>> {
  return written.map((line) => {
    expect(line).not.toMatch(/[\n\r\u2028\u2029\u001b\u0000\u0085]/);
    const parsed = JSON.parse(line) as Record<string, unknown>;
    expect(typeof parsed.level).toBe('string');
    expect(parsed.msg).toBe('mcp request');
    return parsed;
  });
}

const HOSTILE = `evil\n{"level":"info","forged":true}\r\u001b[31mred\u001b[0m\u2028\u2029\u0085"}\\\ud800end`;

describe('probe: log injection through jsonLinesLogger', () => {
  it('writes each entry as exactly one line of JSON whatever the tool, prompt, uri and method names hold', async () => {
    const { written, logger } = lines();
    const client = await clientOf(serverWith({ logger }));
    for (const request of [
      () => client.callTool(HOSTILE, {}),
      () => client.getPrompt(HOSTILE),
      () => client.readResource(HOSTILE),
      () => client.readResource(`files://${encodeURIComponent(HOSTILE.replace('\ud800', ''))}`),
      () => client.request(HOSTILE as never, {} as never),
    ]) {
      await request().catch(() => undefined);
    }
    await settle();
    const entries = expectCleanLines(written);
    expect(entries.filter((e) => e.method === 'tools/call')).toHaveLength(1);
    expect(entries.some((e) => 'forged' in e)).toBe(false);
    // The hostile method was recorded as sent (cut to 256 characters), in one line.
    expect(entries.some((e) => typeof e.method === 'string' && e.method.startsWith('evil\n'))).toBe(true);
  });

  it('keeps a principal subject with line breaks and escapes inside its line', async () => {
    const { written, logger } = lines();
    const client = await clientOf(serverWith({ logger }), { subject: HOSTILE, scopes: [], claims: {} });
    await client.listTools();
    await settle();
    const entries = expectCleanLines(written);
    expect((entries.at(-1)!.caller as { id: string }).id).toContain('evil\n');
  });

  it('over HTTP: a request id, a protocol version or a uri the client makes huge is cut, and each stays one line', async () => {
    const { written, logger } = lines();
    const url = await listen(serverWith({ logger }));
    const huge = `${HOSTILE}${'x'.repeat(100_000)}`;
    const post = (body: unknown, version = '2026-07-28') =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': version, 'mcp-method': 'tools/list' },
        body: JSON.stringify(body),
      }).then((response) => response.text());
    const meta = (version: string) => ({ 'io.modelcontextprotocol/protocolVersion': version, 'io.modelcontextprotocol/clientCapabilities': {} });
    await post({ jsonrpc: '2.0', id: huge, method: 'tools/list', params: { _meta: meta('2026-07-28') } });
    // A version the server does not speak is refused before it is served (HTTP 400): heard or not, never written whole.
    const refusals = [
      await post({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: meta(huge) } }),
      await post({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: meta(huge) } }, huge.replace(/[^\x21-\x7e]/g, 'x').slice(0, 8000)),
    ];
    for (const refusal of refusals) expect(refusal).not.toContain('x'.repeat(300));
    await settle();
    const entries = expectCleanLines(written);
    expect(entries.length).toBeGreaterThanOrEqual(1);
    expect(entries[0].requestId).toBe(`${huge.slice(0, 256)}…`);
    for (const line of written) expect(line.length).toBeLessThan(2_000);
  });
});

describe('probe: @Sensitive and writeOnly values stay out of the log', () => {
  it.each(Object.keys(SCHEMAS))('hides the writeOnly value of a hand-written (or remote) schema: %s', async (name) => {
    const { written, logger } = lines();
    const client = await clientOf(serverWith({ logger }));
    await client.callTool(name, SENT[name].args as never);
    await settle();
    const [entry] = expectCleanLines(written).filter((e) => e.method === 'tools/call');
    expect(written.join('\n')).not.toContain(SECRET);
    // The argument was recorded (its place is there), only the secret is hidden.
    expect(entry.arguments).toHaveProperty(SENT[name].recorded);
  });

  it('keeps the secret out of the line when validation refuses it, and when the tool error names it', async () => {
    const { written, logger } = lines();
    const client = await clientOf(serverWith({ logger }));
    // Too short: validation refuses it.
    await client.callTool('login', { account: { user: 'ann', password: SECRET } }).catch(() => undefined);
    // Long enough: the tool's error message names it.
    await client.callTool('login', { account: { user: 'ann', password: SECRET.repeat(3) } }).catch(() => undefined);
    await settle();
    const entries = expectCleanLines(written).filter((e) => e.method === 'tools/call');
    expect(entries.map((e) => e.outcome)).toEqual([expect.stringMatching(/error/), 'tool_error']);
    expect(written.join('\n')).not.toContain(SECRET);
    expect(entries[0].arguments).toEqual({ account: { user: 'ann', password: '[sensitive]' } });
  });

  it('hides a @Sensitive field of a remote tool listed through @typemcp/proxy', async () => {
    class Creds {
      @IsString() user!: string;
      @Sensitive() @IsString() token!: string;
    }
    class Upstream {
      @Tool({ description: 'Connects' })
      connect(input: Creds): string {
        return `connected ${input.user}`;
      }
    }
    const upstream = new McpServer({ name: 'upstream', version: '1.0.0', providers: [Upstream] });
    cleanups.push(() => upstream.close());
    const upstreamUrl = await listen(upstream);
    const proxy = new ProxyServer({ upstream: { url: upstreamUrl }, onError: () => undefined });
    const { written, logger } = lines();
    proxy.plugin(auditLog, { logger, arguments: { tools: { connect: ['user', 'token'] } } });
    cleanups.push(() => proxy.close());
    await proxy.start();
    const client = await clientOf(proxy);
    const result = await client.callTool('connect', { user: 'ann', token: SECRET });
    expect(JSON.stringify(result)).toContain('connected ann');
    await settle();
    const [entry] = expectCleanLines(written).filter((e) => e.method === 'tools/call');
    expect(entry.arguments).toEqual({ user: 'ann', token: '[sensitive]' });
    expect(written.join('\n')).not.toContain(SECRET);
  });
});

describe('probe: nothing drops an entry or holds a request up', () => {
  it('writes the entry, with the arguments hidden, for an opted-in value nested beyond the stack', async () => {
    const { written, logger } = lines();
    const reports: string[] = [];
    const url = await listen(serverWith({ logger }, (what) => void reports.push(what)));
    const depth = 100_000;
    const deep = `${'{"next":'.repeat(depth)}{}${'}'.repeat(depth)}`;
    const body = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"recursive","arguments":{"node":${deep}},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`;
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'recursive' },
      body,
    });
    expect(response.status).toBeLessThan(500);
    await response.text();
    await settle();
    const entries = expectCleanLines(written).filter((e) => e.method === 'tools/call');
    // The request is in the log (an audit log a request can slip out of is no audit log).
    expect(entries).toHaveLength(1);
    expect(entries[0].requestId).toBe(7);
    // Followed 64 levels down, then hidden: the line stays small.
    expect(JSON.stringify(entries[0].arguments)).toContain('[sensitive]');
    expect(written.join('').length).toBeLessThan(20_000);
  });

  it('writes the entry for an opted-in value nested beyond the stack where the schema says nothing of its shape', async () => {
    const { written, logger } = lines();
    const url = await listen(serverWith({ logger }));
    const depth = 100_000;
    const body = `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"tuple","arguments":{"pair":[${'['.repeat(depth)}${']'.repeat(depth)},"x"]},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`;
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'tuple' },
      body,
    });
    expect(response.status).toBeLessThan(500);
    await response.text();
    await settle();
    const entries = expectCleanLines(written).filter((e) => e.method === 'tools/call');
    expect(entries).toHaveLength(1);
    expect(entries[0].arguments).toEqual({ pair: '[sensitive]' });
  });

  it('answers at once with a logger that never settles and one that throws (reported)', async () => {
    const reports: string[] = [];
    const never = { info: () => new Promise(() => undefined) };
    const throwing = jsonLinesLogger(() => {
      throw new Error('disk full');
    });
    // A logger whose warn throws when read is refused when the plugin is added, not on a request.
    const getter = Object.defineProperty({ info: () => undefined }, 'warn', {
      get() {
        throw new Error('no warn');
      },
    });
    expect(() => new McpServer({ name: 'x', version: '1.0.0' }).plugin(auditLog, { logger: getter } as AuditLogOptions)).toThrow('no warn');
    for (const logger of [never, throwing]) {
      metadataStore.clear();
      ({ Probe } = declareProviders());
      const client = await clientOf(serverWith({ logger } as AuditLogOptions, (what) => void reports.push(what)));
      const started = Date.now();
      expect((await client.callTool('login', { account: { user: 'ann', password: SECRET.repeat(3) } })).isError).toBe(true);
      expect((await client.readResource('files://x')).contents).toHaveLength(1);
      expect(Date.now() - started).toBeLessThan(1_000);
    }
    await settle();
    expect(reports.filter((what) => what.includes('audit logger failed')).length).toBeGreaterThanOrEqual(2);
  });

  it('records the uri of a read as the client wrote it (a secret in its query is logged: see the reference), cut at 256 characters', async () => {
    const { written, logger } = lines();
    const client = await clientOf(serverWith({ logger }));
    await client.readResource(`files://report?token=${SECRET}&pad=${'p'.repeat(400)}`).catch(() => undefined);
    await settle();
    const [entry] = expectCleanLines(written).filter((e) => e.method === 'resources/read');
    expect(entry.item).toContain(`token=${SECRET}`);
    expect((entry.item as string).length).toBeLessThanOrEqual(257);
  });
});
