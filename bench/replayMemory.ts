/**
 * Replay memory (issue 40 §4): `replay FILE --hook true --json`, its peak RSS and wall time, on generated
 * sessions (./lib/generateReplaySession.ts; 1 GiB by default, `--size`, 300 calls a GiB): one of ordinary
 * lines of a few KB, one of small records (a few hundred bytes: three times the lines), and 3 million `{}`
 * lines; replay's index alone on the first (`--tool` that no call matches: no hook runs); `analyze` on the
 * same files. `--before-dist DIR` runs another build's replay beside this one (the figures before a change:
 * a run that fails, out of memory, is a row that says so). Target: a 1 GiB session replayed within 200 MiB.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { BenchContext } from './lib/context';
import { generateEmptyObjects, generateReplaySession } from './lib/generateReplaySession';
import { makeTempDir, timedNodeRun, warmPageCache, type TimedRun } from './lib/proc';
import { row, type Row, type SectionResult, type Target } from './lib/report';

const SECTION = 'replay memory';
/** The target: a 1 GiB session replays within this. */
const LIMIT_MIB = 200;
/** The replay before issue 40 §4 took 100 s on 3 million `{}` lines: past the harness's default. */
const RUN_TIMEOUT_MS = 15 * 60_000;
/** The small records' texts, scaled from the ordinary lines' (generateReplaySession's textScale). */
const SMALL_RECORDS = 0.02;

const mib = (run: TimedRun) => (run.maxRssKiB === undefined ? null : run.maxRssKiB / 1024);

/** The calls the `--json` summary line counts; undefined without one. */
function replayedCalls(run: TimedRun): number | undefined {
  try {
    return (JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '') as { calls?: number }).calls;
  } catch {
    return undefined;
  }
}

export async function replayMemory(ctx: BenchContext): Promise<SectionResult> {
  const dist = path.join(ctx.repoRoot, 'dist');
  if (!fs.existsSync(path.join(dist, 'cli.js'))) return { section: SECTION, rows: [], error: 'dist/cli.js not built' };
  const preload = path.join(ctx.repoRoot, 'bench/maxRss.cjs');
  const dir = makeTempDir('replay-memory');
  try {
    const MiB = 2 ** 20;
    ctx.log(`replay memory: generating two ${(ctx.sizeBytes / MiB).toFixed(0)} MiB sessions and {} lines in ${dir}`);
    const ordinary = generateReplaySession({ path: path.join(dir, 'ordinary.jsonl'), sizeBytes: ctx.sizeBytes });
    const small = generateReplaySession({ path: path.join(dir, 'small.jsonl'), sizeBytes: ctx.sizeBytes, textScale: SMALL_RECORDS });
    const empty = generateEmptyObjects(path.join(dir, 'empty.jsonl'), ctx.quick ? 300_000 : 3_000_000);
    const sessions = [
      { name: 'lines of a few KB', file: ordinary.path, calls: ordinary.calls, note: `${(ordinary.bytes / MiB).toFixed(0)} MiB, ${ordinary.lines} lines, ${ordinary.calls} calls` },
      { name: 'small records', file: small.path, calls: small.calls, note: `${(small.bytes / MiB).toFixed(0)} MiB, ${small.lines} lines, ${small.calls} calls` },
      { name: '{} lines', file: empty.path, calls: 0, note: `${empty.lines} lines of {}` },
    ];
    const target: Target = { op: '<=', limit: LIMIT_MIB };
    const rows: Row[] = [];
    const details: Record<string, unknown> = { generated: { ordinary, small, empty } };
    /** One run; a run that fails is said (the build before may run out of memory). */
    const run = (cliDir: string, args: string[], what: string): TimedRun => {
      warmPageCache(args[1]!);
      const r = timedNodeRun(preload, path.join(cliDir, 'cli.js'), args, { cwd: dir, timeout: RUN_TIMEOUT_MS });
      ctx.log(`replay memory: ${what}: exit ${r.status}, ${(r.wallMs / 1000).toFixed(1)} s, peak RSS ${mib(r)?.toFixed(0)} MiB`);
      details[what] = { status: r.status, wallMs: r.wallMs, rssKiB: r.maxRssKiB, stderr: r.status === 0 ? undefined : r.stderr.slice(-500) };
      return r;
    };
    const builds: Array<[string, string]> = [['', dist], ...(ctx.beforeDist ? ([[' (before)', path.resolve(ctx.beforeDist)]] as Array<[string, string]>) : [])];
    for (const [label, cliDir] of builds) {
      for (const s of sessions) {
        const r = run(cliDir, ['replay', s.file, '--hook', 'true', '--json'], `replay, ${s.name}${label}`);
        const failed = r.status !== 0 ? `; exited ${r.status ?? 'on a signal'}` : '';
        const big = s.calls > 0 && !label;
        rows.push(
          row(SECTION, `replay peak RSS, ${s.name}${label}`, mib(r), 'MiB', big ? target : undefined, `${s.note}${failed}`),
          row(SECTION, `replay time, ${s.name}${label}`, r.status === 0 ? r.wallMs : null, 'ms', undefined, s.calls > 0 ? '`--hook true`: run live at each time a record may land, and complete' : failed.slice(2)),
        );
        if (!label) rows.push(row(SECTION, `replay replayed every call, ${s.name}`, replayedCalls(r) === s.calls ? 1 : 0, '', { op: '>=', limit: 1 }, `${replayedCalls(r)} of ${s.calls}`));
      }
      const index = run(cliDir, ['replay', ordinary.path, '--hook', 'true', '--json', '--tool', 'no-such-tool'], `replay index alone${label}`);
      rows.push(
        row(SECTION, `replay index alone, lines of a few KB: peak RSS${label}`, mib(index), 'MiB', undefined, '`--tool` that no call matches: no hook runs, no copy is made'),
        row(SECTION, `replay index alone, lines of a few KB: time${label}`, index.status === 0 ? index.wallMs : null, 'ms'),
      );
    }
    for (const s of sessions) {
      const r = run(dist, ['analyze', s.file, '--json'], `analyze, ${s.name}`);
      rows.push(row(SECTION, `analyze peak RSS, ${s.name}`, mib(r), 'MiB', undefined, `${(r.wallMs / 1000).toFixed(1)} s`));
    }
    return { section: SECTION, rows, details };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
