'use strict';
/**
 * The cost of sign-in on the MCP path: server CPU per tools/call of one `echo` tool over
 * Streamable HTTP, stateless (handshake-era POSTs, as run.js's HTTP phase), from a server
 * without authentication and from the same server behind the `signIn` plugin with the tool
 * under @Scopes (bench/servers/signin.ts), each in its own process on 127.0.0.1. The signed-in
 * server's token comes from that server by the real flow over HTTP: Dynamic Client
 * Registration (public client), authorization with PKCE through the development login (the
 * login form, its cookie, the consent form approved), the code exchanged at /oauth/token;
 * every call then carries `Authorization: Bearer`. Both servers run in every round, a fresh
 * process each, their order alternating; CPU is read from /proc around the measured requests
 * only. Each figure is the median over rounds, the ratio the median of the per-round ratios.
 *
 * A check, not just a number: exits 1 when the median ratio (signed-in / open) is above
 * SIGNIN_MAX_RATIO (1.3).
 *
 *   npm run bench:signin          builds, then runs this
 *   node bench/signin.js          on what is built (bench/dist, packages/*\/dist)
 *   BENCH_QUICK=1 node bench/signin.js    a smoke run: 2 rounds of 2,000 requests after 500
 *
 * Environment (defaults in parentheses; BENCH_QUICK lowers the defaults, not explicit values):
 *   BENCH_ROUNDS (7)          rounds; each measures both servers
 *   BENCH_HTTP (10000)        measured tools/call POSTs per server per round
 *   BENCH_HTTP_WARMUP (3000)  unmeasured POSTs before them
 *   BENCH_HTTP_CLIENTS (32)   concurrent keep-alive clients
 *   BENCH_SIGNIN_2026 (0)     1: 2026-07-28 POSTs (no session, `_meta` in every call) instead
 *   SIGNIN_MAX_RATIO (1.3)    the largest median ratio that passes
 *   BENCH_OUT                 results file (bench/results/signin.json)
 */
const fs = require('node:fs');
const path = require('node:path');
const { createHash, randomBytes } = require('node:crypto');
const { median, percentile, format } = require('./lib/stats');
const { cpuMs, machine } = require('./lib/proc');
const { startServer, stopServer, stopAll, listeningPort } = require('./lib/server');
const { isSuccess } = require('./lib/stdio');
const httpLoad = require('./lib/http');
const modern = require('./lib/modern');

const { number, load, summary } = require('./lib/ratioBench');
const { rounds: ROUNDS, requests: REQUESTS, warmup: WARMUP, clients: CLIENTS } = load;
const MAX_RATIO = number('SIGNIN_MAX_RATIO', 1.3, { integer: false });
const MODERN = process.env.BENCH_SIGNIN_2026 === '1';
const OUT = path.resolve(process.env.BENCH_OUT || path.join(__dirname, 'results', 'signin.json'));
const SCRIPT = path.join(__dirname, 'dist', 'signin.js');
const TIMEOUT_MS = 300_000;
const REDIRECT_URI = 'http://127.0.0.1:9/callback';

const VARIANTS = {
  open: { key: 'open', script: SCRIPT },
  signin: { key: 'signin', script: SCRIPT, args: [SCRIPT, '--signin'] },
};

const log = (text) => process.stderr.write(`${text}\n`);

/** A response that is not what the flow expects ends the bench with what the server said. */
async function expectStatus(response, status, step) {
  if (response.status !== status) throw new Error(`${step}: HTTP ${response.status}, expected ${status}: ${(await response.text()).slice(0, 500)}`);
  return response;
}

/**
 * An access token from the server at `origin`, by the flow a real client and browser go
 * through: metadata, DCR, the authorization request with PKCE S256, the development login
 * (cookie kept), the consent form approved from the server's own origin, the code exchange
 * (with a DPoP proof from `dpop(tokenEndpoint)` when given: the token is then bound to its key).
 */
async function obtainToken(origin, resource, { dpop } = {}) {
  const meta = await (await expectStatus(await fetch(`${origin}/.well-known/oauth-authorization-server`), 200, 'metadata')).json();
  const registered = await (
    await expectStatus(
      await fetch(meta.registration_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none', client_name: 'typemcp-bench' }),
      }),
      201,
      'registration',
    )
  ).json();
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const state = randomBytes(8).toString('hex');
  const authorizeUrl = `${meta.authorization_endpoint}?${new URLSearchParams({
    response_type: 'code',
    client_id: registered.client_id,
    redirect_uri: REDIRECT_URI,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    scope: 'bench:echo',
    state,
    resource,
  })}`;
  const formPost = (url, form, cookie) =>
    fetch(url, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin, ...(cookie ? { cookie } : {}) },
      body: new URLSearchParams(form).toString(),
    });

  const login = await expectStatus(await formPost(authorizeUrl, { username: 'bench', password: 'bench' }), 303, 'login');
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
  if (!cookie.includes('=')) throw new Error('login: no session cookie');
  const consentPage = await (await expectStatus(await fetch(login.headers.get('location'), { redirect: 'manual', headers: { cookie } }), 200, 'consent page')).text();
  // The page escapes every attribute value as &#NN;.
  const unescape = (text) => text?.replace(/&#(\d+);/g, (_, code) => String.fromCharCode(Number(code)));
  const hidden = (name) => unescape(new RegExp(`name="${name}" value="([^"]*)"`).exec(consentPage)?.[1]);
  const action = unescape(/<form method="post" action="([^"]*)"/.exec(consentPage)?.[1]);
  const request = hidden('request');
  const csrf = hidden('csrf');
  if (action === undefined || request === undefined || csrf === undefined) throw new Error(`consent page: no form with request/csrf fields in ${consentPage.slice(0, 500)}`);
  const approved = await expectStatus(await formPost(action, { request, csrf, decision: 'approve' }, cookie), 303, 'consent');
  const back = new URL(approved.headers.get('location'));
  if (back.searchParams.get('state') !== state || !back.searchParams.get('code')) throw new Error(`consent: redirected to ${back.href}`);

  const tokens = await (
    await expectStatus(
      await fetch(meta.token_endpoint, {
        method: 'POST',
        // With `dpop` (url => proof), the token request carries a DPoP proof: the token comes back bound to its key.
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...(dpop ? { dpop: await dpop(meta.token_endpoint) } : {}) },
        body: new URLSearchParams({ grant_type: 'authorization_code', code: back.searchParams.get('code'), redirect_uri: REDIRECT_URI, code_verifier: verifier, client_id: registered.client_id, resource }),
      }),
      200,
      'token',
    )
  ).json();
  if (typeof tokens.access_token !== 'string' || !String(tokens.scope).split(' ').includes('bench:echo')) throw new Error(`token: ${JSON.stringify(tokens).slice(0, 500)}`);
  return tokens.access_token;
}

/** The load of either protocol revision, with `authorization` added when given. */
function workload(authorization) {
  const extra = authorization === undefined ? {} : { authorization };
  return MODERN
    ? { bodyFor: modern.echoBody, headers: { ...modern.echoHeaders, ...extra }, check: modern.isComplete }
    : { bodyFor: httpLoad.echoBody, headers: extra, check: isSuccess };
}

/** One process of `variant`: its token if signed in, warmup, then the measured requests with its CPU. */
async function session(variant) {
  const server = startServer(variant, { http: true });
  try {
    const port = await listeningPort(server);
    const origin = `http://127.0.0.1:${port}`;
    let authorization;
    if (variant.key === 'signin') {
      authorization = `Bearer ${await obtainToken(origin, `${origin}/mcp`)}`;
      // Without the token the call must be refused, or the bench measures no authentication at all.
      const refused = await httpLoad.load({ port, clients: 1, count: 1, ...workload(undefined), timeoutMs: 20_000 });
      if (refused.bad !== 1 || !String(refused.badSample).startsWith('401 ')) throw new Error(`signin: a call without a token was not refused with 401 (${refused.badSample ?? 'it succeeded'})`);
    }
    const common = { port, clients: CLIENTS, ...workload(authorization), timeoutMs: TIMEOUT_MS };
    const run = async (count, what) => {
      const outcome = await httpLoad.load({ ...common, count });
      if (outcome.bad > 0) throw new Error(`${variant.key} ${what}: ${outcome.bad} of ${count} requests failed, e.g. ${outcome.badSample}`);
      return outcome;
    };
    await run(WARMUP, 'warmup');
    const cpu0 = cpuMs(server.pid);
    const measured = await run(REQUESTS, 'measured');
    const cpu = cpuMs(server.pid) - cpu0;
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


async function main() {
  if (!fs.existsSync(SCRIPT)) throw new Error(`${path.relative(process.cwd(), SCRIPT)} is missing: npm run build && npx tsc -p bench/tsconfig.json`);
  const protocol = MODERN ? '2026-07-28 POSTs' : 'stateless handshake-era POSTs';
  log(`sign-in bench: ${ROUNDS} rounds × ${REQUESTS} tools/call (after ${WARMUP}) from ${CLIENTS} clients, ${protocol}`);
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? ['open', 'signin'] : ['signin', 'open'];
    const round = {};
    for (const key of order) round[key] = await session(VARIANTS[key]);
    round.ratio = round.signin.cpuPerReqUs / round.open.cpuPerReqUs;
    rounds.push(round);
    log(`round ${r + 1}/${ROUNDS}: open ${format(round.open.cpuPerReqUs)} µs, signed in ${format(round.signin.cpuPerReqUs)} µs, ×${round.ratio.toFixed(3)}`);
  }
  const open = summary(rounds, 'open');
  const signin = summary(rounds, 'signin');
  const ratio = median(rounds.map((r) => r.ratio));
  const passed = ratio <= MAX_RATIO;

  const rows = [
    ['', 'CPU µs/req', 'req/s', 'p50 ms', 'p99 ms'],
    ['no auth', format(open.cpuPerReqUs), format(open.reqPerSec), format(open.p50Ms), format(open.p99Ms)],
    ['signIn + @Scopes', format(signin.cpuPerReqUs), format(signin.reqPerSec), format(signin.p50Ms), format(signin.p99Ms)],
    ['ratio', `×${ratio.toFixed(3)}`, `×${(signin.reqPerSec / open.reqPerSec).toFixed(3)}`, '', ''],
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  process.stdout.write(`${rows.map((row) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ')).join('\n')}\n`);
  process.stdout.write(`server CPU per tools/call with a signIn token: ×${ratio.toFixed(3)} of no auth (target ≤ ×${MAX_RATIO}) — ${passed ? 'met' : 'MISSED'}\n`);

  const result = {
    date: new Date().toISOString(),
    machine: machine(),
    config: { rounds: ROUNDS, requests: REQUESTS, warmup: WARMUP, clients: CLIENTS, protocol, maxRatio: MAX_RATIO, quick: load.quick },
    open,
    signin,
    ratio,
    ratioOfMedians: signin.cpuPerReqUs / open.cpuPerReqUs,
    ratios: rounds.map((r) => Number(r.ratio.toFixed(3))),
    passed,
    rounds,
  };
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  fs.writeFileSync(OUT, `${JSON.stringify(result, null, 2)}\n`);
  log(`wrote ${path.relative(process.cwd(), OUT)}`);
  if (!passed) process.exitCode = 1;
}

// Required (for a profile of the signed-in server), it runs nothing and lends its token flow.
if (require.main === module) {
  main()
    .catch((error) => {
      process.stderr.write(`${error.stack ?? error}\n`);
      process.exitCode = 1;
    })
    .finally(() => stopAll());
}

module.exports = { obtainToken };
