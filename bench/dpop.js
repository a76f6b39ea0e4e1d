'use strict';
/**
 * The cost of DPoP (RFC 9449) on the MCP path: server CPU per tools/call of one `echo` tool
 * over Streamable HTTP, stateless, from the server behind the `signIn` plugin
 * (bench/servers/signin.ts --signin), once with a bearer token and once with a DPoP-bound
 * token, each call then carrying `Authorization: DPoP` and a fresh proof (its own jti, htm,
 * htu, iat and ath) that the server verifies: signature, claims, replay cache, binding. Both
 * tokens come from the server by the real flow (bench/signin.js's obtainToken); the DPoP one's
 * code exchange carries a proof, so the token is bound (`cnf.jkt`). Both variants run in every
 * round, a fresh process each, their order alternating; the proofs of a phase are signed before
 * it starts, so the client's signing is not in the measured time; CPU is read from /proc around
 * the measured requests only. Each figure is the median over rounds, the ratio the median of
 * the per-round ratios.
 *
 * A check, not just a number: exits 1 when the median ratio (DPoP / bearer) is above
 * DPOP_MAX_RATIO (1.5).
 *
 *   npm run build && npx tsc -p bench/tsconfig.json && node bench/dpop.js
 *   BENCH_QUICK=1 node bench/dpop.js    a smoke run: 2 rounds of 2,000 requests after 500
 *
 * Environment (defaults in parentheses; BENCH_QUICK lowers the defaults, not explicit values):
 *   BENCH_ROUNDS (7)          rounds; each measures both variants
 *   BENCH_HTTP (10000)        measured tools/call POSTs per variant per round
 *   BENCH_HTTP_WARMUP (3000)  unmeasured POSTs before them
 *   BENCH_HTTP_CLIENTS (32)   concurrent keep-alive clients
 *   DPOP_MAX_RATIO (1.5)      the largest median ratio that passes
 *   BENCH_OUT                 results file (bench/results/dpop.json)
 */
const fs = require('node:fs');
const path = require('node:path');
const { createHash, generateKeyPairSync, randomBytes, sign, verify } = require('node:crypto');
const { median, percentile, format } = require('./lib/stats');
const { cpuMs, machine } = require('./lib/proc');
const { startServer, stopServer, stopAll, listeningPort } = require('./lib/server');
const { isSuccess } = require('./lib/stdio');
const httpLoad = require('./lib/http');
const { obtainToken } = require('./signin');

const { number, load: loadSettings, summary } = require('./lib/ratioBench');
const { rounds: ROUNDS, requests: REQUESTS, warmup: WARMUP, clients: CLIENTS } = loadSettings;
const MAX_RATIO = number('DPOP_MAX_RATIO', 1.5, { integer: false });
const OUT = path.resolve(process.env.BENCH_OUT || path.join(__dirname, 'results', 'dpop.json'));
const SCRIPT = path.join(__dirname, 'dist', 'signin.js');
const TIMEOUT_MS = 300_000;
const SERVER = { key: 'signin', script: SCRIPT, args: [SCRIPT, '--signin'] };

const log = (text) => process.stderr.write(`${text}\n`);

/** The client's DPoP key, and proofs signed with it (jose, as clients do). */
async function dpopClient() {
  const jose = await import('jose');
  const { privateKey, publicKey } = await jose.generateKeyPair('ES256');
  const jwk = await jose.exportJWK(publicKey);
  const sign = (htm, htu, token) => {
    const claims = { jti: randomBytes(16).toString('base64url'), htm, htu, iat: Math.floor(Date.now() / 1000) };
    if (token !== undefined) claims.ath = createHash('sha256').update(token).digest('base64url');
    return new jose.SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk }).sign(privateKey);
  };
  return { sign };
}

/** `count` POSTs from `clients` loops, each with its own headers (`headersFor(n)`, n from 1). */
function load({ port, count, headersFor }) {
  return httpLoad.concurrently({
    clients: CLIENTS,
    count,
    timeoutMs: TIMEOUT_MS,
    what: 'HTTP load',
    operation: async (agent, n) => {
      const { status, text } = await httpLoad.post(agent, port, httpLoad.echoBody(n), headersFor(n));
      return status === 200 && isSuccess(text) ? undefined : `${status} ${text.slice(0, 300)}`;
    },
  });
}

/** One server process: its token (bound with `dpop`), warmup, then the measured requests with its CPU. */
async function session(kind) {
  const server = startServer(SERVER, { http: true });
  try {
    const port = await listeningPort(server);
    const origin = `http://127.0.0.1:${port}`;
    const resource = `${origin}/mcp`;
    const client = kind === 'dpop' ? await dpopClient() : undefined;
    const token = await obtainToken(origin, resource, client ? { dpop: (url) => client.sign('POST', url) } : {});
    // Every request of a phase gets its headers before the phase starts: the signing is the client's cost, not the server's.
    const headersOf = async (count) => {
      if (client === undefined) {
        const headers = { authorization: `Bearer ${token}` };
        return () => headers;
      }
      const proofs = await Promise.all(Array.from({ length: count }, () => client.sign('POST', resource, token)));
      return (n) => ({ authorization: `DPoP ${token}`, dpop: proofs[(n - 1) % count] });
    };
    if (client) {
      // The token must be worthless without a proof, or the bench measures no binding at all.
      const refused = await load({ port, count: 1, headersFor: () => ({ authorization: `Bearer ${token}` }) });
      if (refused.bad !== 1 || !String(refused.badSample).startsWith('401 ')) throw new Error(`dpop: the bound token was accepted as a bearer token (${refused.badSample ?? 'it succeeded'})`);
    }
    const run = async (count, what) => {
      const outcome = await load({ port, count, headersFor: await headersOf(count) });
      if (outcome.bad > 0) throw new Error(`${kind} ${what}: ${outcome.bad} of ${count} requests failed, e.g. ${outcome.badSample}`);
      return outcome;
    };
    await run(WARMUP, 'warmup');
    const headersFor = await headersOf(REQUESTS);
    const cpu0 = cpuMs(server.pid);
    const measured = await load({ port, count: REQUESTS, headersFor });
    const cpu = cpuMs(server.pid) - cpu0;
    if (measured.bad > 0) throw new Error(`${kind} measured: ${measured.bad} of ${REQUESTS} requests failed, e.g. ${measured.badSample}`);
    return {
      cpuPerReqUs: (cpu * 1000) / REQUESTS,
      reqPerSec: (REQUESTS * 1000) / measured.ms,
      p50Ms: percentile(measured.latencies, 50),
      p99Ms: percentile(measured.latencies, 99),
    };
  } finally {
    await stopServer(server);
  }
}

/**
 * CPU µs of one ES256 signature check by node:crypto, synchronous, in this process: what a
 * DPoP request costs at the very least, whatever checks it (jose goes through Web Crypto,
 * which costs more). With the bearer request's CPU it gives the lowest ratio reachable here.
 */
function signatureCheckUs() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const data = Buffer.from('x'.repeat(400));
  const signature = sign('sha256', data, { key: privateKey, dsaEncoding: 'ieee-p1363' });
  const check = () => verify('sha256', data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature);
  for (let i = 0; i < 200; i++) check();
  const count = 2000;
  const before = process.cpuUsage();
  for (let i = 0; i < count; i++) check();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}


async function main() {
  if (!fs.existsSync(SCRIPT)) throw new Error(`${path.relative(process.cwd(), SCRIPT)} is missing: npm run build && npx tsc -p bench/tsconfig.json`);
  log(`DPoP bench: ${ROUNDS} rounds × ${REQUESTS} tools/call (after ${WARMUP}) from ${CLIENTS} clients, stateless handshake-era POSTs, behind signIn`);
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? ['bearer', 'dpop'] : ['dpop', 'bearer'];
    const round = {};
    for (const key of order) round[key] = await session(key);
    round.ratio = round.dpop.cpuPerReqUs / round.bearer.cpuPerReqUs;
    rounds.push(round);
    log(`round ${r + 1}/${ROUNDS}: bearer ${format(round.bearer.cpuPerReqUs)} µs, DPoP ${format(round.dpop.cpuPerReqUs)} µs, ×${round.ratio.toFixed(3)}`);
  }
  const bearer = summary(rounds, 'bearer');
  const dpop = summary(rounds, 'dpop');
  const ratio = median(rounds.map((r) => r.ratio));
  const passed = ratio <= MAX_RATIO;
  const checkUs = signatureCheckUs();
  const floor = 1 + checkUs / bearer.cpuPerReqUs;

  const rows = [
    ['', 'CPU µs/req', 'req/s', 'p50 ms', 'p99 ms'],
    ['bearer token', format(bearer.cpuPerReqUs), format(bearer.reqPerSec), format(bearer.p50Ms), format(bearer.p99Ms)],
    ['DPoP + proof', format(dpop.cpuPerReqUs), format(dpop.reqPerSec), format(dpop.p50Ms), format(dpop.p99Ms)],
    ['ratio', `×${ratio.toFixed(3)}`, `×${(dpop.reqPerSec / bearer.reqPerSec).toFixed(3)}`, '', ''],
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  process.stdout.write(`${rows.map((row) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ')).join('\n')}\n`);
  process.stdout.write(`server CPU per tools/call with DPoP: ×${ratio.toFixed(3)} of a bearer token (target ≤ ×${MAX_RATIO}) — ${passed ? 'met' : 'MISSED'}\n`);
  process.stdout.write(`one ES256 signature check (node:crypto, synchronous) costs ${format(checkUs)} µs here: no DPoP check can go below ×${floor.toFixed(3)} of this bearer request\n`);

  const result = {
    date: new Date().toISOString(),
    machine: machine(),
    config: { rounds: ROUNDS, requests: REQUESTS, warmup: WARMUP, clients: CLIENTS, maxRatio: MAX_RATIO, quick: loadSettings.quick },
    bearer,
    dpop,
    ratio,
    ratioOfMedians: dpop.cpuPerReqUs / bearer.cpuPerReqUs,
    signatureCheckUs: checkUs,
    floorRatio: floor,
    ratios: rounds.map((r) => Number(r.ratio.toFixed(3))),
    passed,
    rounds,
  };
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  fs.writeFileSync(OUT, `${JSON.stringify(result, null, 2)}\n`);
  log(`wrote ${path.relative(process.cwd(), OUT)}`);
  if (!passed) process.exitCode = 1;
}

main()
  .catch((error) => {
    process.stderr.write(`${error.stack ?? error}\n`);
    process.exitCode = 1;
  })
  .finally(() => stopAll());
