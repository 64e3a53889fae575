/**
 * Detection latency: a writer process appends records at random intervals;
 * for each, the time from its write returning to the engine's `written` event.
 * Beside it, on the same seeded schedule, what peers do: a 500 ms stat poll
 * and chokidar with defaults, each feeding the same tail and scanner.
 */
import * as path from 'node:path';
import { engineStrategy } from './engineStrategy';
import type { BenchContext } from './lib/context';
import { row, type Row, type SectionResult } from './lib/report';
import { percentile } from './lib/stats';
import { runPhase, type PhaseResult, type WatchStrategy } from './lib/writerPhase';
import { chokidarStrategy, statPollStrategy } from './strategies';

const SECTION = 'detection latency';

export async function detectionLatency(ctx: BenchContext): Promise<SectionResult> {
  const writer = path.join(ctx.bundleDir, 'writer.cjs');
  const count = ctx.quick ? 40 : 200;
  const strategies: WatchStrategy[] = [
    engineStrategy(),
    statPollStrategy(500),
    chokidarStrategy(),
  ];
  const phases: PhaseResult[] = [];
  for (const strategy of strategies) {
    ctx.log(`latency: ${strategy.name}, ${count} appends`);
    phases.push(
      await runPhase(
        writer,
        strategy,
        (site) => ({ mode: 'random', file: site.file, sessionId: site.sessionId, cwd: site.workspace, idPrefix: 'toolu_bench_lat_', count, minGapMs: 5, maxGapMs: 150, seed: 42 }),
        { settleMs: 500, graceMs: 2500 },
      ),
    );
  }

  const rows: Row[] = [];
  const [engine, ...peers] = phases;
  const p = (r: PhaseResult, q: number) => (r.latenciesMs.length ? percentile(r.latenciesMs, q) : null);
  rows.push(row(SECTION, `${engine.strategy} p50`, p(engine, 50), 'ms', { op: '<=', limit: 5 }, `${engine.written} appends, random 5–150 ms gaps`));
  rows.push(row(SECTION, `${engine.strategy} p99`, p(engine, 99), 'ms', { op: '<=', limit: 50 }, `max ${p(engine, 100)?.toFixed(1)} ms`));
  rows.push(row(SECTION, `${engine.strategy} missed`, engine.missed.length, '', { op: '<=', limit: 0 }, `of ${engine.written}`));
  for (const peer of peers) {
    rows.push(row(SECTION, `${peer.strategy} p50`, p(peer, 50), 'ms', undefined, `p99 ${p(peer, 99)?.toFixed(1)} ms, missed ${peer.missed.length}`));
    const e50 = p(engine, 50);
    const p50 = p(peer, 50);
    if (e50 && p50) rows.push(row(SECTION, `${peer.strategy} p50 / engine p50`, p50 / e50, 'x', undefined, 'same writer schedule'));
  }
  return {
    section: SECTION,
    rows,
    details: Object.fromEntries(
      phases.map((r) => [r.strategy, { written: r.written, missed: r.missed, p50: p(r, 50), p90: p(r, 90), p99: p(r, 99), max: p(r, 100) }]),
    ),
  };
}
