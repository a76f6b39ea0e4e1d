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

module.exports = { median, percentile };
