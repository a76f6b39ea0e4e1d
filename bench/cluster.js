'use strict';
/**
 * Cluster benchmark: the board server of examples/04-cluster (built, from its dist/), one
 * redis-server, three replicas and the round-robin proxy (dist/proxy.js, a process of its own).
 * Measured in alternating rounds, the variants' order rotating from round to round:
 *
 *   direct     1 replica, requests straight to it
 *   proxy-1    1 replica behind the proxy
 *   proxy-3    3 replicas behind the proxy (round-robin, no stickiness)
 *
 * for two workloads, each a `tools/call whoami` (answers the replica's name, touches no data):
 *
 *   2026       2026-07-28 POSTs: no session, _meta and the mirrored headers
 *   session    2025-11-25 handshake sessions (one per client, opened before measuring), every
 *              POST with its Mcp-Session-Id: through proxy-3 each lands on any replica
 *
 * Figures per phase: requests/s from BENCH_CLUSTER_CLIENTS concurrent clients, p50 latency,
 * and Redis commands per request: `CONFIG RESETSTAT` after the warmup, `INFO commandstats`
 * after the measured requests, commands (those scripts call included, INFO/CONFIG excluded)
 * divided by requests. The replicas' background work (task lease ticks) is measured idle
 * once and reported beside. Figures are medians over rounds; ratios medians of per-round ratios.
 *
 *   npm run bench:cluster          builds, then runs this
 *   node bench/cluster.js          runs on what is built (examples/04-cluster/dist)
 *
 * Environment (defaults in parentheses):
 *   BENCH_CLUSTER_ROUNDS (5)        rounds
 *   BENCH_CLUSTER_REQUESTS (5000)   measured requests per phase
 *   BENCH_CLUSTER_WARMUP (1000)     unmeasured requests before them
 *   BENCH_CLUSTER_CLIENTS (32)      concurrent clients (and sessions)
 *   BENCH_CLUSTER_OUT               results file (bench/results/cluster-latest.json); a .md table beside it
 */
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { performance } = require('node:perf_hooks');
const { median, percentile } = require('./lib/stats');
const { concurrently } = require('./lib/http');
const redisStats = require('./lib/redis');
const { machine } = require('./lib/proc');

const DIST = path.join(__dirname, '..', 'examples', '04-cluster', 'dist');
for (const file of ['localRedis.js', 'processes.js', 'proxy.js', 'replica.js']) {
  if (!fs.existsSync(path.join(DIST, file))) {
    process.stderr.write(`bench/cluster.js: ${path.join(DIST, file)} is missing: run npm run build first (or npm run bench:cluster)\n`);
    process.exit(1);
  }
}
const { startLocalRedis } = require(path.join(DIST, 'localRedis.js'));
const { spawnReplica } = require(path.join(DIST, 'processes.js'));

const env = (name, fallback) => {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new Error(`${name} must be a positive integer, not ${JSON.stringify(value)}`);
  return number;
};

const config = {
  rounds: env('BENCH_CLUSTER_ROUNDS', 5),
  requests: env('BENCH_CLUSTER_REQUESTS', 5000),
  warmup: env('BENCH_CLUSTER_WARMUP', 1000),
  clients: env('BENCH_CLUSTER_CLIENTS', 32),
};
const TIMEOUT_MS = 300_000;
const log = (line) => process.stderr.write(`${line}\n`);
const round2 = (x) => Math.round(x * 100) / 100;

// ---- requests ---------------------------------------------------------------------------

const META = '{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"typemcp-bench","version":"1.0.0"}}';
const MODERN_HEADERS = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'whoami' };
const modernBody = (id) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"whoami","arguments":{},"_meta":${META}}}`;
const sessionBody = (id) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"whoami","arguments":{}}}`;
const answered = (text) => text.includes('"text":"replica-') && !text.includes('"isError":true') && !text.includes('"error"');

/** One request, read whole: status, headers and text. */
function request(agent, port, method, body, headers) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method,
        agent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(body === undefined ? {} : { 'content-length': Buffer.byteLength(body) }),
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Opens `count` 2025-11-25 sessions through `port`; resolves with their ids. */
async function openSessions(port, count) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const ids = [];
  try {
    for (let i = 0; i < count; i++) {
      const init = await request(
        agent,
        port,
        'POST',
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'typemcp-bench', version: '1.0.0' } } }),
        {},
      );
      const id = init.headers['mcp-session-id'];
      if (init.status !== 200 || typeof id !== 'string') throw new Error(`initialize: ${init.status} ${init.text.slice(0, 300)}`);
      const headers = { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' };
      const ready = await request(agent, port, 'POST', '{"jsonrpc":"2.0","method":"notifications/initialized"}', headers);
      if (ready.status !== 202) throw new Error(`notifications/initialized: ${ready.status} ${ready.text.slice(0, 300)}`);
      ids.push(id);
    }
  } finally {
    agent.destroy();
  }
  return ids;
}

async function closeSessions(port, ids) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  try {
    for (const id of ids) await request(agent, port, 'DELETE', undefined, { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' });
  } finally {
    agent.destroy();
  }
}

function load(port, count, operation) {
  return concurrently({ clients: config.clients, count, timeoutMs: TIMEOUT_MS, what: `load on port ${port}`, operation });
}

/** Warmup, reset of Redis's counters, the measured requests, the counters. */
async function measure(port, redisPort, bodyFor, headersFor) {
  const operation = async (agent, n) => {
    const { status, text } = await request(agent, port, 'POST', bodyFor(n), headersFor(n));
    return status === 200 && answered(text) ? undefined : `${status} ${text.slice(0, 300)}`;
  };
  const warm = await load(port, config.warmup, operation);
  if (warm.bad) throw new Error(`warmup on port ${port}: ${warm.bad} failed, e.g. ${warm.badSample}`);
  await redisStats.resetStats(redisPort);
  const run = await load(port, config.requests, operation);
  const counts = await redisStats.commandCounts(redisPort);
  if (run.bad) throw new Error(`load on port ${port}: ${run.bad} failed, e.g. ${run.badSample}`);
  const commands = Object.values(counts).reduce((sum, n) => sum + n, 0);
  const perRequest = {};
  for (const [name, n] of Object.entries(counts).sort((a, b) => b[1] - a[1])) perRequest[name] = round2(n / config.requests);
  return {
    perSec: (config.requests * 1000) / run.ms,
    p50Ms: percentile(run.latencies, 50),
    p99Ms: percentile(run.latencies, 99),
    seconds: run.ms / 1000,
    redisPerRequest: commands / config.requests,
    redisByCommand: perRequest,
  };
}

// ---- processes --------------------------------------------------------------------------

const started = [];

function startProxy(targets) {
  const child = spawn(process.execPath, [path.join(DIST, 'proxy.js')], {
    env: { ...process.env, TARGETS: targets.map((r) => `http://127.0.0.1:${r.port}`).join(','), PORT: '0', CLOSE_ON_STDIN_END: '1' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const proxy = {
    child,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
  started.push(proxy);
  return new Promise((resolve, reject) => {
    let text = '';
    child.once('exit', (code) => reject(new Error(`proxy exited (${code}) before listening`)));
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      text += chunk;
      const match = /LISTENING (\d+)/.exec(text);
      if (match) resolve({ ...proxy, port: Number(match[1]) });
    });
  });
}


// ---- main -------------------------------------------------------------------------------

const VARIANTS = ['direct', 'proxy-1', 'proxy-3'];
const WORKLOADS = ['2026', 'session'];

async function main() {
  const t0 = performance.now();
  const startedAt = new Date();
  const loadBefore = os.loadavg();
  log(`cluster bench: ${config.rounds} rounds × ${VARIANTS.length} variants × ${WORKLOADS.length} workloads, ${config.requests} requests each (after ${config.warmup}), ${config.clients} clients`);
  const redis = await startLocalRedis();
  started.push(redis);
  const secret = require('node:crypto').randomBytes(32).toString('base64url');
  const replicas = [];
  for (let i = 1; i <= 3; i++) {
    const replica = await spawnReplica({ replicaId: `replica-${i}`, redisUrl: redis.url, requestStateSecret: secret, nodeArgs: [], stderr: 'inherit' });
    started.push(replica);
    replicas.push(replica);
  }
  const proxy1 = await startProxy([replicas[0]]);
  const proxy3 = await startProxy(replicas);
  const ports = { direct: replicas[0].port, 'proxy-1': proxy1.port, 'proxy-3': proxy3.port };
  log(`redis ${redis.url}; replicas on ${replicas.map((r) => r.port).join(', ')}; proxy-1 on ${proxy1.port}, proxy-3 on ${proxy3.port}`);

  // The replicas' own traffic to Redis while nobody calls them (task lease ticks, pings).
  await redisStats.resetStats(redis.port);
  await new Promise((resolve) => setTimeout(resolve, 5000));
  const idle = Object.values(await redisStats.commandCounts(redis.port)).reduce((sum, n) => sum + n, 0) / 5;
  log(`idle: ${round2(idle)} Redis commands/s from the 3 replicas`);

  const rounds = [];
  for (let r = 0; r < config.rounds; r++) {
    const order = VARIANTS.map((_, i) => VARIANTS[(i + r) % VARIANTS.length]);
    const round = {};
    for (const workload of WORKLOADS) {
      round[workload] = {};
      for (const variant of order) {
        const port = ports[variant];
        let result;
        if (workload === '2026') {
          result = await measure(port, redis.port, modernBody, () => MODERN_HEADERS);
        } else {
          const sessions = await openSessions(port, config.clients);
          const headers = sessions.map((id) => ({ 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' }));
          result = await measure(port, redis.port, sessionBody, (n) => headers[n % headers.length]);
          await closeSessions(port, sessions);
        }
        round[workload][variant] = result;
      }
      const brief = order.map((v) => `${v} ${Math.round(round[workload][v].perSec)} req/s (${round2(round[workload][v].redisPerRequest)} redis/req)`).join(' | ');
      log(`round ${r + 1}/${config.rounds} ${workload}: ${brief}`);
    }
    rounds.push(round);
  }

  const summary = {};
  for (const workload of WORKLOADS) {
    summary[workload] = {};
    for (const variant of VARIANTS) {
      const of = (key) => median(rounds.map((round) => round[workload][variant][key]));
      summary[workload][variant] = {
        perSec: Math.round(of('perSec')),
        p50Ms: round2(of('p50Ms')),
        p99Ms: round2(of('p99Ms')),
        redisPerRequest: Math.round(of('redisPerRequest') * 1000) / 1000,
        redisByCommand: rounds[rounds.length - 1][workload][variant].redisByCommand,
      };
    }
    const ratio = (a, b) => round2(median(rounds.map((round) => round[workload][a].perSec / round[workload][b].perSec)));
    summary[workload].ratios = {
      'proxy-1 / direct': ratio('proxy-1', 'direct'),
      'proxy-3 / direct': ratio('proxy-3', 'direct'),
      'proxy-3 / proxy-1': ratio('proxy-3', 'proxy-1'),
    };
  }

  for (const item of started.reverse()) await item.stop();
  started.length = 0;

  const results = {
    startedAt: startedAt.toISOString(),
    durationSeconds: Math.round((performance.now() - t0) / 1000),
    command: 'npm run bench:cluster',
    config,
    machine: { ...machine(), loadAverageBefore: loadBefore.map(round2), loadAverageAfter: os.loadavg().map(round2) },
    idleRedisCommandsPerSecond: round2(idle),
    notes: [
      'Server: examples/04-cluster (the board), tools/call whoami, which answers the replica name and reads no data: the figures are the cost of the cluster plumbing, not of the board.',
      'direct: 1 replica, no proxy. proxy-1: the same replica behind the proxy (examples/04-cluster/dist/proxy.js, its own process). proxy-3: 3 replicas behind the proxy, round-robin with no stickiness.',
      'Every replica runs the @typemcp/redis plugin, in all variants: direct and proxy-1 are a one-replica cluster.',
      `Throughput: ${config.requests} requests per phase from ${config.clients} concurrent clients (keep-alive), after ${config.warmup} unmeasured; medians over rounds; ratios are medians of per-round ratios.`,
      'Redis commands per request: CONFIG RESETSTAT after the warmup, INFO commandstats after the measured requests; commands run by scripts count as well as the EVALSHA; INFO and CONFIG excluded. The replicas also talk to Redis when idle (task lease ticks): see idleRedisCommandsPerSecond.',
      'session: 2025-11-25 sessions opened before the phase (one per client), every request with its Mcp-Session-Id; through proxy-3 a session is served by all 3 replicas in turn.',
      'Everything (driver, proxy, replicas, Redis) runs on the same machine: with fewer cores than processes, 3 replicas cannot be 3 times 1.',
    ],
    summary,
    rounds,
  };
  const out = path.resolve(process.env.BENCH_CLUSTER_OUT || path.join(__dirname, 'results', 'cluster-latest.json'));
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  const md = `${out.replace(/\.json$/, '')}.md`;
  fs.writeFileSync(md, markdown(results));
  process.stdout.write(`\n${markdown(results)}\nresults: ${path.relative(process.cwd(), out)} and ${path.relative(process.cwd(), md)}\n`);
}

function markdown(results) {
  const lines = [
    `Cluster bench, ${results.startedAt.slice(0, 10)}: ${results.config.rounds} rounds, ${results.config.requests} requests per phase, ${results.config.clients} clients; ${results.machine.nproc} × ${results.machine.cpuModel}, Node ${results.machine.node}.`,
    '',
    '| workload | variant | req/s | p50 ms | p99 ms | Redis commands / request |',
    '| --- | --- | ---: | ---: | ---: | ---: |',
  ];
  for (const workload of WORKLOADS) {
    for (const variant of VARIANTS) {
      const s = results.summary[workload][variant];
      lines.push(`| ${workload === '2026' ? '2026-07-28 tools/call' : 'session tools/call (2025-11-25)'} | ${variant} | ${s.perSec} | ${s.p50Ms} | ${s.p99Ms} | ${s.redisPerRequest} |`);
    }
  }
  lines.push('', '| workload | proxy-1 / direct | proxy-3 / direct | proxy-3 / proxy-1 |', '| --- | ---: | ---: | ---: |');
  for (const workload of WORKLOADS) {
    const r = results.summary[workload].ratios;
    lines.push(`| ${workload === '2026' ? '2026-07-28 tools/call' : 'session tools/call'} | ${r['proxy-1 / direct']} | ${r['proxy-3 / direct']} | ${r['proxy-3 / proxy-1']} |`);
  }
  lines.push('', `Idle: ${results.idleRedisCommandsPerSecond} Redis commands/s from the 3 replicas (task lease ticks).`);
  return `${lines.join('\n')}\n`;
}

async function stopEverything() {
  for (const item of started.reverse()) await item.stop().catch(() => undefined);
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => void stopEverything().finally(() => process.exit(130)));
}

main().catch(async (error) => {
  log(`cluster bench failed: ${error instanceof Error ? error.stack : error}`);
  await stopEverything();
  process.exitCode = 1;
});
