import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import { build } from './commands/build';
import { call, parseToolArguments } from './commands/call';
import { dev } from './commands/dev';
import { inspect } from './commands/inspect';
import { defaultEntry } from './launch';
import { createOutput } from './output';
import type { Output } from './output';
import { UsageError } from './UsageError';

const USAGE = `Usage: typemcp <command> [options]

Commands:
  dev [entry]            run a TypeScript server from source, restarting on changes
                         (entry default src/main.ts; --stdio (default) | --http [--port N]; --no-watch)
  inspect [entry]        list the tools, resources, resource templates and prompts with their schemas
                         (entry default dist/main.js, else src/main.ts; --json)
  call <tool> [entry]    call one tool and print its result (--args '{...}', --entry path, --json)
  build [entry]          tsc, then one production bundle of the compiled entry
                         (entry default dist/main.js; --outfile dist/bundle/server.js, --minify, --sourcemap, --no-tsc)

Options:
  -h, --help             help for typemcp or a command
  -v, --version          the version of typemcp

A server entry serves stdio when started with --stdio and HTTP with --http (port from PORT).
`;

type Options = NonNullable<ParseArgsConfig['options']>;
const COMMON: Options = { help: { type: 'boolean', short: 'h' } };

/** Runs the command line; resolves to the exit code (2 for usage errors). */
export async function run(argv: string[], out: Output = createOutput(), write: (text: string) => void = (t) => void process.stdout.write(t)): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
      case '-h':
      case '--help':
      case 'help':
        write(USAGE);
        return command === undefined ? 2 : 0;
      case '-v':
      case '--version':
        write(`${version()}\n`);
        return 0;
      case 'dev': {
        const { values, positionals } = parse(rest, { stdio: { type: 'boolean' }, http: { type: 'boolean' }, port: { type: 'string' }, watch: { type: 'boolean', default: true } }, 1);
        if (values.help) return help(write);
        if (values.stdio && values.http) throw new UsageError('choose one of --stdio and --http');
        return await dev(
          { entry: positionals[0] ?? path.join('src', 'main.ts'), transport: values.http ? 'http' : 'stdio', port: parsePort(values.port as string | undefined), watch: values.watch !== false },
          out,
        );
      }
      case 'inspect': {
        const { values, positionals } = parse(rest, { json: { type: 'boolean' } }, 1);
        if (values.help) return help(write);
        return await inspect(positionals[0] ?? defaultEntry(process.cwd()), values.json === true, out, write);
      }
      case 'call': {
        const { values, positionals } = parse(rest, { args: { type: 'string' }, entry: { type: 'string' }, json: { type: 'boolean' } }, 2);
        if (values.help) return help(write);
        const [tool, positionalEntry] = positionals;
        if (!tool) throw new UsageError('the tool to call is missing: typemcp call <tool> [--args \'{...}\']');
        if (positionalEntry && values.entry) throw new UsageError('give the entry either as an argument or with --entry');
        const args = parseToolArguments(values.args as string | undefined);
        return await call((values.entry as string | undefined) ?? positionalEntry ?? defaultEntry(process.cwd()), tool, args, values.json === true, out, write);
      }
      case 'build': {
        const { values, positionals } = parse(
          rest,
          { outfile: { type: 'string' }, minify: { type: 'boolean' }, sourcemap: { type: 'boolean' }, tsc: { type: 'boolean', default: true } },
          1,
        );
        if (values.help) return help(write);
        return await build(
          {
            entry: positionals[0] ?? path.join('dist', 'main.js'),
            outfile: (values.outfile as string | undefined) ?? path.join('dist', 'bundle', 'server.js'),
            minify: values.minify === true,
            sourcemap: values.sourcemap === true,
            tsc: values.tsc !== false,
          },
          out,
        );
      }
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      out.error(error.message);
      out.info(out.dim('Run typemcp --help for the commands and their options.'));
      return 2;
    }
    out.error(error instanceof Error ? error.message : String(error));
    return 1;
  }
}

function parse(args: string[], options: Options, maxPositionals: number) {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { ...COMMON, ...options }, allowPositionals: true, allowNegative: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (parsed.positionals.length > maxPositionals) throw new UsageError(`unexpected argument "${parsed.positionals[maxPositionals]}"`);
  return parsed;
}

function parsePort(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a number from 0 to 65535, not "${text}"`);
  return port;
}

function help(write: (text: string) => void): number {
  write(USAGE);
  return 0;
}

function version(): string {
  return (JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
}
