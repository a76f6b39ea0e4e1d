/**
 * Every ```ts runnable block of docs/guides/*.md is a complete server program. This test
 * type-checks all of them in one TypeScript program (with the repository's compiler options),
 * then runs each one as a child process over stdio: initialize, the list methods its
 * capabilities announce, end of input, exit code 0.
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import * as ts from 'typescript';
import { looseFileOptions } from '../../../../test-support/looseFiles';

const repoRoot = path.resolve(__dirname, '../../../..');
const guidesDir = path.join(repoRoot, 'docs', 'guides');
const runTsPath = path.join(repoRoot, 'test-support', 'runTs.js');

/** How long a snippet may take to answer everything, and then to exit once its input ends. */
/**
 * Snippets run a few at a time, each given the CPU to start (compiling TypeScript on the fly)
 * and to answer; a snippet that hangs fails at HANG_TIMEOUT_MS, far past any busy machine's
 * start-up, rather than at a budget a loaded machine can miss.
 */
const CONCURRENCY = Math.max(2, Math.floor(availableParallelism() / 2));
const HANG_TIMEOUT_MS = 120_000;
const EXIT_TIMEOUT_MS = 30_000;

interface Snippet {
  /** `resources.md#1`: the guide and the block's number in it. */
  label: string;
  guide: string;
  /** 1-based line in the guide of the block's first code line. */
  firstLine: number;
  code: string;
  file: string;
}

/** The ```ts runnable blocks of every guide, in file order. */
function extractSnippets(): Omit<Snippet, 'file'>[] {
  const found: Omit<Snippet, 'file'>[] = [];
  for (const guide of readdirSync(guidesDir).filter((f) => f.endsWith('.md')).sort()) {
    const lines = readFileSync(path.join(guidesDir, guide), 'utf8').split('\n');
    let count = 0;
    for (let i = 0; i < lines.length; i++) {
      if (lines[i].trim() !== '```ts runnable') continue;
      const end = lines.findIndex((line, j) => j > i && line.trim() === '```');
      if (end < 0) throw new Error(`docs/guides/${guide}:${i + 1}: unclosed \`\`\`ts runnable block`);
      found.push({ label: `${guide}#${++count}`, guide, firstLine: i + 2, code: lines.slice(i + 1, end).join('\n') + '\n' });
      i = end;
    }
  }
  return found;
}

interface RunResult {
  problems: string[];
  stderr: string;
}

type Message = { id?: unknown; method?: string; result?: Record<string, any>; error?: unknown };

/**
 * Runs one snippet: initialize, notifications/initialized, a request for each list the server
 * announced, then end of input. Resolves with what went wrong (nothing, ideally).
 */
function runSnippet(snippet: Snippet, children: Set<ChildProcessWithoutNullStreams>): Promise<RunResult> {
  return new Promise((resolve) => {
    const problems: string[] = [];
    let stderr = '';
    let buffered = '';
    const waiting = new Map<number, (message: Message) => void>();
    const child = spawn(process.execPath, ['-r', runTsPath, snippet.file], { cwd: repoRoot, stdio: ['pipe', 'pipe', 'pipe'] });
    children.add(child);

    let exitTimer: NodeJS.Timeout | undefined;
    let exited = false;
    const conversationTimer = setTimeout(() => {
      problems.push(`no answer to every request within ${HANG_TIMEOUT_MS} ms`);
      child.kill('SIGKILL');
    }, HANG_TIMEOUT_MS);

    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (line === '') continue;
        let message: Message;
        try {
          message = JSON.parse(line) as Message;
        } catch {
          problems.push(`stdout carried a line that is not JSON: ${line}`);
          continue;
        }
        if (typeof message.id === 'number' && message.method === undefined) {
          waiting.get(message.id)?.(message);
          waiting.delete(message.id);
        }
      }
    });
    child.stdin.on('error', () => {}); // a child that died early is reported by its exit
    child.on('exit', (code, signal) => {
      exited = true;
      clearTimeout(conversationTimer);
      clearTimeout(exitTimer);
      children.delete(child);
      if (code !== 0) problems.push(`exited with ${signal ? `signal ${signal}` : `code ${code}`}`);
      for (const answer of waiting.values()) answer({ error: 'the process exited before answering' });
      resolve({ problems, stderr });
    });

    let nextId = 1;
    const send = (message: Record<string, unknown>) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    const request = (method: string, params?: Record<string, unknown>) =>
      new Promise<Message>((answer) => {
        const id = nextId++;
        waiting.set(id, answer);
        send(params ? { id, method, params } : { id, method });
      });
    const expectResult = (method: string, message: Message) => {
      if (message.result === undefined) problems.push(`${method} was not answered with a result: ${JSON.stringify(message)}`);
      return message.result;
    };

    void (async () => {
      const init = expectResult(
        'initialize',
        await request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'docs-snippets', version: '1.0.0' } }),
      );
      if (init) {
        send({ method: 'notifications/initialized' });
        const capabilities = (init.capabilities ?? {}) as Record<string, unknown>;
        const methods = [
          ...(capabilities.tools ? ['tools/list'] : []),
          ...(capabilities.prompts ? ['prompts/list'] : []),
          ...(capabilities.resources ? ['resources/list', 'resources/templates/list'] : []),
        ];
        if (methods.length === 0) problems.push('the server announced no tools, prompts or resources');
        const answers = await Promise.all(methods.map((method) => request(method)));
        methods.forEach((method, i) => expectResult(method, answers[i]));
      }
      clearTimeout(conversationTimer);
      if (exited) return;
      exitTimer = setTimeout(() => {
        problems.push(`did not exit within ${EXIT_TIMEOUT_MS} ms after its input ended`);
        child.kill('SIGKILL');
      }, EXIT_TIMEOUT_MS);
      child.stdin.end();
    })();
  });
}

describe('runnable snippets in docs/guides', () => {
  const snippets: Snippet[] = extractSnippets().map((s) => ({ ...s, file: '' }));
  const children = new Set<ChildProcessWithoutNullStreams>();
  const runs = new Map<string, Promise<RunResult>>();
  let tempDir = '';

  beforeAll(() => {
    // Inside the repository, so that imports resolve from its node_modules and runTs compiles them.
    tempDir = mkdtempSync(path.join(repoRoot, '.docs-snippets-'));
    for (const [index, snippet] of snippets.entries()) {
      snippet.file = path.join(tempDir, `${String(index).padStart(2, '0')}-${snippet.guide.replace(/\.md$/, '')}.ts`);
      writeFileSync(snippet.file, snippet.code);
    }
    // The programs start now, a few at a time, and run while the type-check below works.
    const queue: Array<() => void> = [];
    let running = 0;
    const next = () => {
      running--;
      queue.shift()?.();
    };
    const slot = () =>
      new Promise<void>((start) => {
        if (running < CONCURRENCY) {
          running++;
          start();
        } else {
          queue.push(() => {
            running++;
            start();
          });
        }
      });
    for (const snippet of snippets) {
      runs.set(snippet.label, slot().then(() => runSnippet(snippet, children).finally(next)));
    }
  });

  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await Promise.allSettled(runs.values());
    if (tempDir) rmSync(tempDir, { recursive: true, force: true });
  });

  it('finds runnable snippets', () => {
    expect(snippets.length).toBeGreaterThan(0);
  });

  it('type-checks every snippet', () => {
    const program = ts.createProgram(
      snippets.map((s) => s.file),
      looseFileOptions(),
    );
    const byFile = new Map(snippets.map((s) => [path.resolve(s.file), s]));
    const reported: string[] = [];
    const diagnostics = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()];
    for (const snippet of snippets) {
      const source = program.getSourceFile(snippet.file);
      if (!source) {
        reported.push(`${snippet.label}: not part of the program`);
        continue;
      }
      diagnostics.push(...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source));
    }
    for (const diagnostic of diagnostics) {
      const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
      const snippet = diagnostic.file && byFile.get(path.resolve(diagnostic.file.fileName));
      if (snippet && diagnostic.start !== undefined) {
        const { line, character } = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start);
        reported.push(`docs/guides/${snippet.guide}:${snippet.firstLine + line}:${character + 1} (${snippet.label}): TS${diagnostic.code}: ${text}`);
      } else {
        reported.push(`${diagnostic.file?.fileName ?? 'compiler options'}: TS${diagnostic.code}: ${text}`);
      }
    }
    expect(reported).toEqual([]);
  }, 60_000);

  it.each(snippets.map((s) => [s.label, s] as const))('runs %s over stdio and exits with code 0', async (_label, snippet) => {
    const { problems, stderr } = await runs.get(snippet.label)!;
    const detail = problems.length > 0 && stderr ? [...problems, `stderr:\n${stderr}`] : problems;
    expect(detail).toEqual([]);
  }, HANG_TIMEOUT_MS + EXIT_TIMEOUT_MS + 5_000);
});
