import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import { BUILD_TARGETS, build } from './commands/build';
import type { BuildTarget } from './commands/build';
import { call, parseToolArguments } from './commands/call';
import { clientGenerate } from './commands/client';
import { dev } from './commands/dev';
import { callerFrom } from './connect';
import { inspect } from './commands/inspect';
import { registryInit, registryValidate } from './commands/registry';
import { ui } from './commands/ui';
import { defaultEntry } from './launch';
import { createOutput } from './output';
import type { Output } from './output';
import { SUPPORTED_VERSIONS } from '@typemcp/core';
import { UsageError } from './UsageError';

const USAGE = `Usage: typemcp <command> [options]

Commands:
  dev [entry]            run a TypeScript server from source, restarting it on changes
  inspect [entry]        list the tools, resources, resource templates and prompts with their schemas
  call <tool> [entry]    call one tool and print its result
  build [entry]          tsc, then one production bundle of the compiled entry
  ui <page.html>         an MCP Apps UI as one HTML document, with its CSP
  registry init|validate server.json for the MCP Registry: write it, check it
  client generate [entry] TypeScript types of a server's tools, for typed calls

Options:
  -h, --help             this help; typemcp <command> --help for a command's options
  -v, --version          the version of typemcp

A server entry serves MCP over stdio when started with --stdio and over HTTP with --http
(port from PORT).
`;

/** Who inspect and call act as: the access rules (@Scopes, @Roles, @Guard) decide what a caller sees. */
const CALLER_OPTIONS = `  --principal subject    over stdio, act as this principal (the server's listen reads it)
  --scopes a,b           the principal's scopes
  --roles a,b            the principal's roles
  --token bearer         for a URL: send Authorization: Bearer <bearer>
  --header "Name: value" for a URL: send this header; repeat for several
`;

const COMMAND_USAGE: Record<Command, string> = {
  dev: `Usage: typemcp dev [entry] [--stdio | --http] [--port N] [--no-watch] [--inspect]

Runs a server entry (default src/main.ts; TypeScript through swc with decorator metadata) and
restarts it when a file in its folder changes. Over stdio a restart keeps the client's session.

Options:
  --stdio                serve over this command's stdin and stdout (the default)
  --http                 serve Streamable HTTP
  --port N               the port for --http (sets PORT for the server)
  --no-watch             run once: no restarts; the command exits with the server
  --inspect              start the MCP Inspector's web UI (2.12.0, on Node 22 through npx) connected
                         to the stdio server's session, and print its URL; it stays connected
                         across restarts and refreshes its lists after each
  -h, --help             this help
`,
  inspect: `Usage: typemcp inspect [entry | url] [--json] [--protocol version] [caller options]

Starts the entry with --stdio (default dist/main.js when it exists, else src/main.ts), or
connects to a server's Streamable HTTP URL, and prints what it offers: server info, tools with
their schemas and annotations, resources, resource templates and prompts with their arguments.
A server lists only what the caller may use (@Scopes, @Roles, @Guard).

Options:
  --json                 print it all as one JSON object
  --protocol version     speak this protocol version (default: the newest with a handshake;
                         2026-07-28 has none)
${CALLER_OPTIONS}  -h, --help             this help
`,
  call: `Usage: typemcp call <tool> [entry | url] [--entry path] [--args '{...}'] [--json] [--protocol version] [caller options]

Starts the entry with --stdio (default dist/main.js when it exists, else src/main.ts), or
connects to a server's Streamable HTTP URL, calls one tool and prints the text of its result.
Exits with 1 when the result is an error or the call fails.

Options:
  --args '{...}'         the tool's arguments, a JSON object
  --entry path           the server entry or URL (instead of the positional one)
  --json                 print the whole result as JSON
  --protocol version     speak this protocol version (2026-07-28, or a handshake-era one)
${CALLER_OPTIONS}  -h, --help             this help
`,
  build: `Usage: typemcp build [entry] [--target node|bun|deno|workers] [--outfile path] [--minify] [--sourcemap] [--snapshot] [--no-tsc]

Runs the project's tsc -p tsconfig.json (which keeps the decorator metadata), loads the
compiled entry (default dist/main.js) once to compile every validator its servers use, then
bundles it with its dependencies and those validators into one file that runs without
node_modules: for Node 20 and later, CommonJS (or an ES module for an ES module entry); an ES
module for Bun, Deno and Cloudflare Workers (whose entry's default export has fetch; a
wrangler.toml is written beside it).

Options:
  --target runtime       node (default), bun, deno or workers
  --outfile path         the bundle (default dist/bundle/server.js; server.mjs for an ES module
                         entry, bun and deno; worker.mjs for workers)
  --no-precompile        leave the validators to be compiled at run time (not for workers)
  --nodejs-compat        for workers: the Worker runs with the nodejs_compat flag, so Node's
                         modules (node:timers/promises, …) stay imports for workerd; also on when
                         the project's wrangler.toml or wrangler.json lists nodejs_compat
  --metafile             also write esbuild's metafile (<bundle>.meta.json): what the bundle holds
  --minify               minify the bundle (class and function names are kept)
  --sourcemap            write a source map beside it
  --snapshot             also a startup snapshot beside it (server.blob), for the fastest start:
                         node --snapshot-blob dist/bundle/server.blob -- [arguments]
  --no-tsc               bundle what is already compiled
  -h, --help             this help
`,
  ui: `Usage: typemcp ui <page.html> [--outdir dir] [--connect origin]... [--no-minify]
Builds an MCP Apps UI into the single HTML document its ui:// resource serves: local scripts
(TypeScript or JavaScript, with their imports, e.g. App of @modelcontextprotocol/ext-apps) are
bundled and inlined, local stylesheets inlined. Writes <page>.html and <page>.csp.json, the
_meta.ui.csp to serve with it: the origins the page loads from (resourceDomains) and those
given with --connect (connectDomains).

Options:
  --outdir dir           where to write (default dist/ui)
  --connect origin       an origin the UI fetches from at run time; repeat for several
  --no-minify            keep the bundled code readable
  -h, --help             this help
`,
  registry: `Usage: typemcp registry init [entry] [--remote url]... [--no-package] [--server name] [--output file] [--force]
       typemcp registry validate [file]

init loads the entry (default dist/main.js when it exists, else src/main.ts; its servers do not
listen) and writes server.json for the MCP Registry from package.json (mcpName, name, version)
and what the server declares (title, description, websiteUrl, icons, environment): the npm
package, run with --stdio, and the URLs given with --remote. It refuses a placeholder mcpName.
validate checks server.json (default ./server.json) against the registry's schema 2025-12-11
and its own rules: the name is package.json's mcpName, exact versions, npm packages from
registry.npmjs.org, only publisher-provided _meta.

Options:
  --remote url           an https URL the server is deployed at (Streamable HTTP); repeat for several
  --no-package           no npm package: a server only deployed (needs --remote)
  --server name          the server to describe when the entry makes several
  --output file          where init writes (default server.json)
  --force                replace an existing server.json
  -h, --help             this help
`,
  client: `Usage: typemcp client generate [entry | url] [-o file] [--protocol version] [caller options]

Starts the entry with --stdio (default dist/main.js when it exists, else src/main.ts), or
connects to a server's Streamable HTTP URL, lists its tools and writes a TypeScript module:
per tool its input type and, when it has an output schema, its output type, the Tools map of
them, and typed(client), through which client.tools.<name>(args) is typed in its arguments and
its structured result. The module imports nothing.

Options:
  -o, --output file      where to write it (default: stdout)
  --protocol version     speak this protocol version (2026-07-28, or a handshake-era one)
${CALLER_OPTIONS}  -h, --help             this help
`,
};

type Command = 'dev' | 'inspect' | 'call' | 'build' | 'ui' | 'registry' | 'client';
type Options = NonNullable<ParseArgsConfig['options']>;

const CALLER: Options = { principal: { type: 'string' }, scopes: { type: 'string' }, roles: { type: 'string' }, token: { type: 'string' }, header: { type: 'string', multiple: true } };
const OPTIONS: Record<Command, Options> = {
  dev: { stdio: { type: 'boolean' }, http: { type: 'boolean' }, port: { type: 'string' }, watch: { type: 'boolean', default: true }, inspect: { type: 'boolean' } },
  inspect: { json: { type: 'boolean' }, protocol: { type: 'string' }, ...CALLER },
  call: { args: { type: 'string' }, entry: { type: 'string' }, json: { type: 'boolean' }, protocol: { type: 'string' }, ...CALLER },
  build: { target: { type: 'string' }, precompile: { type: 'boolean', default: true }, metafile: { type: 'boolean' }, outfile: { type: 'string' }, minify: { type: 'boolean' }, sourcemap: { type: 'boolean' }, snapshot: { type: 'boolean' }, tsc: { type: 'boolean', default: true }, 'nodejs-compat': { type: 'boolean' } },
  ui: { outdir: { type: 'string' }, connect: { type: 'string', multiple: true }, minify: { type: 'boolean', default: true } },
  registry: { remote: { type: 'string', multiple: true }, package: { type: 'boolean', default: true }, server: { type: 'string' }, output: { type: 'string' }, force: { type: 'boolean' } },
  client: { output: { type: 'string', short: 'o' }, protocol: { type: 'string' }, ...CALLER },
};
const MAX_POSITIONALS: Record<Command, number> = { dev: 1, inspect: 1, call: 2, build: 1, ui: 1, registry: 2, client: 2 };

/**
 * Runs a command line (without `node` and the script): resolves to the exit code, 2 for usage
 * errors. Results go to `write` (stdout by default), status and errors to `out` (stderr).
 */
export async function run(argv: string[], out: Output = createOutput(), write: (text: string) => void = (t) => void process.stdout.write(t)): Promise<number> {
  const [command, ...rest] = argv;
  let name: Command | undefined;
  try {
    if (command === undefined) {
      out.info(USAGE.trimEnd());
      return 2;
    }
    if (command === '-h' || command === '--help') return print(write, USAGE);
    if (command === 'help') {
      if (rest.length === 0) return print(write, USAGE);
      return print(write, COMMAND_USAGE[commandNamed(rest[0])]);
    }
    if (command === '-v' || command === '--version') return print(write, `${version()}\n`);
    name = commandNamed(command);
    const { values, positionals } = parse(name, rest);
    if (values.help) return print(write, COMMAND_USAGE[name]);
    switch (name) {
      case 'dev': {
        if (values.stdio && values.http) throw new UsageError('choose one of --stdio and --http');
        const port = parsePort(values.port as string | undefined);
        if (port !== undefined && !values.http) throw new UsageError('--port applies to --http: typemcp dev --http --port N');
        if (values.inspect && values.http) throw new UsageError('--inspect connects the Inspector to a stdio server through typemcp dev; leave out --http');
        return await dev({ entry: positionals[0] ?? path.join('src', 'main.ts'), transport: values.http ? 'http' : 'stdio', port, watch: values.watch !== false, inspect: values.inspect === true }, out);
      }
      case 'inspect':
        return await inspect(positionals[0] ?? defaultEntry(process.cwd()), values.json === true, out, write, protocolOption(values.protocol), callerFrom(values));
      case 'call': {
        const [tool, positionalEntry] = positionals;
        if (!tool) throw new UsageError("the tool to call is missing: typemcp call <tool> [--args '{...}']");
        if (positionalEntry && values.entry) throw new UsageError('give the entry either as an argument or with --entry, not both');
        const args = parseToolArguments(values.args as string | undefined);
        return await call((values.entry as string | undefined) ?? positionalEntry ?? defaultEntry(process.cwd()), tool, args, values.json === true, out, write, protocolOption(values.protocol), callerFrom(values));
      }
      case 'ui':
        if (!positionals[0]) throw new UsageError('the UI page is missing: typemcp ui <page.html>');
        return await ui({ page: positionals[0], outdir: values.outdir as string | undefined, connect: values.connect as string[] | undefined, minify: values.minify !== false }, out);
      case 'registry': {
        const [action, target] = positionals;
        if (action === 'validate') {
          const initOnly = ['remote', 'server', 'output', 'force'].filter((option) => values[option] !== undefined);
          if (initOnly.length || values.package === false) throw new UsageError(`${initOnly.length ? `--${initOnly[0]}` : '--no-package'} is an option of typemcp registry init`);
          return registryValidate(target ?? 'server.json', out);
        }
        if (action !== 'init') throw new UsageError(action ? `unknown registry action "${action}": use init or validate` : 'init or validate? typemcp registry init | typemcp registry validate');
        return await registryInit(
          {
            entry: target ?? defaultEntry(process.cwd()),
            remotes: values.remote as string[] | undefined,
            npmPackage: values.package !== false,
            server: values.server as string | undefined,
            force: values.force === true,
            output: values.output as string | undefined,
          },
          out,
        );
      }
      case 'client': {
        const [action, entry] = positionals;
        if (action !== 'generate') throw new UsageError(action ? `unknown client action "${action}": use generate` : 'the action is missing: typemcp client generate [entry | url]');
        return await clientGenerate({ entry: entry ?? defaultEntry(process.cwd()), outfile: values.output as string | undefined, protocol: protocolOption(values.protocol), caller: callerFrom(values) }, out, write);
      }
      case 'build':
        return await build(
          {
            entry: positionals[0] ?? path.join('dist', 'main.js'),
            target: buildTarget(values.target as string | undefined),
            precompile: values.precompile !== false,
            metafile: values.metafile === true,
            outfile: values.outfile as string | undefined,
            minify: values.minify === true,
            sourcemap: values.sourcemap === true,
            snapshot: values.snapshot === true,
            tsc: values.tsc !== false,
            nodejsCompat: values['nodejs-compat'] === true,
          },
          out,
        );
    }
  } catch (error) {
    if (error instanceof UsageError) {
      out.error(error.message);
      out.info(out.dim(name ? `Run typemcp ${name} --help for its options.` : 'Run typemcp --help for the commands.'));
      return 2;
    }
    out.error(error instanceof Error ? error.message : String(error));
    return 1;
  }
}

function commandNamed(text: string): Command {
  if (Object.hasOwn(OPTIONS, text)) return text as Command;
  throw new UsageError(`unknown command "${text}"; the commands are ${Object.keys(OPTIONS).join(', ')}`);
}

function parse(command: Command, args: string[]) {
  const options: Options = { help: { type: 'boolean', short: 'h' }, ...OPTIONS[command] };
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, allowNegative: true });
  } catch (error) {
    throw new UsageError(describeParseError(error as Error & { code?: string }, command, options));
  }
  const max = MAX_POSITIONALS[command];
  if (parsed.positionals.length > max) throw new UsageError(`unexpected argument "${parsed.positionals[max]}"`);
  return parsed;
}

/** parseArgs' messages, in this command's words. */
function describeParseError(error: Error & { code?: string }, command: Command, options: Options): string {
  // "Option '-o, --output <value>' argument missing" names the long form after the short one.
  const option = /'(?:-\w, )?(-{1,2}[^' ,]+)/.exec(error.message)?.[1];
  const known = Object.entries(options)
    .filter(([name]) => name !== 'help')
    .map(([name, spec]) => (spec.type === 'string' ? `--${name} <value>` : spec.default === true ? `--no-${name}` : `--${name}`));
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${option ?? ''} for typemcp ${command}; its options are ${known.join(', ')}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return option && options[option.replace(/^-+/, '')]?.type === 'string' ? `${option} needs a value: ${option} <value>` : `${option ?? 'an option'} takes no value`;
    default:
      return error.message;
  }
}

/** `--protocol`: a protocol version the client speaks (a handshake-era one, or 2026-07-28). */
function protocolOption(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const text = String(value);
  if (!(SUPPORTED_VERSIONS as readonly string[]).includes(text)) throw new UsageError(`--protocol must be one of ${SUPPORTED_VERSIONS.join(', ')}, not "${text}"`);
  return text;
}

function parsePort(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new UsageError(`--port must be a number from 0 to 65535, not "${text}"`);
  return port;
}

function print(write: (text: string) => void, text: string): number {
  write(text);
  return 0;
}

function version(): string {
  return (JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
}

function buildTarget(value: string | undefined): BuildTarget | undefined {
  if (value === undefined || (BUILD_TARGETS as readonly string[]).includes(value)) return value as BuildTarget | undefined;
  throw new UsageError(`unknown --target ${JSON.stringify(value)}: use ${BUILD_TARGETS.join(', ')}`);
}
