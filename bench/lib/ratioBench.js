'use strict';
/**
 * What the paired ratio benches (signin.js, dpop.js) share: their load settings from the
 * environment, and the median of each figure over the rounds.
 */
const { median } = require('./stats');

const QUICK = process.env.BENCH_QUICK === '1';

/** A positive number from the environment, or the fallback. */
function number(name, fallback, { integer = true } = {}) {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) throw new Error(`${name} must be a positive ${integer ? 'integer' : 'number'}, not ${JSON.stringify(text)}`);
  return value;
}

/** Rounds, measured requests, warm-up requests and clients (BENCH_QUICK=1: a smoke run). */
const load = {
  rounds: number('BENCH_ROUNDS', QUICK ? 2 : 7),
  requests: number('BENCH_HTTP', QUICK ? 2000 : 10_000),
  warmup: number('BENCH_HTTP_WARMUP', QUICK ? 500 : 3000),
  clients: number('BENCH_HTTP_CLIENTS', 32),
  quick: QUICK,
};

/** The medians over the rounds of one side's figures. */
const summary = (rounds, key) => ({
  cpuPerReqUs: median(rounds.map((r) => r[key].cpuPerReqUs)),
  reqPerSec: median(rounds.map((r) => r[key].reqPerSec)),
  p50Ms: median(rounds.map((r) => r[key].p50Ms)),
  p99Ms: median(rounds.map((r) => r[key].p99Ms)),
});

module.exports = { number, load, summary };
