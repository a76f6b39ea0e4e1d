'use strict';
/**
 * Start-up of a server made by @typemcp/openapi from GitHub's REST API document
 * (@octokit/openapi, 13 MB of OpenAPI 3.0, ~1,200 operations): each run is a fresh process
 * that loads the built packages, calls fromOpenApi and serves over stdio. Measured per run:
 *
 *   - fromOpenApi: the call itself, read and parse of the document included (in the process);
 *   - ready: process start to fromOpenApi resolved, module loading included (in the process);
 *   - first list: spawn to the answer of the first `tools/list` (initialize before it);
 *   - heap: V8 heap used after a full GC, once serving; RSS (from /proc) after the first list.
 *
 * Variants: every operation a tool, and `maxTools` (BENCH_OPENAPI_MAX_TOOLS, default 100). The
 * two alternate, the order swapping each round; figures are medians over rounds.
 *
 *   npm run build && node bench/openapi.js
 *
 *   BENCH_OPENAPI_ROUNDS (7)  BENCH_OPENAPI_MAX_TOOLS (100)
 */
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { median, format } = require('./lib/stats');
const { rssKiB, machine } = require('./lib/proc');
const { startServer, stopServer, stopAll } = require('./lib/server');
const { StdioClient } = require('./lib/stdio');

const DOCUMENT = path.join(__dirname, '..', 'node_modules', '@octokit', 'openapi', 'generated', 'api.github.com.json');
const PACKAGE = path.join(__dirname, '..', 'packages', 'openapi', 'dist', 'index.js');

const number = (name, fallback) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer`);
  return value;
};

/** The server of one run: prints `READY <json>` on stderr once it serves. */
async function serve() {
  const started = performance.now(); // ms since the process started: module loading is in `ready`
  const { fromOpenApi } = require(PACKAGE);
  const maxTools = Number(process.env.BENCH_OPENAPI_MAX_TOOLS) || undefined;
  const before = performance.now();
  const server = await fromOpenApi({ spec: DOCUMENT, maxTools, onWarning: () => {} });
  const fromOpenApiMs = performance.now() - before;
  await server.listen({ transport: 'stdio', handleSignals: false });
  const readyMs = performance.now();
  global.gc?.();
  const heapMiB = process.memoryUsage().heapUsed / 2 ** 20;
  process.stderr.write(`READY ${JSON.stringify({ fromOpenApiMs, readyMs, loadMs: before - started, heapMiB })}\n`);
}

/** One fresh process: the figures of its start. */
async function run(maxTools) {
  const server = startServer(
    { key: 'openapi', script: __filename, args: [__filename, '--serve'] },
    { env: maxTools ? { BENCH_OPENAPI_MAX_TOOLS: String(maxTools) } : {}, nodeArgs: ['--expose-gc'] },
  );
  try {
    const client = new StdioClient(server);
    await client.initialize();
    const listed = await client.request('tools/list', {});
    const firstListMs = performance.now() - server.spawnedAt;
    const tools = JSON.parse(listed.line).result?.tools;
    if (!Array.isArray(tools)) throw new Error(`tools/list failed: ${listed.line.slice(0, 300)}`);
    const rssMiB = rssKiB(server.pid) / 1024;
    const ready = /READY (\{.*\})/.exec(server.stderr);
    if (!ready) throw new Error(`no READY line; stderr: ${server.stderr}`);
    return { ...JSON.parse(ready[1]), firstListMs, rssMiB };
  } finally {
    await stopServer(server);
  }
}

async function main() {
  if (!require('node:fs').existsSync(PACKAGE)) throw new Error(`${PACKAGE} is missing: run npm run build first`);
  const rounds = number('BENCH_OPENAPI_ROUNDS', 7);
  const maxTools = number('BENCH_OPENAPI_MAX_TOOLS', 100);
  const variants = { all: 0, [`maxTools ${maxTools}`]: maxTools };
  const results = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? Object.keys(variants) : Object.keys(variants).reverse();
    for (const name of order) {
      const figures = await run(variants[name]);
      results[name].push(figures);
      process.stdout.write(`round ${r + 1}/${rounds} ${name}: fromOpenApi ${format(figures.fromOpenApiMs)} ms, ready ${format(figures.readyMs)} ms, first list ${format(figures.firstListMs)} ms, heap ${format(figures.heapMiB)} MiB, RSS ${format(figures.rssMiB)} MiB\n`);
    }
  }
  const summary = {};
  for (const [name, runs] of Object.entries(results)) {
    summary[name] = Object.fromEntries(['fromOpenApiMs', 'loadMs', 'readyMs', 'firstListMs', 'heapMiB', 'rssMiB'].map((key) => [key, Number(median(runs.map((f) => f[key])).toFixed(1))]));
  }
  process.stdout.write(`\nmedians of ${rounds} runs each (${machine().cpuModel}, ${process.version}):\n`);
  process.stdout.write('| variant | fromOpenApi | ready (from process start) | first tools/list (from spawn) | heap after GC | RSS |\n| --- | --- | --- | --- | --- | --- |\n');
  for (const [name, m] of Object.entries(summary)) {
    process.stdout.write(`| ${name} | ${m.fromOpenApiMs} ms | ${m.readyMs} ms | ${m.firstListMs} ms | ${m.heapMiB} MiB | ${m.rssMiB} MiB |\n`);
  }
  process.stdout.write(`${JSON.stringify(summary)}\n`);
}

if (process.argv.includes('--serve')) {
  serve().catch((error) => {
    process.stderr.write(`${error.stack ?? error}\n`);
    process.exit(1);
  });
} else {
  main()
    .catch((error) => {
      process.stderr.write(`${error.stack ?? error}\n`);
      process.exitCode = 1;
    })
    .finally(() => stopAll());
}
