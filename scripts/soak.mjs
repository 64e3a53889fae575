#!/usr/bin/env node
// Soak test, run by hand: `npm run soak` (30 minutes) or `npm run soak -- --minutes 3`;
// then its http leg (scripts/soakHttp.mjs: the built watch's receiver under hostile load,
// `--http-seconds`, 60 by default, 0 skips it; `--http-only` runs it alone; needs npm run build).
// `npm run soak -- --files 20000` runs the many-files leg instead (scripts/soakManyFiles.mjs);
// `npm run soak -- --spool 100000` the spool leg (scripts/soakSpool.mjs).
// Drives the real engine over real temp files for a long time — sessions come
// and go, hooks report pre/wait/post, records land before or with their results,
// subagents write, a transcript is now and then truncated and rewritten — and
// prints memory over time. Exits non-zero when the heap keeps growing (the
// recent-calls ring, tombstones and idle eviction must hold it flat) or when a
// call's `written` was reported twice or not at all.
import { spawnSync } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { require as tsxRequire } from 'tsx/cjs/api';
import { manyFilesLeg } from './soakManyFiles.mjs';
import { spoolLeg } from './soakSpool.mjs';

// Heap figures mean something only right after a full collection.
if (typeof globalThis.gc !== 'function') {
  const r = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}

function parseArgs(argv) {
  const opts = { minutes: 30, callsPerSecond: 20, sessions: 3, maxOpenFiles: undefined, httpSeconds: 60, httpOnly: false, files: undefined, spool: undefined, spoolSessions: 50, foldS: 60, idleCpu: 5, projects: 20, maxRssMb: 400, readyS: 10, indexedS: 30, liveS: 5 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => Number(argv[++i]);
    if (a === '--minutes') opts.minutes = next();
    else if (a === '--calls-per-second') opts.callsPerSecond = next();
    else if (a === '--sessions') opts.sessions = next();
    else if (a === '--max-open-files') opts.maxOpenFiles = next();
    else if (a === '--http-seconds') opts.httpSeconds = next();
    else if (a === '--http-only') opts.httpOnly = true;
    else if (a === '--files') opts.files = next();
    else if (a === '--projects') opts.projects = next();
    else if (a === '--spool') opts.spool = next();
    else if (a === '--spool-sessions') opts.spoolSessions = next();
    else if (a === '--fold-s') opts.foldS = next();
    else if (a === '--idle-cpu') opts.idleCpu = next();
    else if (a === '--max-rss-mb') opts.maxRssMb = next();
    else if (a === '--ready-s') opts.readyS = next();
    else if (a === '--indexed-s') opts.indexedS = next();
    else if (a === '--live-s') opts.liveS = next();
    else if (a === '--help' || a === '-h') {
      console.log('Usage: npm run soak -- [--minutes 30] [--calls-per-second 20] [--sessions 3] [--max-open-files N] [--http-seconds 60 | --http-only]');
      console.log('       npm run soak -- --files N [--projects 20] [--max-rss-mb 400] [--ready-s 10] [--indexed-s 30] [--live-s 5]   (after npm run build)');
      console.log('       npm run soak -- --spool N [--spool-sessions 50] [--fold-s 60] [--max-rss-mb 150] [--idle-cpu 5]   (after npm run build; Linux)');
      process.exit(0);
    } else {
      console.error(`soak: unknown option ${a}`);
      process.exit(2);
    }
  }
  if (!(opts.minutes > 0) || !(opts.callsPerSecond > 0) || !(opts.sessions >= 1) || !(opts.maxOpenFiles === undefined || opts.maxOpenFiles >= 1)) {
    console.error('soak: --minutes, --calls-per-second, --sessions and --max-open-files must be positive');
    process.exit(2);
  }
  if (!(opts.httpSeconds >= 0 && opts.httpSeconds <= 3600)) {
    console.error('soak: --http-seconds must be between 0 and 3600');
    process.exit(2);
  }
  if (opts.files !== undefined && ![opts.files, opts.projects, opts.maxRssMb, opts.readyS, opts.indexedS, opts.liveS].every((n) => n > 0)) {
    console.error('soak: --files, --projects, --max-rss-mb, --ready-s, --indexed-s and --live-s must be positive');
    process.exit(2);
  }
  return opts;
}

const opts = parseArgs(process.argv.slice(2));
if (opts.spool !== undefined) {
  if (![opts.spool, opts.spoolSessions, opts.foldS, opts.idleCpu].every((n) => n > 0) || opts.spool < opts.spoolSessions) {
    console.error('soak: --spool, --spool-sessions, --fold-s and --idle-cpu must be positive, --spool at least --spool-sessions');
    process.exit(2);
  }
  // The bound for the spool leg, unless given.
  if (!process.argv.includes('--max-rss-mb')) opts.maxRssMb = 150;
  process.exit((await spoolLeg(opts)) ? 0 : 1);
}
if (opts.files !== undefined) process.exit((await manyFilesLeg(opts)) ? 0 : 1);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The http leg, after the engine's (or alone): its failures, said on stderr. */
async function httpLegFailures() {
  if (opts.httpSeconds === 0) return [];
  const { runHttpLeg } = await import('./soakHttp.mjs');
  const failures = await runHttpLeg({ seconds: opts.httpSeconds || 60, repoRoot });
  for (const f of failures) console.error(`soak: FAIL — ${f}`);
  return failures;
}
if (opts.httpOnly) {
  const failures = await httpLegFailures();
  if (failures.length === 0) console.log('soak: http leg OK');
  process.exit(failures.length > 0 ? 1 : 0);
}
const { TranscriptLagEngine } = tsxRequire('../src/core/engine/index.ts', import.meta.url);
const { projectSlug } = tsxRequire('../src/core/discovery.ts', import.meta.url);
const { nodeFileAccess } = tsxRequire('../src/platform/nodeFileAccess.ts', import.meta.url);
const { systemClock } = tsxRequire('../src/platform/systemClock.ts', import.meta.url);

const root = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'tl-soak-')));
const claudeDir = path.join(root, 'claude');
const workspace = path.join(root, 'ws');
const projectDir = path.join(claudeDir, 'projects', projectSlug(workspace));
const channelDir = path.join(claudeDir, 'transcript-lag');
await fsp.mkdir(projectDir, { recursive: true });
await fsp.mkdir(channelDir, { recursive: true });
await fsp.mkdir(workspace, { recursive: true });

const durationMs = opts.minutes * 60_000;
// Sessions live for a slice of the run, then go quiet and must be evicted.
const sessionLifeMs = Math.max(20_000, durationMs / 12);
const idleEvictMs = Math.max(10_000, sessionLifeMs / 2);
// The engine's open files, counted at its FileAccess (the writer here opens files too): with
// --max-open-files they must stay within the bound however many sessions it follows.
let filesOpen = 0;
let filesOpenPeak = 0;
const countingFiles = {
  ...nodeFileAccess,
  async open(p) {
    const f = await nodeFileAccess.open(p);
    filesOpenPeak = Math.max(filesOpenPeak, ++filesOpen);
    let closed = false;
    return {
      read: (...args) => f.read(...args),
      stat: () => f.stat(),
      close: () => {
        if (!closed) {
          closed = true;
          filesOpen--;
        }
        return f.close();
      },
    };
  },
};
const engine = new TranscriptLagEngine({
  claudeDir,
  workspaceFolders: [workspace],
  scope: 'workspace',
  files: countingFiles,
  clock: systemClock,
  recentCalls: 20,
  idleEvictMs,
  activeWindowMs: idleEvictMs,
  ...(opts.maxOpenFiles !== undefined ? { maxOpenFiles: opts.maxOpenFiles } : {}),
});
engine.onNotice((n) => console.error(`soak: engine notice: ${JSON.stringify(n)}`));

/**
 * The harness's own bookkeeping must stay flat too, or it would be measured as
 * the engine's growth: per live session, one state per call number (1 =
 * appended, 2 = reported written), dropped once a retired session is checked.
 */
const AWAITING = 1;
const REPORTED = 2;
const callStates = new Map(); // session seq -> number[]
let calls = 0;
let events = 0;
let doubleWritten = 0;
let unexpected = 0;
let missing = 0;
engine.onEvent((e) => {
  events++;
  if (e.event !== 'written') return;
  const m = /^toolu_(\d+)_(\d+)$/.exec(e.tool_use_id);
  const states = m && callStates.get(Number(m[1]));
  const n = m ? Number(m[2]) : -1;
  if (!states || states[n] === undefined) unexpected++;
  else if (states[n] === REPORTED) doubleWritten++;
  else states[n] = REPORTED;
});
function noteAppended(sessionSeq, n) {
  let states = callStates.get(sessionSeq);
  if (!states) callStates.set(sessionSeq, (states = []));
  states[n] = AWAITING;
  calls++;
}
/** A retired session has written its last call: check it once the engine has had time to read it. */
function checkLater(sessionSeq) {
  setTimeout(() => {
    const states = callStates.get(sessionSeq) ?? [];
    missing += states.filter((x) => x === AWAITING).length;
    callStates.delete(sessionSeq);
  }, 5_000).unref();
}

let seq = 0;
const line = (o) => `${JSON.stringify(o)}\n`;
const pad = (s) => `soak-${String(s).padStart(8, '0')}-0000-4000-8000-000000000000`.slice(0, 36);

class SimSession {
  constructor() {
    this.seq = ++seq;
    this.id = pad(this.seq);
    this.transcript = path.join(projectDir, `${this.id}.jsonl`);
    this.channel = path.join(channelDir, `${this.id}.jsonl`);
    this.bornAt = Date.now();
    this.pending = []; // calls whose record is not written yet
    this.lines = 0;
  }
  async start() {
    await fsp.appendFile(this.transcript, line({ type: 'user', uuid: `u${seq}`, sessionId: this.id, cwd: workspace, timestamp: new Date().toISOString(), message: { role: 'user', content: 'soak' } }));
  }
  record(id, name = 'Bash') {
    return line({ type: 'assistant', uuid: `a-${id}`, sessionId: this.id, cwd: workspace, timestamp: new Date().toISOString(), message: { id: `msg_${id}`, role: 'assistant', content: [{ type: 'tool_use', id, name, input: { command: 'x'.repeat(200) } }], stop_reason: 'tool_use' } });
  }
  result(id, big = false) {
    return line({ type: 'user', uuid: `r-${id}`, sessionId: this.id, cwd: workspace, timestamp: new Date().toISOString(), message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: big ? 'y'.repeat(2_000_000) : 'ok' }] } });
  }
  hook(event, id, extra = {}) {
    return line({ v: 1, event, at: Date.now(), session_id: this.id, transcript_path: this.transcript, tool_use_id: id, tool_name: 'Bash', source: 'transcript-lag-hook', ...extra });
  }
  /** One step: fire a hook for a new call, and let older calls land (before or with their results). */
  async step() {
    const id = `toolu_${this.seq}_${++this.lines}`;
    await fsp.appendFile(this.channel, this.hook('pre', id));
    this.pending.push(id);
    if (this.pending.length < 2) return;
    const landing = this.pending.splice(0, this.pending.length - 1);
    let text = '';
    let channelText = '';
    for (const cid of landing) {
      const withResult = Math.random() < 0.5;
      text += this.record(cid) + (withResult ? this.result(cid, Math.random() < 0.002) : '');
      if (!withResult) this.lateResults = [...(this.lateResults ?? []), cid];
      channelText += this.hook('wait', cid, { outcome: withResult ? 'behind' : 'seen', polls: withResult ? 50 : 2, waited_ms: withResult ? 5000 : 200, bytes_on_disk: 0 });
      noteAppended(this.seq, Number(cid.split('_')[2]));
    }
    await fsp.appendFile(this.transcript, text);
    await fsp.appendFile(this.channel, channelText);
    if (this.lateResults?.length > 4) {
      const late = this.lateResults.splice(0);
      await fsp.appendFile(this.transcript, late.map((cid) => this.result(cid)).join(''));
      await fsp.appendFile(this.channel, late.map((cid) => this.hook('post', cid)).join(''));
    }
  }
}

let sessions = [];
for (let i = 0; i < opts.sessions; i++) {
  const s = new SimSession();
  await s.start();
  sessions.push(s);
}
await engine.start();

const startedAt = Date.now();
const samples = [];
let stopped = false;
let truncations = 0;

async function writer() {
  const stepMs = 1000 / opts.callsPerSecond;
  while (!stopped) {
    const now = Date.now();
    // Retire old sessions (they go idle and must be evicted) and start new ones.
    sessions = await Promise.all(
      sessions.map(async (s) => {
        if (now - s.bornAt < sessionLifeMs) return s;
        checkLater(s.seq);
        const fresh = new SimSession();
        await fresh.start();
        return fresh;
      }),
    );
    const s = sessions[Math.floor(Math.random() * sessions.length)];
    await s.step();
    // Now and then a transcript is rewritten from scratch: a new generation that must not count twice.
    if (Math.random() < 0.0005) {
      const text = await fsp.readFile(s.transcript);
      await fsp.writeFile(s.transcript, text);
      truncations++;
    }
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

function sample() {
  globalThis.gc();
  const m = process.memoryUsage();
  const inMemory = engine.sessions().length;
  samples.push({ t: Date.now() - startedAt, heap: m.heapUsed, rss: m.rss });
  const mb = (b) => `${(b / 1048576).toFixed(1).padStart(7)} MB`;
  console.log(`${String(Math.round((Date.now() - startedAt) / 1000)).padStart(6)} s  heap ${mb(m.heapUsed)}  rss ${mb(m.rss)}  active sessions ${String(inMemory).padStart(3)}  calls ${String(calls).padStart(7)}  events ${events}`);
}

const ticker = setInterval(() => void engine.tick().catch((err) => console.error('tick failed:', err)), 250);
const sampler = setInterval(sample, Math.min(30_000, Math.max(2_000, durationMs / 60)));
console.log(`soak: ${opts.minutes} min, ${opts.callsPerSecond} calls/s over ${opts.sessions} sessions, sessions live ${Math.round(sessionLifeMs / 1000)} s, evicted after ${Math.round(idleEvictMs / 1000)} s idle; files in ${root}`);
sample();
const writing = writer();
await new Promise((r) => setTimeout(r, durationMs));
stopped = true;
await writing;
clearInterval(ticker);
await engine.tick();
await engine.tick();
clearInterval(sampler);
sample();
await engine.dispose();

// Verdict. Heap: the last quarter against the second quarter (after warm-up).
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const q = Math.max(1, Math.floor(samples.length / 4));
const warm = median(samples.slice(q, 2 * q).map((s) => s.heap));
const late = median(samples.slice(-q).map((s) => s.heap));
const allowed = Math.max(16 * 1048576, warm * 0.5);
for (const states of callStates.values()) missing += states.filter((x) => x === AWAITING).length;
console.log(`heap warm ${(warm / 1048576).toFixed(1)} MB, late ${(late / 1048576).toFixed(1)} MB (allowed growth ${(allowed / 1048576).toFixed(1)} MB); ${calls} calls, ${missing} never reported written, ${doubleWritten} reported twice, ${unexpected} unexpected; ${truncations} rewrites`);
await fsp.rm(root, { recursive: true, force: true });
let failed = false;
if (late - warm > allowed) {
  console.error('soak: FAIL — heap grew beyond the bound');
  failed = true;
}
if (doubleWritten > 0 || missing > 0 || unexpected > 0) {
  console.error('soak: FAIL — written events lost or doubled');
  failed = true;
}
console.log(`files the engine held open: at most ${filesOpenPeak}`);
if (opts.maxOpenFiles !== undefined && filesOpenPeak > opts.maxOpenFiles) {
  console.error(`soak: FAIL — the engine held ${filesOpenPeak} files open, more than --max-open-files ${opts.maxOpenFiles}`);
  failed = true;
}
if ((await httpLegFailures()).length > 0) failed = true;
if (!failed) console.log('soak: OK');
process.exit(failed ? 1 : 0);
