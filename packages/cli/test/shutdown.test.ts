import path from 'node:path';
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { buildCli, fixtures, repoRoot } from './support';

jest.setTimeout(60_000);
beforeAll(buildCli);

/** An HTTP server (the access fixture: `slow` answers after 600 ms to the bearer "reader"). */
const server = path.join(fixtures, 'access', 'server.ts');
const loader = path.join(repoRoot, 'packages', 'cli', 'dist', 'register', 'cjs.js');

interface Running {
  child: ChildProcessWithoutNullStreams;
  url: string;
  stderr: () => string;
  exited: Promise<{ code: number | null; at: number }>;
}

async function startServer(): Promise<Running> {
  const child = spawn(process.execPath, ['-r', loader, server, '--http'], { env: { ...process.env, PORT: '0' } });
  let stderr = '';
  const exited = new Promise<{ code: number | null; at: number }>((resolve) => child.once('exit', (code) => resolve({ code, at: Date.now() })));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const found = /listening at (\S+)/.exec(stderr);
      if (found) resolve(found[1]);
    });
    void exited.then(({ code }) => reject(new Error(`the server exited (${code}): ${stderr}`)));
  });
  return { child, url, stderr: () => stderr, exited };
}

function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', ...headers }, body: JSON.stringify(body) });
}

async function initialize(url: string, headers: Record<string, string> = {}): Promise<string> {
  const response = await post(url, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'test', version: '1' } } }, headers);
  await response.text();
  const session = response.headers.get('mcp-session-id')!;
  await (await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { ...headers, 'mcp-session-id': session })).text();
  return session;
}

describe('an HTTP server on SIGTERM', () => {
  it('exits at once when idle (a session open, nothing in flight), saying nothing', async () => {
    const running = await startServer();
    await initialize(running.url);
    const signalled = Date.now();
    running.child.kill('SIGTERM');
    const { code, at } = await running.exited;
    expect(code).toBe(0);
    expect(at - signalled).toBeLessThan(1000);
    expect(running.stderr()).not.toContain('waiting');
  });

  it('with a request in flight, says it waits for it, answers it, then exits', async () => {
    const running = await startServer();
    const auth = { authorization: 'Bearer reader' };
    const session = await initialize(running.url, auth);
    const answer = post(running.url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'slow' } }, { ...auth, 'mcp-session-id': session }).then((response) => response.text());
    await new Promise((resolve) => setTimeout(resolve, 200));
    running.child.kill('SIGTERM');
    expect(await answer).toContain('"text":"done"');
    const { code } = await running.exited;
    expect(code).toBe(0);
    expect(running.stderr()).toContain('SIGTERM: waiting for 1 request in flight to finish (at most 5 s) before exiting');
  });
});
