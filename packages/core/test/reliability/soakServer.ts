/**
 * The server `npm run soak` drives: one tool to call, one that reports memory after a full
 * garbage collection. stdio by default; `--http` listens on 127.0.0.1 (a free port) and prints
 * its URL.
 */
import 'reflect-metadata';
import { IsString } from 'class-validator';
import { McpServer, Tool } from '@typemcp/core';

class EchoInput {
  @IsString() text!: string;
}

class SoakTools {
  @Tool({ description: 'Echoes' })
  echo(input: EchoInput): string {
    return input.text;
  }

  @Tool({ description: 'Memory after a full collection' })
  memory(): string {
    (globalThis as { gc?: () => void }).gc?.();
    const { rss, heapUsed } = process.memoryUsage();
    return JSON.stringify({ rss, heapUsed });
  }
}

const server = new McpServer({ name: 'soak', version: '1', providers: [SoakTools] });
if (process.argv.includes('--http')) {
  void server.listen({ transport: 'http', port: 0 }).then(({ url }) => process.stdout.write(`${url}\n`));
} else {
  void server.listen({ transport: 'stdio' });
}
