import { strict as assert } from 'node:assert';
import * as fc from 'fast-check';
import type { ChannelEvent } from '../../../../src/core/channel/schema';
import { Correlator } from '../../../../src/core/correlator';
import type { EngineEvent } from '../../../../src/core/engineEvents';
import type { TailRead } from '../../../../src/core/tailTypes';
import type { ScanResult } from '../../../../src/core/records';
import { SESSION, TRANSCRIPT, malformed, plain, post, pre, tailRead, toolResult, toolUse, wait } from '../../helpers/correlatorInputs';

type Input = { kind: 'hook'; ev: ChannelEvent; observedAt: number } | { kind: 'read'; read: TailRead<ScanResult>; path?: string; agentId?: string };

function feed(c: Correlator, input: Input): EngineEvent[] {
  if (input.kind === 'hook') return c.ingestHook(input.ev, input.observedAt);
  const path = input.path ?? TRANSCRIPT;
  return c.ingestTranscript({ sessionId: SESSION, transcriptPath: path, isMain: path === TRANSCRIPT, read: input.read, ...(input.agentId ? { agentId: input.agentId } : {}) });
}

function run(inputs: Input[], c = new Correlator({ recentCalls: 50 })): { events: EngineEvent[]; c: Correlator } {
  const events = inputs.flatMap((i) => feed(c, i));
  return { events, c };
}

const callEvents = (events: EngineEvent[], id: string) => events.filter((e) => 'tool_use_id' in e && e.tool_use_id === id).map((e) => e.event);

describe('Correlator', () => {
  it('pre then record: held, then written with lag = observed - fired', () => {
    const { events, c } = run([{ kind: 'hook', ev: pre('A', 1000), observedAt: 1010 }, { kind: 'read', read: tailRead(1750, 1, [toolUse('A')]) }]);
    assert.deepEqual(callEvents(events, 'A'), ['held', 'written']);
    const written = events.find((e) => e.event === 'written');
    assert.ok(written && written.event === 'written');
    assert.equal(written.lag_ms, 750);
    assert.equal(written.fired_at, 1000);
    assert.equal(written.line, 1);
    assert.equal(written.record_at, Date.parse('2026-01-01T00:00:00.000Z'));
    assert.equal(written.with_result, false);
    const snap = c.snapshot(SESSION);
    assert.equal(snap?.stats.held_now, 0);
    assert.equal(snap?.stats.lag_max_ms, 750);
    assert.equal(snap?.recent[0].state, 'written');
  });

  it('record then pre: written without lag, then joined with the late lag', () => {
    const { events, c } = run([{ kind: 'read', read: tailRead(2000, 1, [toolUse('A')]) }, { kind: 'hook', ev: pre('A', 1500), observedAt: 2100 }]);
    assert.deepEqual(callEvents(events, 'A'), ['written', 'joined']);
    const w = events.find((e) => e.event === 'written');
    assert.ok(w && w.event === 'written' && w.lag_ms === null && w.fired_at === null);
    const j = events.find((e) => e.event === 'joined');
    assert.ok(j && j.event === 'joined');
    assert.equal(j.lag_ms, 500);
    assert.equal(c.snapshot(SESSION)?.recent[0].lag_ms, 500);
  });

  it('record and result in one batch: with_result shape; in separate batches: before_result', () => {
    const { events, c } = run([
      { kind: 'read', read: tailRead(100, 1, [toolUse('A'), toolResult('A')]) },
      { kind: 'read', read: tailRead(200, 3, [toolUse('B')]) },
      { kind: 'read', read: tailRead(300, 4, [toolResult('B')]) },
    ]);
    const results = events.filter((e) => e.event === 'result');
    assert.deepEqual(results.map((e) => e.event === 'result' && [e.tool_use_id, e.line, e.with_result]), [['A', 2, true], ['B', 4, false]]);
    const stats = c.snapshot(SESSION)?.stats;
    assert.equal(stats?.shape_with_result, 1);
    assert.equal(stats?.shape_before_result, 1);
    assert.equal(stats?.calls_written, 2);
  });

  it('a hook fired after the record was observed (clock skew) gives lag 0, never negative', () => {
    const { events } = run([{ kind: 'hook', ev: pre('A', 5000), observedAt: 5000 }, { kind: 'read', read: tailRead(4000, 1, [toolUse('A')]) }]);
    const w = events.find((e) => e.event === 'written');
    assert.ok(w && w.event === 'written' && w.lag_ms === 0);
  });

  it('duplicates and a new generation re-reading the same file count once', () => {
    const first = tailRead(100, 1, [toolUse('A'), toolResult('A'), malformed]);
    const { events, c } = run([
      { kind: 'hook', ev: pre('A', 50), observedAt: 60 },
      { kind: 'hook', ev: pre('A', 50), observedAt: 61 },
      { kind: 'read', read: first },
      { kind: 'read', read: first },
      { kind: 'read', read: tailRead(900, 1, [toolUse('A'), toolResult('A'), malformed], 2) },
    ]);
    assert.deepEqual(callEvents(events, 'A'), ['held', 'written', 'result']);
    const stats = c.snapshot(SESSION)?.stats;
    assert.equal(stats?.calls_written, 1);
    assert.equal(stats?.malformed_lines, 1);
    assert.equal(stats?.shape_with_result, 1);
    assert.equal(stats?.lag_p50_ms, 50);
  });

  it('wait outcomes join the call and count seen/behind once per call and source', () => {
    const { events, c } = run([
      { kind: 'hook', ev: pre('A', 10), observedAt: 10 },
      { kind: 'hook', ev: wait('A', 400, 'seen'), observedAt: 400 },
      { kind: 'hook', ev: wait('A', 400, 'seen'), observedAt: 401 },
      { kind: 'hook', ev: pre('B', 500), observedAt: 500 },
      { kind: 'hook', ev: wait('B', 5500, 'behind'), observedAt: 5500 },
      { kind: 'hook', ev: wait('B', 5600, 'behind', { source: 'other-hook' }), observedAt: 5600 },
    ]);
    assert.equal(events.filter((e) => e.event === 'wait').length, 3);
    const snap = c.snapshot(SESSION);
    assert.equal(snap?.stats.waits_seen, 1);
    assert.equal(snap?.stats.waits_behind, 2);
    assert.equal(snap?.stats.held_now, 2);
    assert.deepEqual(snap?.held.map((h) => [h.tool_use_id, h.wait?.outcome, h.wait?.source]), [['A', 'seen', 'transcript-lag-hook'], ['B', 'behind', 'transcript-lag-hook']]);
  });

  it('subagent records join the parent session and carry the agent id', () => {
    const agentPath = '/claude/projects/-w/sess-1/subagents/agent-x.jsonl';
    const { events, c } = run([
      { kind: 'hook', ev: pre('S', 10, { agent_id: 'x' }), observedAt: 10 },
      { kind: 'read', read: tailRead(30, 1, [toolUse('S', { isSidechain: true })]), path: agentPath, agentId: 'x' },
    ]);
    const w = events.find((e) => e.event === 'written');
    assert.ok(w && w.event === 'written');
    assert.equal(w.transcript_path, agentPath);
    assert.equal(w.agent_id, 'x');
    assert.equal(w.lag_ms, 20);
    assert.equal(c.snapshot(SESSION)?.last_line, 0, 'the timeline is the main transcript only');
  });

  it('keeps memory bounded: a ring of recent calls, pruned finished calls never double count', () => {
    const c = new Correlator({ recentCalls: 3, maxLiveCalls: 10 });
    const reads: TailRead<ScanResult>[] = [];
    for (let i = 0; i < 40; i++) reads.push(tailRead(1000 + i * 10, i * 2 + 1, [toolUse(`T${i}`), toolResult(`T${i}`)]));
    for (const r of reads) feed(c, { kind: 'read', read: r });
    const replay = run([{ kind: 'read', read: tailRead(9000, 1, reads.flatMap((r) => r.lines.map((l) => l.scan)), 2) }], c);
    assert.equal(replay.events.filter((e) => e.event === 'written').length, 0);
    const late = c.ingestHook(pre('T0', 900), 9100);
    assert.deepEqual(late.filter((e) => e.event !== 'session').map((e) => e.event), ['joined']);
    const snap = c.snapshot(SESSION);
    assert.equal(snap?.recent.length, 3);
    assert.deepEqual(snap?.recent.map((r) => r.tool_use_id), ['T39', 'T38', 'T37']);
    assert.equal(snap?.stats.calls_written, 40);
    assert.equal(snap?.stats.shape_with_result, 40);
    assert.equal(snap?.stats.lag_max_ms, 100);
  });

  it('hook events alone stay bounded too (a transcript that is never read)', () => {
    const c = new Correlator({ recentCalls: 3, maxLiveCalls: 10 });
    for (let i = 0; i < 50; i++) c.ingestHook(pre(`H${i}`, 1000 + i), 1000 + i);
    const held = c.snapshot(SESSION)?.held ?? [];
    assert.ok(held.length <= 10, `${held.length} held calls kept`);
    assert.equal(held[held.length - 1].tool_use_id, 'H49', 'the newest are kept');
  });

  it('evicts idle sessions', () => {
    const { c } = run([{ kind: 'hook', ev: pre('A', 10), observedAt: 10 }]);
    assert.deepEqual(c.evictIdle(1000, 5000), []);
    assert.deepEqual(c.evictIdle(6000, 5000), [SESSION]);
    assert.equal(c.snapshot(SESSION), undefined);
  });

  it("starts a session at the earliest record timestamp seen, whatever order the records came in", () => {
    const { c } = run([
      { kind: 'read', read: tailRead(100, 1, [plain({ cwd: '/w', prompt: 'go' })]) },
      { kind: 'read', read: tailRead(200, 2, [toolUse('B', { timestamp: '2026-01-01T10:05:00.000Z' })]) },
      { kind: 'read', read: tailRead(300, 1, [toolUse('A', { timestamp: '2026-01-01T10:00:00.000Z' }), toolUse('X', { timestamp: 'not a date' })], 2) },
    ]);
    assert.equal(c.snapshot(SESSION)?.started_at, Date.parse('2026-01-01T10:00:00.000Z'));
    const none = run([{ kind: 'read', read: tailRead(100, 1, [plain({ cwd: '/w', prompt: 'go' })]) }]).c;
    assert.equal(none.snapshot(SESSION)?.started_at, undefined);
  });

  it('emits a session event when stats or title change, not otherwise', () => {
    const c = new Correlator();
    const e1 = c.ingestTranscript({ sessionId: SESSION, transcriptPath: TRANSCRIPT, isMain: true, read: tailRead(10, 1, [plain({ type: 'ai-title', title: 'Fix the tail', isMetadata: true })]) });
    const s1 = e1.find((e) => e.event === 'session');
    assert.ok(s1 && s1.event === 'session' && s1.title === 'Fix the tail');
    const e2 = c.ingestTranscript({ sessionId: SESSION, transcriptPath: TRANSCRIPT, isMain: true, read: tailRead(20, 2, [plain()]) });
    assert.equal(e2.filter((e) => e.event === 'session').length, 0);
  });
});

/**
 * A scenario with every kind of input, duplicates and a replay in a new
 * generation. Whatever order its inputs arrive in, the final snapshot is the
 * same: that is the correlator's contract.
 */
function scenario(): Input[] {
  const agentPath = '/claude/projects/-w/sess-1/subagents/agent-q.jsonl';
  const b1 = tailRead(1000, 1, [plain({ cwd: '/w', prompt: 'go' }), toolUse('A')]);
  const b2 = tailRead(1400, 3, [toolResult('A'), toolUse('B'), toolResult('B'), malformed]);
  const b3 = tailRead(2000, 7, [toolUse('C', { messageId: 'm3', apiBlockIndex: 0 }), plain({ type: 'ai-title', title: 'T', isMetadata: true })]);
  const b4 = tailRead(2600, 9, [toolResult('C')]);
  const replay = tailRead(8000, 1, [...b1.lines, ...b2.lines, ...b3.lines, ...b4.lines].map((l) => l.scan), 2);
  return [
    { kind: 'hook', ev: pre('A', 900), observedAt: 905 },
    { kind: 'hook', ev: pre('A', 900), observedAt: 990 },
    { kind: 'hook', ev: pre('B', 1100), observedAt: 1105 },
    { kind: 'hook', ev: wait('A', 1300, 'seen'), observedAt: 1305 },
    { kind: 'hook', ev: wait('B', 6100, 'behind'), observedAt: 6105 },
    { kind: 'hook', ev: post('A', 1500), observedAt: 1505 },
    { kind: 'hook', ev: pre('D', 7000, { timeout_ms: 60000 }), observedAt: 7001 },
    { kind: 'hook', ev: pre('S', 1200, { agent_id: 'q' }), observedAt: 1201 },
    { kind: 'read', read: b1 },
    { kind: 'read', read: b2 },
    { kind: 'read', read: b2 },
    { kind: 'read', read: b3 },
    { kind: 'read', read: b4 },
    { kind: 'read', read: replay },
    { kind: 'read', read: tailRead(1250, 1, [toolUse('S'), toolResult('S')]), path: agentPath, agentId: 'q' },
  ];
}

describe('Correlator: order of arrival does not matter', () => {
  const reference = run(scenario()).c.snapshot(SESSION);

  it('the reference scenario joins what it should', () => {
    assert.ok(reference);
    assert.deepEqual(reference.held.map((h) => h.tool_use_id), ['D']);
    assert.deepEqual(reference.recent.map((r) => [r.tool_use_id, r.state, r.lag_ms, r.with_result]), [
      ['C', 'result', null, false],
      ['B', 'result', 300, true],
      ['S', 'result', 50, true],
      ['A', 'result', 100, false],
    ]);
    assert.equal(reference.stats.waits_seen, 1);
    assert.equal(reference.stats.waits_behind, 1);
    assert.equal(reference.stats.malformed_lines, 1);
    assert.equal(reference.stats.calls_written, 4);
    assert.equal(reference.title, 'T');
    assert.equal(reference.cwd, '/w');
    assert.equal(reference.first_prompt, 'go');
    assert.equal(reference.started_at, Date.parse('2026-01-01T00:00:00.000Z'));
  });

  it('every permutation of the inputs ends in the same snapshot', () => {
    const inputs = scenario();
    fc.assert(
      fc.property(fc.shuffledSubarray(inputs, { minLength: inputs.length, maxLength: inputs.length }), (order) => {
        assert.deepEqual(run(order).c.snapshot(SESSION), reference);
      }),
      { numRuns: 300 },
    );
  });

  it('in every order a held call reports held before written, and written once', () => {
    const inputs = scenario();
    fc.assert(
      fc.property(fc.shuffledSubarray(inputs, { minLength: inputs.length, maxLength: inputs.length }), (order) => {
        const { events } = run(order);
        for (const id of ['A', 'B', 'C', 'S']) {
          const seq = callEvents(events, id).filter((e) => e === 'held' || e === 'written' || e === 'joined');
          assert.equal(seq.filter((e) => e === 'written').length, 1, `${id}: ${seq}`);
          if (seq.includes('held')) assert.ok(seq.indexOf('held') < seq.indexOf('written'));
          assert.ok(!(seq.includes('held') && seq.includes('joined')), `${id}: ${seq}`);
        }
      }),
      { numRuns: 200 },
    );
  });
});
