'use strict';
/**
 * The cost of a mount: server CPU per tools/call of the bench server's `echo` tool served
 * directly, and the same tool served through `server.mount` (BENCH_MOUNT=1: `m_echo`), over
 * stdio. Both variants run in every round, their order alternating; each figure is the median
 * over rounds, the ratio the median of the per-round ratios. Exits 1 when the ratio is above
 * MOUNT_MAX_RATIO (default 1.1).
 *
 *   npm run bench:mount          builds, then runs this
 *   node bench/mount.js          on what is built (bench/dist, packages/core/dist)
 *
 *   BENCH_ROUNDS (9)  BENCH_CALLS (100000)  BENCH_WARMUP (10000)  BENCH_INFLIGHT (64)
 */
const path = require('node:path');
const { median, format } = require('./lib/stats');
const { cpuMs } = require('./lib/proc');
const { startServer, stopServer, stopAll } = require('./lib/server');
const { StdioClient, callLine, isSuccess } = require('./lib/stdio');

const number = (name, fallback) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
};
const ROUNDS = number('BENCH_ROUNDS', 9);
const CALLS = number('BENCH_CALLS', 100_000);
const WARMUP = number('BENCH_WARMUP', 10_000);
const IN_FLIGHT = number('BENCH_INFLIGHT', 64);
const MAX_RATIO = number('MOUNT_MAX_RATIO', 1.1);
const SERVER = { key: 'typemcp', script: path.join(__dirname, 'dist', 'typemcp.js') };
const TIMEOUT_MS = 300_000;

/** Server CPU (µs) per call and calls per second, for one process serving `tool`. */
async function session(mounted) {
  const server = startServer(SERVER, { env: mounted ? { BENCH_MOUNT: '1' } : {} });
  try {
    const client = new StdioClient(server);
    await client.initialize();
    const line = callLine('{"text":"hello"}', mounted ? 'm_echo' : 'echo');
    const run = async (count) => {
      const outcome = await client.run({ count, inFlight: IN_FLIGHT, lineFor: line, check: isSuccess, timeoutMs: TIMEOUT_MS });
      if (outcome.bad > 0) throw new Error(`${outcome.bad} of ${count} calls failed, e.g. ${outcome.badSample}`);
      return outcome;
    };
    await run(WARMUP);
    const cpu0 = cpuMs(server.pid);
    const measured = await run(CALLS);
    return { cpuPerCallUs: ((cpuMs(server.pid) - cpu0) * 1000) / CALLS, callsPerSec: (CALLS * 1000) / measured.ms };
  } finally {
    await stopServer(server);
  }
}

async function main() {
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? [false, true] : [true, false];
    const round = {};
    for (const mounted of order) round[mounted ? 'mounted' : 'direct'] = await session(mounted);
    round.ratio = round.mounted.cpuPerCallUs / round.direct.cpuPerCallUs;
    rounds.push(round);
    process.stdout.write(`round ${r + 1}/${ROUNDS}: direct ${format(round.direct.cpuPerCallUs)} µs, mounted ${format(round.mounted.cpuPerCallUs)} µs, ×${round.ratio.toFixed(3)}\n`);
  }
  const ratio = median(rounds.map((r) => r.ratio));
  const summary = {
    direct: { cpuPerCallUs: median(rounds.map((r) => r.direct.cpuPerCallUs)), callsPerSec: median(rounds.map((r) => r.direct.callsPerSec)) },
    mounted: { cpuPerCallUs: median(rounds.map((r) => r.mounted.cpuPerCallUs)), callsPerSec: median(rounds.map((r) => r.mounted.callsPerSec)) },
    ratio,
    ratios: rounds.map((r) => Number(r.ratio.toFixed(3))),
  };
  process.stdout.write(`${JSON.stringify(summary)}\n`);
  process.stdout.write(`server CPU per tools/call through a mount: ×${ratio.toFixed(3)} of direct (target ≤ ×${MAX_RATIO}) — ${ratio <= MAX_RATIO ? 'met' : 'MISSED'}\n`);
  if (ratio > MAX_RATIO) process.exitCode = 1;
}

main()
  .catch((error) => {
    process.stderr.write(`${error.stack ?? error}\n`);
    process.exitCode = 1;
  })
  .finally(() => stopAll());
