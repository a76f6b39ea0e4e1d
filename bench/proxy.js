'use strict';
/**
 * The cost of a proxy: tools/call of the bench server's `echo` over stdio, served directly by
 * the bench server and through `@typemcp/proxy` (bench/dist/proxy.js, the same server as its
 * stdio upstream). Two figures per variant: the latency of one call at a time (median over the
 * calls of a round), and calls per second with BENCH_INFLIGHT outstanding. Both variants run in
 * every round, their order alternating; each figure is the median over rounds, each ratio the
 * median of the per-round ratios. The proxy adds a process and a pipe hop: its latency is
 * expected to roughly double a call that does nothing, and the figure says by how much.
 *
 *   npm run bench:proxy          builds, then runs this
 *   node bench/proxy.js          on what is built (bench/dist, packages/*\/dist)
 *
 *   BENCH_ROUNDS (7)  BENCH_SEQUENTIAL (2000)  BENCH_CALLS (30000)  BENCH_WARMUP (3000)  BENCH_INFLIGHT (64)
 *   BENCH_PROXY_UPSTREAM (2025-11-25): the revision the proxy speaks to its upstream
 */
const path = require('node:path');
const { median, percentile, format } = require('./lib/stats');
const { startServer, stopServer, stopAll } = require('./lib/server');
const { StdioClient, callLine, isSuccess } = require('./lib/stdio');

const number = (name, fallback) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
};
const ROUNDS = number('BENCH_ROUNDS', 7);
const SEQUENTIAL = number('BENCH_SEQUENTIAL', 2000);
const CALLS = number('BENCH_CALLS', 30_000);
const WARMUP = number('BENCH_WARMUP', 3000);
const IN_FLIGHT = number('BENCH_INFLIGHT', 64);
const UPSTREAM = process.env.BENCH_PROXY_UPSTREAM ?? '2025-11-25';
const VARIANTS = {
  direct: { key: 'typemcp', script: path.join(__dirname, 'dist', 'typemcp.js') },
  proxied: { key: 'proxy', script: path.join(__dirname, 'dist', 'proxy.js') },
};
const TIMEOUT_MS = 300_000;

/** One process (and its upstream, for the proxy): sequential latency and pipelined throughput. */
async function session(name) {
  const server = startServer(VARIANTS[name], { env: { BENCH_PROXY_UPSTREAM: UPSTREAM } });
  try {
    const client = new StdioClient(server);
    await client.initialize();
    const line = callLine('{"text":"hello"}');
    const run = async (count, inFlight) => {
      const outcome = await client.run({ count, inFlight, lineFor: line, check: isSuccess, timeoutMs: TIMEOUT_MS });
      if (outcome.bad > 0) throw new Error(`${name}: ${outcome.bad} of ${count} calls failed, e.g. ${outcome.badSample}`);
      return outcome;
    };
    await run(WARMUP, IN_FLIGHT);
    const sequential = await run(SEQUENTIAL, 1);
    const pipelined = await run(CALLS, IN_FLIGHT);
    const latencies = [...sequential.latencies];
    return { latencyUs: median(latencies) * 1000, p99Us: percentile(latencies, 99) * 1000, callsPerSec: (CALLS * 1000) / pipelined.ms };
  } finally {
    await stopServer(server);
  }
}

async function main() {
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? ['direct', 'proxied'] : ['proxied', 'direct'];
    const round = {};
    for (const name of order) round[name] = await session(name);
    round.latencyRatio = round.proxied.latencyUs / round.direct.latencyUs;
    round.throughputRatio = round.proxied.callsPerSec / round.direct.callsPerSec;
    rounds.push(round);
    process.stdout.write(
      `round ${r + 1}/${ROUNDS}: latency direct ${format(round.direct.latencyUs)} µs, proxied ${format(round.proxied.latencyUs)} µs (×${round.latencyRatio.toFixed(2)}); ` +
        `calls/s direct ${format(round.direct.callsPerSec)}, proxied ${format(round.proxied.callsPerSec)} (×${round.throughputRatio.toFixed(2)})\n`,
    );
  }
  const med = (pick) => median(rounds.map(pick));
  const summary = {
    upstreamProtocol: UPSTREAM,
    direct: { latencyUs: med((r) => r.direct.latencyUs), p99Us: med((r) => r.direct.p99Us), callsPerSec: med((r) => r.direct.callsPerSec) },
    proxied: { latencyUs: med((r) => r.proxied.latencyUs), p99Us: med((r) => r.proxied.p99Us), callsPerSec: med((r) => r.proxied.callsPerSec) },
    latencyRatio: med((r) => r.latencyRatio),
    throughputRatio: med((r) => r.throughputRatio),
  };
  process.stdout.write(`${JSON.stringify(summary)}\n`);
  process.stdout.write(
    `a tools/call through the proxy over stdio: latency ×${summary.latencyRatio.toFixed(2)} of direct (+${format(summary.proxied.latencyUs - summary.direct.latencyUs)} µs), ` +
      `throughput ×${summary.throughputRatio.toFixed(2)} of direct\n`,
  );
}

main()
  .catch((error) => {
    process.stderr.write(`${error.stack ?? error}\n`);
    process.exitCode = 1;
  })
  .finally(() => stopAll());
