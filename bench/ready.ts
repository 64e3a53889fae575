/**
 * Ready with a big transcript present (issue 15 §4). The field report: with a
 * 1.9 GB transcript of another session in the project, `watch` counted what
 * was appended during its first ~5 s as history and reported no event for it.
 * Here a Claude dir holds a generated transcript of `--size` (1 GiB) of one
 * session of the workspace beside a small active one. Measured, for
 * `watch --json` (a child process, as a user runs it) and for EngineHost (the
 * extension's engine lifecycle, in process): the time to `ready`, and, for N
 * records appended right after it while the history is being indexed (half
 * into each session; a quarter are held calls, their PreToolUse event in the
 * channel first), how many never get a `written` event.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { TranscriptLagEngine } from '../src/core/engine';
import { chokidarChangeSource } from '../src/platform/chokidarChangeSource';
import { nodeFileAccess } from '../src/platform/nodeFileAccess';
import { systemClock } from '../src/platform/systemClock';
import { EngineHost } from '../src/vscode/engineHost';
import type { BenchContext } from './lib/context';
import { generateTranscript } from './lib/generateTranscript';
import { benchEnv, makeTempDir, sleep, warmPageCache } from './lib/proc';
import { seededRandom } from './lib/random';
import { row, type Row, type SectionResult } from './lib/report';
import { assistantBlock, toolUseBlock, userPrompt, type SessionContext } from './lib/transcriptRecords';

const SECTION = 'ready';
const BIG = '1b1b1b1b-0000-4000-8000-000000000001';
const SMALL = '5a5a5a5a-0000-4000-8000-000000000002';
/** How long to wait for the last record's event after the appends: a bound that turns a loss into a number, not a hang. */
const GRACE_MS = 120_000;

interface Site {
  claudeDir: string;
  workspace: string;
  files: Record<string, string>;
  contexts: Record<string, SessionContext>;
}

interface Phase {
  readyMs: number;
  appendsDoneMs: number;
  /** When the big session's history was indexed (its session shown), ms after ready; null if not seen. */
  bigIndexedMs: number | null;
  lastEventMs: number | null;
  /** The last event of the records appended to the small session, ms after ready: it must not wait for the big one's history. */
  lastSmallEventMs: number | null;
  appended: number;
  missed: string[];
  heldWithLag: number;
  heldLagOnWritten: number;
  held: number;
}

function makeSite(ctx: BenchContext): Site & { dir: string; bigBytes: number } {
  const dir = makeTempDir('ready');
  const workspace = path.join(dir, 'workspace');
  const claudeDir = path.join(dir, 'claude');
  const project = path.join(claudeDir, 'projects', workspace.replace(/[^A-Za-z0-9]/g, '-'));
  fs.mkdirSync(workspace, { recursive: true });
  fs.mkdirSync(project, { recursive: true });
  fs.mkdirSync(path.join(claudeDir, 'transcript-lag'), { recursive: true });
  const files = { [BIG]: path.join(project, `${BIG}.jsonl`), [SMALL]: path.join(project, `${SMALL}.jsonl`) };
  const t0 = Date.now();
  const gen = generateTranscript({ path: files[BIG]!, sizeBytes: ctx.sizeBytes, cwd: workspace });
  ctx.log(`ready: generated ${(gen.bytes / 2 ** 20).toFixed(0)} MiB in ${Date.now() - t0} ms; warming page cache`);
  warmPageCache(files[BIG]!);
  const contexts = Object.fromEntries([BIG, SMALL].map((id, k) => [id, { sessionId: id, cwd: workspace, rand: seededRandom(11 + k), clockMs: Date.now() }]));
  fs.writeFileSync(files[SMALL]!, `${JSON.stringify(userPrompt(contexts[SMALL]!, null, 'the active session'))}\n`);
  return { dir, claudeDir, workspace, files, contexts, bigBytes: gen.bytes };
}

/** N records, each its own write, alternating sessions; every fourth a held call: its `pre` event first. */
function appendRecords(site: Site, prefix: string, count: number): { ids: string[]; heldIds: Set<string> } {
  const ids: string[] = [];
  const heldIds = new Set<string>();
  for (let n = 0; n < count; n++) {
    const sessionId = n % 2 === 0 ? SMALL : BIG;
    const id = `${prefix}${String(n).padStart(5, '0')}`;
    if (n % 4 === 0) {
      const pre = { v: 1, event: 'pre', at: Date.now(), session_id: sessionId, transcript_path: site.files[sessionId], tool_use_id: id, tool_name: 'Bash', source: 'bench' };
      fs.appendFileSync(path.join(site.claudeDir, 'transcript-lag', `${sessionId}.jsonl`), `${JSON.stringify(pre)}\n`);
      heldIds.add(id);
    }
    const record = assistantBlock(site.contexts[sessionId]!, 'parent', `msg_${id}`, 1, toolUseBlock(id, 'Bash', { command: 'ls' }), 'tool_use');
    fs.appendFileSync(site.files[sessionId]!, `${JSON.stringify(record)}\n`);
    ids.push(id);
  }
  return { ids, heldIds };
}

interface Written {
  atMs: number;
  /** From the written event, or a later joined one. */
  lag: number | null;
  lagOnWritten: boolean;
}

/** Waits until every id has a written event and every held call its lag, or the grace period ends. */
async function settle(ids: string[], heldIds: Set<string>, written: Map<string, Written>, sinceMs: number): Promise<void> {
  const deadline = sinceMs + GRACE_MS;
  const done = () => ids.every((id) => written.has(id)) && [...heldIds].every((id) => typeof written.get(id)?.lag === 'number');
  while (performance.now() < deadline && !done()) await sleep(20);
}

function summarize(readyMs: number, appendsDoneMs: number, readyAt: number, bigIndexedAt: number | null, ids: string[], heldIds: Set<string>, written: Map<string, Written>): Phase {
  const missed = ids.filter((id) => !written.has(id));
  const times = ids.flatMap((id) => (written.has(id) ? [written.get(id)!.atMs] : []));
  // appendRecords puts the even-numbered records in the small session.
  const smallTimes = ids.flatMap((id, n) => (n % 2 === 0 && written.has(id) ? [written.get(id)!.atMs] : []));
  return {
    readyMs,
    appendsDoneMs,
    bigIndexedMs: bigIndexedAt === null ? null : bigIndexedAt - readyAt,
    lastEventMs: times.length ? Math.max(...times) - readyAt : null,
    lastSmallEventMs: smallTimes.length ? Math.max(...smallTimes) - readyAt : null,
    appended: ids.length,
    missed,
    held: heldIds.size,
    heldWithLag: [...heldIds].filter((id) => typeof written.get(id)?.lag === 'number').length,
    heldLagOnWritten: [...heldIds].filter((id) => written.get(id)?.lagOnWritten === true).length,
  };
}

/** `watch --json` as a child process: spawn → ready line, then appends. */
async function watchPhase(ctx: BenchContext, site: Site, count: number): Promise<Phase> {
  const cli = path.join(ctx.repoRoot, 'dist/cli.js');
  if (!fs.existsSync(cli)) throw new Error('dist/cli.js not built');
  const t0 = performance.now();
  const child = spawn(process.execPath, [cli, 'watch', '--json', '--claude-dir', site.claudeDir], { cwd: site.workspace, env: benchEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const written = new Map<string, Written>();
  let readyAt: number | null = null;
  let bigIndexedAt: number | null = null;
  let onReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  createInterface({ input: child.stdout }).on('line', (line) => {
    const now = performance.now();
    const e = JSON.parse(line) as { event: string; session_id: string | null; tool_use_id: string | null; lag_ms?: number | null };
    if (e.event === 'ready') {
      readyAt = now;
      onReady();
    } else if (e.event === 'session' && e.session_id === BIG && bigIndexedAt === null) bigIndexedAt = now;
    else if (e.event === 'written' && e.tool_use_id && !written.has(e.tool_use_id)) written.set(e.tool_use_id, { atMs: now, lag: e.lag_ms ?? null, lagOnWritten: typeof e.lag_ms === 'number' });
    else if (e.event === 'joined' && e.tool_use_id && written.has(e.tool_use_id)) written.get(e.tool_use_id)!.lag = e.lag_ms ?? null;
  });
  try {
    await Promise.race([ready, exited.then(() => Promise.reject(new Error(`watch exited before ready: ${stderr.trim().slice(0, 200)}`)))]);
    const { ids, heldIds } = appendRecords(site, 'toolu_ready_cli_', count);
    const appendsDone = performance.now();
    await settle(ids, heldIds, written, appendsDone);
    return summarize(readyAt! - t0, appendsDone - readyAt!, readyAt!, bigIndexedAt, ids, heldIds, written);
  } finally {
    child.kill('SIGINT');
    await Promise.race([exited, sleep(10_000)]);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}

/** EngineHost in process, as the extension builds it: host.start() → ready, then appends. */
async function hostPhase(site: Site, count: number): Promise<Phase> {
  const written = new Map<string, Written>();
  let bigIndexedAt: number | null = null;
  const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
  const host = new EngineHost(
    {
      log: quiet,
      files: nodeFileAccess,
      clock: systemClock,
      createEngine: async (opts) => new TranscriptLagEngine(opts),
      createChangeSource: async (onReady) => chokidarChangeSource({ onReady }),
      claudeDirOfSetting: () => site.claudeDir,
      workspaceFolders: () => [site.workspace],
      onEvent: (e) => {
        const now = performance.now();
        if (e.event === 'session' && e.session_id === BIG && bigIndexedAt === null) bigIndexedAt = now;
        if (e.event === 'written' && !written.has(e.tool_use_id)) written.set(e.tool_use_id, { atMs: now, lag: e.lag_ms, lagOnWritten: e.lag_ms !== null });
        if (e.event === 'joined' && written.has(e.tool_use_id)) written.get(e.tool_use_id)!.lag = e.lag_ms;
      },
      onChanged: () => undefined,
    },
    { claudeDir: site.claudeDir, sessions: 'workspace', warnAfterMs: 2000, probePolls: 50, probePollMs: 100, recentCalls: 20, channelRetentionDays: 7, metricsPort: 0, metricsHost: '127.0.0.1' },
  );
  const t0 = performance.now();
  try {
    await host.start();
    const readyAt = performance.now();
    if (!host.current()) throw new Error('EngineHost did not start an engine');
    const { ids, heldIds } = appendRecords(site, 'toolu_ready_host_', count);
    const appendsDone = performance.now();
    await settle(ids, heldIds, written, appendsDone);
    return summarize(readyAt - t0, appendsDone - readyAt, readyAt, bigIndexedAt, ids, heldIds, written);
  } finally {
    await host.stop();
  }
}

function rows(label: string, p: Phase, mib: string): Row[] {
  const indexed = p.bigIndexedMs === null ? 'its history never indexed' : `its history indexed ${p.bigIndexedMs.toFixed(0)} ms after ready`;
  return [
    row(SECTION, `${label}: time to ready`, p.readyMs, 'ms', { op: '<=', limit: 1000 }, `${mib} MiB transcript of another session present`),
    row(SECTION, `${label}: records appended after ready without an event`, p.missed.length, '', { op: '<=', limit: 0 },
      `of ${p.appended}, appended within ${p.appendsDoneMs.toFixed(0)} ms of ready, ${indexed}; last event ${p.lastEventMs?.toFixed(0) ?? '—'} ms after ready`),
    row(SECTION, `${label}: last event of the small session's records`, p.lastSmallEventMs, 'ms', undefined, 'after ready, while the big one is indexed'),
    row(SECTION, `${label}: held calls with their lag`, p.heldWithLag, '', { op: '>=', limit: p.held },
      `of ${p.held}; ${p.heldLagOnWritten} on the written event, the rest in a joined event (pre appended just before its record)`),
  ];
}

export async function readyWithHistory(ctx: BenchContext): Promise<SectionResult> {
  const count = ctx.quick ? 40 : 200;
  const site = makeSite(ctx);
  try {
    const mib = (site.bigBytes / 2 ** 20).toFixed(0);
    ctx.log(`ready: watch --json with ${mib} MiB present, ${count} appends after ready`);
    const cli = await watchPhase(ctx, site, count);
    ctx.log(`ready: EngineHost with ${mib} MiB present, ${count} appends after ready`);
    const host = await hostPhase(site, count);
    return { section: SECTION, rows: [...rows('watch --json', cli, mib), ...rows('EngineHost', host, mib)], details: { watch: cli, engineHost: host, bigBytes: site.bigBytes } };
  } finally {
    fs.rmSync(site.dir, { recursive: true, force: true });
  }
}
