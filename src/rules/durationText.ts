/**
 * How every view says a duration and a bound on one (the tree, the status bar, the status line, the
 * mod's tool rows): one number for one call, written the same way wherever it shows.
 */

/** An age or lag: `0 ms`, `850 ms`, `1.2s`, `12s`, `2m 05s`, `1h 03m`. Negative inputs read as 0. */
export function formatDuration(ms: number): string {
  const v = Number.isFinite(ms) && ms > 0 ? ms : 0;
  if (v < 1000) return `${Math.round(v)} ms`;
  if (v < 10_000) {
    // One decimal while the number is small, so a ticking age visibly moves.
    return `${(Math.floor(v / 100) / 10).toFixed(1)}s`;
  }
  const totalSeconds = Math.floor(v / 1000);
  if (totalSeconds < 60) return `${totalSeconds}s`;
  const totalMinutes = Math.floor(totalSeconds / 60);
  if (totalMinutes < 60) return `${totalMinutes}m ${String(totalSeconds % 60).padStart(2, '0')}s`;
  const hours = Math.floor(totalMinutes / 60);
  return `${hours}h ${String(totalMinutes % 60).padStart(2, '0')}m`;
}

/** A hold the hook's evidence bounds (./hookEvidence.ts): `≤ 2.3s`, `0.4–2.3s`, `≥ 0.4s`; the tree and the status line both say it so. */
export function boundsText(b: { min_ms: number; max_ms: number | null }): string {
  if (b.max_ms === null) return `≥ ${formatDuration(b.min_ms)}`;
  if (b.min_ms <= 0) return `≤ ${formatDuration(b.max_ms)}`;
  return `${formatDuration(b.min_ms)}–${formatDuration(b.max_ms)}`;
}
