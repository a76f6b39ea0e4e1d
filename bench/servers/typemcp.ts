/**
 * The bench server built with TypeMCP, the way a user builds one: decorators, a class-validator
 * DTO, `@typemcp/core` compiled by tsc with decorator metadata. One `echo` tool, one resource,
 * one prompt; `BENCH_TOOLS=N` adds N more tools (same input DTO) for the tools/list figures.
 *
 *   node bench/dist/typemcp.js            stdio
 *   node bench/dist/typemcp.js --http     Streamable HTTP, stateless, 127.0.0.1, a free port
 *                                         (prints "LISTENING <port>" on stdout)
 */
import 'reflect-metadata';
import { IsString } from 'class-validator';
import { McpServer, Prompt, Resource, Tool } from '@typemcp/core';
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

const server = new McpServer({ name: 'typemcp-bench', version: '1.0.0', providers });

if (process.argv.includes('--http')) {
  void server.listen({ transport: 'http', host: '127.0.0.1', port: 0, stateless: true }).then((address) => {
    process.stdout.write(`LISTENING ${address.port}\n`);
  });
} else {
  void server.listen({ transport: 'stdio' });
}
