/**
 * The transcript writer of the latency and burst benchmarks, run as its own
 * process like Claude Code is. Appends one tool_use record per write and notes
 * process.hrtime (CLOCK_MONOTONIC, shared by all processes of the machine) the
 * moment each write returns; sends all stamps to the parent at the end, so the
 * measurement itself adds no IPC traffic while watchers are timed.
 */
import * as fs from 'node:fs';
import { randomInt, seededRandom } from './lib/random';
import { assistantBlock, toolUseBlock, type SessionContext } from './lib/transcriptRecords';

export type WriterPlan =
  | { mode: 'random'; file: string; sessionId: string; cwd: string; idPrefix: string; count: number; minGapMs: number; maxGapMs: number; seed: number }
  | { mode: 'burst'; file: string; sessionId: string; cwd: string; idPrefix: string; ratePerSec: number; durationMs: number };

export interface WriterReport {
  /** [tool_use_id, hrtime in ns as a decimal string] per append, in write order. */
  stamps: [string, string][];
  bytes: number;
}

function main(plan: WriterPlan): Promise<WriterReport> {
  const ctx: SessionContext = { sessionId: plan.sessionId, cwd: plan.cwd, rand: seededRandom(7), clockMs: Date.now() };
  const fd = fs.openSync(plan.file, 'a');
  const stamps: [string, string][] = [];
  let bytes = 0;
  const append = (n: number) => {
    const id = `${plan.idPrefix}${String(n).padStart(6, '0')}`;
    const line = Buffer.from(`${JSON.stringify(assistantBlock(ctx, 'parent', `msg_${id}`, 1, toolUseBlock(id, 'Bash', { command: 'ls' }), 'tool_use'))}\n`);
    fs.writeSync(fd, line);
    stamps.push([id, process.hrtime.bigint().toString()]);
    bytes += line.length;
  };
  const done = () => {
    fs.closeSync(fd);
    return { stamps, bytes };
  };

  if (plan.mode === 'random') {
    const rand = seededRandom(plan.seed);
    const gaps = Array.from({ length: plan.count }, () => randomInt(rand, plan.minGapMs, plan.maxGapMs));
    return new Promise((resolve) => {
      let n = 0;
      const next = () => {
        if (n === plan.count) return resolve(done());
        setTimeout(() => {
          append(n++);
          next();
        }, gaps[n]);
      };
      next();
    });
  }

  const total = Math.round((plan.ratePerSec * plan.durationMs) / 1000);
  const start = process.hrtime.bigint();
  return new Promise((resolve) => {
    let n = 0;
    // Catches up to the schedule on every timer tick: each append is still its own write.
    const tick = () => {
      const elapsedMs = Number(process.hrtime.bigint() - start) / 1e6;
      const due = Math.min(total, Math.floor((elapsedMs * plan.ratePerSec) / 1000));
      while (n < due) append(n++);
      if (n >= total) resolve(done());
      else setTimeout(tick, 1);
    };
    tick();
  });
}

const plan = JSON.parse(process.argv[2] ?? '{}') as WriterPlan;
main(plan).then((report) => {
  if (process.send) process.send(report, () => process.exit(0));
  else process.stdout.write(`${JSON.stringify(report)}\n`);
});
