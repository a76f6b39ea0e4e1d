#!/usr/bin/env node
// What the tests need beside Node: redis-server (the @typemcp/redis and cluster suites),
// Chromium (the MCP Apps browser tests, sign-in in a browser) and openssl (test CAs of the sign-in
// tests), Debian packages; and the runtimes the runtime
// tests serve bundles on (Bun, Deno, workerd through wrangler, and the Node 22 wrangler needs),
// npm packages pinned in test-support/runtimes (installed there with npm ci, binaries inside).
//
//   node scripts/test-services.js --install   (npm's pretest, and .ci/run)
//       installs what is missing with apt-get when this is root on Debian, saying so in one line;
//       otherwise says which suites will be skipped and how to install what they need;
//       with CI=true a missing service is a failure (exit 1), never a skip.
//   require('./scripts/test-services').suitesToSkip()   (jest.config.js)
//       the test paths to leave out because what they need is missing (none under CI=true).
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const SERVICES = [
  {
    name: 'redis-server',
    package: 'redis-server',
    present: () => onPath('redis-server') || isExecutable('/usr/bin/redis-server'),
    suites: ['packages/redis/test/', 'examples/04-cluster/test/', 'packages/guards/test/probe.cache.test.ts', 'packages/guards/test/probe.limits.test.ts'],
    needs: 'the @typemcp/redis, cluster and guards-on-Redis suites',
  },
  {
    name: 'chromium',
    package: 'chromium',
    present: () => isExecutable(process.env.CHROMIUM || '/usr/bin/chromium'),
    suites: ['examples/06-apps/test/browser.test.ts', 'packages/core/test/docs/site.browser.test.ts', 'examples/09-signin/test/', 'packages/redis/test/signin.replicas.test.ts', 'packages/auth/test/signin/upstream/oidc.browser.test.ts', 'packages/cli/test/devInspect.browser.test.ts'],
    needs: 'the MCP Apps browser tests, the sign-in tests, which a user drives in the browser, and typemcp dev --inspect in the Inspector web UI',
  },
  {
    name: 'openssl',
    package: 'openssl',
    present: () => onPath('openssl') || isExecutable('/usr/bin/openssl'),
    suites: ['packages/auth/test/signin/', 'examples/09-signin/test/'],
    needs: 'the sign-in tests, which serve client metadata documents over HTTPS under a test CA',
  },
];

/** The npm-installed runtimes: present when their binaries are. */
const RUNTIMES_DIR = path.join(__dirname, '..', 'test-support', 'runtimes');
const RUNTIMES = {
  name: 'bun, deno, wrangler and node 22',
  // The upstream sign-in test runs oidc-provider, which wants Node 22, on this one.
  suites: ['examples/07-runtimes/test/', 'examples/09-signin/test/runtimes.test.ts', 'packages/create-typemcp/test/runtimes.e2e.test.ts', 'packages/auth/test/signin/upstream/oidc.browser.test.ts', 'packages/cli/test/devInspect.browser.test.ts'],
  present: () => ['bun', 'deno', 'wrangler', 'node'].every((bin) => isExecutable(path.join(RUNTIMES_DIR, 'node_modules', '.bin', bin))),
};

function isExecutable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(command) {
  return (process.env.PATH || '').split(path.delimiter).some((dir) => dir && isExecutable(path.join(dir, command)));
}

/**
 * What to do about the missing services: install them (root with apt-get), fail (CI), or skip
 * their suites. Pure, for the tests: `missing` are service names.
 */
function plan({ missing, isRoot, hasAptGet, ci }) {
  if (missing.length === 0) return { install: [], skip: [], fail: undefined };
  const services = SERVICES.filter((s) => missing.includes(s.name));
  if (isRoot && hasAptGet) return { install: services.map((s) => s.package), skip: [], fail: undefined };
  const command = `apt-get install ${services.map((s) => s.package).join(' ')}`;
  if (ci) return { install: [], skip: [], fail: `CI=true and ${services.map((s) => s.name).join(', ')} missing: ${services.map((s) => s.needs).join(' and ')} cannot run. Install: ${command}` };
  return { install: [], skip: services.flatMap((s) => s.suites), fail: undefined, command, services: services.map((s) => s.name) };
}

function missingServices() {
  return SERVICES.filter((s) => !s.present()).map((s) => s.name);
}

function isCi() {
  return process.env.CI === 'true' || process.env.CI === '1';
}

/** For jest.config.js: the paths of suites whose service is missing (never under CI). */
function suitesToSkip() {
  const missing = missingServices();
  const runtimes = RUNTIMES.present() || isCi() ? [] : RUNTIMES.suites;
  if (runtimes.length > 0) {
    process.stderr.write(`\n*** SKIPPING the tests that need ${RUNTIMES.name} (${runtimes.join(', ')}): not installed. Install: npm run pretest ***\n\n`);
  }
  if (missing.length === 0 || isCi()) return runtimes;
  const { skip, command, services } = plan({ missing, isRoot: false, hasAptGet: false, ci: false });
  process.stderr.write(`\n*** SKIPPING the tests that need ${services.join(' and ')} (${skip.join(', ')}): not installed. Install: sudo ${command} ***\n\n`);
  return [...skip, ...runtimes];
}

/** npm ci of test-support/runtimes when a runtime is missing; false when that failed. */
function installRuntimes() {
  if (RUNTIMES.present()) return true;
  process.stderr.write(`test-services: installing ${RUNTIMES.name} for the runtime tests (npm ci in test-support/runtimes)\n`);
  try {
    execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: RUNTIMES_DIR, stdio: ['ignore', 'ignore', 'inherit'] });
  } catch (error) {
    process.stderr.write(`test-services: npm ci in test-support/runtimes failed: ${error.message}\n`);
  }
  return RUNTIMES.present();
}

function main() {
  if (!installRuntimes() && isCi()) {
    process.stderr.write(`test-services: CI=true and ${RUNTIMES.name} missing: the runtime tests cannot run\n`);
    process.exit(1);
  }
  const missing = missingServices();
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const todo = plan({ missing, isRoot, hasAptGet: onPath('apt-get'), ci: isCi() });
  if (todo.install.length > 0) {
    process.stderr.write(`test-services: installing the Debian packages ${todo.install.join(' ')} for the tests (apt-get, as root)\n`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update', '-qq'], { stdio: ['ignore', 'ignore', 'inherit'], env });
    execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...todo.install], { stdio: ['ignore', 'ignore', 'inherit'], env });
    const still = missingServices();
    if (still.length > 0) {
      process.stderr.write(`test-services: ${still.join(', ')} still missing after apt-get\n`);
      process.exit(1);
    }
    return;
  }
  if (todo.fail) {
    process.stderr.write(`test-services: ${todo.fail}\n`);
    process.exit(1);
  }
  // Skips are announced by jest.config.js, where they happen.
}

module.exports = { plan, suitesToSkip, missingServices, SERVICES, RUNTIMES };

if (require.main === module) main();
