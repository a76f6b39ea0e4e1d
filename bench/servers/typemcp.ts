/**
 * The bench server built with TypeMCP, the way a user builds one: decorators, a class-validator
 * DTO, `@typemcp/core` compiled by tsc with decorator metadata. One `echo` tool, one resource,
 * one prompt; `BENCH_TOOLS=N` adds N more tools (same input DTO) for the tools/list figures.
 * `BENCH_MIDDLEWARE=N` installs N empty `server.use` middlewares. `BENCH_MOUNT=1` serves the
 * same providers through a mount (`server.mount(child, { namespace: 'm' })`): the tool is `m_echo`. `BENCH_2026=1` adds the two
 * tools of the 2026-07-28 phases: `confirm` (asks the client once with `ctx.elicit`) and
 * `touch` (`notifyUpdated('bench://info')`, for the subscriptions/listen fan-out).
 *
 *   node bench/dist/typemcp.js            stdio
 *   node bench/dist/typemcp.js --http     Streamable HTTP, stateless, 127.0.0.1, a free port
 *                                         (prints "LISTENING <port>" on stdout); 2026-07-28
 *                                         POSTs are served without a session whatever it says
 *   bun bench/dist/typemcp.js --bun-serve  the same through server.fetchHandler() on Bun.serve
 */
import 'reflect-metadata';
import { IsBoolean, IsString } from 'class-validator';
import { Context, McpServer, Prompt, Resource, Tool } from '@typemcp/core';
import type { Constructor } from '@typemcp/core';

class EchoInput {
  @IsString()
  text!: string;
}

class GreetArgs {
  @IsString()
  name!: string;
}

class BenchProvider {
  @Tool('Echoes the text back')
  echo(input: EchoInput): string {
    return input.text;
  }

  @Resource({ uri: 'bench://info', mimeType: 'text/plain' })
  info(): string {
    return 'bench server';
  }

  @Prompt('Greets someone')
  greet(args: GreetArgs): string {
    return `Say hello to ${args.name}`;
  }
}

class ConfirmForm {
  @IsBoolean()
  ok!: boolean;
}

/** Only with BENCH_2026=1, so that the other phases list and load the same tools as before. */
class ModernProvider {
  @Tool('Asks the client to confirm, then answers')
  async confirm(ctx: Context): Promise<string> {
    const answer = await ctx.elicit('Go ahead?', ConfirmForm, { key: 'confirm' });
    return answer.action === 'accept' && answer.content.ok ? 'confirmed' : 'declined';
  }

  @Tool('Marks bench://info as updated')
  touch(): string {
    server.resources.notifyUpdated('bench://info');
    return 'touched';
  }
}

/** A provider with `count` echo tools named tool_0 … tool_<count-1>, declared with the decorator. */
function manyTools(count: number): Constructor {
  class ManyTools {}
  const prototype = ManyTools.prototype as Record<string, unknown>;
  for (let i = 0; i < count; i++) {
    const name = `tool_${i}`;
    prototype[name] = function (input: EchoInput): string {
      return input.text;
    };
    Tool({ description: `Bench tool number ${i}`, input: EchoInput })(prototype, name, Object.getOwnPropertyDescriptor(prototype, name)!);
  }
  return ManyTools;
}

const extraTools = Number(process.env.BENCH_TOOLS ?? 0);
const providers: Constructor[] = [BenchProvider];
if (extraTools > 0) providers.push(manyTools(extraTools));
if (process.env.BENCH_2026 === '1') providers.push(ModernProvider);

const mounted = process.env.BENCH_MOUNT === '1';
const server = new McpServer({
  name: 'typemcp-bench',
  version: '1.0.0',
  providers: mounted ? [] : providers,
  // A fixed key, as a deployment behind a load balancer has; the floor signs with one too.
  requestState: { secret: 'typemcp-bench-request-state' },
});
if (mounted) server.mount(new McpServer({ name: 'typemcp-bench-mounted', version: '1.0.0', providers }), { namespace: 'm' });
const middlewares = Number(process.env.BENCH_MIDDLEWARE ?? 0);
for (let i = 0; i < middlewares; i++) server.use(async (_ctx, next) => next());

/** The part of Bun's API --bun-serve uses. */
type BunServe = (options: { hostname: string; port: number; fetch: (request: Request) => Promise<Response> }) => { port: number };

if (process.argv.includes('--bun-serve')) {
  const serve = (globalThis as unknown as { Bun: { serve: BunServe } }).Bun.serve;
  const listener = serve({ hostname: '127.0.0.1', port: 0, fetch: server.fetchHandler({ stateless: true }) });
  process.stdout.write(`LISTENING ${listener.port}\n`);
} else if (process.argv.includes('--http')) {
  void server.listen({ transport: 'http', host: '127.0.0.1', port: 0, stateless: true }).then((address) => {
    process.stdout.write(`LISTENING ${address.port}\n`);
  });
} else {
  void server.listen({ transport: 'stdio' });
}
