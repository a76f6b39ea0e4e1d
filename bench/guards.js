'use strict';
/**
 * What each guard of @typemcp/guards costs a call it lets through: server CPU per `tools/call`
 * of one `echo` tool over stdio (bench/servers/guards.ts), plain and behind each guard in memory
 * (rate limit, result cache on a miss, result size limit, timeout, concurrency limit, audit
 * log), each in its own process. Every call has new arguments (`hello <id>`), so the cache misses
 * every time; `cache-hit` (the same arguments) is shown for reference and not checked. Every
 * variant runs in every round, a fresh process each, their order rotating; CPU is read from
 * /proc around the measured calls only. Each figure is the median over rounds; a guard's ratio
 * is the median of its per-round ratios to the plain server of the same round.
 *
 * A check, not just a number: exits 1 when a guard's median ratio is above GUARDS_MAX_RATIO
 * (1.10: each guard adds at most 10%).
 *
 *   npm run bench:guards           builds, then runs this
 *   node bench/guards.js           on what is built (bench/dist, packages/*\/dist)
 *   BENCH_QUICK=1 node bench/guards.js    a smoke run
 *
 * Environment (defaults in parentheses; BENCH_QUICK lowers the defaults, not explicit values):
 *   BENCH_ROUNDS (7)          rounds
 *   BENCH_CALLS (40000)       measured calls per variant per round, BENCH_INFLIGHT (64) in flight
 *   BENCH_WARMUP (10000)      unmeasured calls before them
 *   GUARDS_MAX_RATIO (1.10)   the largest median ratio that passes
 *   BENCH_OUT                 results file (bench/results/guards.json)
 */
const fs = require('node:fs');
const path = require('node:path');
const { median, format } = require('./lib/stats');
const { cpuMs, machine } = require('./lib/proc');
const { startServer, stopServer, stopAll } = require('./lib/server');
const { StdioClient, isSuccess } = require('./lib/stdio');
const { number } = require('./lib/ratioBench');

const QUICK = process.env.BENCH_QUICK === '1';
const ROUNDS = number('BENCH_ROUNDS', QUICK ? 2 : 7);
const CALLS = number('BENCH_CALLS', QUICK ? 5000 : 40_000);
const WARMUP = number('BENCH_WARMUP', QUICK ? 2000 : 10_000);
const IN_FLIGHT = number('BENCH_INFLIGHT', 64);
const MAX_RATIO = number('GUARDS_MAX_RATIO', 1.1, { integer: false });
const OUT = path.resolve(process.env.BENCH_OUT || path.join(__dirname, 'results', 'guards.json'));
const SCRIPT = path.join(__dirname, 'dist', 'guards.js');
const TIMEOUT_MS = 300_000;

const GUARDS = ['rate-limit', 'cache', 'result-size', 'timeout', 'concurrency', 'audit'];
const REFERENCE = ['middleware', 'interceptor', 'cache-hit', 'audit-json'];
const VARIANTS = ['none', ...GUARDS, ...REFERENCE];

const log = (text) => process.stderr.write(`${text}\n`);

/** `tools/call echo` with text that differs per call (a cache miss), or the same text every time. */
const lineOf = (fresh) => (id) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello${fresh ? ` ${id}` : ''}"}}}`;

async function measure(variant) {
  const server = startServer({ key: variant, script: SCRIPT, args: [SCRIPT, variant] });
  try {
    const client = new StdioClient(server);
    await client.initialize();
    const lineFor = lineOf(variant !== 'cache-hit');
    const run = (count) => client.run({ count, inFlight: IN_FLIGHT, lineFor, check: isSuccess, timeoutMs: TIMEOUT_MS });
    const warm = await run(WARMUP);
    if (warm.bad > 0) throw new Error(`${variant}: ${warm.bad} unexpected answers in the warm-up, e.g. ${warm.badSample}`);
    const cpu0 = cpuMs(server.pid);
    const measured = await run(CALLS);
    const cpu = cpuMs(server.pid) - cpu0;
    if (measured.bad > 0) throw new Error(`${variant}: ${measured.bad} unexpected answers, e.g. ${measured.badSample}`);
    return { cpuPerCallUs: (cpu * 1000) / CALLS, callsPerSec: CALLS / (measured.ms / 1000) };
  } finally {
    await stopServer(server);
  }
}

async function main() {
  if (!fs.existsSync(SCRIPT)) throw new Error(`${SCRIPT} is missing: run npm run bench:guards (or tsc -p bench/tsconfig.json after npm run build)`);
  log(`guards bench: ${ROUNDS} rounds of ${CALLS} calls (${WARMUP} warm-up, ${IN_FLIGHT} in flight) per variant, over stdio`);
  const rounds = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = VARIANTS.map((_, i) => VARIANTS[(i + round) % VARIANTS.length]);
    const figures = {};
    for (const variant of order) figures[variant] = await measure(variant);
    rounds.push(figures);
    log(`round ${round + 1}: ${VARIANTS.map((v) => `${v} ${format(figures[v].cpuPerCallUs)} µs`).join(', ')}`);
  }
  const results = {};
  for (const variant of VARIANTS) {
    results[variant] = {
      cpuPerCallUs: median(rounds.map((r) => r[variant].cpuPerCallUs)),
      callsPerSec: median(rounds.map((r) => r[variant].callsPerSec)),
      ratio: median(rounds.map((r) => r[variant].cpuPerCallUs / r.none.cpuPerCallUs)),
    };
  }
  log('\n| variant | CPU per call (µs) | calls/s | ratio to none |\n| --- | --- | --- | --- |');
  for (const variant of VARIANTS) log(`| ${variant} | ${format(results[variant].cpuPerCallUs)} | ${Math.round(results[variant].callsPerSec)} | ×${results[variant].ratio.toFixed(3)} |`);
  const over = GUARDS.filter((guard) => results[guard].ratio > MAX_RATIO);
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  fs.writeFileSync(OUT, JSON.stringify({ machine: machine(), settings: { ROUNDS, CALLS, WARMUP, IN_FLIGHT, MAX_RATIO }, results, rounds }, null, 2) + '\n');
  log(`\nwritten: ${path.relative(process.cwd(), OUT)}`);
  if (over.length > 0) {
    log(`over ×${MAX_RATIO}: ${over.map((g) => `${g} ×${results[g].ratio.toFixed(3)}`).join(', ')}`);
    process.exitCode = 1;
  } else {
    log(`every guard within ×${MAX_RATIO} of the plain server`);
  }
}

main()
  .catch((error) => {
    log(error.stack ?? String(error));
    process.exitCode = 1;
  })
  .finally(() => stopAll());
