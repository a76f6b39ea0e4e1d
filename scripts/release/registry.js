/**
 * The local registry of `npm run release:local` (scripts/release/local.sh): its options, and
 * verdaccio's configuration. Without --check it listens on a stable port (4873, verdaccio's
 * own default) and keeps its storage in .conformance/registry/, so a project made from it
 * still installs after Ctrl+C and a later start; --check uses a throwaway storage on a free
 * port, as before.
 *
 *   node scripts/release/registry.js options [args…]    the options as shell assignments
 *   node scripts/release/registry.js config <dir> <port> <upstream>   verdaccio's config.yaml
 */
'use strict';

const path = require('node:path');

const DEFAULT_PORT = 4873;
const ROOT = path.resolve(__dirname, '..', '..');
const DEFAULT_STORAGE = path.join(ROOT, '.conformance', 'registry');

const USAGE = `Usage: npm run release:local [-- options]

Publishes every package into a local npm registry (verdaccio) and keeps it running until Ctrl+C.

Options:
  --port N          the port on 127.0.0.1 (default 4873, or RELEASE_PORT)
  --storage dir     where the registry keeps its packages between runs
                    (default .conformance/registry, or RELEASE_STORAGE)
  --no-publish      serve what the storage holds from an earlier run: no build, no publish
  --clean           remove the storage, then exit
  --check           publish into a throwaway registry, check the release path as a user would, stop
  -h, --help        this help
`;

class UsageError extends Error {}

/**
 * What local.sh is asked to do. `mode`: serve, check, clean or help; `port` 0 means a free one;
 * `storage` is undefined for --check (a temporary folder).
 */
function parseOptions(argv, env = process.env) {
  const options = { mode: 'serve', port: undefined, storage: undefined, publish: true };
  const value = (i, name) => {
    if (i + 1 >= argv.length || argv[i + 1].startsWith('--')) throw new UsageError(`${name} needs a value`);
    return argv[i + 1];
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--check' || arg === '--clean') {
      if (options.mode !== 'serve') throw new UsageError(`choose one of --check and --clean`);
      options.mode = arg.slice(2);
    } else if (arg === '-h' || arg === '--help') return { mode: 'help' };
    else if (arg === '--no-publish') options.publish = false;
    else if (arg === '--port') options.port = port(value(i++, '--port'), '--port');
    else if (arg === '--storage') options.storage = path.resolve(value(i++, '--storage'));
    else throw new UsageError(`unknown option ${arg}`);
  }
  if (options.mode === 'check') {
    if (options.storage !== undefined || !options.publish) throw new UsageError('--check publishes into a throwaway registry: leave out --storage and --no-publish');
    return { ...options, port: options.port ?? 0 };
  }
  return {
    ...options,
    port: options.port ?? (env.RELEASE_PORT ? port(env.RELEASE_PORT, 'RELEASE_PORT') : DEFAULT_PORT),
    storage: options.storage ?? (env.RELEASE_STORAGE ? path.resolve(env.RELEASE_STORAGE) : DEFAULT_STORAGE),
  };
}

function port(text, what) {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > 65535) throw new UsageError(`${what} must be a port number (1-65535), not "${text}"`);
  return n;
}

/** verdaccio's config.yaml: packages and users under `dir`, third-party packages from `upstream`. */
function verdaccioConfig(dir, listenPort, upstream) {
  return `storage: ${dir}/storage
auth:
  htpasswd:
    file: ${dir}/htpasswd
    max_users: 10
uplinks:
  upstream:
    url: ${upstream}
    timeout: 60s
packages:
  '@typemcp/*':
    access: $all
    publish: $authenticated
  'create-typemcp':
    access: $all
    publish: $authenticated
  '**':
    access: $all
    proxy: upstream
listen: 127.0.0.1:${listenPort}
log: { type: stdout, format: pretty, level: warn }
`;
}

const quote = (text) => `'${String(text).replace(/'/g, `'\\''`)}'`;

if (require.main === module) {
  const [command, ...args] = process.argv.slice(2);
  if (command === 'options') {
    try {
      const options = parseOptions(args);
      if (options.mode === 'help') process.stdout.write(`MODE=help\nUSAGE=${quote(USAGE)}\n`);
      else process.stdout.write(`MODE=${options.mode}\nPORT=${options.port}\nSTORAGE=${quote(options.storage ?? '')}\nPUBLISH=${options.publish ? 1 : ''}\n`);
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      process.stderr.write(`release-local: ${error.message}\n\n${USAGE}`);
      process.exitCode = 2;
    }
  } else if (command === 'config') {
    process.stdout.write(verdaccioConfig(args[0], args[1], args[2]));
  } else {
    process.stderr.write('usage: registry.js options [args…] | config <dir> <port> <upstream>\n');
    process.exitCode = 2;
  }
}

module.exports = { parseOptions, verdaccioConfig, DEFAULT_PORT, DEFAULT_STORAGE, UsageError };
