/**
 * One timed phase: a watcher strategy follows a fresh transcript while the
 * writer process appends to it; latency per record = when the strategy saw its
 * tool_use minus when the writer's write returned (both process.hrtime, the
 * machine's monotonic clock).
 */
import { fork } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { WriterPlan, WriterReport } from '../writer';
import { makeTempDir, sleep } from './proc';
import { seededRandom } from './random';
import { userPrompt } from './transcriptRecords';

/** Where the transcript lives, laid out like a Claude dir so the engine discovers it. */
export interface TranscriptSite {
  root: string;
  claudeDir: string;
  workspace: string;
  sessionId: string;
  file: string;
}

export function makeSite(prefix: string): TranscriptSite {
  const root = makeTempDir(prefix);
  const workspace = path.join(root, 'workspace');
  const claudeDir = path.join(root, 'claude');
  const sessionId = '5b0f6c1e-2d3a-4b5c-8d9e-0a1b2c3d4e5f';
  const slug = workspace.replace(/[^A-Za-z0-9]/g, '-');
  const file = path.join(claudeDir, 'projects', slug, `${sessionId}.jsonl`);
  fs.mkdirSync(workspace, { recursive: true });
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const ctx = { sessionId, cwd: workspace, rand: seededRandom(1), clockMs: Date.now() };
  fs.writeFileSync(file, `${JSON.stringify(userPrompt(ctx, null, 'benchmark session'))}\n`);
  return { root, claudeDir, workspace, sessionId, file };
}

/** A strategy reports each tool_use id it sees through `seen`; start() resolves once it is ready. */
export interface WatchStrategy {
  name: string;
  start(site: TranscriptSite, seen: (toolUseId: string) => void): Promise<void>;
  stop(): Promise<void>;
}

export interface PhaseResult {
  strategy: string;
  written: number;
  latenciesMs: number[];
  missed: string[];
  /** Seen times (ms, monotonic) of every id, for rate analysis. */
  seenAtMs: number[];
  writerBytes: number;
  extra?: Record<string, unknown>;
}

export function runWriter(writerScript: string, plan: WriterPlan): Promise<WriterReport> {
  return new Promise((resolve, reject) => {
    const child = fork(writerScript, [JSON.stringify(plan)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let report: WriterReport | undefined;
    child.on('message', (m) => (report = m as WriterReport));
    child.on('error', reject);
    child.on('exit', (code) => (report ? resolve(report) : reject(new Error(`writer exited ${code} without a report`))));
  });
}

export async function runPhase(
  writerScript: string,
  strategy: WatchStrategy,
  plan: (site: TranscriptSite) => WriterPlan,
  opts: { settleMs: number; graceMs: number; site?: TranscriptSite },
): Promise<PhaseResult> {
  const site = opts.site ?? makeSite(strategy.name.replace(/\W+/g, '-'));
  const seen = new Map<string, bigint>();
  try {
    await strategy.start(site, (id) => {
      if (!seen.has(id)) seen.set(id, process.hrtime.bigint());
    });
    // Watchers finish their initial scan asynchronously; let them before timing starts.
    await sleep(opts.settleMs);
    const report = await runWriter(writerScript, plan(site));
    const ids = report.stamps.map(([id]) => id);
    const deadline = Date.now() + opts.graceMs;
    while (Date.now() < deadline && ids.some((id) => !seen.has(id))) await sleep(20);
    const latenciesMs: number[] = [];
    const missed: string[] = [];
    const seenAtMs: number[] = [];
    for (const [id, stamp] of report.stamps) {
      const at = seen.get(id);
      if (at === undefined) missed.push(id);
      else {
        latenciesMs.push(Number(at - BigInt(stamp)) / 1e6);
        seenAtMs.push(Number(at) / 1e6);
      }
    }
    return { strategy: strategy.name, written: ids.length, latenciesMs, missed, seenAtMs, writerBytes: report.bytes };
  } finally {
    await strategy.stop().catch(() => undefined);
    if (!opts.site) fs.rmSync(site.root, { recursive: true, force: true });
  }
}
