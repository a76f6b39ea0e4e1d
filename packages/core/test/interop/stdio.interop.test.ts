import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { connectSdkClient } from '../../../../test-support/sdkClient';
import { runTsPath, stdioServerParams } from '../../../../test-support/spawnServer';
import { expectValidServerMessages, SUPPORTED_SPEC_VERSIONS } from '../../../../test-support/specSchema';

const fixture = path.join(__dirname, 'fixtures', 'stdioServer.ts');

describe.each(SUPPORTED_SPEC_VERSIONS)('official SDK client over stdio, protocol %s', (version) => {
  it('lists and calls tools, gets validation errors and -32602 for an unknown tool', async () => {
    const transport = new StdioClientTransport(stdioServerParams(fixture));
    const { client, recorder } = await connectSdkClient(transport, { protocolVersion: version });
    try {
      expect(client.getServerVersion()).toEqual({ name: 'stdio-fixture', version: '1.0.0' });
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['echo', 'noisy', 'sleep']);
      expect(tools[0].inputSchema).toEqual({
        type: 'object',
        properties: { text: { type: 'string', description: 'Text to send back' } },
        required: ['text'],
        additionalProperties: false,
      });

      expect(await client.callTool({ name: 'echo', arguments: { text: 'héllo' } })).toEqual({ content: [{ type: 'text', text: 'héllo' }] });

      const invalid = await client.callTool({ name: 'echo', arguments: { text: 42 } });
      expect(invalid.isError).toBe(true);
      expect((invalid.content as Array<{ text: string }>)[0].text).toContain('"text": must be string');

      const unknown = client.callTool({ name: 'missing', arguments: {} });
      await expect(unknown).rejects.toBeInstanceOf(McpError);
      await expect(unknown).rejects.toMatchObject({ code: -32602 });

      // Author code writing to stdout must not corrupt the stream.
      expect(await client.callTool({ name: 'noisy' })).toEqual({ content: [{ type: 'text', text: 'still clean' }] });
      expect(await client.ping()).toEqual({});
    } finally {
      await client.close();
    }
    expectValidServerMessages(version, recorder.received);
  });
});

/** A server process driven with raw lines, for what a well-behaved client never sends. */
class RawStdioServer {
  readonly lines: Array<Record<string, any>> = [];
  stderr = '';
  private readonly child: ChildProcessWithoutNullStreams;
  private buffered = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor() {
    this.child = spawn(process.execPath, ['-r', runTsPath, fixture], { stdio: 'pipe' });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => {
      const parts = (this.buffered + chunk).split('\n');
      this.buffered = parts.pop()!;
      for (const part of parts) this.lines.push(JSON.parse(part));
    });
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
  }

  write(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  endInput(): void {
    this.child.stdin.end();
  }

  kill(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  async waitFor(match: (m: Record<string, any>) => boolean, timeoutMs = 10_000): Promise<Record<string, any>> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const found = this.lines.find(match);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`no matching line; got ${JSON.stringify(this.lines)}; stderr: ${this.stderr}`);
  }

  async initialize(version = '2025-11-25'): Promise<void> {
    this.write(JSON.stringify({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }));
    await this.waitFor((m) => m.id === 'init');
    this.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  }
}

describe('stdio server process', () => {
  it('answers malformed JSON with -32700 and keeps serving', async () => {
    const server = new RawStdioServer();
    try {
      await server.initialize('2025-06-18');
      server.write('{"jsonrpc":"2.0","id":5,"method":');
      server.write('not json at all');
      server.write(JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'echo', arguments: { text: 'after' } } }));
      const answer = await server.waitFor((m) => m.id === 6);
      expect(answer.result).toEqual({ content: [{ type: 'text', text: 'after' }] });
      const parseErrors = server.lines.filter((m) => m.error?.code === -32700);
      expect(parseErrors).toHaveLength(2);
      expectValidServerMessages(
        '2025-06-18',
        server.lines.map((message) => ({ message, requestMethod: message.id === 'init' ? 'initialize' : message.id === 6 ? 'tools/call' : undefined })),
      );
    } finally {
      server.endInput();
      await server.exited;
    }
  });

  it('finishes in-flight requests when stdin ends, then exits by itself', async () => {
    const server = new RawStdioServer();
    await server.initialize();
    server.write(JSON.stringify({ jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { name: 'sleep', arguments: { ms: 300 } } }));
    server.endInput();
    const { code } = await server.exited;
    expect(code).toBe(0);
    expect(server.lines.find((m) => m.id === 'slow')?.result).toEqual({ content: [{ type: 'text', text: 'slept 300 ms' }] });
  });

  it.each(['SIGTERM', 'SIGINT'] as const)('exits cleanly on %s', async (signal) => {
    const server = new RawStdioServer();
    await server.initialize();
    server.kill(signal);
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });
});
