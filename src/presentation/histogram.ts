import { formatBound } from './format';

/**
 * Lag bins, roughly logarithmic: lags run from a few ms (print mode) to the
 * hook's timeout (held calls in interactive sessions), so linear bins would put
 * everything in the first one.
 */
export const LAG_BIN_EDGES_MS: readonly number[] = [0, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 30_000, 60_000];

export interface HistogramBin {
  /** Inclusive lower bound, ms. */
  from: number;
  /** Exclusive upper bound, ms; null for the open last bin. */
  to: number | null;
  label: string;
  count: number;
}

export function lagHistogram(lagsMs: readonly number[], edges: readonly number[] = LAG_BIN_EDGES_MS): HistogramBin[] {
  if (edges.length === 0) throw new Error('lagHistogram needs at least one edge');
  const bins: HistogramBin[] = edges.map((from, i) => {
    const to = i + 1 < edges.length ? edges[i + 1] : null;
    return { from, to, label: to === null ? `≥ ${formatBound(from)}` : `< ${formatBound(to)}`, count: 0 };
  });
  for (const lag of lagsMs) {
    if (!Number.isFinite(lag)) continue;
    const v = Math.max(edges[0], lag);
    // Last bin whose lower bound is ≤ v; edges are few, a linear scan is clearest.
    let idx = 0;
    for (let i = 0; i < edges.length; i++) if (v >= edges[i]) idx = i;
    bins[idx].count++;
  }
  return bins;
}
