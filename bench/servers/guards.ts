/**
 * The guards bench's server: one `echo` tool over stdio, plain or behind one guard of
 * `@typemcp/guards` in memory, set so that it never refuses (what is measured is what the guard
 * costs a call it lets through).
 *
 *   node bench/dist/guards.js none|middleware|interceptor|rate-limit|cache|cache-hit|result-size|timeout|concurrency|audit|audit-json
 *
 * `cache` caches `echo` and the bench sends new arguments with every call, so each call is a
 * miss (the key made, the store written); `cache-hit` is for reference: the same arguments.
 */
import 'reflect-metadata';
import { IsString } from 'class-validator';
import { McpServer, Tool } from '@typemcp/core';
import { auditLog, concurrencyLimit, jsonLinesLogger, rateLimit, ResultCache, resultSizeLimit, timeouts } from '@typemcp/guards';

class EchoInput {
  @IsString()
  text!: string;
}

class Echo {
  @Tool('Echoes the text back')
  echo(input: EchoInput): string {
    return input.text;
  }
}

const guard = process.argv[2] ?? 'none';
const server = new McpServer({ name: 'typemcp-bench-guards', version: '1.0.0', providers: [Echo] });
const big = 1_000_000_000;
switch (guard) {
  case 'none':
    break;
  case 'middleware':
    // For reference: one empty middleware, the seam every guard stands on.
    server.use(async (_ctx, next) => next());
    break;
  case 'interceptor':
    // For reference: one empty interceptor, the seam the guards stand on.
    server.plugin({ name: 'empty', register: (host) => host.intercept((_ctx, next) => next()) });
    break;
  case 'rate-limit':
    server.plugin(rateLimit, { tools: { echo: { limit: big, windowMs: 60_000 } } });
    break;
  case 'cache':
  case 'cache-hit':
    server.plugin(new ResultCache({ tools: { echo: { ttlMs: 60_000 } } }));
    break;
  case 'result-size':
    server.plugin(resultSizeLimit, { maxBytes: 1_000_000 });
    break;
  case 'timeout':
    server.plugin(timeouts, { tools: { echo: 60_000 } });
    break;
  case 'concurrency':
    server.plugin(concurrencyLimit, { tools: { echo: { max: 1_000, queue: 1_000 } } });
    break;
  case 'audit':
    // Every entry is built and handed to a logger that drops it: serialising is the logger's job
    // (pino does it in its own way), and where a line goes is the author's cost, not the guard's.
    server.plugin(auditLog, { logger: { info() {}, warn() {} } });
    break;
  case 'audit-json':
    // For reference: every entry also serialised by jsonLinesLogger, the line then dropped.
    server.plugin(auditLog, { logger: jsonLinesLogger(() => undefined) });
    break;
  default:
    throw new Error(`unknown guard ${JSON.stringify(guard)}`);
}
void server.listen({ transport: 'stdio' });
