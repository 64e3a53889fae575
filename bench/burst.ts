/**
 * Burst: 1000 appends a second for 10 s, each its own write. The engine must
 * miss no record, and the views, refreshed through the extension's coalescer
 * (src/presentation/coalesce.ts) on every engine event, at most 10 times in any
 * second.
 */
import * as path from 'node:path';
import { systemClock } from '../src/platform/systemClock';
import { createCoalescer, DEFAULT_REFRESH_INTERVAL_MS } from '../src/presentation/coalesce';
import { engineStrategy } from './engineStrategy';
import type { BenchContext } from './lib/context';
import { row, type SectionResult } from './lib/report';
import { maxInWindow, percentile } from './lib/stats';
import { runPhase } from './lib/writerPhase';

const SECTION = 'burst';

export async function burst(ctx: BenchContext): Promise<SectionResult> {
  const writer = path.join(ctx.bundleDir, 'writer.cjs');
  const ratePerSec = 1000;
  const durationMs = ctx.quick ? 3000 : 10_000;
  const refreshes: number[] = [];
  let events = 0;
  const coalescer = createCoalescer(() => refreshes.push(performance.now()), DEFAULT_REFRESH_INTERVAL_MS, systemClock);
  // Wired as src/vscode/extension.ts does: every engine event and every tick request a render.
  const strategy = engineStrategy({
    onEvent: () => {
      events++;
      coalescer.request();
    },
    onChanged: () => coalescer.request(),
  });
  ctx.log(`burst: ${ratePerSec} appends/s for ${durationMs / 1000} s`);
  const r = await runPhase(
    writer,
    strategy,
    (site) => ({ mode: 'burst', file: site.file, sessionId: site.sessionId, cwd: site.workspace, idPrefix: 'toolu_bench_burst_', ratePerSec, durationMs }),
    { settleMs: 500, graceMs: 5000 },
  );
  coalescer.dispose();
  const maxRefreshes = maxInWindow(refreshes, 1000);
  const gaps = refreshes.slice(1).map((t, i) => t - refreshes[i]);
  const minGap = gaps.length ? Math.min(...gaps) : null;
  const maxEvents = maxInWindow(r.seenAtMs, 1000);
  return {
    section: SECTION,
    rows: [
      row(SECTION, 'view refreshes in worst second', maxRefreshes, '/s', { op: '<=', limit: 10 }, `${refreshes.length} in all; interval ${DEFAULT_REFRESH_INTERVAL_MS} ms, smallest gap ${minGap?.toFixed(1)} ms`),
      row(SECTION, 'records missed', r.missed.length, '', { op: '<=', limit: 0 }, `of ${r.written} appended`),
      row(SECTION, 'written events in worst second', maxEvents, '/s', undefined, `${events} engine events in all`),
      row(SECTION, 'detection latency p99 under burst', r.latenciesMs.length ? percentile(r.latenciesMs, 99) : null, 'ms', undefined, `p50 ${r.latenciesMs.length ? percentile(r.latenciesMs, 50).toFixed(1) : '—'} ms`),
    ],
    details: { minRefreshGapMs: minGap, written: r.written, missed: r.missed.length, refreshes: refreshes.length, maxRefreshesPerSecond: maxRefreshes, engineEvents: events, ticks: strategy.ticks() },
  };
}
