/**
 * The ```ts recipe blocks of docs/guides/transports.md are complete programs that mount the
 * server of the guide's `// weather.ts` block in an HTTP host: node:http, Express, Fastify,
 * Hono, and fetchHandler() on Node's own Request. Each is type-checked, then run as it is in a
 * child process on a free port of 127.0.0.1 and served to the official SDK client and to a
 * 2026-07-28 request without a session.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as ts from 'typescript';
import { looseFileOptions } from '../../../../test-support/looseFiles';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const repoRoot = path.resolve(__dirname, '../../../..');
const guide = readFileSync(path.join(repoRoot, 'docs', 'guides', 'transports.md'), 'utf8');
const runTsPath = path.join(repoRoot, 'test-support', 'runTs.js');

/** The blocks of the guide whose fence says `ts recipe`, with the heading they stand under. */
function recipes(): Array<{ title: string; code: string }> {
  const found: Array<{ title: string; code: string }> = [];
  let title = '';
  const lines = guide.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].startsWith('### ')) title = lines[i].slice(4);
    if (lines[i].trim() !== '```ts recipe') continue;
    const end = lines.findIndex((line, j) => j > i && line.trim() === '```');
    found.push({ title, code: lines.slice(i + 1, end).join('\n') + '\n' });
    i = end;
  }
  return found;
}

/** The guide's shared server: the ```ts block that starts with `// weather.ts`. */
function weatherModule(): string {
  const match = /```ts\n(\/\/ weather\.ts\n[\s\S]*?)```/.exec(guide);
  if (!match) throw new Error('docs/guides/transports.md has no ```ts block starting with // weather.ts');
  return match[1];
}

const found = recipes();
let dir: string;
const files: string[] = [];

beforeAll(() => {
  // Inside the repository, so the programs resolve its packages as a project of the user's would.
  dir = mkdtempSync(path.join(__dirname, '.recipes-'));
  writeFileSync(path.join(dir, 'weather.ts'), weatherModule());
  found.forEach(({ code }, index) => {
    const file = path.join(dir, `recipe${index}.ts`);
    writeFileSync(file, code);
    files.push(file);
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('has the five recipes: node:http, Express, Fastify, Hono, fetchHandler on Node', () => {
  expect(found.map((recipe) => recipe.title)).toEqual([
    'node:http',
    'Express 5',
    'Fastify 5',
    'Hono on @hono/node-server',
    "fetchHandler() on Node's own Request and Response",
  ]);
});

it('type-checks every recipe with the repository\'s compiler options', () => {
  const program = ts.createProgram([...files, path.join(dir, 'weather.ts')], looseFileOptions());
  const problems = ts.getPreEmitDiagnostics(program).map((d) => `${d.file ? path.basename(d.file.fileName) : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
  expect(problems).toEqual([]);
}, 60_000);

describe.each(found.map((recipe, index) => [recipe.title, index] as const))('the %s recipe', (_title, index) => {
  let child: ChildProcess;
  let url: URL;

  beforeAll(async () => {
    child = spawn(process.execPath, ['-r', runTsPath, files[index]], { env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'ignore', 'pipe'] });
    url = await new Promise<URL>((resolve, reject) => {
      let stderr = '';
      const timer = setTimeout(() => reject(new Error(`no address within 20 s: ${stderr}`)), 20_000);
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
        const match = /serving MCP at (http:\/\/\S+\/mcp)/.exec(stderr);
        if (match) {
          clearTimeout(timer);
          resolve(new URL(match[1]));
        }
      });
      child.once('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
    });
  }, 30_000);

  afterAll(async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('serves the official SDK client a session: list, call', async () => {
    const client = new Client({ name: 'recipes', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url));
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['weather']);
      expect((await client.callTool({ name: 'weather', arguments: { city: 'Braga' } })).content).toEqual([{ type: 'text', text: 'Sunny in Braga' }]);
    } finally {
      await client.close();
    }
  });

  it('serves a 2026-07-28 request without a session', async () => {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'weather',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'weather',
          arguments: { city: 'Faro' },
          _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
        },
      }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { result: Record<string, unknown> };
    expect(body.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Sunny in Faro' }] });
  });
});
