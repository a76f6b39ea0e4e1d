'use strict';
/**
 * TypeMCP on Node, Bun and Deno: cold starts unbundled and bundled (`typemcp build --target`),
 * each against a floor in the same run, and 2026-07-28 tools/call throughput on Bun against
 * the official SDK v2 (`createMcpHandler` on Bun.serve) with the same tool.
 *
 *   npm run build && node bench/runtimes.js       (builds the bench server and its bundles first)
 *
 * A cold start is the time from spawning the process to the answer of its first request, a
 * 2026-07-28 `tools/call echo` over HTTP (so the tool's validator is in it: compiled at the
 * first call, or precompiled by typemcp build). The variants run in rounds, the order rotating;
 * figures are medians, ratios are against the Node floor (`bench/servers/floor.js`, a
 * hand-written server) and against the floor run by the same runtime.
 *
 * Environment: BENCH_COLD_ROUNDS (15), BENCH_BUN_CALLS (20000, after BENCH_BUN_WARMUP 3000),
 * BENCH_BUN_CLIENTS (32), BENCH_BUN_ROUNDS (5), BENCH_OUT (bench/results/runtimes.json; a .md
 * table beside it). The runtimes are those of test-support/runtimes (`npm test`'s pretest
 * installs them).
 */
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { load, post } = require('./lib/http');
const { echoBody, echoHeaders, isComplete } = require('./lib/modern');
const { median, format } = require('./lib/stats');

const root = path.resolve(__dirname, '..');
const bin = (name) => path.join(root, 'test-support', 'runtimes', 'node_modules', '.bin', name);
const dist = path.join(__dirname, 'dist');
const out = path.join(dist, 'rt');
const COLD_ROUNDS = Number(process.env.BENCH_COLD_ROUNDS ?? 15);
const BUN_CALLS = Number(process.env.BENCH_BUN_CALLS ?? 20000);
const BUN_WARMUP = Number(process.env.BENCH_BUN_WARMUP ?? 3000);
const BUN_CLIENTS = Number(process.env.BENCH_BUN_CLIENTS ?? 32);
const BUN_ROUNDS = Number(process.env.BENCH_BUN_ROUNDS ?? 5);
const OUT = process.env.BENCH_OUT ?? path.join(__dirname, 'results', 'runtimes.json');
const DENO = ['run', '--no-prompt', '-A'];

/** [name, runtime, command, args]: every variant answers `--http` with "LISTENING <port>". */
const COLD = [
  ['node floor', 'node', process.execPath, [path.join(__dirname, 'servers', 'floor.js')]],
  ['node typemcp', 'node', process.execPath, [path.join(dist, 'typemcp.js')]],
  ['node typemcp bundle', 'node', process.execPath, [path.join(out, 'node', 'server.js')]],
  ['node typemcp snapshot', 'node', process.execPath, ['--snapshot-blob', path.join(out, 'node', 'server.blob'), '--']],
  ['bun floor', 'bun', bin('bun'), [path.join(__dirname, 'servers', 'floor.js')]],
  ['bun typemcp', 'bun', bin('bun'), [path.join(dist, 'typemcp.js')]],
  ['bun typemcp bundle', 'bun', bin('bun'), [path.join(out, 'bun', 'server.mjs')]],
  ['deno floor', 'deno', bin('deno'), [...DENO, path.join(__dirname, 'servers', 'floor.js')]],
  ['deno typemcp', 'deno', bin('deno'), [...DENO, path.join(dist, 'typemcp.js')]],
  ['deno typemcp bundle', 'deno', bin('deno'), [...DENO, path.join(out, 'deno', 'server.mjs')]],
];

function environment() {
  const env = { ...process.env, DENO_DIR: path.join(out, '.deno'), DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' };
  for (const name of ['NODE_OPTIONS', 'NODE_EXTRA_CA_CERTS', 'BENCH_TOOLS', 'BENCH_MIDDLEWARE', 'BENCH_2026']) delete env[name];
  return env;
}

function build() {
  const cli = path.join(root, 'packages', 'cli', 'dist', 'bin.js');
  const steps = [
    [process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(__dirname, 'tsconfig.json')]],
    [process.execPath, [cli, 'build', path.join(dist, 'typemcp.js'), '--no-tsc', '--target', 'node', '--snapshot', '--outfile', path.join(out, 'node', 'server.js')]],
    [process.execPath, [cli, 'build', path.join(dist, 'typemcp.js'), '--no-tsc', '--target', 'bun', '--outfile', path.join(out, 'bun', 'server.mjs')]],
    [process.execPath, [cli, 'build', path.join(dist, 'typemcp.js'), '--no-tsc', '--target', 'deno', '--outfile', path.join(out, 'deno', 'server.mjs')]],
  ];
  for (const [command, args] of steps) {
    const ran = spawnSync(command, args, { cwd: root, encoding: 'utf8', env: environment() });
    if (ran.status !== 0) throw new Error(`${path.basename(args[1] ?? command)} failed:\n${ran.stdout}${ran.stderr}`);
  }
}

/** Spawns a variant; resolves with its port once it prints it, and the time that took. */
function start(command, args, extra = ['--http']) {
  const spawnedAt = performance.now();
  const child = spawn(command, [...args, ...extra], { env: environment(), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const port = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command} ${args.join(' ')}: no LISTENING line in 30 s: ${output}`)), 30_000);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text) => {
      output += text;
      const match = /LISTENING (\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.stderr.on('data', (text) => (output += text));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} ${args.join(' ')} exited (${code}): ${output}`));
    });
  });
  return { child, spawnedAt, port };
}

function stop(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 3000).unref();
  });
}

async function coldStart([name, , command, args]) {
  const server = start(command, args);
  try {
    const port = await server.port;
    // A fresh connection (no agent), as a first client makes.
    const { status, text } = await post(false, port, echoBody(1), echoHeaders);
    const ms = performance.now() - server.spawnedAt;
    if (status !== 200 || !isComplete(text)) throw new Error(`${name}: first answer ${status} ${text.slice(0, 300)}`);
    return ms;
  } finally {
    server.child.stdout.destroy();
    server.child.stderr.destroy();
    await stop(server.child);
  }
}

/** 2026-07-28 tools/call req/s on one server: warm-up, then the measured calls. */
async function throughput(command, args, extra) {
  const server = start(command, args, extra);
  try {
    const port = await server.port;
    const run = (count) => load({ port, clients: BUN_CLIENTS, count, bodyFor: echoBody, headers: echoHeaders, check: isComplete, timeoutMs: 120_000 });
    await run(BUN_WARMUP);
    const { ms, bad, badSample } = await run(BUN_CALLS);
    if (bad > 0) throw new Error(`${bad} bad answers, e.g. ${badSample}`);
    return (BUN_CALLS / ms) * 1000;
  } finally {
    await stop(server.child);
  }
}

async function main() {
  if (!fs.existsSync(bin('bun')) || !fs.existsSync(bin('deno'))) throw new Error('bun and deno are missing: node scripts/test-services.js --install');
  process.stderr.write('building the bench server and its bundles (tsc, typemcp build --target node --snapshot, bun, deno)\n');
  build();
  const cold = new Map(COLD.map(([name]) => [name, []]));
  for (let round = 0; round < COLD_ROUNDS; round++) {
    const order = COLD.map((_, i) => COLD[(i + round) % COLD.length]);
    for (const variant of order) cold.get(variant[0]).push(await coldStart(variant));
    process.stderr.write(`cold starts: round ${round + 1}/${COLD_ROUNDS}\n`);
  }
  const bun = { typemcp: [], sdk: [] };
  for (let round = 0; round < BUN_ROUNDS; round++) {
    const pair = [
      ['typemcp', () => throughput(bin('bun'), [path.join(dist, 'typemcp.js')], ['--bun-serve'])],
      ['sdk', () => throughput(bin('bun'), [path.join(__dirname, 'servers', 'sdk-v2-fetch.mjs')], [])],
    ];
    if (round % 2 === 1) pair.reverse();
    for (const [side, measure] of pair) bun[side].push(await measure());
    process.stderr.write(`Bun tools/call: round ${round + 1}/${BUN_ROUNDS}\n`);
  }
  report(cold, bun);
}

function report(cold, bun) {
  const medians = Object.fromEntries([...cold].map(([name, values]) => [name, median(values)]));
  const nodeFloor = medians['node floor'];
  const rows = COLD.map(([name, runtime]) => {
    const own = medians[`${runtime} floor`];
    return { name, median: medians[name], min: Math.min(...cold.get(name)), max: Math.max(...cold.get(name)), vsNodeFloor: medians[name] / nodeFloor, vsOwnFloor: medians[name] / own };
  });
  const typemcp = median(bun.typemcp);
  const sdk = median(bun.sdk);
  const lines = [
    `Cold start to the first answer (2026-07-28 tools/call over HTTP), ${COLD_ROUNDS} rounds, medians (ms):`,
    '',
    '| variant | median | min | max | × Node floor | × its runtime\'s floor |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows.map((r) => `| ${r.name} | ${format(r.median)} | ${format(r.min)} | ${format(r.max)} | ${r.vsNodeFloor.toFixed(2)} | ${r.vsOwnFloor.toFixed(2)} |`),
    '',
    `2026-07-28 tools/call on Bun.serve, ${BUN_CLIENTS} clients, ${BUN_CALLS} calls per round, ${BUN_ROUNDS} rounds, median req/s:`,
    '',
    '| server | req/s (median) | rounds |',
    '| --- | --- | --- |',
    `| TypeMCP fetchHandler | ${Math.round(typemcp)} | ${bun.typemcp.map(Math.round).join(', ')} |`,
    `| SDK v2 createMcpHandler | ${Math.round(sdk)} | ${bun.sdk.map(Math.round).join(', ')} |`,
    `| TypeMCP ÷ SDK v2 | ${(typemcp / sdk).toFixed(2)} | |`,
  ];
  const text = `${lines.join('\n')}\n`;
  process.stdout.write(text);
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  fs.writeFileSync(OUT, JSON.stringify({ date: new Date().toISOString(), cold: rows, bun: { clients: BUN_CLIENTS, calls: BUN_CALLS, typemcp: bun.typemcp, sdk: bun.sdk } }, null, 2));
  fs.writeFileSync(OUT.replace(/\.json$/, '.md'), text);
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
