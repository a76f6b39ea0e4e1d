'use strict';

/** Median of numbers (NaN/undefined ignored); NaN when empty. */
function median(values) {
  const xs = values.filter((v) => typeof v === 'number' && Number.isFinite(v)).sort((a, b) => a - b);
  if (xs.length === 0) return NaN;
  const mid = xs.length >> 1;
  return xs.length % 2 ? xs[mid] : (xs[mid - 1] + xs[mid]) / 2;
}

/** The p-th percentile (0..100, nearest rank) of a typed or plain array of latencies. */
function percentile(values, p) {
  if (values.length === 0) return NaN;
  const xs = Float64Array.from(values).sort();
  const rank = Math.min(xs.length - 1, Math.max(0, Math.ceil((p / 100) * xs.length) - 1));
  return xs[rank];
}

/** A figure as the tables show it: thousands grouped, fewer decimals the larger it is; – for none. */
function format(x) {
  if (x === undefined || !Number.isFinite(x)) return '–';
  const abs = Math.abs(x);
  if (abs >= 1000) return Math.round(x).toLocaleString('en-US');
  if (abs >= 100) return x.toFixed(0);
  if (abs >= 10) return x.toFixed(1);
  return x.toFixed(2);
}

module.exports = { median, percentile, format };
