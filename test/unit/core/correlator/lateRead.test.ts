import { strict as assert } from 'node:assert';
import type { LandedEvent } from '../../../../src/core/channel/schema';
import { Correlator } from '../../../../src/core/correlator';
import type { EngineEvent, RevisedEvent } from '../../../../src/core/engineEvents';
import { LagSampleStore } from '../../../../src/presentation/lagSamples';
import { type CallSightings, noteSighting, verdictFromHook } from '../../../../src/rules/hookEvidence';
import { buildReport } from '../../../../src/presentation/reportModel';
import { SESSION, TRANSCRIPT, pre, tailRead, toolResult, toolUse, wait } from '../../helpers/correlatorInputs';

// One number per call (issue 32): the record's first sighting decides a call's lag and shape. The
// engine's read, when nothing saw the record earlier: an exact figure. When a look of the call's own
// hooks (the mod's, a pre or post hook's) had found it before that read, the read came late (a busy
// window): its time would overstate the hold and contradict the bound the mod's row and the status
// line give, so the engine gives that bound, on `written` when it knew by then, else as `revised`.
const modPre = (id: string, at: number) => pre(id, at, { transport: 'mod', source: 'transcript-lag-mod' });
const modLanded = (id: string, at: number, firedAt: number, withResult = false): LandedEvent => ({
  v: 1,
  event: 'landed',
  at,
  session_id: SESSION,
  transcript_path: TRANSCRIPT,
  tool_use_id: id,
  tool_name: 'Bash',
  with_result: withResult,
  watched_from: 'pre',
  missed_at: at - 10,
  fired_at: firedAt,
  source: 'transcript-lag-mod',
});
const read = (c: Correlator, at: number, line: number, scans: Parameters<typeof tailRead>[2]) =>
  c.ingestTranscript({ sessionId: SESSION, transcriptPath: TRANSCRIPT, isMain: true, read: tailRead(at, line, scans) });
const only = <E extends EngineEvent['event']>(events: EngineEvent[], name: E) => events.filter((e): e is Extract<EngineEvent, { event: E }> => e.event === name);
const callOf = (c: Correlator) => c.snapshot(SESSION)!.recent[0];

describe('Correlator: the record\'s first sighting decides the lag (a late read is no measure)', () => {
  it('read before the mod found it: the read is the lag, the landing changes nothing and says nothing', () => {
    const c = new Correlator();
    c.ingestHook(modPre('A', 1000), 1001);
    const w = only(read(c, 1550, 1, [toolUse('A')]), 'written');
    const after = c.ingestHook(modLanded('A', 1600, 1000), 1601);
    assert.deepEqual([w[0].lag_ms, w[0].lag_bounds, w[0].shape], [550, undefined, 'before_result']);
    assert.deepEqual(after.filter((e) => e.event !== 'session'), []);
    assert.deepEqual([callOf(c).lag_ms, callOf(c).lag_bounds], [550, undefined]);
    assert.equal(c.snapshot(SESSION)!.stats.lag_p50_ms, 550);
  });

  it('a read at the very ms the mod found it is still the read\'s figure (ties go to the read)', () => {
    const c = new Correlator();
    c.ingestHook(modPre('A', 1000), 1001);
    c.ingestHook(modLanded('A', 1600, 1000), 1601);
    assert.equal(only(read(c, 1600, 1, [toolUse('A')]), 'written')[0].lag_ms, 600);
  });

  it('the mod found it before the read, known at the read: `written` gives the look\'s bound, no lag', () => {
    const c = new Correlator();
    c.ingestHook(modPre('A', 1000), 1001);
    c.ingestHook(modLanded('A', 1600, 1000), 1601);
    const events = read(c, 1900, 1, [toolUse('A')]);
    const [w] = only(events, 'written');
    assert.deepEqual([w.lag_ms, w.lag_bounds, w.shape, w.with_result], [null, { min_ms: 0, max_ms: 600 }, 'before_result', false]);
    assert.deepEqual(only(events, 'revised'), []);
    const call = callOf(c);
    assert.deepEqual([call.lag_ms, call.lag_bounds, call.shape], [null, { min_ms: 0, max_ms: 600 }, 'before_result']);
    assert.equal(c.snapshot(SESSION)!.stats.lag_p50_ms, null, 'not counted among the measured lags');
  });

  it('the landing read after the late read: `revised` takes the lag back from the call, the stats and the report', () => {
    const c = new Correlator();
    const store = new LagSampleStore();
    const feed = (events: EngineEvent[]) => events.forEach((e) => store.add(e));
    feed(c.ingestHook(modPre('A', 1000), 1001));
    const events = read(c, 1900, 1, [toolUse('A'), toolResult('A')]);
    feed(events);
    assert.deepEqual([only(events, 'written')[0].lag_ms, only(events, 'written')[0].shape], [900, 'with_result']);
    assert.equal(c.snapshot(SESSION)!.stats.lag_p50_ms, 900);
    assert.equal(c.snapshot(SESSION)!.stats.shape_with_result, 1);
    // The mod's look found the record alone at 1600: the read at 1900 brought both, late.
    const later = c.ingestHook(modLanded('A', 1600, 1000, false), 1950);
    feed(later);
    const [r] = only(later, 'revised') as RevisedEvent[];
    assert.deepEqual([r.at, r.fired_at, r.lag_bounds, r.shape, r.transcript_path], [1950, 1000, { min_ms: 0, max_ms: 600 }, 'before_result', TRANSCRIPT]);
    const call = callOf(c);
    assert.deepEqual([call.lag_ms, call.lag_bounds, call.shape], [null, { min_ms: 0, max_ms: 600 }, 'before_result']);
    const stats = c.snapshot(SESSION)!.stats;
    assert.deepEqual([stats.lag_p50_ms, stats.shape_with_result, stats.shape_before_result], [null, 0, 1]);
    const [sample] = store.samples(SESSION);
    assert.deepEqual([sample.lag_ms, sample.lag_min_ms, sample.lag_max_ms, sample.shape], [null, 0, 600, 'before_result']);
    const report = buildReport(c.snapshot(SESSION)!, store.samples(SESSION), 2000);
    assert.equal(report.rows[0].lag, '≤ 600 ms', 'the report says the bound the tree says');
    // The same landing again, or a later one: said once.
    assert.deepEqual(only(c.ingestHook(modLanded('A', 1700, 1000), 1960), 'revised'), []);
  });

  it("a command hook's pre that missed it and post that saw it bound it on both sides", () => {
    const c = new Correlator();
    c.ingestHook(pre('B', 1000, { checked_at: 1010, record_on_disk: false, result_on_disk: false }), 1011);
    c.ingestHook({ ...pre('B', 1400), event: 'post', checked_at: 1405, record_on_disk: true, result_on_disk: false } as never, 1406);
    const [w] = only(read(c, 2000, 1, [toolUse('B')]), 'written');
    assert.deepEqual([w.lag_ms, w.lag_bounds], [null, { min_ms: 10, max_ms: 405 }]);
    assert.deepEqual([callOf(c).lag_ms, callOf(c).lag_bounds], [null, { min_ms: 10, max_ms: 405 }]);
  });

  it('a late read that brought record and result, with no look proving the shape: shape unknown, counted as such', () => {
    const c = new Correlator();
    c.ingestHook(pre('B', 1000), 1001);
    // A post hook's look found both (no proof of how they were written), before the engine's read.
    c.ingestHook({ ...pre('B', 1400), event: 'post', checked_at: 1405, record_on_disk: true, result_on_disk: true } as never, 1406);
    const [w] = only(read(c, 2000, 1, [toolUse('B'), toolResult('B')]), 'written');
    assert.deepEqual([w.lag_bounds, w.with_result, w.shape], [{ min_ms: 0, max_ms: 405 }, true, 'unknown']);
    assert.equal(c.snapshot(SESSION)!.stats.shape_unknown, 1);
  });

  it('a buried call is revised by the same rule', () => {
    const c = new Correlator({ recentCalls: 1 });
    c.ingestHook(modPre('A', 1000), 1001);
    read(c, 1900, 1, [toolUse('A'), toolResult('A')]);
    // Later calls push A out of memory (a tombstone).
    for (let i = 0; i < 5; i++) read(c, 3000 + i, 3 + i * 2, [toolUse(`X${i}`), toolResult(`X${i}`)]);
    assert.ok(!c.snapshot(SESSION)!.recent.some((r) => r.tool_use_id === 'A'), 'A is buried');
    assert.equal(c.snapshot(SESSION)!.stats.lag_max_ms, 900);
    const [r] = only(c.ingestHook(modLanded('A', 1600, 1000), 5000), 'revised');
    assert.deepEqual([r.tool_use_id, r.lag_bounds, r.shape, r.transcript_path], ['A', { min_ms: 0, max_ms: 600 }, 'before_result', TRANSCRIPT]);
    assert.equal(c.snapshot(SESSION)!.stats.lag_p50_ms, null);
  });

  it('late finds of buried calls move their counts, never count them twice', () => {
    const c = new Correlator({ recentCalls: 1, rememberedCalls: 4, maxLiveCalls: 2 });
    for (let i = 0; i < 6; i++) {
      c.ingestHook(modPre(`T${i}`, 1000 + i * 1000), 1001 + i * 1000);
      read(c, 1900 + i * 1000, 1 + i * 2, [toolUse(`T${i}`), toolResult(`T${i}`)]);
    }
    for (let i = 0; i < 6; i++) c.ingestHook(modLanded(`T${i}`, 1600 + i * 1000, 1000 + i * 1000), 9000);
    const stats = c.snapshot(SESSION)!.stats;
    assert.equal(stats.calls_written, 6);
    assert.equal(stats.shape_before_result + stats.shape_with_result + stats.shape_unknown, 6, JSON.stringify(stats));
    // The five still in memory or buried were revised (before their result, no lag); the one forgotten keeps what its read said.
    assert.deepEqual([stats.shape_before_result, stats.shape_with_result, stats.lag_p50_ms], [5, 1, 900]);
  });

  const permutations = (xs: number[]): number[][] => (xs.length <= 1 ? [xs] : xs.flatMap((x) => permutations(xs.filter((y) => y !== x)).map((p) => [x, ...p])));
  /** Every order of `inputs`: the call and stats the engine ends with, and what the events fed to the report's samples end with. */
  function ends(inputs: Array<(c: Correlator) => EngineEvent[]>): Set<string> {
    const seen = new Set<string>();
    for (const order of permutations(inputs.map((_, i) => i))) {
      const c = new Correlator();
      const store = new LagSampleStore();
      for (const i of order) for (const e of inputs[i](c)) store.add(e);
      const { lag_ms, lag_bounds, shape } = callOf(c);
      const [sample] = store.samples(SESSION).filter((x) => x.tool_use_id === 'A');
      const fromEvents = { lag_ms: sample.lag_ms, min: sample.lag_min_ms, max: sample.lag_max_ms, shape: sample.shape };
      seen.add(JSON.stringify({ lag_ms, lag_bounds, shape, stats: c.snapshot(SESSION)!.stats, fromEvents }));
    }
    return seen;
  }

  it('every order of the same inputs ends in the same call, stats and samples; the bound is the status line\'s', () => {
    const found = ends([
      (c) => c.ingestHook(modPre('A', 1000), 1001),
      (c) => c.ingestHook(modLanded('A', 1600, 1000), 1601),
      (c) => read(c, 1900, 1, [toolUse('A')]),
      (c) => c.ingestHook(pre('A', 1050, { checked_at: 1060, record_on_disk: false }), 1061),
    ]);
    assert.equal(found.size, 1, [...found].join('\n'));
    const end = JSON.parse([...found][0]);
    assert.deepEqual(end.lag_bounds, { min_ms: 60, max_ms: 600 });
    assert.deepEqual(end.fromEvents, { lag_ms: null, min: 60, max: 600, shape: 'before_result' });
    // The status line's rule on the same sightings, from the same fire: the same bound.
    const seen: CallSightings = {};
    noteSighting(seen, { ...pre('A', 1050, { checked_at: 1060, record_on_disk: false }), event: 'pre' });
    noteSighting(seen, modLanded('A', 1600, 1000));
    assert.deepEqual(verdictFromHook(seen, 1000).held, end.lag_bounds);
  });

  it('the first find is kept whichever landing proves the shape: a watcher\'s find before the read makes it late in every order', () => {
    // A probe's pre and post missed; the post's watcher found the record at 1500; the engine read it
    // (with its result) at 1550; the mod, whose landing is kept for the shape, found it at 1600.
    const watcherLanded: LandedEvent = { ...modLanded('A', 1500, 1000), watched_from: 'post', missed_at: undefined, fired_at: undefined, source: 'transcript-lag-hook' };
    const found = ends([
      (c) => c.ingestHook(modPre('A', 1000), 1001),
      (c) => c.ingestHook(pre('A', 1060, { checked_at: 1070, record_on_disk: false, result_on_disk: false }), 1071),
      (c) => c.ingestHook({ ...pre('A', 1400), event: 'post', checked_at: 1405, record_on_disk: false, result_on_disk: false } as never, 1406),
      (c) => c.ingestHook(watcherLanded, 1501),
      (c) => read(c, 1550, 1, [toolUse('A'), toolResult('A')]),
      (c) => c.ingestHook(modLanded('A', 1600, 1000, true), 1601),
    ]);
    assert.equal(found.size, 1, [...found].join('\n'));
    const end = JSON.parse([...found][0]);
    assert.deepEqual([end.lag_ms, end.lag_bounds], [null, { min_ms: 405, max_ms: 500 }]);
    assert.deepEqual([end.fromEvents.lag_ms, end.fromEvents.min, end.fromEvents.max], [null, 405, 500]);
  });

  it("a probe's seen wait is a look that found the record at PreToolUse: read before its find, the read's lag; read after, the wait's bound and `revised`, after the wait that says why", () => {
    // The engine read the record at 1288, before the wait's find (reported at 1346, no look time): the lag stands.
    const first = new Correlator();
    first.ingestHook(pre('A', 1000, { mode: 'probe', source: 'transcript-lag-hook' }), 1001);
    assert.equal(only(read(first, 1288, 1, [toolUse('A')]), 'written')[0].lag_ms, 288);
    const quiet = first.ingestHook(wait('A', 1346, 'seen', { polls: 3, waited_ms: 225 }), 1347);
    assert.deepEqual(quiet.map((e) => e.event).filter((e) => e !== 'session'), ['wait']);
    assert.deepEqual([callOf(first).lag_ms, callOf(first).lag_bounds], [288, undefined]);

    // A busy window read it at 1900, after the find: the read came late.
    const late = new Correlator();
    const store = new LagSampleStore();
    const feed = (events: EngineEvent[]) => events.forEach((e) => store.add(e));
    feed(late.ingestHook(pre('A', 1000, { mode: 'probe', source: 'transcript-lag-hook' }), 1001));
    feed(read(late, 1900, 1, [toolUse('A'), toolResult('A')]));
    const events = late.ingestHook(wait('A', 1346, 'seen', { polls: 3, waited_ms: 225 }), 1950);
    feed(events);
    assert.deepEqual(events.map((e) => e.event).filter((e) => e !== 'session'), ['wait', 'revised']);
    const [r] = only(events, 'revised') as RevisedEvent[];
    // One write brought both, but the wait had found the record alone before the tool ran: before its result.
    assert.deepEqual([r.lag_bounds, r.shape], [{ min_ms: 0, max_ms: 346 }, 'before_result']);
    assert.deepEqual([callOf(late).lag_ms, callOf(late).lag_bounds, callOf(late).shape], [null, { min_ms: 0, max_ms: 346 }, 'before_result']);
    const report = buildReport(late.snapshot(SESSION)!, store.samples(SESSION), 2000);
    assert.deepEqual([report.rows[0].lag, report.rows[0].shape], ['≤ 346 ms', 'before result']);
  });

  it("a buried call's late wait is taken as a live call's: its find before the read revises it, counted once", () => {
    const c = new Correlator({ recentCalls: 1 });
    c.ingestHook(pre('A', 1000, { mode: 'probe', source: 'transcript-lag-hook' }), 1001);
    read(c, 2500, 1, [toolUse('A'), toolResult('A')]);
    for (let i = 0; i < 5; i++) read(c, 3000 + i, 3 + i * 2, [toolUse(`X${i}`), toolResult(`X${i}`)]);
    assert.ok(!c.snapshot(SESSION)!.recent.some((x) => x.tool_use_id === 'A'), 'A is buried');
    assert.equal(c.snapshot(SESSION)!.stats.lag_max_ms, 1500);
    const events = c.ingestHook(wait('A', 1400, 'seen', { polls: 4, waited_ms: 300, checked_at: 1390 }), 5000);
    assert.deepEqual(events.map((e) => e.event).filter((e) => e !== 'session'), ['wait', 'revised']);
    assert.deepEqual((only(events, 'revised')[0] as RevisedEvent).lag_bounds, { min_ms: 0, max_ms: 390 });
    // Said again: counted once, and said no more.
    assert.deepEqual(c.ingestHook(wait('A', 1400, 'seen', { polls: 4, waited_ms: 300, checked_at: 1390 }), 5001).filter((e) => e.event !== 'session'), []);
    const stats = c.snapshot(SESSION)!.stats;
    assert.deepEqual([stats.waits_seen, stats.lag_max_ms, stats.shape_before_result], [1, null, 1]);
  });
});
