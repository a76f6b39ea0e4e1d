/**
 * A seeded, bounded property-based fuzz of both transports: whatever a client sends, the
 * server answers every request exactly once (or not at all when it was cancelled), answers
 * nothing else but refusals of what it could not read, never reports an internal error, and
 * keeps serving. `npm test` runs it small; `npm run fuzz` runs it at 200 000 messages per
 * transport (FUZZ_RUNS, FUZZ_SEED override both).
 */
import 'reflect-metadata';
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { IsString } from 'class-validator';
import { Completion, Context, McpServer, Prompt, StdioTransport, Tool } from '@typemcp/core';

const LARGE = process.env.FUZZ_SIZE === 'large';
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const STDIO_RUNS = Number(process.env.FUZZ_RUNS ?? (LARGE ? 1000 : 10));
const HTTP_RUNS = Number(process.env.FUZZ_RUNS ?? (LARGE ? 4000 : 4));
const LINES_PER_RUN = 200;
/** The large runs take minutes on a busy 2-core machine: their bound is the run's, not a test's. */
const TIMEOUT_MS = LARGE ? 3_600_000 : 600_000;

class EchoInput {
  @IsString() text!: string;
}

class Topic {
  @IsString() topic!: string;
}

class Fuzzed {
  @Tool({ description: 'Echoes' })
  echo(input: EchoInput): string {
    return input.text;
  }

  @Prompt({ description: 'About a topic' })
  about(args: Topic): string {
    return `About ${args.topic}`;
  }

  @Tool({ description: 'Asks the user (a 2026-07-28 request answers input_required)' })
  async ask(ctx: Context): Promise<string> {
    const answer = await ctx.elicit('Name?', { requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    return answer.action;
  }

  @Completion({ prompt: 'about', argument: 'topic' })
  topics(value: string): string[] {
    return ['cats', 'cars'].filter((t) => t.startsWith(value));
  }
}

const newServer = () => new McpServer({ name: 'fuzzed', version: '1', providers: [Fuzzed], pageSize: 1, onError: () => undefined });

// ---- generators: raw text lines, so that invalid JSON and any nesting are possible ----------

const deepText = fc.integer({ min: 1, max: 120_000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`);
const hostile = fc.oneof(
  fc.constantFrom('{"toString":1}', '{"toString":{"valueOf":1}}', '{"__proto__":{"polluted":1}}', 'null', 'true', '1e309', '-0', '"\\u0000"'),
  deepText,
  fc.string({ maxLength: 3000 }).map((s) => JSON.stringify(s)),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
);
const method = fc.constantFrom(
  'tools/call',
  'tools/list',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/read',
  'logging/setLevel',
  'completion/complete',
  'ping',
  'initialize',
  'no/such/method',
);
const params = fc.oneof(
  fc.string({ maxLength: 200 }).map((text) => JSON.stringify({ name: 'echo', arguments: { text } })),
  hostile.map((v) => `{"name":${v},"arguments":${v}}`),
  hostile.map((v) => `{"cursor":${v}}`),
  hostile.map((v) => `{"level":${v}}`),
  hostile.map((v) => `{"uri":${v}}`),
  hostile.map((v) => `{"ref":{"type":"ref/prompt","name":"about"},"argument":{"name":"topic","value":${v}}}`),
  hostile,
);

const MODERN_META = JSON.stringify({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } });
/** A 2026-07-28 call of the asking tool, with hostile extra params, answers and state. */
const modernParams = fc
  .tuple(hostile, fc.option(hostile), fc.option(hostile, { freq: 3 }))
  .map(([junk, answer, state]) => {
    const responses = answer === null ? '' : `"inputResponses":{"other":${answer},"elicitation-0":{"action":"accept","content":{},"extra":${answer}}},`;
    const carried = state === null ? '' : `"requestState":${state},`;
    return `{"name":"ask","junk":${junk},${responses}${carried}"_meta":${MODERN_META}}`;
  });

type Line =
  | { kind: 'request'; method: string; params: string }
  | { kind: 'cancel'; back: number; reason: string }
  | { kind: 'response'; body: string }
  | { kind: 'badId'; id: string }
  | { kind: 'garbage'; text: string }
  | { kind: 'batch'; size: number };

const line: fc.Arbitrary<Line> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('request' as const), method, params }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('request' as const), method: fc.constant('tools/call'), params: modernParams }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('cancel' as const), back: fc.nat(20), reason: hostile }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('response' as const), body: hostile }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('badId' as const), id: fc.constantFrom('1.5', 'null', '{}', '[]', 'true', '"x"') }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('garbage' as const), text: fc.string({ minLength: 1, maxLength: 100 }).filter((s) => !s.includes('\n')) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('batch' as const), size: fc.nat(4) }) },
);

/** Turns generated lines into wire text, and the ids of the requests whose answer is owed. */
function render(lines: Line[]): { text: string[]; owed: Set<string>; cancelled: Set<string> } {
  const text: string[] = [];
  const owed = new Set<string>();
  const cancelled = new Set<string>();
  const sent: string[] = [];
  let next = 0;
  const request = (m: string, p: string) => {
    const id = next % 2 === 0 ? next++ : `s${next++}`;
    const key = JSON.stringify(id);
    owed.add(key);
    sent.push(key);
    return `{"jsonrpc":"2.0","id":${key},"method":${JSON.stringify(m)},"params":${p}}`;
  };
  for (const l of lines) {
    switch (l.kind) {
      case 'request':
        text.push(request(l.method, l.params));
        break;
      case 'cancel': {
        const target = sent[sent.length - 1 - l.back];
        if (target === undefined) break;
        cancelled.add(target);
        text.push(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${target},"reason":${l.reason}}}`);
        break;
      }
      case 'response':
        text.push(`{"jsonrpc":"2.0","id":"ghost-${next++}","result":${l.body.startsWith('{') ? l.body : '{}'}}`);
        break;
      case 'badId':
        text.push(`{"jsonrpc":"2.0","id":${l.id},"method":"tools/list"}`);
        // A string id is valid: it is owed an answer like any other.
        if (l.id === '"x"') {
          owed.add('"x"');
          // Sent again later it may collide with itself in flight; one answer per send is enough.
          sent.push('"x"');
        }
        break;
      case 'garbage':
        text.push(l.text);
        break;
      case 'batch':
        text.push(`[${Array.from({ length: l.size }, () => request('tools/list', '{}')).join(',')}]`);
        break;
    }
  }
  return { text, owed, cancelled };
}

const ALLOWED_CODES = new Set([-32700, -32600, -32601, -32602, -32002]);

/** fc.assert, with a failure report cut to a readable size (counterexamples hold megabyte lines). */
async function check<T>(property: fc.IAsyncPropertyWithHooks<T>, numRuns: number): Promise<void> {
  const details = await fc.check(property, { seed: SEED, numRuns, endOnFailure: true });
  if (!details.failed) return;
  const example = JSON.stringify(details.counterexample)?.slice(0, 2000);
  const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  throw new Error(`Fuzz failure (seed ${details.seed}, path ${details.counterexamplePath}): ${cause.slice(0, 3000)}\nCounterexample (cut): ${example}`);
}

describe('fuzz: stdio', () => {
  it(`answers every request once and keeps serving (${STDIO_RUNS} runs of ${LINES_PER_RUN} messages, seed ${SEED})`, async () => {
    await check(
      fc.asyncProperty(fc.array(line, { minLength: LINES_PER_RUN, maxLength: LINES_PER_RUN }), async (lines) => {
        const { text, owed, cancelled } = render(lines);
        const input = new PassThrough();
        const output = new PassThrough();
        const server = newServer();
        await server.connect(new StdioTransport({ input, output, guardStdout: false }));
        const answers = new Map<string, number>();
        const unexpected: unknown[] = [];
        let buffer = '';
        let sentinel = false;
        output.setEncoding('utf8');
        output.on('data', (chunk: string) => {
          buffer += chunk;
          let newline: number;
          while ((newline = buffer.indexOf('\n')) >= 0) {
            const parsed = JSON.parse(buffer.slice(0, newline));
            buffer = buffer.slice(newline + 1);
            for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
              if (message.id === 'sentinel') sentinel = true;
              else if (message.id !== undefined) answers.set(JSON.stringify(message.id), (answers.get(JSON.stringify(message.id)) ?? 0) + 1);
              if (message.error && !ALLOWED_CODES.has(message.error.code)) unexpected.push(message);
            }
          }
        });
        const init = '{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}';
        input.write(`${init}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n`);
        for (const t of text) input.write(`${t}\n`);
        input.write('{"jsonrpc":"2.0","id":"sentinel","method":"ping"}\n');
        const deadline = Date.now() + 10_000;
        // Answers may come after the sentinel's (a requestState is checked asynchronously, an
        // input_required round ends a turn later): wait for every answer owed, then close.
        const allAnswered = () => [...owed].every((id) => cancelled.has(id) || id === '"x"' || answers.has(id));
        while (!(sentinel && allAnswered()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 2));
        await new Promise((resolve) => setImmediate(resolve));
        await server.close();
        expect(sentinel).toBe(true);
        expect(unexpected).toEqual([]);
        for (const id of owed) {
          const count = answers.get(id) ?? 0;
          if (cancelled.has(id)) expect(count).toBeLessThanOrEqual(id === '"x"' ? Infinity : 1);
          else if (id !== '"x"') expect([id, count]).toEqual([id, 1]);
        }
        for (const id of answers.keys()) expect(owed.has(id) || id === '"init"').toBe(true);
      }),
      STDIO_RUNS,
    );
  }, TIMEOUT_MS);
});

describe('fuzz: Streamable HTTP', () => {
  it(`answers every POST, never with a 5xx, and keeps serving (${HTTP_RUNS} runs of 50 POSTs, seed ${SEED})`, async () => {
    const server = newServer();
    const { url } = await server.listen({ transport: 'http', port: 0, handleSignals: false, maxSessions: 50 });
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body });
    try {
      await check(
        fc.asyncProperty(fc.array(line, { minLength: 50, maxLength: 50 }), async (lines) => {
          const opened = await post('{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}');
          await opened.text();
          const headers = { 'mcp-session-id': opened.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-03-26' };
          await (await post('{"jsonrpc":"2.0","method":"notifications/initialized"}', headers)).text();
          const { text } = render(lines);
          // Concurrent POSTs, as clients send them; every one must come back.
          const statuses = await Promise.all(
            text.map(async (body) => {
              const response = await post(body, headers);
              const answer = await response.text();
              if (response.status === 200 && response.headers.get('content-type')?.includes('application/json')) {
                const parsed = JSON.parse(answer);
                for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
                  if (message.error && !ALLOWED_CODES.has(message.error.code)) throw new Error(`unexpected error ${answer.slice(0, 300)}`);
                }
              }
              return response.status;
            }),
          );
          expect(statuses.filter((status) => status >= 500)).toEqual([]);
          const alive = await post('{"jsonrpc":"2.0","id":"alive","method":"ping"}', headers);
          expect(((await alive.json()) as { result?: unknown }).result).toEqual({});
          await (await fetch(url, { method: 'DELETE', headers })).text();
        }),
        HTTP_RUNS,
      );
    } finally {
      await server.close();
    }
  }, TIMEOUT_MS);
});
