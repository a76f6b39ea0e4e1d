import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ask, shouldAsk } from './ask';
import type { Answers } from './ask';
import { nextSteps, scaffold, ScaffoldError } from './scaffold';
import type { PackageManager, RuntimeChoice, TransportChoice } from './scaffold';

const USAGE = `Usage: npm create typemcp <directory> [-- options]
       npx create-typemcp <directory> [options]

Creates a TypeMCP server project from the default template. At a terminal, with no option
given, it asks what to make (runtime, sign-in, transport, example tools, installing); any
option, or no terminal, makes it ask nothing and take the options' defaults.

Options:
  --runtime <node|bun|deno|workers>
                             where the server runs (default: node): Bun.serve, Deno.serve, or a
                             Cloudflare Worker, each with its run and test commands in README.md
  --transport <stdio|http>   transport the server uses by default (default: stdio)
  --sign-in                  serve over HTTP behind its own OAuth sign-in (signIn of
                             @typemcp/auth) with a development login; README.md says what to
                             change for production (Node only)
  --no-examples              start from a minimal server (one hello tool, its test and README)
                             instead of the notes example (tools, resources, a prompt, completions)
  --pm <npm|pnpm|yarn|bun>   package manager for the next steps (default: the one running this)
  --name <package-name>      package name (default: the directory's name)
  --mcp-name <namespace/name>
                             the server's name in the MCP Registry (package.json's mcpName):
                             io.github.<your GitHub user>/<server> or a reverse domain you own;
                             default: a placeholder typemcp registry init asks you to replace
  --registry <url>           the registry the @typemcp packages come from (a local one of
                             npm run release:local): written to the project's .npmrc as
                             @typemcp:registry; default: the one npm create ran with, when it
                             is on this machine (127.0.0.1, localhost)
  --install                  install the dependencies right away
  -y, --yes                  ask nothing: the defaults of the options not given
  -h, --help                 show this help
`;

const TRANSPORTS: readonly TransportChoice[] = ['stdio', 'http'];
const RUNTIMES: readonly RuntimeChoice[] = ['node', 'bun', 'deno', 'workers'];
const PACKAGE_MANAGERS: readonly PackageManager[] = ['npm', 'pnpm', 'yarn', 'bun'];

/** Runs the command; resolves to the process exit code (2 for usage errors). */
export async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        transport: { type: 'string' },
        runtime: { type: 'string' },
        'sign-in': { type: 'boolean', default: false },
        'no-examples': { type: 'boolean', default: false },
        pm: { type: 'string' },
        name: { type: 'string' },
        'mcp-name': { type: 'string' },
        registry: { type: 'string' },
        install: { type: 'boolean', default: false },
        yes: { type: 'boolean', short: 'y', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    return usageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  let asked: Answers | undefined;
  if (positionals.length <= 1 && shouldAsk(argv, process.stdin, process.stdout)) {
    asked = await ask(positionals[0]);
    if (!asked) return 130;
  }
  if (!asked && positionals.length !== 1) return usageError(positionals.length ? `expected one directory, got ${positionals.join(' ')}` : 'the directory to create is missing');
  const directory = asked?.directory ?? positionals[0];
  const install = asked?.install ?? values.install;
  const signIn = asked?.signIn ?? values['sign-in'];
  const examples = asked?.examples ?? !values['no-examples'];
  const runtime = asked?.runtime ?? values.runtime ?? 'node';
  if (!isOneOf(runtime, RUNTIMES)) return usageError(`--runtime must be one of ${RUNTIMES.join(', ')}, not "${runtime}"`);
  const transport = asked?.transport ?? values.transport ?? (signIn || runtime === 'workers' ? 'http' : 'stdio');
  if (!isOneOf(transport, TRANSPORTS)) return usageError(`--transport must be stdio or http, not "${transport}"`);
  const registry = values.registry ?? localRegistry(process.env.npm_config_registry);
  const packageManager = values.pm ?? packageManagerFromUserAgent(process.env.npm_config_user_agent);
  if (!isOneOf(packageManager, PACKAGE_MANAGERS)) return usageError(`--pm must be one of ${PACKAGE_MANAGERS.join(', ')}, not "${packageManager}"`);

  let result;
  try {
    result = scaffold({ directory, name: values.name, mcpName: values['mcp-name'], transport, runtime, signIn, examples, registry });
  } catch (error) {
    if (error instanceof ScaffoldError) return usageError(error.message);
    throw error;
  }
  const serves = signIn ? 'http with sign-in' : runtime === 'workers' ? 'Streamable HTTP on workerd' : `${transport} by default`;
  process.stdout.write(`Created ${result.name} in ${result.directory} (${result.files.length} files, ${runtime === 'node' ? '' : `for ${runtime}, `}${serves}${examples ? '' : ', one hello tool'}).\n`);

  if (install) {
    process.stdout.write(`Running ${packageManager} install…\n`);
    const install = spawnSync(packageManager, ['install'], { cwd: result.directory, stdio: 'inherit', shell: process.platform === 'win32' });
    if (install.status !== 0) {
      process.stderr.write(`create-typemcp: ${packageManager} install failed; run it yourself in ${result.directory}.\n`);
      return 1;
    }
  }
  const steps = runtime === 'node' ? nextSteps(result, packageManager, install) : [`see README.md: how to run and test it on ${runtime}`];
  process.stdout.write(`\nNext steps:\n${steps.map((line) => `  ${line}`).join('\n')}\n`);
  if (result.files.includes('.npmrc')) {
    process.stdout.write(`\nThe @typemcp packages come from ${registryOf(result.directory)}: the project's .npmrc says so, for npm install and npm install @typemcp/<package> alike.\n`);
  }
  process.stdout.write(
    signIn
      ? `\nSee README.md in the project for signing in (a development login) and what to change before production.\n`
      : runtime === 'workers'
        ? `\nSee README.md in the project for serving the Worker locally (wrangler, on Node 22 from the npm package node@22) and deploying it.\n`
        : `\nSee README.md in the project for connecting a client over stdio or HTTP.\n`,
  );
  return 0;
}

/**
 * The registry `npm create typemcp … --registry <url>` ran with (npm hands it on as
 * npm_config_registry), when it is on this machine: a local registry of the packages, which
 * the project must keep asking for them.
 */
function localRegistry(registry: string | undefined): string | undefined {
  if (!registry) return undefined;
  try {
    return ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(registry).hostname) ? registry : undefined;
  } catch {
    return undefined;
  }
}

function registryOf(directory: string): string {
  return /^@typemcp:registry=(.*)$/m.exec(fs.readFileSync(path.join(directory, '.npmrc'), 'utf8'))?.[1] ?? '';
}

/** npm, pnpm, yarn and bun set npm_config_user_agent to "<name>/<version> …" when they run a create package. */
function packageManagerFromUserAgent(userAgent: string | undefined): string {
  const name = userAgent?.split('/')[0];
  return name && isOneOf(name, PACKAGE_MANAGERS) ? name : 'npm';
}

function isOneOf<T extends string>(value: string, choices: readonly T[]): value is T {
  return (choices as readonly string[]).includes(value);
}

function usageError(message: string): number {
  process.stderr.write(`create-typemcp: ${message}\n\n${USAGE}`);
  return 2;
}
