'use strict';
/**
 * A/B: this checkout against another built checkout of TypeMCP (a baseline: main, a release),
 * measured in the same run. Each pair runs `bench/run.js` of both checkouts for one round,
 * back to back, the order alternating from pair to pair; every figure is the median over the
 * pairs, and each side is also divided by its own floor of the same round, so a change shows
 * against what the machine could do at that moment.
 *
 *   node bench/compare.js /path/to/baseline        (both checkouts built: npm run build and
 *                                                   tsc -p bench/tsconfig.json in each)
 *
 * Environment: BENCH_AB_PAIRS (3) pairs; BENCH_VARIANTS (floor,typemcp); every other BENCH_*
 * setting is passed on to both runs (see bench/run.js). BENCH_AB_OUT: the results file
 * (bench/results/compare.json; a .md table is written beside it).
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { format, median } = require('./lib/stats');
const { machine } = require('./lib/proc');

const ROOT = path.resolve(__dirname, '..');
const baselineRoot = process.argv[2] && path.resolve(process.argv[2]);
if (!baselineRoot || !fs.existsSync(path.join(baselineRoot, 'bench', 'run.js'))) {
  process.stderr.write('usage: node bench/compare.js <baseline checkout> (with bench/run.js, built)\n');
  process.exit(2);
}
const pairs = Math.max(1, Number(process.env.BENCH_AB_PAIRS ?? 3));
const out = path.resolve(process.env.BENCH_AB_OUT || path.join(__dirname, 'results', 'compare.json'));
const sides = [
  { key: 'baseline', root: baselineRoot },
  { key: 'branch', root: ROOT },
];

/** One round of one checkout's bench: its round figures (floor and typemcp) and its figure list. */
function runOnce(side, pair) {
  const file = path.join(os.tmpdir(), `typemcp-compare-${process.pid}-${side.key}-${pair}.json`);
  const env = { ...process.env, BENCH_ROUNDS: '1', BENCH_VARIANTS: process.env.BENCH_VARIANTS || 'floor,typemcp', BENCH_OUT: file };
  process.stderr.write(`[compare] pair ${pair + 1}/${pairs}: ${side.key} (${side.root})\n`);
  const run = spawnSync(process.execPath, [path.join(side.root, 'bench', 'run.js')], { cwd: side.root, env, stdio: ['ignore', 'ignore', 'inherit'] });
  if (run.status !== 0) throw new Error(`bench/run.js of ${side.key} failed (${run.status ?? run.error?.message})`);
  const results = JSON.parse(fs.readFileSync(file, 'utf8'));
  fs.rmSync(file, { force: true });
  fs.rmSync(file.replace(/\.json$/, '.md'), { force: true });
  return results;
}

const ratioText = (x) => (Number.isFinite(x) ? `${x.toFixed(2)}×` : '–');

function main() {
  const started = Date.now();
  const runs = { baseline: [], branch: [] };
  let figures = [];
  for (let pair = 0; pair < pairs; pair++) {
    const order = pair % 2 === 0 ? sides : [...sides].reverse();
    for (const side of order) {
      const results = runOnce(side, pair);
      runs[side.key].push(results.rounds[0]);
      // The branch's figure list names the rows; a figure the baseline lacks stays empty there.
      if (side.key === 'branch') figures = results.summary.map(({ key, label, unit, better, othersKey }) => ({ key, label, unit, better, othersKey }));
    }
  }
  const rows = figures.map((figure) => {
    const value = (round, variant) => round?.[variant]?.[variant === 'typemcp' ? figure.key : figure.othersKey];
    const of = (side) => median(runs[side].map((round) => value(round, 'typemcp')));
    const toFloor = (side) => median(runs[side].map((round) => value(round, 'typemcp') / value(round, 'floor')));
    const change = median(runs.branch.map((round, i) => value(round, 'typemcp') / value(runs.baseline[i], 'typemcp')));
    return { ...figure, baseline: of('baseline'), branch: of('branch'), change, baselineToFloor: toFloor('baseline'), branchToFloor: toFloor('branch') };
  });
  const header = ['figure', 'baseline', 'branch', 'branch/baseline', 'baseline/floor', 'branch/floor'];
  const table = rows
    .filter((row) => Number.isFinite(row.branch) || Number.isFinite(row.baseline))
    .map((row) => [row.unit ? `${row.label} (${row.unit})` : row.label, format(row.baseline), format(row.branch), ratioText(row.change), ratioText(row.baselineToFloor), ratioText(row.branchToFloor)]);
  const widths = header.map((_, c) => Math.max(...[header, ...table].map((r) => r[c].length)));
  const line = (r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ');
  process.stdout.write(`\n${[line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...table.map(line)].join('\n')}\n\n`);
  const results = {
    startedAt: new Date(started).toISOString(),
    durationSeconds: Math.round((Date.now() - started) / 1000),
    baseline: baselineRoot,
    pairs,
    machine: machine(),
    notes: [
      'Each pair: bench/run.js of both checkouts for one round, back to back, the order alternating from pair to pair.',
      'baseline and branch are medians over the pairs; branch/baseline is the median of the per-pair ratios; x/floor is the median of per-round ratios to the floor of the same run.',
    ],
    rows,
    runs,
  };
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify(results, null, 2) + '\n');
  const md = (r) => `| ${r.join(' | ')} |`;
  fs.writeFileSync(out.replace(/\.json$/, '.md'), `${[md(header), `| --- |${' ---: |'.repeat(header.length - 1)}`, ...table.map(md)].join('\n')}\n`);
  process.stdout.write(`${pairs} pairs in ${results.durationSeconds} s; results: ${path.relative(process.cwd(), out)}\n`);
}

main();
