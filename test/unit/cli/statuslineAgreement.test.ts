import { strict as assert } from 'node:assert';
import { promises as fsp, readFileSync, readdirSync, existsSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { sessionStatus } from '../../../src/cli/statusline';
import { sessionCalls } from '../../../src/cli/statuslineCalls';
import { TranscriptLagEngine } from '../../../src/core/engine';
import { lineKindOf } from '../../../src/rules/recordLine';
import type { CallSnapshot, SessionSnapshot } from '../../../src/core/snapshot';
import { nodeFileAccess } from '../../../src/platform/nodeFileAccess';
import { boundsText, formatDuration, hooksText } from '../../../src/presentation/format';
import { terminalStatusText } from '../../../src/presentation/terminalStatus';
import { ClaudeDirFixture } from '../helpers/engineFixture';
import { fixturesDir } from '../helpers/fixtures';
import { ManualClock } from '../helpers/manualClock';

/**
 * The status line and the views say the same thing (issue 31, item 2). Every field recording
 * (test/field/recordings/), every fixture session with a hook channel (test/fixtures/) and a few
 * written here for what neither holds (a watched landing, the mod's landing) are put on disk state
 * by state; at each state the engine, started cold over the files as a window opened then would be
 * (so what it knows of a call's hold is its hooks' evidence, as the status line's), and the status
 * line, at the same clock time, must agree: the held count and the oldest hold's age, the line the
 * status line prints against the one the views' state gives, and call by call held or not and the
 * same bound. Replayed live, the engine's measured lag must lie within the status line's bound.
 */

const REPO = path.resolve(__dirname, '../../..');
const RECORDINGS = path.join(REPO, 'test/field/recordings');
/** Recordings and fixtures are from days ago: nothing is to be dropped as idle. */
const FOREVER = 100 * 365 * 24 * 3600_000;

/** The session's two files at one moment, and the clock then. */
interface State {
  label: string;
  now: number;
  transcript: string[];
  channel: string[];
}

interface Scenario {
  name: string;
  sessionId: string;
  states: State[];
  /** Timed scenarios: each state is what was on disk at its `now`, in order, so a live engine can follow them. */
  timed: boolean;
}

interface Counts {
  states: number;
  heldStates: number;
  callsCompared: number;
  boundedLags: number;
  liveLagsInBounds: number;
}

// ---- the scenarios ----------------------------------------------------------

interface RecordingRow {
  kind: 'transcript' | 'channel';
  t: number;
  text: string;
}

/** Field recordings, filled in for this Claude dir at their own times (scripts/lib/replay.mjs): a state after every write. */
async function recordingScenarios(fx: ClaudeDirFixture): Promise<Scenario[]> {
  const replay = (await import(pathToFileURL(path.join(REPO, 'scripts/lib/replay.mjs')).href)) as {
    loadRecording(file: string): { meta: { scenario: string; session_id: string; t0_epoch_ms: number }; rows: RecordingRow[] };
    replayText(row: RecordingRow, o: { claudeDir: string; workspace: string; home: string; shiftMs: number }): string;
  };
  const out: Scenario[] = [];
  for (const file of readdirSync(RECORDINGS).filter((f) => f.endsWith('.jsonl')).sort()) {
    const { meta, rows } = replay.loadRecording(path.join(RECORDINGS, file));
    const fill = (r: RecordingRow) => replay.replayText(r, { claudeDir: fx.claudeDir, workspace: fx.workspace, home: fx.root, shiftMs: 0 });
    const moments = [...new Set(rows.map((r) => r.t))].sort((a, b) => a - b);
    const states = moments.map((t) => ({
      label: `t=${t}`,
      now: meta.t0_epoch_ms + t,
      transcript: rows.filter((r) => r.kind === 'transcript' && r.t <= t).map(fill),
      channel: rows.filter((r) => r.kind === 'channel' && r.t <= t).map(fill),
    }));
    out.push({ name: `recording ${meta.scenario}`, sessionId: meta.session_id, states, timed: true });
  }
  return out;
}

interface ChannelEventLine {
  event: string;
  at: number;
  tool_use_id?: string;
  transcript_path?: string;
  record_on_disk?: boolean;
  result_on_disk?: boolean;
}

/** Every folder of test/fixtures/ holding `transcript-lag/<session>.jsonl` beside `<session>.jsonl`. */
function fixtureSessions(): { dir: string; sessionId: string }[] {
  const found: { dir: string; sessionId: string }[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (!entry.isDirectory()) continue;
      if (entry.name === 'transcript-lag') {
        for (const f of readdirSync(full).filter((f) => f.endsWith('.jsonl')).sort()) {
          if (existsSync(path.join(dir, f))) found.push({ dir, sessionId: f.replace(/\.jsonl$/, '') });
        }
      } else walk(full);
    }
  };
  walk(fixturesDir);
  return found;
}

/**
 * A fixture has no timing of its own, but each hook event says what its look found on disk: the
 * transcript as that look saw it (up to the call's record, or its result, or through the result),
 * before and after the event reached the channel, then both files whole.
 */
function fixtureScenario(fx: ClaudeDirFixture, dir: string, sessionId: string): Scenario {
  const lines = readFileSync(path.join(dir, `${sessionId}.jsonl`), 'utf8').split('\n').filter(Boolean);
  const transcriptPath = fx.transcriptPath(sessionId);
  const events = readFileSync(path.join(dir, 'transcript-lag', `${sessionId}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as ChannelEventLine);
  const channel = events.map((e) => JSON.stringify({ ...e, transcript_path: transcriptPath }));
  const lineOf = (id: string, kind: 'record' | 'result') => lines.findIndex((l) => lineKindOf(Buffer.from(l), id) === kind);
  const states: State[] = [];
  const last = Math.max(...events.map((e) => e.at));
  events.forEach((e, j) => {
    if (e.tool_use_id === undefined || e.record_on_disk === undefined) return;
    const record = lineOf(e.tool_use_id, 'record');
    const result = lineOf(e.tool_use_id, 'result');
    const upTo = !e.record_on_disk ? record : e.result_on_disk ? result + 1 : result;
    assert.ok(upTo >= 0, `${sessionId}: ${e.event} of ${e.tool_use_id} not found in the transcript`);
    const transcript = lines.slice(0, upTo);
    states.push({ label: `before ${e.event} ${e.tool_use_id}`, now: e.at, transcript, channel: channel.slice(0, j) });
    states.push({ label: `after ${e.event} ${e.tool_use_id}`, now: e.at + 1, transcript, channel: channel.slice(0, j + 1) });
  });
  states.push({ label: 'whole', now: last + 60_000, transcript: lines, channel });
  return { name: `fixture ${path.relative(fixturesDir, dir)}/${sessionId}`, sessionId, states, timed: false };
}

/**
 * What neither holds: a record the post hook missed that its watcher saw land (the lag `watch`
 * measured 515 ms, the landing found at 605 ms), and a call the mod watched from its fire.
 */
function writtenHereScenarios(fx: ClaudeDirFixture): Scenario[] {
  const T = 1_796_000_000_000;
  const mk = (sessionId: string) => {
    const t = fx.transcriptPath(sessionId);
    const base = { v: 1, session_id: sessionId, transcript_path: t, tool_name: 'Bash', source: 'transcript-lag-hook' };
    const rec = (id: string) => JSON.stringify({ type: 'assistant', uuid: `a-${id}`, timestamp: new Date(T).toISOString(), sessionId, message: { id: `msg_${id}`, role: 'assistant', content: [{ type: 'tool_use', id, name: 'Bash', input: { command: 'ls' } }] } });
    const res = (id: string) => JSON.stringify({ type: 'user', uuid: `r-${id}`, timestamp: new Date(T).toISOString(), sessionId, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] } });
    const prompt = JSON.stringify({ type: 'user', uuid: `u-${sessionId}`, timestamp: new Date(T).toISOString(), sessionId, message: { role: 'user', content: 'go' } });
    const ev = (e: Record<string, unknown>) => JSON.stringify({ ...base, ...e });
    return { rec, res, prompt, ev };
  };
  const timeline = (name: string, sessionId: string, rows: { t: number; transcript?: string; channel?: string }[]): Scenario => {
    const states: State[] = [];
    const transcript: string[] = [];
    const channel: string[] = [];
    for (const r of rows) {
      if (r.transcript) transcript.push(r.transcript);
      if (r.channel) channel.push(r.channel);
      states.push({ label: `+${r.t - T} ms`, now: r.t, transcript: [...transcript], channel: [...channel] });
    }
    return { name, sessionId, states, timed: true };
  };
  const W = 'd0000000-0000-4000-8000-00000000000a';
  const w = mk(W);
  const M = 'd0000000-0000-4000-8000-00000000000b';
  const m = mk(M);
  const P = 'd0000000-0000-4000-8000-00000000000c';
  const p = mk(P);
  return [
    timeline('written here: the post hook missed the record, its watcher saw it land', W, [
      { t: T - 1000, transcript: w.prompt },
      { t: T, channel: w.ev({ event: 'pre', at: T, tool_use_id: 'toolu_w', checked_at: T + 10, bytes_on_disk: 10, record_on_disk: false, result_on_disk: false }) },
      { t: T + 410, channel: w.ev({ event: 'post', at: T + 400, tool_use_id: 'toolu_w', checked_at: T + 405, bytes_on_disk: 10, record_on_disk: false, result_on_disk: false }) },
      { t: T + 515, transcript: w.rec('toolu_w') },
      { t: T + 606, channel: w.ev({ event: 'landed', at: T + 605, tool_use_id: 'toolu_w', with_result: false }) },
      { t: T + 700, transcript: w.res('toolu_w') },
      { t: T + 2000, channel: w.ev({ event: 'pre', at: T + 2000, tool_use_id: 'toolu_w2', checked_at: T + 2008, bytes_on_disk: 10, record_on_disk: false, result_on_disk: false }) },
      { t: T + 2900 },
    ]),
    timeline("written here: the mod reported the call and watched it land; a command hook reported it too", M, [
      { t: T - 1000, transcript: m.prompt },
      { t: T, channel: m.ev({ event: 'pre', at: T, tool_use_id: 'toolu_m', transport: 'mod', source: 'transcript-lag-mod' }) },
      { t: T + 90, channel: m.ev({ event: 'pre', at: T + 80, tool_use_id: 'toolu_m', checked_at: T + 90, bytes_on_disk: 10, record_on_disk: false, result_on_disk: false }) },
      // Its settings hooks settle (the mod timed them): held, with their share said, until the record lands.
      { t: T + 481, channel: m.ev({ event: 'hooks', at: T + 480, tool_use_id: 'toolu_m', transport: 'mod', hooks_ms: 470, hooks_decision: 'allow', source: 'transcript-lag-mod' }) },
      { t: T + 515, transcript: m.rec('toolu_m') },
      { t: T + 521, channel: m.ev({ event: 'landed', at: T + 520, tool_use_id: 'toolu_m', with_result: false, watched_from: 'pre', missed_at: T + 500, fired_at: T, source: 'transcript-lag-mod' }) },
      { t: T + 606, channel: m.ev({ event: 'post', at: T + 600, tool_use_id: 'toolu_m', checked_at: T + 605, bytes_on_disk: 10, record_on_disk: true, result_on_disk: false }) },
      { t: T + 700, transcript: m.res('toolu_m') },
    ]),
    timeline('written here: print mode, the record on disk before the pre hook looked', P, [
      { t: T - 1000, transcript: p.prompt },
      { t: T - 50, transcript: p.rec('toolu_p') },
      { t: T + 6, channel: p.ev({ event: 'pre', at: T, tool_use_id: 'toolu_p', checked_at: T + 5, bytes_on_disk: 10, record_on_disk: true, result_on_disk: false }) },
      { t: T + 300, transcript: p.res('toolu_p') },
    ]),
  ];
}

// ---- the two readers --------------------------------------------------------

async function writeState(fx: ClaudeDirFixture, sessionId: string, s: State): Promise<void> {
  await fsp.mkdir(path.dirname(fx.transcriptPath(sessionId)), { recursive: true });
  await fsp.writeFile(fx.transcriptPath(sessionId), s.transcript.map((l) => `${l}\n`).join(''));
  const channel = fx.channelPath(sessionId);
  if (s.channel.length > 0) await fsp.writeFile(channel, s.channel.map((l) => `${l}\n`).join(''));
  else await fsp.rm(channel, { force: true });
}

function newEngine(fx: ClaudeDirFixture, clock: ManualClock): TranscriptLagEngine {
  return new TranscriptLagEngine({
    claudeDir: fx.claudeDir,
    workspaceFolders: [fx.workspace],
    scope: 'all',
    files: nodeFileAccess,
    clock,
    activeWindowMs: FOREVER,
    idleEvictMs: FOREVER,
    channelMaxAgeMs: 0,
    rescanMs: 0,
  });
}

/** A window opened at this state: the engine started over the files, everything read as history. */
async function coldEngine(fx: ClaudeDirFixture, sessionId: string, now: number): Promise<SessionSnapshot | undefined> {
  const engine = newEngine(fx, new ManualClock(now));
  try {
    await engine.start();
    await engine.indexed();
    return engine.session(sessionId);
  } finally {
    await engine.dispose();
  }
}

/** The session's calls with a hook event, as the views have them. */
function hookedCalls(snap: SessionSnapshot | undefined): CallSnapshot[] {
  return snap ? [...snap.held, ...snap.recent].filter((c) => c.fired_at !== undefined) : [];
}

/**
 * The line the views' state gives, in the status line's words: its held calls and the oldest
 * age, else the newest written call's lag (exact where measured, else its evidence's bound).
 */
function viewsLine(snap: SessionSnapshot | undefined, now: number): string {
  const held = snap?.held ?? [];
  const hooks = (c: CallSnapshot | undefined) => (c?.hooks === undefined ? '' : ` · ${hooksText(c.hooks)}`);
  if (held.length > 0) {
    const oldest = held.reduce((a, b) => ((b.fired_at as number) <= (a.fired_at as number) ? b : a));
    return `transcript-lag: ${held.length} held · ${formatDuration(now - (oldest.fired_at as number))}${hooks(oldest)}`;
  }
  const newest = snap?.recent.find((c) => c.fired_at !== undefined);
  if (newest?.lag_ms !== null && newest?.lag_ms !== undefined) return `transcript-lag: lag ${formatDuration(newest.lag_ms)}${hooks(newest)}`;
  if (newest?.lag_bounds) return `transcript-lag: lag ${boundsText(newest.lag_bounds)}${hooks(newest)}`;
  if (newest?.hooks) return `transcript-lag: in sync${hooks(newest)}`;
  return hookedCalls(snap).length > 0 ? 'transcript-lag: in sync' : 'transcript-lag: no hook events yet';
}

/**
 * The transcript path Claude Code gives the status line on stdin: the one its hooks were given (the
 * channel's events carry it). Under Windows a recording's `{{CLAUDE_DIR}}/projects/…` fills in with
 * mixed separators, which Claude Code never writes; the status line matches the two as they are spelled.
 */
function stdinTranscriptPath(fx: ClaudeDirFixture, sc: Scenario): string {
  for (const s of sc.states) {
    for (const line of s.channel) {
      let ev: { transcript_path?: unknown; agent_id?: unknown } | null;
      try {
        ev = JSON.parse(line) as typeof ev;
      } catch {
        continue;
      }
      if (ev !== null && typeof ev === 'object' && typeof ev.transcript_path === 'string' && ev.agent_id === undefined) return ev.transcript_path;
    }
  }
  return fx.transcriptPath(sc.sessionId);
}

async function compareCold(fx: ClaudeDirFixture, sc: Scenario, s: State, counts: Counts): Promise<void> {
  await writeState(fx, sc.sessionId, s);
  const where = `${sc.name} @ ${s.label}`;
  const snap = await coldEngine(fx, sc.sessionId, s.now);
  const transcript = stdinTranscriptPath(fx, sc);
  const status = sessionStatus(path.join(fx.claudeDir, 'transcript-lag'), sc.sessionId, s.now, transcript);
  counts.states++;
  const held = snap?.held ?? [];
  if (held.length > 0) counts.heldStates++;
  assert.equal(status.held, held.length, `${where}: held count`);
  assert.equal(status.oldestHeldMs, held.length > 0 ? Math.max(...held.map((c) => s.now - (c.fired_at as number))) : 0, `${where}: oldest hold`);
  assert.equal(terminalStatusText(status), viewsLine(snap, s.now), `${where}: the line`);
  // Call by call: held or not, and the same bound.
  const lineCalls = new Map((sessionCalls(path.join(fx.claudeDir, 'transcript-lag'), sc.sessionId, transcript) ?? []).map((c) => [c.id, c]));
  for (const call of hookedCalls(snap)) {
    const seen = lineCalls.get(call.tool_use_id);
    assert.ok(seen, `${where}: ${call.tool_use_id} not seen by the status line`);
    counts.callsCompared++;
    assert.equal(seen.held, call.state === 'held', `${where}: ${call.tool_use_id} held`);
    if (call.state === 'held') continue;
    assert.equal(call.lag_ms, null, `${where}: history has no measured lag`);
    assert.deepEqual(seen.bounds, call.lag_bounds, `${where}: ${call.tool_use_id} bound`);
    if (call.lag_bounds) counts.boundedLags++;
  }
}

/** Followed live as the files grew: held alike at every moment, and a measured lag the status line's bound contains. */
async function compareLive(fx: ClaudeDirFixture, sc: Scenario, counts: Counts): Promise<void> {
  const clock = new ManualClock(sc.states[0]!.now - 1);
  const engine = newEngine(fx, clock);
  const channelDir = path.join(fx.claudeDir, 'transcript-lag');
  const transcript = stdinTranscriptPath(fx, sc);
  try {
    await engine.start();
    await engine.indexed();
    let written = { transcript: 0, channel: 0 };
    for (const s of sc.states) {
      // Appended as the writers append: the engine's tails follow the files.
      await fx.appendRaw(transcript, s.transcript.slice(written.transcript).map((l) => `${l}\n`).join(''));
      if (s.channel.length > written.channel) await fx.appendRaw(fx.channelPath(sc.sessionId), s.channel.slice(written.channel).map((l) => `${l}\n`).join(''));
      written = { transcript: s.transcript.length, channel: s.channel.length };
      clock.advance(s.now - clock.now());
      await engine.tick();
      const where = `${sc.name} (live) @ ${s.label}`;
      const snap = engine.session(sc.sessionId);
      const status = sessionStatus(channelDir, sc.sessionId, s.now, transcript);
      assert.equal(status.held, snap?.held.length ?? 0, `${where}: held count`);
      const lineCalls = new Map((sessionCalls(channelDir, sc.sessionId, transcript) ?? []).map((c) => [c.id, c]));
      for (const call of hookedCalls(snap)) {
        const b = lineCalls.get(call.tool_use_id)?.bounds;
        // A read the looks had beaten (it came late): the engine gives their bound, the status line's.
        if (call.lag_bounds) assert.deepEqual(b, call.lag_bounds, `${where}: ${call.tool_use_id} bound of a late read`);
        if (call.lag_ms === null || call.lag_ms === undefined || !b) continue;
        assert.ok(b.min_ms <= call.lag_ms && (b.max_ms === null || call.lag_ms <= b.max_ms), `${where}: ${call.tool_use_id} lag ${call.lag_ms} ms outside the status line's ${JSON.stringify(b)}`);
        counts.liveLagsInBounds++;
      }
    }
  } finally {
    await engine.dispose();
  }
}

describe('statusline and the views say the same thing (every recording and hooked fixture, state by state)', function () {
  this.timeout(120_000);
  let fx: ClaudeDirFixture;
  beforeEach(async () => {
    fx = await ClaudeDirFixture.create();
  });
  afterEach(async () => {
    await fx.remove();
  });

  it('field recordings: the engine opened cold at every write and the status line agree; replayed live, held alike', async () => {
    const counts: Counts = { states: 0, heldStates: 0, callsCompared: 0, boundedLags: 0, liveLagsInBounds: 0 };
    const scenarios = await recordingScenarios(fx);
    assert.ok(scenarios.length >= 3, 'the field recordings are there');
    for (const sc of scenarios) for (const s of sc.states) await compareCold(fx, sc, s, counts);
    for (const sc of scenarios) {
      await fsp.rm(fx.transcriptPath(sc.sessionId), { force: true });
      await fsp.rm(fx.channelPath(sc.sessionId), { force: true });
      await compareLive(fx, sc, counts);
    }
    assert.ok(counts.heldStates > 0 && counts.callsCompared > 0, JSON.stringify(counts));
  });

  it('fixture sessions with a hook channel: at each look of their hooks, before and after its event, and whole', async () => {
    const counts: Counts = { states: 0, heldStates: 0, callsCompared: 0, boundedLags: 0, liveLagsInBounds: 0 };
    const sessions = fixtureSessions();
    assert.ok(sessions.length >= 2, 'test/fixtures/real/print-fork has two');
    for (const { dir, sessionId } of sessions) {
      const sc = fixtureScenario(fx, dir, sessionId);
      for (const s of sc.states) await compareCold(fx, sc, s, counts);
    }
    assert.ok(counts.heldStates > 0 && counts.boundedLags > 0, JSON.stringify(counts));
  });

  it('written here: a watched landing and the mod\'s landing are bounds in both, and contain the lag the live engine measured', async () => {
    const counts: Counts = { states: 0, heldStates: 0, callsCompared: 0, boundedLags: 0, liveLagsInBounds: 0 };
    for (const sc of writtenHereScenarios(fx)) {
      for (const s of sc.states) await compareCold(fx, sc, s, counts);
      await fsp.rm(fx.transcriptPath(sc.sessionId), { force: true });
      await fsp.rm(fx.channelPath(sc.sessionId), { force: true });
      await compareLive(fx, sc, counts);
    }
    assert.ok(counts.boundedLags > 0 && counts.liveLagsInBounds >= 2, JSON.stringify(counts));
  });
});
