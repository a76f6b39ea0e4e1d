import path from 'node:path';
import { PassThrough } from 'node:stream';
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { Context, McpServer, Scopes, StdioTransport, Tool } from '@typemcp/core';
import { TestClient } from '@typemcp/testing';
import { buildCli, fixtures, repoRoot, runCli } from './support';

jest.setTimeout(60_000);
beforeAll(buildCli);

/** Tools behind @Scopes: anonymous callers see none of them. */
const server = path.join(fixtures, 'access', 'server.ts');
const loader = path.join(repoRoot, 'packages', 'cli', 'dist', 'register', 'cjs.js');

describe('acting as a caller over stdio', () => {
  it('explains an empty listing: the access rules hide the tools, and --principal names a caller', () => {
    const result = runCli(['inspect', server]);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('Tools (0)');
    expect(result.stderr).toContain('hint: the server has tools but lists none to an anonymous caller');
    expect(result.stderr).toContain('--principal <subject> --scopes a,b');
  });

  it('lists and calls as the principal --principal and --scopes name', () => {
    const listed = runCli(['inspect', server, '--principal', 'ada', '--scopes', 'notes:read']);
    expect(listed.status).toBe(0);
    expect(listed.stdout).toMatch(/Tools \(2\)\n {2}read +Reads the notes/);
    expect(listed.stderr).toBe('');
    const called = runCli(['call', 'read', server, '--principal', 'ada', '--scopes', 'notes:read']);
    expect(called).toMatchObject({ status: 0, stdout: 'notes for ada\n' });
  });

  it('explains a refusal (-32003): the scopes the tool needs and the options that name a caller', () => {
    const anonymous = runCli(['call', 'read', server]);
    expect(anonymous.status).toBe(1);
    expect(anonymous.stderr).toContain('-32003');
    expect(anonymous.stderr).toContain('hint: the server refused an anonymous caller (unauthenticated); it needs the scopes notes:read.');
    const reader = runCli(['call', 'wipe', server, '--principal', 'ada', '--scopes', 'notes:read']);
    expect(reader.status).toBe(1);
    expect(reader.stderr).toContain('hint: the server refused ada (scopes: notes:read) (insufficient_scope)');
    expect(reader.stderr).toContain('notes:write');
  });

  it('refuses caller options that do not fit the entry', () => {
    expect(runCli(['inspect', server, '--scopes', 'notes:read'])).toMatchObject({ status: 2, stderr: expect.stringContaining('--scopes and --roles belong to a principal') });
    expect(runCli(['inspect', server, '--token', 'x'])).toMatchObject({ status: 2, stderr: expect.stringContaining('--token and --header apply to a URL') });
    expect(runCli(['inspect', 'http://127.0.0.1:1/mcp', '--principal', 'ada'])).toMatchObject({ status: 2, stderr: expect.stringContaining('for a URL give --token') });
  });

  it("gives listen({ transport: 'stdio' }) its principal option", async () => {
    class Notes {
      @Tool({ description: 'Who calls' })
      @Scopes('notes:read')
      who(ctx: Context): string {
        return String(ctx.principal?.subject);
      }
    }
    const mcp = new McpServer({ name: 'notes', version: '1.0.0', providers: [Notes] });
    const toServer = new PassThrough();
    const fromServer = new PassThrough();
    await mcp.listen({ transport: 'stdio', input: toServer, output: fromServer, handleSignals: false, principal: { subject: 'grace', scopes: ['notes:read'], claims: {} } });
    const client = await TestClient.connect(new StdioTransport({ input: fromServer, output: toServer, guardStdout: false }));
    try {
      expect((await client.listTools()).map((tool) => tool.name)).toEqual(['who']);
      expect((await client.callTool('who')).content).toEqual([{ type: 'text', text: 'grace' }]);
    } finally {
      await client.close();
      await mcp.close();
    }
  });
});

describe('inspect and call with a URL', () => {
  let child: ChildProcessWithoutNullStreams;
  let url: string;

  beforeAll(async () => {
    child = spawn(process.execPath, ['-r', loader, server, '--http'], { env: { ...process.env, PORT: '0' } });
    url = await new Promise<string>((resolve, reject) => {
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const found = /listening at (\S+)/.exec(stderr);
        if (found) resolve(found[1]);
      });
      child.once('exit', (code) => reject(new Error(`the server exited (${code}): ${stderr}`)));
    });
  });

  afterAll(async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  });

  it('inspects a server at a URL, with the hint when it lists nothing to an anonymous caller', () => {
    const result = runCli(['inspect', url]);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('notes 1.0.0 (protocol 2025-11-25)');
    expect(result.stdout).toContain('Tools (0)');
    expect(result.stderr).toContain('--token <bearer>');
  });

  it('sends --token as a bearer token, and --header as it is', () => {
    const listed = runCli(['inspect', url, '--token', 'reader', '--json']);
    expect(listed.status).toBe(0);
    expect(JSON.parse(listed.stdout).tools.map((tool: { name: string }) => tool.name)).toEqual(['read', 'slow']);
    expect(runCli(['call', 'read', url, '--header', 'Authorization: Bearer reader'])).toMatchObject({ status: 0, stdout: 'notes for reader\n' });
    expect(runCli(['call', 'read', '--entry', url, '--token', 'reader', '--protocol', '2026-07-28'])).toMatchObject({ status: 0, stdout: 'notes for reader\n' });
  });

  it('explains a refusal at a URL', () => {
    const result = runCli(['call', 'wipe', url, '--token', 'reader']);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('hint: the server refused the caller of these credentials (insufficient_scope)');
  });
});
