/** Running contenders as child processes and timing them from outside. */
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface TimedRun {
  wallMs: number;
  status: number | null;
  stdout: string;
  stderr: string;
  /** Peak resident set, KiB, when measured. */
  maxRssKiB?: number;
}

/**
 * The environment Node contenders run in: this process's, without
 * NODE_EXTRA_CA_CERTS. The sandbox these benchmarks were recorded in sets it,
 * and Node then parses the whole CA bundle at every start (50-70 ms here,
 * measured side by side with `node -e ''`): a cost of the machine, not of what
 * is measured, that would hide the hook's own cost in its ratio to bare node
 * and add to analyze's against `wc -l`. Where it is set, sections also report
 * the as-is numbers (INFO rows).
 */
export function benchEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  delete env.NODE_EXTRA_CA_CERTS;
  return env;
}

/** Whether this machine sets NODE_EXTRA_CA_CERTS (so the as-is rows differ). */
export const machineSetsExtraCaCerts = process.env.NODE_EXTRA_CA_CERTS !== undefined;

/** A contender that hangs must not hang the benchmark (nor outlive it): killed after this long. */
export const DEFAULT_RUN_TIMEOUT_MS = 180_000;

/** Wall time from spawn to exit, as a caller (Claude Code, a shell) sees it. */
export function timedRun(command: string, args: string[], opts: SpawnSyncOptions = {}): TimedRun {
  const start = process.hrtime.bigint();
  const r = spawnSync(command, args, { maxBuffer: 256 * 1024 * 1024, encoding: 'utf8', timeout: DEFAULT_RUN_TIMEOUT_MS, killSignal: 'SIGKILL', ...opts });
  const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.error && (r.error as NodeJS.ErrnoException).code === 'ETIMEDOUT') {
    throw new Error(`${path.basename(command)} ${args.slice(0, 3).map((a) => path.basename(a)).join(' ')} killed after ${((opts.timeout ?? DEFAULT_RUN_TIMEOUT_MS) / 1000).toFixed(0)} s (hung?)`);
  }
  if (r.error) throw r.error;
  return { wallMs, status: r.status, stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? '') };
}

/** A node script run with the maxRss preload, reporting its peak RSS. */
export function timedNodeRun(preload: string, script: string, args: string[], opts: SpawnSyncOptions = {}): TimedRun {
  const rssFile = path.join(os.tmpdir(), `bench-rss-${process.pid}-${Date.now()}`);
  try {
    const r = timedRun(process.execPath, ['-r', preload, script, ...args], { ...opts, env: { ...(opts.env ?? benchEnv()), BENCH_RSS_FILE: rssFile } });
    if (fs.existsSync(rssFile)) r.maxRssKiB = Number(fs.readFileSync(rssFile, 'utf8'));
    return r;
  } finally {
    fs.rmSync(rssFile, { force: true });
  }
}

/**
 * CPU time (user + system, ms) of all waited-for children so far, from
 * /proc/self/stat (cutime, cstime; 100 ticks a second on Linux). Summed over
 * many runs it measures work done, which a busy shared machine inflates far
 * less than wall time. Null where /proc is absent.
 */
export function childCpuMs(): number | null {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    // Fields after the parenthesised command name; cutime and cstime are fields 16 and 17.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return null;
  }
}

export function makeTempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `transcript-lag-bench-${prefix}-`));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Reads the whole file once so every contender reads it from the page cache. */
export function warmPageCache(file: string): void {
  const fd = fs.openSync(file, 'r');
  const buf = Buffer.allocUnsafe(16 * 1024 * 1024);
  try {
    while (fs.readSync(fd, buf, 0, buf.length, null) > 0);
  } finally {
    fs.closeSync(fd);
  }
}
