'use strict';
/**
 * Profiles one bench server under one workload with `node --cpu-prof` and prints where the
 * server's CPU goes: self time by function, by file and by package, and inclusive time. Only
 * samples taken while the measured requests were in flight count (warmup and startup are cut
 * off by timestamp), except for the `startup` workload, which is all startup.
 *
 *   node bench/profile.js [calls|invalid|middleware|http|http2026|mrtr|list|startup] [floor|sdk|typemcp]
 *
 * `middleware` is `calls` with one empty server.use middleware (TypeMCP only); `http2026` and
 * `mrtr` are the 2026-07-28 calls and MRTR rounds of run.js (floor and TypeMCP only).
 *
 * Defaults: calls, typemcp. Build first (`npm run bench` does, or `npm run build && npx tsc -p
 * bench/tsconfig.json`). Writes bench/results/profiles/<workload>-<variant>.cpuprofile (open it
 * in Chrome DevTools › Performance) and a .txt summary beside it. PROFILE_CALLS (50000) sets the
 * number of measured requests; PROFILE_TOP (25) the rows per list.
 */
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { startServer, stopServer, stopAll, listeningPort } = require('./lib/server');
const { StdioClient, callLine, isSuccess, isToolError } = require('./lib/stdio');
const httpLoad = require('./lib/http');
const modern = require('./lib/modern');

const ROOT = path.resolve(__dirname, '..');
const SCRIPTS = {
  floor: path.join(__dirname, 'servers', 'floor.js'),
  sdk: path.join(__dirname, 'servers', 'sdk.js'),
  typemcp: path.join(__dirname, 'dist', 'typemcp.js'),
};
const workload = process.argv[2] ?? 'calls';
const variantKey = process.argv[3] ?? 'typemcp';
const count = Number(process.env.PROFILE_CALLS || 50000);
const top = Number(process.env.PROFILE_TOP || 25);
const WORKLOADS = ['calls', 'invalid', 'middleware', 'http', 'http2026', 'mrtr', 'list', 'startup'];

const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

async function main() {
  if (!WORKLOADS.includes(workload)) throw new Error(`workload must be one of ${WORKLOADS.join(', ')}`);
  if (!SCRIPTS[variantKey]) throw new Error(`variant must be one of ${Object.keys(SCRIPTS).join(', ')}`);
  const variant = { key: variantKey, script: SCRIPTS[variantKey] };
  if (!fs.existsSync(variant.script)) throw new Error(`${path.relative(ROOT, variant.script)} is missing: build first`);
  const dir = path.join(__dirname, 'results', 'profiles');
  fs.mkdirSync(dir, { recursive: true });
  const scratch = fs.mkdtempSync(path.join(dir, 'tmp-'));
  const nodeArgs = ['--cpu-prof', `--cpu-prof-dir=${scratch}`, '--cpu-prof-interval', '200'];

  let window;
  if (workload === 'http' || workload === 'http2026' || workload === 'mrtr') {
    const server = startServer(variant, { http: true, nodeArgs, env: workload === 'http' ? {} : { BENCH_2026: '1' } });
    try {
      const port = await listeningPort(server);
      const common =
        workload === 'http'
          ? { port, clients: 32, bodyFor: httpLoad.echoBody, check: isSuccess, timeoutMs: 300_000 }
          : { port, clients: 32, bodyFor: modern.echoBody, headers: modern.echoHeaders, check: modern.isComplete, timeoutMs: 300_000 };
      const run = workload === 'mrtr' ? (n) => modern.mrtrLoad({ port, clients: 32, count: n, timeoutMs: 300_000 }) : (n) => httpLoad.load({ ...common, count: n });
      await run(5000);
      const from = monotonicUs();
      const result = await run(count);
      window = { from, to: monotonicUs(), requests: workload === 'mrtr' ? count * 2 : count, bad: result.bad };
    } finally {
      await stopServer(server); // SIGTERM first for an HTTP server: they exit on it, which lets --cpu-prof write
    }
  } else {
    const env = workload === 'list' ? { BENCH_TOOLS: '1000' } : workload === 'middleware' ? { BENCH_MIDDLEWARE: '1' } : {};
    const server = startServer(variant, { env, nodeArgs });
    try {
      const client = new StdioClient(server);
      await client.initialize();
      if (workload === 'startup') {
        window = undefined;
      } else if (workload === 'list') {
        const from = monotonicUs();
        let requests = 0;
        for (let walk = 0; walk < 200; walk++) {
          let cursor;
          do {
            const { line } = await client.request('tools/list', cursor === undefined ? undefined : { cursor });
            cursor = JSON.parse(line).result.nextCursor;
            requests++;
          } while (cursor !== undefined);
        }
        window = { from, to: monotonicUs(), requests, bad: 0 };
      } else {
        const lineFor = callLine(workload === 'invalid' ? '{"text":42}' : '{"text":"hello"}');
        const check = workload === 'invalid' ? isToolError : isSuccess;
        await client.run({ count: 10000, inFlight: 64, lineFor, check, timeoutMs: 300_000 });
        const from = monotonicUs();
        const result = await client.run({ count, inFlight: 64, lineFor, check, timeoutMs: 300_000 });
        window = { from, to: monotonicUs(), requests: count, bad: result.bad };
      }
    } finally {
      await stopServer(server);
    }
  }

  const produced = fs.readdirSync(scratch).filter((f) => f.endsWith('.cpuprofile'));
  if (produced.length === 0) throw new Error('the server wrote no .cpuprofile (did it exit normally?)');
  const name = `${workload}-${variantKey}`;
  const profilePath = path.join(dir, `${name}.cpuprofile`);
  fs.renameSync(path.join(scratch, produced[0]), profilePath);
  fs.rmSync(scratch, { recursive: true, force: true });

  const report = analyze(JSON.parse(fs.readFileSync(profilePath, 'utf8')), window);
  const header =
    `profile of ${variantKey} under "${workload}"` +
    (window ? ` (${window.requests} requests; ${window.bad} unexpected answers)` : ' (spawn → initialize → exit)') +
    `\nnode ${process.version}; ${path.relative(process.cwd(), profilePath)}\n`;
  let text = header + report;
  if (workload === 'startup') text += '\n' + moduleCosts(variantKey);
  fs.writeFileSync(path.join(dir, `${name}.txt`), text);
  process.stdout.write(text);
}

/** Self and inclusive time per function, file and package, from samples inside `window`. */
function analyze(profile, window) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  let t = profile.startTime;
  const self = new Map(); // node id -> µs
  let total = 0;
  const inWindow = (time) => !window || (time >= window.from && time <= window.to);
  let counted = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    if (!inWindow(t)) continue;
    const delta = profile.timeDeltas[i + 1] ?? profile.timeDeltas[i];
    self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + delta);
    total += delta;
    counted++;
  }
  if (window && counted === 0) return analyze(profile, undefined) + '\n(note: no sample fell inside the measured window; all samples were used)\n';

  const where = (frame) => {
    const url = frame.url.replace(/^file:\/\//, '');
    const rel = url.startsWith(ROOT) ? path.relative(ROOT, url) : url;
    return rel ? `${rel}:${frame.lineNumber + 1}` : '';
  };
  const packageOf = (frame) => {
    const url = frame.url.replace(/^file:\/\//, '');
    if (!url) return frame.functionName.startsWith('(') ? frame.functionName : '(native/V8 builtins)';
    if (url.startsWith('node:')) return 'node: internals';
    const rel = url.startsWith(ROOT) ? path.relative(ROOT, url) : url;
    const nm = rel.lastIndexOf('node_modules/');
    if (nm !== -1) {
      const rest = rel.slice(nm + 'node_modules/'.length).split('/');
      return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
    }
    const core = /^packages\/core\/dist\/([^/]+)\//.exec(rel);
    if (core) return `@typemcp/core ${core[1]}/`;
    return rel.split('/').slice(0, 2).join('/');
  };
  const fnKey = (frame) => `${frame.functionName || '(anonymous)'}  ${where(frame)}`;

  const add = (map, key, us) => map.set(key, (map.get(key) ?? 0) + us);
  const selfByFn = new Map();
  const selfByFile = new Map();
  const selfByPackage = new Map();
  let idle = 0;
  for (const [id, us] of self) {
    const frame = byId.get(id).callFrame;
    if (frame.functionName === '(idle)') idle += us;
    add(selfByFn, fnKey(frame), us);
    add(selfByFile, where(frame).replace(/:\d+$/, '') || frame.functionName || '(native)', us);
    add(selfByPackage, packageOf(frame), us);
  }
  // Inclusive: each function once per sample stack.
  const inclusive = new Map();
  for (const [id, us] of self) {
    const seen = new Set();
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const frame = byId.get(cur).callFrame;
      if (frame.functionName === '(root)') continue;
      const key = fnKey(frame);
      if (seen.has(key)) continue;
      seen.add(key);
      add(inclusive, key, us);
    }
  }

  const busy = total - idle;
  const pct = (us) => `${((100 * us) / busy).toFixed(1).padStart(5)}%`;
  const ms = (us) => `${(us / 1000).toFixed(1).padStart(8)} ms`;
  const list = (title, map, n, skip = () => false) => {
    const rows = [...map].filter(([k]) => !skip(k)).sort((a, b) => b[1] - a[1]).slice(0, n);
    return `\n${title}\n` + rows.map(([k, us]) => `${pct(us)} ${ms(us)}  ${k}`).join('\n') + '\n';
  };
  let out = `sampled ${(total / 1000).toFixed(0)} ms of the main thread, of which not idle ${(busy / 1000).toFixed(0)} ms; percentages are of the not-idle time\n`;
  if (window && window.requests) out += `not-idle main-thread time per request: ${(busy / window.requests).toFixed(1)} µs (wall-clock samples: a thread preempted in a syscall counts too)\n`;
  out += list('self time by package / folder', selfByPackage, top, (k) => k === '(idle)');
  out += list('self time by function', selfByFn, top, (k) => k.startsWith('(idle)'));
  out += list('self time by file', selfByFile, 15, (k) => k === '(idle)');
  out += list('inclusive time by function', inclusive, top, (k) => k.startsWith('(idle)') || k.startsWith('(program)'));
  return out;
}

/** Load time and RSS added by each module TypeMCP (or the SDK) requires, in a fresh process. */
function moduleCosts(key) {
  const modules =
    key === 'typemcp'
      ? ['reflect-metadata', 'tsyringe', 'class-transformer', 'class-validator', 'ajv/dist/2020', 'ajv-formats', '@typemcp/core']
      : key === 'sdk'
        ? ['zod', '@modelcontextprotocol/sdk/server/mcp.js', '@modelcontextprotocol/sdk/server/stdio.js']
        : [];
  if (modules.length === 0) return '';
  const script = `
    const { performance } = require('node:perf_hooks');
    const rss = () => process.memoryUsage().rss / 1048576;
    const rows = [];
    let before = rss();
    rows.push(['node itself (at script start)', performance.now(), before]);
    for (const m of ${JSON.stringify(modules)}) {
      const t = performance.now();
      require(m);
      const now = rss();
      rows.push([m, performance.now() - t, now - before]);
      before = now;
    }
    process.stdout.write(JSON.stringify(rows));`;
  const rows = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: __dirname, encoding: 'utf8', timeout: 30_000 }));
  return (
    'module load cost, required one after another in a fresh process (ms to require, RSS added):\n' +
    rows.map(([m, t, r]) => `${t.toFixed(1).padStart(8)} ms ${r.toFixed(1).padStart(7)} MiB  ${m}`).join('\n') +
    '\n'
  );
}

main().catch((error) => {
  stopAll();
  process.stderr.write(`profile failed: ${error instanceof Error ? error.stack : error}\n`);
  process.exitCode = 1;
});
