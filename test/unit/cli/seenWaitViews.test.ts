import { strict as assert } from 'node:assert';
import { promises as fsp, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { renderTable } from '../../../src/cli/analyze';
import type { CliIo } from '../../../src/cli/io';
import { sessionCalls } from '../../../src/cli/statuslineCalls';
import { run as watch } from '../../../src/cli/watch';
import { analyzeTranscript } from '../../../src/core/analyze';
import { TranscriptLagEngine } from '../../../src/core/engine';
import type { SessionStats } from '../../../src/core/sessionStats';
import type { SessionSnapshot } from '../../../src/core/snapshot';
import { nodeFileAccess } from '../../../src/platform/nodeFileAccess';
import { LagSampleStore } from '../../../src/presentation/lagSamples';
import { buildReport } from '../../../src/presentation/reportModel';
import { treeModel } from '../../../src/presentation/treeModel';
import { boundsText } from '../../../src/rules/durationText';
import { ClaudeDirFixture } from '../helpers/engineFixture';
import { ManualClock } from '../helpers/manualClock';

/**
 * Issue 43, item 1: after the fact, every view says what a probe's wait proves, and the same. A
 * `seen` wait found the call's record in its PreToolUse hook: on disk before the tool ran, so before
 * its result, and held at most until the find, from the fire. Each field recording
 * (test/field/recordings/) is put on disk whole, a finished session, and read as a window opened
 * then reads it: the engine's snapshot, the tree, the report, `watch --json`'s session counts,
 * `analyze --channel` (its JSON and its table) and the status line. A `behind` wait gives no shape,
 * and a bound only from below.
 */

const REPO = path.resolve(__dirname, '../../..');
const RECORDINGS = path.join(REPO, 'test/field/recordings');
/** Recordings are from days ago: nothing is to be dropped as idle. */
const FOREVER = 100 * 365 * 24 * 3600_000;

interface RecordingRow {
  kind: 'transcript' | 'channel';
  t: number;
  text: string;
}
interface RecordingMeta {
  scenario: string;
  session_id: string;
  t0_epoch_ms: number;
  /** What the recorder measured of each call (its own 10 ms looks): fired_ms, held_ms from the scenario's start. */
  calls: { tool_use_id: string; fired_ms: number; held_ms: number; wait: 'seen' | 'behind' }[];
}
interface ChannelEvent {
  event: string;
  at: number;
  tool_use_id: string;
  outcome?: 'seen' | 'behind' | 'error';
  checked_at?: number;
}

/** What the recording's channel says of each call: its hook's fire, and when a seen wait found the record (its look, else its end). */
interface CallFacts {
  id: string;
  firedAt: number;
  foundAt?: number;
  outcomes: string[];
}

async function loadRecordings(fx: ClaudeDirFixture) {
  const replay = (await import(pathToFileURL(path.join(REPO, 'scripts/lib/replay.mjs')).href)) as {
    loadRecording(file: string): { meta: RecordingMeta; rows: RecordingRow[] };
    replayText(row: RecordingRow, o: { claudeDir: string; workspace: string; home: string; shiftMs: number }): string;
  };
  return readdirSync(RECORDINGS)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .map((file) => {
      const { meta, rows } = replay.loadRecording(path.join(RECORDINGS, file));
      const fill = (r: RecordingRow) => replay.replayText(r, { claudeDir: fx.claudeDir, workspace: fx.workspace, home: fx.root, shiftMs: 0 });
      return { meta, transcript: rows.filter((r) => r.kind === 'transcript').map(fill), channel: rows.filter((r) => r.kind === 'channel').map(fill) };
    });
}

function callFacts(channel: string[]): Map<string, CallFacts> {
  const calls = new Map<string, CallFacts>();
  const of = (id: string) => {
    let c = calls.get(id);
    if (!c) calls.set(id, (c = { id, firedAt: Infinity, outcomes: [] }));
    return c;
  };
  for (const line of channel) {
    const e = JSON.parse(line) as ChannelEvent;
    // The recordings' calls were reported by one command hook each: its pre is the fire.
    if (e.event === 'pre') of(e.tool_use_id).firedAt = Math.min(of(e.tool_use_id).firedAt, e.at);
    if (e.event !== 'wait') continue;
    const c = of(e.tool_use_id);
    c.outcomes.push(e.outcome as string);
    if (e.outcome === 'seen') c.foundAt = Math.min(c.foundAt ?? Infinity, e.checked_at ?? e.at);
  }
  return calls;
}

function newEngine(fx: ClaudeDirFixture, now: number): TranscriptLagEngine {
  return new TranscriptLagEngine({
    claudeDir: fx.claudeDir,
    workspaceFolders: [fx.workspace],
    scope: 'all',
    files: nodeFileAccess,
    clock: new ManualClock(now),
    activeWindowMs: FOREVER,
    idleEvictMs: FOREVER,
    channelMaxAgeMs: 0,
    rescanMs: 0,
  });
}

/** A window opened after the session: everything read as history. */
async function coldSnapshot(fx: ClaudeDirFixture, sessionId: string, now: number): Promise<SessionSnapshot> {
  const engine = newEngine(fx, now);
  try {
    await engine.start();
    await engine.indexed();
    const snap = engine.session(sessionId);
    assert.ok(snap, 'the session is shown');
    return snap;
  } finally {
    await engine.dispose();
  }
}

/** `watch --json --all` over the Claude dir until it says the session with all its calls written; its stats then. */
async function watchedStats(fx: ClaudeDirFixture, sessionId: string, calls: number): Promise<SessionStats> {
  let stop!: () => void;
  let found!: (s: SessionStats) => void;
  const stats = new Promise<SessionStats>((resolve) => (found = resolve));
  const io: CliIo = {
    stdout: (t) => {
      for (const line of t.split('\n').filter(Boolean)) {
        const e = JSON.parse(line) as { event: string; session_id?: string; stats?: SessionStats };
        if (e.event === 'session' && e.session_id === sessionId && e.stats?.calls_written === calls) found(e.stats);
      }
    },
    stderr: () => undefined,
    env: {},
    homedir: '/nonexistent-home',
    cwd: fx.workspace,
    clock: { now: () => Date.now() },
    files: nodeFileAccess,
    stopSignal: new Promise<void>((resolve) => (stop = resolve)),
  };
  const done = watch(['--json', '--all', '--claude-dir', fx.claudeDir, '--poll-ms', '50'], io);
  try {
    return await stats;
  } finally {
    stop();
    assert.equal(await done, 0);
  }
}

describe("after the fact, a probe's wait says the same in every view (the field recordings)", function () {
  this.timeout(120_000);
  let fx: ClaudeDirFixture;
  beforeEach(async () => {
    fx = await ClaudeDirFixture.create();
  });
  afterEach(async () => {
    await fx.remove();
  });

  it('every call a seen wait found: `seen · held ≤ <the find> · before result` in the tree (its row and its tooltip), the report, analyze and the status line; watch counts it before its result', async () => {
    const recordings = await loadRecordings(fx);
    assert.ok(recordings.length >= 3, 'the field recordings are there');
    let seenCalls = 0;
    let behindCalls = 0;
    for (const { meta, transcript, channel } of recordings) {
      const sid = meta.session_id;
      const transcriptPath = fx.transcriptPath(sid);
      await fsp.mkdir(path.dirname(transcriptPath), { recursive: true });
      await fsp.writeFile(transcriptPath, transcript.map((l) => `${l}\n`).join(''));
      await fsp.writeFile(fx.channelPath(sid), channel.map((l) => `${l}\n`).join(''));
      const facts = callFacts(channel);
      const now = Math.max(...channel.map((l) => (JSON.parse(l) as ChannelEvent).at)) + 60_000;

      const snap = await coldSnapshot(fx, sid, now);
      const nodes = treeModel([snap], now)[0]!.children;
      const store = new LagSampleStore();
      store.absorb(snap);
      const rows = buildReport(snap, store.samples(sid), now).rows;
      const analysis = await analyzeTranscript({ path: transcriptPath, channelPath: fx.channelPath(sid), files: nodeFileAccess, clock: new ManualClock(now) });
      const table = renderTable(analysis);
      const line = sessionCalls(path.join(fx.claudeDir, 'transcript-lag'), sid, transcriptPath) ?? [];

      for (const truth of meta.calls) {
        const where = `${meta.scenario} ${truth.tool_use_id}`;
        const f = facts.get(truth.tool_use_id);
        assert.ok(f, `${where}: its events are in the channel`);
        const call = snap.recent.find((c) => c.tool_use_id === truth.tool_use_id);
        const node = nodes.find((n) => n.tool_use_id === truth.tool_use_id);
        const row = rows.find((r) => r.tool_use_id === truth.tool_use_id);
        const analyzed = analysis.calls.find((c) => c.tool_use_id === truth.tool_use_id);
        const status = line.find((c) => c.id === truth.tool_use_id);
        assert.ok(call && node && row && analyzed && status, where);
        if (f.foundAt !== undefined) {
          seenCalls++;
          // Held at most until the find, from the hook's fire: what every view says.
          const bound = { min_ms: 0, max_ms: f.foundAt - f.firedAt };
          // The recorder's own looks (10 ms apart) saw the record land within that bound.
          assert.ok(truth.held_ms - 10 <= bound.max_ms, `${where}: the recorder saw it held ${truth.held_ms} ms, beyond ${bound.max_ms}`);
          assert.deepEqual([call.lag_ms, call.lag_bounds, call.shape], [null, bound, 'before_result'], `${where}: the engine`);
          assert.equal(node.description, `seen · held ${boundsText(bound)} · before result`, `${where}: the tree`);
          assert.equal(node.tooltip.split('\n')[1], `${node.label}: seen · held ${boundsText(bound)} · before result`, `${where}: the tree's tooltip`);
          assert.deepEqual([row.lag, row.shape], [boundsText(bound), 'before result'], `${where}: the report`);
          assert.match(row.wait, /^seen /, `${where}: the report's wait`);
          assert.deepEqual([analyzed.shape, analyzed.held_ms, analyzed.hook_fired_at], ['before_result', bound, f.firedAt], `${where}: analyze`);
          assert.match(table, new RegExp(`${truth.tool_use_id}\\s+${boundsText(bound)}\\s+seen \\(`), `${where}: analyze's table`);
          assert.deepEqual(status.bounds, bound, `${where}: the status line`);
        } else {
          behindCalls++;
          // A behind wait proves no shape, and (these older hooks say not when they last looked) no bound.
          assert.ok(f.outcomes.length > 0 && f.outcomes.every((o) => o === 'behind'), where);
          assert.deepEqual([call.lag_ms, call.lag_bounds, call.shape], [null, undefined, 'unknown'], `${where}: the engine`);
          assert.equal(node.description, 'behind · lag, shape unknown', `${where}: the tree`);
          assert.equal(node.tooltip.split('\n')[1], `${node.label}: behind · lag unknown · shape unknown`, `${where}: the tree's tooltip`);
          assert.deepEqual([row.lag, row.shape], ['lag unknown', 'shape unknown'], `${where}: the report`);
          assert.equal(analyzed.held_ms, undefined, `${where}: analyze`);
          assert.notEqual(analyzed.shape_evidence, 'hook_on_disk', `${where}: analyze's shape is not the wait's`);
          assert.equal(status.bounds, undefined, `${where}: the status line`);
        }
      }

      // `watch --json` on the same files: the session's counts, as the tree's.
      const seenHere = meta.calls.filter((c) => facts.get(c.tool_use_id)?.foundAt !== undefined).length;
      const stats = await watchedStats(fx, sid, meta.calls.length);
      assert.deepEqual([stats.shape_before_result, stats.shape_with_result, stats.shape_unknown], [seenHere, 0, meta.calls.length - seenHere], `${meta.scenario}: watch --json`);
      assert.deepEqual([snap.stats.shape_before_result, snap.stats.shape_unknown], [seenHere, meta.calls.length - seenHere], `${meta.scenario}: the session's counts`);
      await fsp.rm(fx.channelPath(sid));
      await fsp.rm(transcriptPath);
    }
    assert.ok(seenCalls >= 2 && behindCalls >= 2, `seen ${seenCalls}, behind ${behindCalls}`);
  });

  it("the demo's print-mode session, as issue 43 saw it: ≤ 346 ms and ≤ 497 ms after the fire, before their results", async () => {
    const [print] = (await loadRecordings(fx)).filter((r) => r.meta.scenario === 'print-single-probe');
    assert.ok(print);
    const sid = print.meta.session_id;
    await fsp.mkdir(path.dirname(fx.transcriptPath(sid)), { recursive: true });
    await fsp.writeFile(fx.transcriptPath(sid), print.transcript.map((l) => `${l}\n`).join(''));
    await fsp.writeFile(fx.channelPath(sid), print.channel.map((l) => `${l}\n`).join(''));
    const now = print.meta.t0_epoch_ms + 60_000;
    const snap = await coldSnapshot(fx, sid, now);
    const described = treeModel([snap], now)[0]!.children.map((n) => [n.tool_use_id, n.description, n.tooltip.split('\n')[1]]);
    assert.deepEqual(described.sort(), [
      ['toolu_field001b', 'seen · held ≤ 346 ms · before result', 'Bash: seen · held ≤ 346 ms · before result'],
      ['toolu_field002b', 'seen · held ≤ 497 ms · before result', 'Bash: seen · held ≤ 497 ms · before result'],
    ]);
  });

  it("a behind wait that says when its last look ran bounds the hold from below, in every view alike, and proves no shape", async () => {
    const sid = 'd0000000-0000-4000-8000-0000000000b1';
    const t = fx.transcriptPath(sid);
    const T = 1_796_000_000_000;
    const base = { v: 1, session_id: sid, transcript_path: t, tool_use_id: 'toolu_b', tool_name: 'Bash', source: 'transcript-lag-hook' };
    const rec = { type: 'assistant', uuid: 'a-b', timestamp: new Date(T).toISOString(), sessionId: sid, message: { id: 'msg_b', role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_b', name: 'Bash', input: { command: 'ls' } }] } };
    const res = { type: 'user', uuid: 'r-b', timestamp: new Date(T).toISOString(), sessionId: sid, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_b', content: 'ok' }] } };
    await fx.append(t, [{ type: 'user', uuid: 'u-b', timestamp: new Date(T).toISOString(), sessionId: sid, message: { role: 'user', content: 'go' } }, rec, res]);
    await fx.append(fx.channelPath(sid), [
      { ...base, event: 'pre', at: T, mode: 'probe' },
      { ...base, event: 'wait', at: T + 1010, outcome: 'behind', polls: 10, waited_ms: 930, bytes_on_disk: 500, checked_at: T + 930, max_polls: 10, poll_ms: 100 },
    ]);
    const now = T + 60_000;
    const snap = await coldSnapshot(fx, sid, now);
    const bound = { min_ms: 930, max_ms: null };
    assert.deepEqual([snap.recent[0]!.lag_bounds, snap.recent[0]!.shape], [bound, 'unknown']);
    assert.equal(treeModel([snap], now)[0]!.children[0]!.description, 'behind · held ≥ 930 ms · shape unknown');
    const store = new LagSampleStore();
    store.absorb(snap);
    assert.equal(buildReport(snap, store.samples(sid), now).rows[0]!.lag, '≥ 930 ms');
    const analysis = await analyzeTranscript({ path: t, channelPath: fx.channelPath(sid), files: nodeFileAccess, clock: new ManualClock(now) });
    assert.deepEqual([analysis.calls[0]!.held_ms, analysis.calls[0]!.shape], [bound, 'unknown']);
    assert.deepEqual(sessionCalls(path.join(fx.claudeDir, 'transcript-lag'), sid, t)?.[0]?.bounds, bound);
  });
});
