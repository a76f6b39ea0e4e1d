'use strict';
/**
 * TypeMCP benchmark: the same small MCP server (one `echo` tool with input {text: string}, one
 * resource, one prompt) built three ways — a hand-written Node floor, the official SDK, and
 * TypeMCP — measured side by side in the same run, variants alternating within every phase
 * and their order rotating from round to round. Each figure is the median over rounds; each
 * ratio is the median of the per-round ratios (the variants of one round ran back to back).
 * Two more variants take part in the cold starts only: typemcp-bundle, the TypeMCP server
 * bundled by `typemcp build --snapshot` (made here before anything is measured), run as
 * `node typemcp.bundle.js`, and typemcp-snapshot, the same build's startup snapshot, run as
 * `node --snapshot-blob typemcp.bundle.blob --`. The 2026-07-28 phases
 * (stateless calls, MRTR rounds, listen fan-out) run the floor and TypeMCP: SDK v1 does not
 * speak that revision.
 *
 *   npm run bench                  builds, then runs this (about 5 minutes on 2 idle cores)
 *   node bench/run.js              runs on what is already built (bench/dist, packages/core/dist,
 *                                  packages/cli/dist)
 *
 * Environment (defaults in parentheses):
 *   BENCH_ROUNDS (10)         rounds; each runs every phase for every variant
 *   BENCH_CALLS (100000)      measured tools/call requests per round, BENCH_INFLIGHT (64) in flight
 *   BENCH_WARMUP (10000)      unmeasured calls before them
 *   BENCH_RSS_CALLS (20000)   RSS is read once this many calls, warmup included, were answered
 *   BENCH_SEQ (2000)          sequential calls (one at a time) for latency, after BENCH_SEQ_WARMUP (500)
 *   BENCH_INVALID (20000)     calls with a wrong argument type, 64 in flight
 *   BENCH_COLD (3)            extra cold starts per variant per round
 *   BENCH_LIST_TOOLS (1000)   tools added for the tools/list figures; BENCH_LIST_WALKS (5) walks each
 *   BENCH_HTTP (10000)        measured stateless HTTP requests per round, from BENCH_HTTP_CLIENTS (32)
 *   BENCH_HTTP_WARMUP (2000)  unmeasured HTTP requests before them (and before BENCH_HTTP_2026)
 *   BENCH_HTTP_2026 (10000)   measured 2026-07-28 tools/call POSTs per round (no session), same clients
 *   BENCH_MRTR (3000)         measured MRTR rounds (input_required, then the retry) from the same
 *                             number of clients, after BENCH_MRTR_WARMUP (1000)
 *   BENCH_LISTENERS (1000)    subscriptions/listen streams held open for the fan-out figures
 *   BENCH_FANOUTS (20)        notifications fanned out to all of them per round (after one unmeasured)
 *   BENCH_VARIANTS            comma-separated subset of floor,sdk,typemcp,typemcp-bundle,typemcp-snapshot,
 *                             floor-class-validator,floor-class-validator-snapshot
 *   BENCH_OUT                 results file (bench/results/latest.json); a .md table is written beside it
 * BENCH_HTTP_2026, BENCH_MRTR, BENCH_LISTENERS and BENCH_LIST_TOOLS set to 0 skip their phase.
 * The tools/call phase with one empty middleware (TypeMCP only) uses BENCH_CALLS and BENCH_WARMUP.
 * BENCH_TOOLS, BENCH_MIDDLEWARE and BENCH_2026 are read by the servers and set per phase here.
 */
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { performance } = require('node:perf_hooks');
const { format, median, percentile } = require('./lib/stats');
const { cpuMs, rssKiB, machine } = require('./lib/proc');
const { MACHINE_SETTINGS, startServer, stopServer, stopAll, listeningPort } = require('./lib/server');
const { StdioClient, callLine, isSuccess, isToolError } = require('./lib/stdio');
const httpLoad = require('./lib/http');
const modern = require('./lib/modern');

const env = (name, fallback) => {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) throw new Error(`${name} must be a non-negative integer, not ${JSON.stringify(value)}`);
  return number;
};

const config = {
  rounds: Math.max(1, env('BENCH_ROUNDS', 10)),
  calls: Math.max(1, env('BENCH_CALLS', 100000)),
  rssCalls: Math.max(1, env('BENCH_RSS_CALLS', 20000)),
  warmup: env('BENCH_WARMUP', 10000),
  inFlight: Math.max(1, env('BENCH_INFLIGHT', 64)),
  sequential: Math.max(1, env('BENCH_SEQ', 2000)),
  sequentialWarmup: env('BENCH_SEQ_WARMUP', 500),
  invalid: Math.max(1, env('BENCH_INVALID', 20000)),
  coldStarts: env('BENCH_COLD', 3),
  listTools: env('BENCH_LIST_TOOLS', 1000),
  listWalks: Math.max(1, env('BENCH_LIST_WALKS', 5)),
  httpRequests: Math.max(1, env('BENCH_HTTP', 10000)),
  httpClients: Math.max(1, env('BENCH_HTTP_CLIENTS', 32)),
  httpWarmup: env('BENCH_HTTP_WARMUP', 2000),
  httpModern: env('BENCH_HTTP_2026', 10000),
  mrtr: env('BENCH_MRTR', 3000),
  // The MRTR path settles later than plain calls: CPU per round still falls past 2,000 rounds.
  mrtrWarmup: env('BENCH_MRTR_WARMUP', 1000),
  listeners: env('BENCH_LISTENERS', 1000),
  fanouts: Math.max(1, env('BENCH_FANOUTS', 20)),
};

const ROOT = path.resolve(__dirname, '..');
const CLI = path.join(ROOT, 'packages', 'cli', 'dist', 'bin.js');
const BUNDLE = path.join(__dirname, 'dist', 'typemcp.bundle.js');
const SNAPSHOT = path.join(__dirname, 'dist', 'typemcp.bundle.blob');
const FLOOR_CV_SNAPSHOT = path.join(__dirname, 'dist', 'floor-class-validator.blob');
const ALL_VARIANTS = [
  { key: 'floor', script: path.join(__dirname, 'servers', 'floor.js'), modern: true },
  { key: 'sdk', script: path.join(__dirname, 'servers', 'sdk.js'), modern: false },
  { key: 'typemcp', script: path.join(__dirname, 'dist', 'typemcp.js'), modern: true },
  { key: 'typemcp-bundle', script: BUNDLE, coldOnly: true },
  { key: 'typemcp-snapshot', script: SNAPSHOT, args: ['--snapshot-blob', SNAPSHOT, '--'], coldOnly: true },
  { key: 'floor-class-validator', script: path.join(__dirname, 'servers', 'floor-class-validator.js'), coldOnly: true },
  { key: 'floor-class-validator-snapshot', script: FLOOR_CV_SNAPSHOT, args: ['--snapshot-blob', FLOOR_CV_SNAPSHOT, '--'], coldOnly: true },
];
const wanted = (process.env.BENCH_VARIANTS ?? 'floor,sdk,typemcp,typemcp-bundle,typemcp-snapshot,floor-class-validator,floor-class-validator-snapshot').split(',').map((s) => s.trim()).filter(Boolean);
for (const key of wanted) {
  if (!ALL_VARIANTS.some((v) => v.key === key)) throw new Error(`BENCH_VARIANTS: unknown variant ${JSON.stringify(key)}`);
}
/** The variants of the cold starts: every one wanted, the bundle included. */
const COLD_VARIANTS = ALL_VARIANTS.filter((v) => wanted.includes(v.key));
/** The variants of every other phase. */
const VARIANTS = COLD_VARIANTS.filter((v) => !v.coldOnly);
const PHASE_TIMEOUT_MS = 180_000;

const log = (text) => process.stderr.write(`${text}\n`);
const round2 = (x) => Math.round(x * 100) / 100;

/** The variants in the order of this round: rotated by one each round (A/B/C, B/C/A, C/A/B, …). */
const orderFor = (round, variants = VARIANTS) => variants.map((_, i) => variants[(i + round) % variants.length]);

// ---------------------------------------------------------------------------------------------
// Phases

/** A stdio session: cold start, RSS, throughput with CPU, RSS after, sequential latency, invalid arguments. */
async function stdioSession(variant) {
  const server = startServer(variant);
  try {
    const client = new StdioClient(server);
    const coldMs = await client.initialize();
    const rssInit = rssKiB(server.pid);
    const valid = callLine('{"text":"hello"}');
    const invalid = callLine('{"text":42}');
    const timeoutMs = PHASE_TIMEOUT_MS;

    if (config.warmup > 0) await expectClean(client.run({ count: config.warmup, inFlight: config.inFlight, lineFor: valid, check: isSuccess, timeoutMs }), 'warmup');

    // The measured calls, in two parts: RSS is read once BENCH_RSS_CALLS calls (warmup included) were answered.
    const first = Math.min(Math.max(config.rssCalls - config.warmup, 0), config.calls);
    const driver0 = process.cpuUsage();
    let cpu0 = cpuMs(server.pid);
    const callsA =
      first > 0
        ? await expectClean(client.run({ count: first, inFlight: config.inFlight, lineFor: valid, check: isSuccess, timeoutMs }), 'tools/call')
        : { ms: 0, latencies: new Float64Array(0) };
    const cpuA = cpuMs(server.pid) - cpu0;
    const rssAfter = rssKiB(server.pid);
    cpu0 = cpuMs(server.pid);
    const callsB =
      config.calls > first
        ? await expectClean(client.run({ count: config.calls - first, inFlight: config.inFlight, lineFor: valid, check: isSuccess, timeoutMs }), 'tools/call')
        : { ms: 0, latencies: new Float64Array(0) };
    const callsCpu = cpuA + cpuMs(server.pid) - cpu0;
    const driverCpu = process.cpuUsage(driver0);
    const calls = { ms: callsA.ms + callsB.ms, latencies: concat(callsA.latencies, callsB.latencies) };

    // Sequential latency, steady state: a short sequential warmup first (right after the burst
    // above, the first few hundred one-at-a-time calls are slower for every variant).
    if (config.sequentialWarmup > 0) {
      await expectClean(client.run({ count: config.sequentialWarmup, inFlight: 1, lineFor: valid, check: isSuccess, timeoutMs }), 'sequential warmup');
    }
    const seq = await expectClean(client.run({ count: config.sequential, inFlight: 1, lineFor: valid, check: isSuccess, timeoutMs }), 'sequential');

    cpu0 = cpuMs(server.pid);
    const bad = await expectClean(client.run({ count: config.invalid, inFlight: config.inFlight, lineFor: invalid, check: isToolError, timeoutMs }), 'invalid arguments');
    const badCpu = cpuMs(server.pid) - cpu0;

    return {
      coldMs,
      rssInitMiB: rssInit / 1024,
      rssAfterMiB: rssAfter / 1024,
      callsPerSec: (config.calls * 1000) / calls.ms,
      callP50: percentile(calls.latencies, 50),
      callP99: percentile(calls.latencies, 99),
      cpuPerCallUs: (callsCpu * 1000) / config.calls,
      driverCpuPerCallUs: (driverCpu.user + driverCpu.system) / config.calls,
      seqP50: percentile(seq.latencies, 50),
      seqP99: percentile(seq.latencies, 99),
      invalidPerSec: (config.invalid * 1000) / bad.ms,
      invalidCpuPerCallUs: (badCpu * 1000) / config.invalid,
    };
  } finally {
    await stopServer(server);
  }
}

/** Spawn, initialize, read RSS, stop: one cold-start sample. */
async function coldStart(variant) {
  const server = startServer(variant);
  try {
    const client = new StdioClient(server);
    const coldMs = await client.initialize();
    return { coldMs, rssInitMiB: rssKiB(server.pid) / 1024 };
  } finally {
    await stopServer(server);
  }
}

/**
 * TypeMCP with one empty `server.use` middleware: throughput and server CPU of tools/call,
 * measured as in stdioSession (same warmup, count and window), run right after the plain
 * session of the same round so that the difference of the two is the middleware's cost.
 */
async function middlewareSession(variant) {
  const server = startServer(variant, { env: { BENCH_MIDDLEWARE: '1' } });
  try {
    const client = new StdioClient(server);
    await client.initialize();
    const valid = callLine('{"text":"hello"}');
    const timeoutMs = PHASE_TIMEOUT_MS;
    if (config.warmup > 0) await expectClean(client.run({ count: config.warmup, inFlight: config.inFlight, lineFor: valid, check: isSuccess, timeoutMs }), 'middleware warmup');
    const cpu0 = cpuMs(server.pid);
    const calls = await expectClean(client.run({ count: config.calls, inFlight: config.inFlight, lineFor: valid, check: isSuccess, timeoutMs }), 'middleware tools/call');
    const cpu = cpuMs(server.pid) - cpu0;
    return {
      mwCallsPerSec: (config.calls * 1000) / calls.ms,
      mwCpuPerCallUs: (cpu * 1000) / config.calls,
    };
  } finally {
    await stopServer(server);
  }
}

/** tools/list with BENCH_LIST_TOOLS more tools: the first page, and a full walk following nextCursor. */
async function listSession(variant) {
  const server = startServer(variant, { env: { BENCH_TOOLS: String(config.listTools) } });
  try {
    const client = new StdioClient(server);
    await client.initialize();
    const walks = [];
    for (let w = 0; w < config.listWalks; w++) {
      let cursor;
      let pages = 0;
      let tools = 0;
      let bytes = 0;
      let ms = 0;
      let first;
      do {
        const response = await client.request('tools/list', cursor === undefined ? undefined : { cursor });
        const parsed = JSON.parse(response.line);
        if (!parsed.result) throw new Error(`${variant.key}: tools/list failed: ${response.line.slice(0, 300)}`);
        const size = Buffer.byteLength(response.line);
        if (pages === 0) first = { ms: response.ms, bytes: size };
        pages++;
        tools += parsed.result.tools.length;
        bytes += size;
        ms += response.ms;
        cursor = parsed.result.nextCursor;
        if (pages > 10_000) throw new Error(`${variant.key}: tools/list never ends`);
      } while (cursor !== undefined);
      if (tools !== config.listTools + 1) throw new Error(`${variant.key}: a full tools/list walk gave ${tools} tools, expected ${config.listTools + 1}`);
      walks.push({ firstMs: first.ms, firstBytes: first.bytes, walkMs: ms, walkBytes: bytes, pages });
    }
    return {
      listFirstMs: median(walks.map((w) => w.firstMs)),
      listFirstKiB: walks[0].firstBytes / 1024,
      listWalkMs: median(walks.map((w) => w.walkMs)),
      listWalkKiB: walks[0].walkBytes / 1024,
      listPages: walks[0].pages,
      listColdWalkMs: walks[0].walkMs,
    };
  } finally {
    await stopServer(server);
  }
}

/** Streamable HTTP, stateless: tools/call POSTs from BENCH_HTTP_CLIENTS concurrent keep-alive clients. */
async function httpSession(variant) {
  const server = startServer(variant, { http: true });
  try {
    const port = await listeningPort(server);
    const common = { port, clients: config.httpClients, bodyFor: httpLoad.echoBody, check: isSuccess, timeoutMs: PHASE_TIMEOUT_MS };
    if (config.httpWarmup > 0) await expectClean(httpLoad.load({ ...common, count: config.httpWarmup }), 'HTTP warmup');
    const cpu0 = cpuMs(server.pid);
    const result = await expectClean(httpLoad.load({ ...common, count: config.httpRequests }), 'HTTP');
    const cpu = cpuMs(server.pid) - cpu0;
    const rss = rssKiB(server.pid);
    return {
      httpPerSec: (config.httpRequests * 1000) / result.ms,
      httpP50: percentile(result.latencies, 50),
      httpP99: percentile(result.latencies, 99),
      httpCpuPerReqUs: (cpu * 1000) / config.httpRequests,
      httpRssMiB: rss / 1024,
    };
  } finally {
    await stopServer(server);
  }
}

/** An HTTP server with the tools of the 2026-07-28 phases (BENCH_2026=1) and its port. */
async function startModern(variant) {
  const server = startServer(variant, { http: true, env: { BENCH_2026: '1' } });
  try {
    return { server, port: await listeningPort(server) };
  } catch (error) {
    await stopServer(server);
    throw error;
  }
}

/** 2026-07-28 tools/call POSTs, no initialize and no session, from BENCH_HTTP_CLIENTS clients. */
async function modernHttpSession(variant) {
  const { server, port } = await startModern(variant);
  try {
    const common = { port, clients: config.httpClients, bodyFor: modern.echoBody, headers: modern.echoHeaders, check: modern.isComplete, timeoutMs: PHASE_TIMEOUT_MS };
    if (config.httpWarmup > 0) await expectClean(httpLoad.load({ ...common, count: config.httpWarmup }), '2026-07-28 HTTP warmup');
    const cpu0 = cpuMs(server.pid);
    const result = await expectClean(httpLoad.load({ ...common, count: config.httpModern }), '2026-07-28 HTTP');
    const cpu = cpuMs(server.pid) - cpu0;
    return {
      modernPerSec: (config.httpModern * 1000) / result.ms,
      modernP50: percentile(result.latencies, 50),
      modernP99: percentile(result.latencies, 99),
      modernCpuPerReqUs: (cpu * 1000) / config.httpModern,
    };
  } finally {
    await stopServer(server);
  }
}

/** MRTR rounds (confirm → input_required → retry with the answer and requestState → result). */
async function mrtrSession(variant) {
  const { server, port } = await startModern(variant);
  try {
    const common = { port, clients: config.httpClients, timeoutMs: PHASE_TIMEOUT_MS };
    if (config.mrtrWarmup > 0) await expectClean(modern.mrtrLoad({ ...common, count: config.mrtrWarmup }), 'MRTR warmup');
    const cpu0 = cpuMs(server.pid);
    const result = await expectClean(modern.mrtrLoad({ ...common, count: config.mrtr }), 'MRTR');
    const cpu = cpuMs(server.pid) - cpu0;
    return {
      mrtrPerSec: (config.mrtr * 1000) / result.ms,
      mrtrP50: percentile(result.latencies, 50),
      mrtrCpuPerRoundUs: (cpu * 1000) / config.mrtr,
    };
  } finally {
    await stopServer(server);
  }
}

/**
 * BENCH_LISTENERS subscriptions/listen streams, all acknowledged; the server's RSS then; then
 * one unmeasured and BENCH_FANOUTS measured calls of the touch tool, each timed from sending
 * it to the last stream receiving its notifications/resources/updated.
 */
async function fanoutSession(variant) {
  const { server, port } = await startModern(variant);
  let listeners;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    listeners = await modern.openListeners({ port, count: config.listeners, timeoutMs: PHASE_TIMEOUT_MS });
    const rss = rssKiB(server.pid);
    const times = [];
    for (let k = 0; k <= config.fanouts; k++) {
      const ms = await modern.fanOut({ port, agent, streams: listeners.streams, expected: k + 1, id: k + 1, timeoutMs: 30_000 });
      if (k > 0) times.push(ms);
    }
    return { fanoutMs: median(times), listenRssMiB: rss / 1024 };
  } finally {
    agent.destroy();
    if (listeners) listeners.close();
    await stopServer(server);
  }
}

function concat(a, b) {
  const out = new Float64Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

async function expectClean(promise, what) {
  const result = await promise;
  if (result.bad > 0) throw new Error(`${what}: ${result.bad} unexpected responses, e.g. ${result.badSample}`);
  return result;
}

/**
 * Checks once that every variant answers what the figures assume, resource and prompt included;
 * the bundle over stdio only; the 2026-07-28 shapes for the variants that speak that revision.
 */
async function verify(variant) {
  const server = startServer(variant);
  try {
    const client = new StdioClient(server);
    await client.initialize();
    const expect = async (method, params, needle) => {
      const { line } = await client.request(method, params);
      if (!line.includes(needle)) throw new Error(`${variant.key}: ${method} answered ${line.slice(0, 300)}; expected ${needle}`);
    };
    await expect('tools/call', { name: 'echo', arguments: { text: 'hello' } }, '"text":"hello"');
    await expect('tools/call', { name: 'echo', arguments: { text: 42 } }, '"isError":true');
    if (!variant.key.startsWith('floor')) {
      await expect('resources/read', { uri: 'bench://info' }, 'bench server');
      await expect('prompts/get', { name: 'greet', arguments: { name: 'Ada' } }, 'Say hello to Ada');
    }
  } finally {
    await stopServer(server);
  }
  if (variant.coldOnly) return;
  const httpServer = startServer(variant, { http: true });
  try {
    const port = await listeningPort(httpServer);
    const result = await httpLoad.load({ port, clients: 1, count: 1, bodyFor: httpLoad.echoBody, check: (t) => t.includes('"text":"hello"'), timeoutMs: 20000 });
    if (result.bad > 0) throw new Error(`${variant.key}: HTTP tools/call answered ${result.badSample}`);
  } finally {
    await stopServer(httpServer);
  }
  if (variant.modern) await verifyModern(variant);
}

async function verifyModern(variant) {
  const { server, port } = await startModern(variant);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let listeners;
  try {
    const call = await httpLoad.post(agent, port, modern.echoBody(1), modern.echoHeaders);
    if (call.status !== 200 || !modern.isComplete(call.text)) throw new Error(`${variant.key}: 2026-07-28 tools/call answered ${call.status} ${call.text.slice(0, 300)}`);
    const problem = await modern.mrtrRound(agent, port, 2);
    if (problem !== undefined) throw new Error(`${variant.key}: MRTR ${problem}`);
    listeners = await modern.openListeners({ port, count: 3, timeoutMs: 20000 });
    await modern.fanOut({ port, agent, streams: listeners.streams, expected: 1, id: 3, timeoutMs: 20000 });
  } finally {
    agent.destroy();
    if (listeners) listeners.close();
    await stopServer(server);
  }
}

/** The bundle and startup snapshot of the TypeMCP server, made as a user makes them: `typemcp build --no-tsc --snapshot`. */
function buildBundle() {
  const entry = path.join(__dirname, 'dist', 'typemcp.js');
  if (!fs.existsSync(CLI)) throw new Error(`${path.relative(ROOT, CLI)} is missing: run "npm run bench" (it builds first)`);
  const built = spawnSync(process.execPath, [CLI, 'build', '--no-tsc', '--snapshot', path.relative(ROOT, entry), '--outfile', path.relative(ROOT, BUNDLE)], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (built.status !== 0) throw new Error(`typemcp build failed (${built.status ?? built.error?.message}): ${built.stderr}${built.stdout}`);
  log(built.stderr.trim() || `built ${path.relative(ROOT, BUNDLE)}`);
}

/**
 * The reference floor (floor + reflect-metadata + class-validator) in a startup snapshot, made
 * by `typemcp build --snapshot` too: the packages evaluated at build time, the floor's own code
 * at start. The bound for any snapshot that holds class-validator.
 */
function buildFloorSnapshot() {
  const entry = path.join(__dirname, 'servers', 'floor-class-validator.js');
  const outfile = FLOOR_CV_SNAPSHOT.replace(/\.blob$/, '.js');
  const built = spawnSync(process.execPath, [CLI, 'build', '--no-tsc', '--snapshot', path.relative(ROOT, entry), '--outfile', path.relative(ROOT, outfile)], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (built.status !== 0) throw new Error(`typemcp build of the reference snapshot failed (${built.status ?? built.error?.message}): ${built.stderr}${built.stdout}`);
  log(`built ${path.relative(ROOT, FLOOR_CV_SNAPSHOT)}`);
}

// ---------------------------------------------------------------------------------------------
// Figures and targets

const n = (x) => x.toLocaleString('en-US');
// `others`: the key whose value the floor and sdk columns show and the ratios divide by, for
// figures measured on TypeMCP alone (bundled, with middleware) against the plain others.
const FIGURES = [
  { key: 'coldMs', label: 'cold start: spawn → initialize response', unit: 'ms', better: 'lower', floor: ['<=', 1.8], sdk: ['<=', 1] },
  { key: 'coldMsSnapshot', others: 'coldMs', label: 'cold start, production build (typemcp build --snapshot)', unit: 'ms', better: 'lower', floor: ['<=', 1.3], sdk: ['<=', 1] },
  { key: 'coldMsBundle', others: 'coldMs', label: 'cold start, the bundle alone (node server.js)', unit: 'ms', better: 'lower', sdk: ['<=', 1] },
  { key: 'coldMsFloorCv', others: 'coldMs', label: 'cold start, reference: the floor importing class-validator (no TypeMCP)', unit: 'ms' },
  { key: 'coldMsFloorCvSnapshot', others: 'coldMs', label: 'cold start, reference: the same in a startup snapshot', unit: 'ms' },
  { key: 'rssInitMiB', label: 'RSS after initialize', unit: 'MiB', better: 'lower', floor: ['<=', 1.2], sdk: ['<=', 1] },
  { key: 'rssInitMiBSnapshot', others: 'rssInitMiB', label: 'RSS after initialize, production build (snapshot)', unit: 'MiB', better: 'lower', floor: ['<=', 1.2], sdk: ['<=', 1] },
  { key: 'rssInitMiBBundle', others: 'rssInitMiB', label: 'RSS after initialize, the bundle alone', unit: 'MiB', better: 'lower', sdk: ['<=', 1] },
  { key: 'rssInitMiBFloorCv', others: 'rssInitMiB', label: 'RSS after initialize, reference: the floor importing class-validator', unit: 'MiB' },
  { key: 'rssInitMiBFloorCvSnapshot', others: 'rssInitMiB', label: 'RSS after initialize, reference: the same in a startup snapshot', unit: 'MiB' },
  { key: 'rssAfterMiB', label: `RSS after ${n(config.warmup + Math.min(Math.max(config.rssCalls - config.warmup, 0), config.calls))} tools/call`, unit: 'MiB', better: 'lower', sdk: ['<=', 1] },
  { key: 'callsPerSec', label: `tools/call throughput, ${config.inFlight} in flight`, unit: 'calls/s', better: 'higher', floor: ['>=', 0.6], sdk: ['>=', 2] },
  { key: 'callP50', label: `tools/call latency p50, ${config.inFlight} in flight`, unit: 'ms', better: 'lower', sdk: ['<=', 1] },
  { key: 'callP99', label: `tools/call latency p99, ${config.inFlight} in flight`, unit: 'ms', better: 'lower', sdk: ['<=', 1] },
  { key: 'cpuPerCallUs', label: 'server CPU per tools/call', unit: 'µs', better: 'lower', floor: ['<=', 2], sdk: ['<=', 1] },
  { key: 'mwCallsPerSec', others: 'callsPerSec', label: `tools/call throughput, typemcp with one empty middleware, ${config.inFlight} in flight`, unit: 'calls/s', better: 'higher', floor: ['>=', 0.8] },
  { key: 'mwCpuPerCallUs', others: 'cpuPerCallUs', label: 'server CPU per tools/call, typemcp with one empty middleware', unit: 'µs', better: 'lower', floor: ['<=', 1.3] },
  { key: 'mwCostUs', label: 'cost of one empty middleware: CPU per call with it − without', unit: 'µs' },
  { key: 'mwCostPct', label: 'cost of one empty middleware, of CPU per call without', unit: '%' },
  { key: 'seqP50', label: 'sequential tools/call latency p50', unit: 'ms', better: 'lower', sdk: ['<=', 1] },
  { key: 'seqP99', label: 'sequential tools/call latency p99', unit: 'ms', better: 'lower', sdk: ['<=', 1] },
  { key: 'invalidPerSec', label: `invalid arguments throughput, ${config.inFlight} in flight`, unit: 'calls/s', better: 'higher', floor: ['>=', 0.7], sdk: ['>=', 2] },
  { key: 'invalidCpuPerCallUs', label: 'server CPU per invalid call', unit: 'µs', better: 'lower', sdk: ['<=', 1] },
  { key: 'listFirstMs', label: `tools/list (${n(config.listTools + 1)} tools): first page`, unit: 'ms', better: 'lower', sdk: ['<=', 1] },
  { key: 'listFirstKiB', label: `tools/list (${n(config.listTools + 1)} tools): first page size`, unit: 'KiB' },
  { key: 'listWalkMs', label: `tools/list (${n(config.listTools + 1)} tools): full walk`, unit: 'ms', better: 'lower', sdk: ['<=', 1] },
  { key: 'listWalkKiB', label: `tools/list (${n(config.listTools + 1)} tools): full walk size`, unit: 'KiB' },
  { key: 'listPages', label: `tools/list (${n(config.listTools + 1)} tools): pages`, unit: '' },
  { key: 'httpPerSec', label: `Streamable HTTP stateless, ${config.httpClients} clients`, unit: 'req/s', better: 'higher', floor: ['>=', 0.5], sdk: ['>=', 2] },
  { key: 'httpP50', label: 'Streamable HTTP latency p50', unit: 'ms', better: 'lower', sdk: ['<=', 1] },
  { key: 'httpP99', label: 'Streamable HTTP latency p99', unit: 'ms', better: 'lower', sdk: ['<=', 1] },
  { key: 'httpCpuPerReqUs', label: 'server CPU per HTTP request', unit: 'µs', better: 'lower', sdk: ['<=', 1] },
  { key: 'httpRssMiB', label: 'RSS at the end of the Streamable HTTP phase', unit: 'MiB', better: 'lower', floor: ['<=', 1.5] },
  { key: 'modernPerSec', label: `2026-07-28 stateless tools/call over HTTP, ${config.httpClients} clients`, unit: 'req/s', better: 'higher', floor: ['>=', 0.5] },
  { key: 'modernP50', label: '2026-07-28 tools/call latency p50', unit: 'ms', better: 'lower' },
  { key: 'modernP99', label: '2026-07-28 tools/call latency p99', unit: 'ms', better: 'lower' },
  { key: 'modernCpuPerReqUs', label: 'server CPU per 2026-07-28 request', unit: 'µs', better: 'lower' },
  { key: 'mrtrPerSec', label: `2026-07-28 MRTR rounds (input_required, retry), ${config.httpClients} clients`, unit: 'rounds/s', better: 'higher' },
  { key: 'mrtrP50', label: 'MRTR round latency p50', unit: 'ms', better: 'lower' },
  { key: 'mrtrCpuPerRoundUs', label: 'server CPU per MRTR round', unit: 'µs', better: 'lower' },
  { key: 'fanoutMs', label: `subscriptions/listen fan-out: touch → last of ${n(config.listeners)} listeners notified`, unit: 'ms', better: 'lower' },
  { key: 'listenRssMiB', label: `RSS with ${n(config.listeners)} listen streams open`, unit: 'MiB', better: 'lower' },
];

function summarize(rounds) {
  const value = (round, variant, key) => round[variant]?.[key];
  return FIGURES.map((figure) => {
    const otherKey = figure.others ?? figure.key;
    const medians = {};
    for (const v of VARIANTS) medians[v.key] = median(rounds.map((r) => value(r, v.key, v.key === 'typemcp' ? figure.key : otherKey)));
    const ratio = (other) =>
      median(
        rounds.map((r) => {
          const a = value(r, 'typemcp', figure.key);
          const b = value(r, other, otherKey);
          return a !== undefined && b ? a / b : NaN;
        }),
      );
    const ratios = { floor: ratio('floor'), sdk: ratio('sdk') };
    const checks = [];
    for (const other of ['floor', 'sdk']) {
      const target = figure[other];
      if (!target || !Number.isFinite(ratios[other])) continue;
      const [op, limit] = target;
      checks.push({ against: other, op, limit, ratio: ratios[other], met: op === '>=' ? ratios[other] >= limit : ratios[other] <= limit });
    }
    const target = checks.map((c) => `${c.op === '>=' ? '≥' : '≤'}${c.limit}× ${c.against}`).join(', ');
    const met = checks.length === 0 ? null : checks.every((c) => c.met);
    return { key: figure.key, label: figure.label, unit: figure.unit, better: figure.better ?? null, othersKey: otherKey, medians, ratios, target, checks, met };
  });
}


function tableRows(summary) {
  return summary.map((s) => [
    s.unit ? `${s.label} (${s.unit})` : s.label,
    format(s.medians.floor),
    format(s.medians.sdk),
    format(s.medians.typemcp),
    Number.isFinite(s.ratios.floor) ? `${s.ratios.floor.toFixed(2)}×` : '–',
    Number.isFinite(s.ratios.sdk) ? `${s.ratios.sdk.toFixed(2)}×` : '–',
    s.target || '–',
    s.met === null ? '–' : s.met ? 'yes' : 'NO',
  ]);
}

const HEADER = ['figure', 'floor', 'sdk', 'typemcp', 'typemcp/floor', 'typemcp/sdk', 'target', 'met?'];

function textTable(rows) {
  const all = [HEADER, ...rows];
  const widths = HEADER.map((_, c) => Math.max(...all.map((r) => r[c].length)));
  const line = (r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ');
  return [line(HEADER), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

function markdownTable(rows) {
  const line = (r) => `| ${r.join(' | ')} |`;
  return [line(HEADER), `| --- |${' ---: |'.repeat(HEADER.length - 3)} --- | :---: |`, ...rows.map(line)].join('\n');
}


// ---------------------------------------------------------------------------------------------

async function main() {
  for (const v of VARIANTS) {
    if (!fs.existsSync(v.script)) throw new Error(`${path.relative(ROOT, v.script)} is missing: run "npm run bench" (it builds first)`);
  }
  if (!VARIANTS.some((v) => v.key === 'typemcp')) log('note: typemcp is not among BENCH_VARIANTS; ratios will be empty');
  const startedAt = new Date();
  const t0 = performance.now();
  const loadBefore = os.loadavg();
  log(`TypeMCP bench: ${COLD_VARIANTS.map((v) => v.key).join(', ')}; ${JSON.stringify(config)}`);

  if (COLD_VARIANTS.some((v) => v.key === 'typemcp-bundle' || v.key === 'typemcp-snapshot')) buildBundle();
  if (COLD_VARIANTS.some((v) => v.key === 'floor-class-validator-snapshot')) buildFloorSnapshot();
  for (const v of COLD_VARIANTS) await verify(v);
  log('verified: every variant answers tools/call (valid and invalid) over stdio and HTTP (the bundle: stdio), and the 2026-07-28 calls, MRTR and listen');

  const typemcp = VARIANTS.find((v) => v.key === 'typemcp');
  const rounds = [];
  for (let r = 0; r < config.rounds; r++) {
    const order = orderFor(r);
    const coldOrder = orderFor(r, COLD_VARIANTS);
    const modernOrder = order.filter((v) => v.modern);
    const round = Object.fromEntries(coldOrder.map((v) => [v.key, { coldSamples: [], rssInitSamples: [] }]));
    const seconds = {};
    const roundStart = performance.now();
    let phaseStart = roundStart;
    const phaseEnd = (name) => {
      const now = performance.now();
      seconds[name] = round2((now - phaseStart) / 1000);
      phaseStart = now;
    };
    const sample = (v, s) => {
      round[v.key].coldSamples.push(s.coldMs);
      round[v.key].rssInitSamples.push(s.rssInitMiB);
    };

    // The bundle's first cold start takes its turn among the stdio sessions' cold starts.
    for (const v of coldOrder) {
      if (v.coldOnly) {
        sample(v, await coldStart(v));
        continue;
      }
      const s = await stdioSession(v);
      Object.assign(round[v.key], s);
      sample(v, s);
      if (v === typemcp) Object.assign(round[v.key], await middlewareSession(v));
    }
    phaseEnd('stdio');
    for (let k = 0; k < config.coldStarts; k++) {
      for (const v of coldOrder) sample(v, await coldStart(v));
    }
    phaseEnd('cold');
    if (config.listTools > 0) for (const v of order) Object.assign(round[v.key], await listSession(v));
    phaseEnd('list');
    for (const v of order) Object.assign(round[v.key], await httpSession(v));
    phaseEnd('http');
    if (config.httpModern > 0) for (const v of modernOrder) Object.assign(round[v.key], await modernHttpSession(v));
    phaseEnd('http2026');
    if (config.mrtr > 0) for (const v of modernOrder) Object.assign(round[v.key], await mrtrSession(v));
    phaseEnd('mrtr');
    if (config.listeners > 0) for (const v of modernOrder) Object.assign(round[v.key], await fanoutSession(v));
    phaseEnd('fanout');

    for (const v of coldOrder) {
      round[v.key].coldMs = median(round[v.key].coldSamples);
      round[v.key].rssInitMiB = median(round[v.key].rssInitSamples);
    }
    if (typemcp) {
      const t = round.typemcp;
      if (round['typemcp-bundle']) {
        t.coldMsBundle = round['typemcp-bundle'].coldMs;
        t.rssInitMiBBundle = round['typemcp-bundle'].rssInitMiB;
      }
      if (round['typemcp-snapshot']) {
        t.coldMsSnapshot = round['typemcp-snapshot'].coldMs;
        t.rssInitMiBSnapshot = round['typemcp-snapshot'].rssInitMiB;
      }
      if (round['floor-class-validator']) {
        t.coldMsFloorCv = round['floor-class-validator'].coldMs;
        t.rssInitMiBFloorCv = round['floor-class-validator'].rssInitMiB;
      }
      if (round['floor-class-validator-snapshot']) {
        t.coldMsFloorCvSnapshot = round['floor-class-validator-snapshot'].coldMs;
        t.rssInitMiBFloorCvSnapshot = round['floor-class-validator-snapshot'].rssInitMiB;
      }
      t.mwCostUs = t.mwCpuPerCallUs - t.cpuPerCallUs;
      t.mwCostPct = (100 * t.mwCostUs) / t.cpuPerCallUs;
    }
    round.seconds = seconds;
    rounds.push(round);
    const brief = order
      .map((v) => `${v.key} ${format(round[v.key].callsPerSec)} calls/s, ${format(round[v.key].httpPerSec)} req/s, cold ${format(round[v.key].coldMs)} ms`)
      .join(' | ');
    const bundle =
      (round['typemcp-bundle'] ? ` | bundle cold ${format(round['typemcp-bundle'].coldMs)} ms` : '') +
      (round['typemcp-snapshot'] ? ` | snapshot cold ${format(round['typemcp-snapshot'].coldMs)} ms` : '');
    const modernBrief = modernOrder
      .map((v) => `${v.key} ${format(round[v.key].modernPerSec)} req/s, ${format(round[v.key].mrtrPerSec)} MRTR/s, fan-out ${format(round[v.key].fanoutMs)} ms`)
      .join(' | ');
    log(`round ${r + 1}/${config.rounds} (${((performance.now() - roundStart) / 1000).toFixed(0)} s; order ${order.map((v) => v.key).join('/')}): ${brief}${bundle}`);
    if (modernBrief) log(`  2026-07-28: ${modernBrief}`);
  }

  const summary = summarize(rounds);
  const rows = tableRows(summary);
  const durationS = (performance.now() - t0) / 1000;
  const targets = summary.filter((s) => s.met !== null);
  const results = {
    startedAt: startedAt.toISOString(),
    durationSeconds: Math.round(durationS),
    command: 'npm run bench',
    config,
    machine: { ...machine(), loadAverageBefore: loadBefore.map(round2), loadAverageAfter: os.loadavg().map(round2) },
    notes: [
      'Figures are medians over rounds; ratios are medians of per-round ratios (typemcp ÷ other).',
      'Variants alternate within every phase and their order rotates each round.',
      'CPU is the server process\'s on-CPU time over the phase, all threads: /proc/<pid>/task/*/schedstat (ns) where available, else utime+stime of /proc/<pid>/stat. RSS is VmRSS from /proc/<pid>/status.',
      'The SDK does not paginate tools/list: its "first page" is its only page.',
      'SDK HTTP: a new McpServer + StreamableHTTPServerTransport per request (sessionIdGenerator undefined, enableJsonResponse true), as in its stateless example.',
      `Servers start without ${MACHINE_SETTINGS.join(' and ')} from the bench's environment (set here: ${MACHINE_SETTINGS.filter((name) => process.env[name] !== undefined).join(', ') || 'none'}): NODE_EXTRA_CA_CERTS makes Node 20 read a certificate bundle at every start, a constant that would hide the differences between cold starts.`,
      'The floor batches its stdio writes per chunk read ("the batched floor"): every answer to one chunk of requests leaves in one write.',
      'Production build: bench/dist/typemcp.js built by `typemcp build --no-tsc --snapshot` into one CommonJS file (esbuild) and a V8 startup snapshot beside it. Cold start is spawn → initialize response of `node --snapshot-blob typemcp.bundle.blob --` (production build) and of `node typemcp.bundle.js` (the bundle alone); their samples rotate with the other variants\' cold starts, and their ratios divide by the plain floor\'s and sdk\'s.',
      'Reference: the floor importing reflect-metadata and class-validator (bench/servers/floor-class-validator.js), cold starts only: the lower bound for a server whose DTOs use class-validator, unbundled. Its figures are in the typemcp column of their rows.',
      'Reference in a startup snapshot: bench/servers/floor-class-validator.js built by `typemcp build --no-tsc --snapshot` (reflect-metadata and class-validator evaluated in the snapshot, the floor at start), run as `node --snapshot-blob floor-class-validator.blob --`: the bound for a production build that holds class-validator.',
      'One empty middleware: TypeMCP with server.use(async (ctx, next) => next()), tools/call over stdio measured as in the plain session, right after it; its ratios divide by the plain floor\'s and sdk\'s (they have no middleware). Its cost is CPU per call with it minus without, same round.',
      'RSS at the end of the Streamable HTTP phase: VmRSS of the server once its measured requests were answered.',
      '2026-07-28 calls: POSTs carrying _meta protocolVersion and clientCapabilities and the MCP-Protocol-Version, Mcp-Method and Mcp-Name headers, no initialize and no session; the floor checks the version, capabilities and headers too. SDK v1 does not speak 2026-07-28: its columns are empty.',
      'MRTR round: tools/call confirm → input_required with a requestState → the same call with inputResponses and that requestState → the result. The floor signs its requestState with HMAC-SHA256 (node:crypto) over the method, a params digest and an expiry, and checks it on the retry.',
      'listen fan-out: BENCH_LISTENERS subscriptions/listen streams (resourceSubscriptions bench://info), each acknowledged before measuring, on one keep-alive Agent; touch (notifyUpdated) is called, timed from sending it to the last stream receiving its notifications/resources/updated, median of BENCH_FANOUTS. The driver reads all streams in one process, so its own time is part of the figure for both variants. RSS is read once every stream is acknowledged.',
    ],
    summary,
    rounds,
  };
  const out = path.resolve(process.env.BENCH_OUT || path.join(__dirname, 'results', 'latest.json'));
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify(results, null, 2) + '\n');
  const md = out.replace(/\.json$/, '') + '.md';
  fs.writeFileSync(md, `${markdownTable(rows)}\n`);

  process.stdout.write(`\n${textTable(rows)}\n\n`);
  process.stdout.write(`targets met: ${targets.filter((s) => s.met).length}/${targets.length}`);
  const missed = targets.filter((s) => !s.met);
  if (missed.length) process.stdout.write(`; missed: ${missed.map((s) => s.key).join(', ')}`);
  process.stdout.write(`\n${config.rounds} rounds in ${durationS.toFixed(0)} s on ${results.machine.nproc} × ${results.machine.cpuModel}, Node ${process.version}\n`);
  process.stdout.write(`results: ${path.relative(process.cwd(), out)} and ${path.relative(process.cwd(), md)}\n`);
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    stopAll();
    process.exit(130);
  });
}

main().then(
  () => stopAll(),
  (error) => {
    stopAll();
    log(`bench failed: ${error instanceof Error ? error.stack : error}`);
    process.exitCode = 1;
  },
);
