import { strict as assert } from 'node:assert';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { ChangeSource } from '../../../../src/core/changeSource';
import type { EngineEvent } from '../../../../src/core/engineEvents';
import type { FileAccess } from '../../../../src/core/fileAccess';
import { TranscriptLagEngine, type EngineOptions } from '../../../../src/core/engine';
import { nodeFileAccess } from '../../../../src/platform/nodeFileAccess';
import { ManualClock } from '../../helpers/manualClock';
import { ClaudeDirFixture, preLine, toolResultRecord, toolUseRecord, userPrompt, waitLine } from '../../helpers/engineFixture';

const S = 'a1b2c3d4-0000-4000-8000-000000000001';

describe('TranscriptLagEngine', () => {
  let fx: ClaudeDirFixture;
  let clock: ManualClock;
  let engine: TranscriptLagEngine;
  let events: EngineEvent[];

  // File mtimes are real: the manual clock starts at the real time so "recently modified" means what it says.
  beforeEach(async () => {
    fx = await ClaudeDirFixture.create();
    clock = new ManualClock(Date.now());
    events = [];
  });
  afterEach(async () => {
    await engine?.dispose();
    await fx.remove();
  });

  async function startEngine(extra: Partial<EngineOptions> = {}): Promise<void> {
    engine = new TranscriptLagEngine({ claudeDir: fx.claudeDir, workspaceFolders: [fx.workspace], scope: 'workspace', files: nodeFileAccess, clock, ...extra });
    engine.onEvent((e) => events.push(e));
    await engine.start();
    await engine.indexed();
  }

  const of = (kind: EngineEvent['event']) => events.filter((e) => e.event === kind);
  const callSeq = (id: string) => events.filter((e) => 'tool_use_id' in e && e.tool_use_id === id).map((e) => e.event);

  async function startedSession(): Promise<string> {
    const t = fx.transcriptPath(S);
    await fx.append(t, [userPrompt(S, fx.workspace)]);
    await startEngine();
    return t;
  }

  it('pre event then record: held, then written with the lag from the clock', async () => {
    const t = await startedSession();
    const fired = clock.now();
    await fx.append(fx.channelPath(S), [preLine(S, t, 'toolu_1', fired)]);
    clock.advance(40);
    await engine.tick();
    assert.deepEqual(callSeq('toolu_1'), ['held']);
    assert.equal(engine.sessions()[0].stats.held_now, 1);
    assert.equal(engine.sessions()[0].held[0].tool_use_id, 'toolu_1');

    await fx.append(t, [toolUseRecord(S, fx.workspace, 'toolu_1')]);
    clock.advance(600);
    await engine.tick();
    assert.deepEqual(callSeq('toolu_1'), ['held', 'written']);
    const w = of('written')[0];
    assert.ok(w.event === 'written');
    assert.equal(w.lag_ms, 640);
    assert.equal(w.line, 2);
    assert.equal(w.with_result, false);
    assert.equal(w.transcript_path, t);
    const snap = engine.session(S);
    assert.equal(snap?.stats.held_now, 0);
    assert.equal(snap?.recent[0].lag_ms, 640);
    assert.equal(snap?.last_line, 2);
  });

  it('record first, then pre: written without a lag, then joined with the late lag', async () => {
    const t = await startedSession();
    const fired = clock.now();
    await fx.append(t, [toolUseRecord(S, fx.workspace, 'toolu_2')]);
    clock.advance(100);
    await engine.tick();
    await fx.append(fx.channelPath(S), [preLine(S, t, 'toolu_2', fired)]);
    clock.advance(50);
    await engine.tick();
    assert.deepEqual(callSeq('toolu_2'), ['written', 'joined']);
    const j = of('joined')[0];
    assert.ok(j.event === 'joined' && j.lag_ms === 100);
  });

  it('record and result in one append: with_result on both, counted as that shape', async () => {
    const t = await startedSession();
    await fx.append(t, [toolUseRecord(S, fx.workspace, 'toolu_3'), toolResultRecord(S, fx.workspace, 'toolu_3')]);
    clock.advance(10);
    await engine.tick();
    const w = of('written')[0];
    const r = of('result')[0];
    assert.ok(w.event === 'written' && w.with_result && w.batch_first_line === 2 && w.batch_last_line === 3);
    assert.ok(r.event === 'result' && r.with_result && r.line === 3);
    assert.equal(engine.session(S)?.stats.shape_with_result, 1);
  });

  it('wait outcomes from the channel count as seen / behind', async () => {
    const t = await startedSession();
    await fx.append(fx.channelPath(S), [preLine(S, t, 'toolu_4', clock.now()), waitLine(S, t, 'toolu_4', clock.now() + 5000, 'behind')]);
    clock.advance(5100);
    await engine.tick();
    const w = of('wait')[0];
    assert.ok(w.event === 'wait' && w.outcome === 'behind' && w.polls === 50);
    assert.equal(engine.session(S)?.stats.waits_behind, 1);
  });

  it('truncation: a tail event, and re-read lines are not counted twice', async () => {
    const t = await startedSession();
    const lines = [userPrompt(S, fx.workspace), toolUseRecord(S, fx.workspace, 'toolu_5'), toolResultRecord(S, fx.workspace, 'toolu_5')];
    await fx.append(t, lines.slice(1));
    clock.advance(10);
    await engine.tick();
    await fsp.writeFile(t, '');
    await fx.append(t, lines);
    await fx.append(t, [toolUseRecord(S, fx.workspace, 'toolu_6')]);
    clock.advance(10);
    await engine.tick();
    const tail = of('tail');
    assert.equal(tail.length, 1);
    assert.ok(tail[0].event === 'tail' && tail[0].change === 'truncated' && tail[0].generation === 2);
    assert.deepEqual(of('written').map((e) => 'tool_use_id' in e && e.tool_use_id), ['toolu_5', 'toolu_6']);
    assert.equal(engine.session(S)?.stats.calls_written, 2);
    assert.equal(engine.session(S)?.last_line, 4);
  });

  it('ignores a channel line whose transcript_path is outside <claudeDir>/projects/', async () => {
    const t = await startedSession();
    const outside = path.join(fx.root, 'elsewhere', `${S}.jsonl`);
    await fx.append(outside, [userPrompt(S, fx.workspace), toolUseRecord(S, fx.workspace, 'toolu_x')]);
    await fx.append(fx.channelPath(S), [preLine(S, outside, 'toolu_x', clock.now()), preLine(S, `${t}/../../../../elsewhere/${S}.jsonl`, 'toolu_y', clock.now())]);
    clock.advance(10);
    await engine.tick();
    assert.deepEqual(callSeq('toolu_x'), []);
    assert.deepEqual(callSeq('toolu_y'), []);
    assert.equal(engine.session(S)?.stats.held_now, 0);
  });

  it('follows a new session as it appears, and not one of another folder', async () => {
    await startEngine();
    const mine = 'b0000000-0000-4000-8000-000000000002';
    const theirs = 'c0000000-0000-4000-8000-000000000003';
    const other = path.join(fx.root, 'other');
    await fx.append(fx.transcriptPath(mine, path.join(fx.workspace, 'pkg')), [userPrompt(mine, path.join(fx.workspace, 'pkg')), toolUseRecord(mine, fx.workspace, 'toolu_m')]);
    await fx.append(fx.transcriptPath(theirs, other), [userPrompt(theirs, other), toolUseRecord(theirs, other, 'toolu_t')]);
    clock.advance(10);
    await engine.tick();
    assert.deepEqual(engine.sessions().map((s) => s.session_id), [mine]);
    assert.deepEqual(callSeq('toolu_m'), ['written']);
    assert.deepEqual(callSeq('toolu_t'), []);
    const sessionEvents = of('session');
    assert.ok(sessionEvents.every((e) => e.session_id === mine));
  });

  it('hook events of a session in another folder are not followed or shown', async () => {
    // Counts reads per path: once its channel names another folder's transcript, the session's files are dropped.
    const reads = new Map<string, number>();
    const files: FileAccess = {
      ...nodeFileAccess,
      open: async (p) => {
        const f = await nodeFileAccess.open(p);
        return { ...f, read: (b, o, l, pos) => (reads.set(p, (reads.get(p) ?? 0) + 1), f.read(b, o, l, pos)) };
      },
    };
    await startEngine({ files });
    const theirs = 'c0000000-0000-4000-8000-000000000003';
    const other = path.join(fx.root, 'other');
    const theirT = fx.transcriptPath(theirs, other);
    await fx.append(theirT, [userPrompt(theirs, other)]);
    await fx.append(fx.channelPath(theirs), [preLine(theirs, theirT, 'toolu_o', clock.now())]);
    clock.advance(10);
    await engine.tick();
    await fx.append(theirT, [toolUseRecord(theirs, other, 'toolu_o')]);
    await fx.append(fx.channelPath(theirs), [preLine(theirs, theirT, 'toolu_o2', clock.now())]);
    clock.advance(10);
    await engine.tick();
    assert.deepEqual(events, []);
    assert.deepEqual(engine.sessions(), []);
    assert.equal(reads.get(theirT), undefined, 'their transcript is never read');
    const channelReads = reads.get(fx.channelPath(theirs));
    await fx.append(fx.channelPath(theirs), [preLine(theirs, theirT, 'toolu_o3', clock.now())]);
    clock.advance(20_000);
    await engine.tick();
    assert.equal(reads.get(fx.channelPath(theirs)), channelReads, 'their channel file is no longer read');
  });

  it('with scope all, follows sessions of every folder', async () => {
    const other = path.join(fx.root, 'other');
    const theirs = 'c0000000-0000-4000-8000-000000000003';
    await startEngine({ scope: 'all' });
    await fx.append(fx.transcriptPath(theirs, other), [userPrompt(theirs, other), toolUseRecord(theirs, other, 'toolu_t')]);
    clock.advance(10);
    await engine.tick();
    assert.deepEqual(callSeq('toolu_t'), ['written']);
  });

  it('joins subagent transcripts to their parent session', async () => {
    const t = await startedSession();
    const agent = path.join(path.dirname(t), S, 'subagents', 'agent-abc.jsonl');
    await fx.append(fx.channelPath(S), [{ ...preLine(S, t, 'toolu_sub', clock.now()), agent_id: 'abc' }]);
    await fx.append(agent, [toolUseRecord(S, fx.workspace, 'toolu_sub', { isSidechain: true, agentId: 'abc' })]);
    clock.advance(30);
    await engine.tick();
    assert.deepEqual(callSeq('toolu_sub'), ['held', 'written']);
    const w = of('written')[0];
    assert.ok(w.event === 'written' && w.agent_id === 'abc' && w.transcript_path === agent && w.lag_ms === 30);
  });

  it('a poll looks for subagents only in sessions that have a folder: none is looked for in one without', async () => {
    const t = fx.transcriptPath(S);
    await fx.append(t, [userPrompt(S, fx.workspace)]);
    const looked: string[] = [];
    const files: FileAccess = {
      ...nodeFileAccess,
      stat: (p) => {
        if (p.endsWith(`${path.sep}subagents`)) looked.push(p);
        return nodeFileAccess.stat(p);
      },
    };
    await startEngine({ files });
    for (let i = 0; i < 3; i++) {
      clock.advance(1000);
      await engine.tick();
    }
    assert.deepEqual(looked, [], 'a stat per session and poll: 20,000 of them a second over 20,000 sessions');
    // Its folder made later (a subagent starts): looked into from the next poll on, and the agent followed.
    const agent = path.join(path.dirname(t), S, 'subagents', 'agent-late.jsonl');
    await fx.append(agent, [toolUseRecord(S, fx.workspace, 'toolu_late_agent', { isSidechain: true, agentId: 'late' })]);
    clock.advance(1000);
    await engine.tick();
    assert.deepEqual(callSeq('toolu_late_agent'), ['written']);
  });

  it('maps an older agent-*.jsonl beside the sessions to its parent by the records\' sessionId', async () => {
    const t = await startedSession();
    const agent = path.join(path.dirname(t), 'agent-old1.jsonl');
    await fx.append(fx.channelPath(S), [{ ...preLine(S, t, 'toolu_old_agent', clock.now()), agent_id: 'old1' }]);
    await fx.append(agent, [toolUseRecord(S, fx.workspace, 'toolu_old_agent', { isSidechain: true, agentId: 'old1' })]);
    clock.advance(25);
    await engine.tick();
    assert.deepEqual(callSeq('toolu_old_agent'), ['held', 'written']);
    const w = of('written')[0];
    assert.ok(w.event === 'written' && w.session_id === S && w.agent_id === 'old1' && w.lag_ms === 25);
  });

  it('history at start is indexed quietly; calls still held are announced', async () => {
    const t = fx.transcriptPath(S);
    await fx.append(t, [userPrompt(S, fx.workspace), toolUseRecord(S, fx.workspace, 'toolu_old'), toolResultRecord(S, fx.workspace, 'toolu_old')]);
    await fx.append(fx.channelPath(S), [preLine(S, t, 'toolu_old', clock.now() - 5000), preLine(S, t, 'toolu_open', clock.now() - 100)]);
    await startEngine();
    assert.deepEqual(events.map((e) => e.event), ['session', 'held']);
    assert.equal(events[1].event === 'held' && events[1].tool_use_id, 'toolu_open');
    const snap = engine.session(S);
    assert.equal(snap?.stats.calls_written, 1);
    assert.equal(snap?.recent[0].lag_ms, null, 'when history reached disk is unknown');
    // The same record read again (a replayed file) changes nothing.
    await fx.append(t, [toolUseRecord(S, fx.workspace, 'toolu_old')]);
    await engine.tick();
    assert.deepEqual(callSeq('toolu_old'), []);
  });

  it('a session caught up at start is active from when its file was last written, not from the start', async () => {
    const t = fx.transcriptPath(S);
    await fx.append(t, [userPrompt(S, fx.workspace)]);
    const twentyMinutesAgo = new Date(clock.now() - 20 * 60_000);
    await fsp.utimes(t, twentyMinutesAgo, twentyMinutesAgo);
    await startEngine({ activeWindowMs: 30 * 60_000 });
    assert.equal(engine.sessions().length, 1);
    clock.advance(11 * 60_000);
    assert.equal(engine.sessions().length, 0);
  });

  it('a resumed old session: what it held is history, only what follows is live', async () => {
    const t = fx.transcriptPath(S);
    await fx.append(t, [userPrompt(S, fx.workspace), toolUseRecord(S, fx.workspace, 'toolu_before'), toolResultRecord(S, fx.workspace, 'toolu_before')]);
    const twoHoursAgo = new Date(clock.now() - 2 * 3600_000);
    await fsp.utimes(t, twoHoursAgo, twoHoursAgo);
    await startEngine({ activeWindowMs: 30 * 60_000 });
    assert.deepEqual(events, [], 'an old session is not followed');
    await fx.append(fx.channelPath(S), [preLine(S, t, 'toolu_after', clock.now())]);
    await fx.append(t, [toolUseRecord(S, fx.workspace, 'toolu_after')]);
    clock.advance(20_000);
    await engine.tick();
    assert.deepEqual(callSeq('toolu_before'), []);
    assert.deepEqual(callSeq('toolu_after').filter((e) => e !== 'held'), ['written']);
    const w = of('written')[0];
    assert.ok(w.event === 'written' && w.line === 4 && w.lag_ms === 20_000);
    assert.equal(engine.session(S)?.stats.calls_written, 2);
  });

  it('an evicted session written again reports only its new calls', async () => {
    const t = fx.transcriptPath(S);
    await fx.append(t, [userPrompt(S, fx.workspace), toolUseRecord(S, fx.workspace, 'toolu_e1')]);
    await startEngine({ idleEvictMs: 60_000, activeWindowMs: 30_000 });
    clock.advance(70_000);
    await engine.tick();
    assert.equal(engine.session(S), undefined, 'evicted');
    await fx.append(t, [toolUseRecord(S, fx.workspace, 'toolu_e2')]);
    const now = new Date(clock.now());
    await fsp.utimes(t, now, now);
    clock.advance(11_000);
    await engine.tick();
    assert.deepEqual(callSeq('toolu_e1'), []);
    assert.deepEqual(callSeq('toolu_e2'), ['written']);
  });

  it('an unreadable project folder does not fail the poll; its sessions show once it can be read', async () => {
    let denied = true;
    const files: FileAccess = {
      ...nodeFileAccess,
      readdir: async (p) => {
        if (denied && p.includes('projects')) throw Object.assign(new Error('EACCES'), { code: 'EACCES' });
        return nodeFileAccess.readdir(p);
      },
    };
    const t = fx.transcriptPath(S);
    await fx.append(t, [userPrompt(S, fx.workspace)]);
    await startEngine({ files });
    await engine.tick();
    assert.deepEqual(engine.sessions(), []);
    denied = false;
    clock.advance(11_000);
    await engine.tick();
    assert.deepEqual(engine.sessions().map((x) => x.session_id), [S]);
  });

  it('does nothing after dispose(), even if a timer still ticks', async () => {
    const t = await startedSession();
    await engine.dispose();
    events.length = 0;
    engine.onEvent((e) => events.push(e));
    await fx.append(t, [toolUseRecord(S, fx.workspace, 'toolu_late')]);
    clock.advance(11_000);
    await engine.tick();
    assert.deepEqual(events, []);
  });

  it('a change notification reads the file at once, without a tick', async () => {
    let notify: ((p: string) => void) | undefined;
    const changes: ChangeSource = { watch: (_folders, onChange) => ((notify = onChange), { dispose: () => undefined }) };
    const t = fx.transcriptPath(S);
    await fx.append(t, [userPrompt(S, fx.workspace)]);
    await startEngine({ changes });
    assert.ok(notify);
    await fx.append(t, [toolUseRecord(S, fx.workspace, 'toolu_n')]);
    const written = new Promise<void>((resolve) => engine.onEvent((e) => e.event === 'written' && resolve()));
    notify(t);
    await written;
    assert.deepEqual(callSeq('toolu_n'), ['written']);
  });

  it('evicts idle sessions and prunes old channel files', async () => {
    const removed: string[] = [];
    const old = path.join(fx.claudeDir, 'transcript-lag', 'd0000000-0000-4000-8000-000000000009.jsonl');
    await fx.append(old, [{ v: 1 }]);
    const weekAgo = new Date(clock.now() - 8 * 24 * 3600 * 1000);
    await fsp.utimes(old, weekAgo, weekAgo);
    const t = fx.transcriptPath(S);
    await fx.append(t, [userPrompt(S, fx.workspace)]);
    await startEngine({ idleEvictMs: 60_000, activeWindowMs: 30_000, removeFile: async (p) => void removed.push(p) });
    assert.deepEqual(removed, [old]);
    assert.equal(engine.sessions().length, 1);
    clock.advance(40_000);
    assert.equal(engine.sessions().length, 0, 'no longer active');
    assert.ok(engine.session(S), 'still in memory');
    clock.advance(30_000);
    await engine.tick();
    assert.equal(engine.session(S), undefined);
  });

  it('reconfigure to scope all shows other folders\' sessions without replaying their history', async () => {
    const other = path.join(fx.root, 'other');
    const theirs = 'c0000000-0000-4000-8000-000000000003';
    await fx.append(fx.transcriptPath(theirs, other), [userPrompt(theirs, other), toolUseRecord(theirs, other, 'toolu_t')]);
    await startedSession();
    assert.deepEqual(engine.sessions().map((s) => s.session_id), [S]);
    await engine.reconfigure({ scope: 'all', recentCalls: 5 });
    await engine.indexed();
    assert.deepEqual(engine.sessions().map((s) => s.session_id).sort(), [S, theirs].sort());
    assert.deepEqual(callSeq('toolu_t'), []);
    assert.equal(engine.session(theirs)?.stats.calls_written, 1);
  });

  it('a tick before start() is the quiet catch-up', async () => {
    const t = fx.transcriptPath(S);
    await fx.append(t, [userPrompt(S, fx.workspace), toolUseRecord(S, fx.workspace, 'toolu_h')]);
    engine = new TranscriptLagEngine({ claudeDir: fx.claudeDir, workspaceFolders: [fx.workspace], scope: 'workspace', files: nodeFileAccess, clock });
    engine.onEvent((e) => events.push(e));
    await engine.tick();
    await engine.start();
    await engine.indexed();
    assert.deepEqual(events.map((e) => e.event), ['session']);
    await fx.append(t, [toolUseRecord(S, fx.workspace, 'toolu_live')]);
    await engine.tick();
    assert.deepEqual(callSeq('toolu_live'), ['written']);
  });
});
