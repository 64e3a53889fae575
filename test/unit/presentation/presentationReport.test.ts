import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import type { EngineEvent } from '../../../src/core/engineEvents';
import type { Scheduler } from '../../../src/rules/clock';
import { createCoalescer } from '../../../src/presentation/coalesce';
import { csvHeader, samplesToCsv, samplesToJson } from '../../../src/presentation/exportRows';
import { LAG_BIN_EDGES_MS, lagHistogram } from '../../../src/presentation/histogram';
import { LagSampleStore } from '../../../src/presentation/lagSamples';
import { buildReport } from '../../../src/presentation/reportModel';
import { treeModel } from '../../../src/presentation/treeModel';
import { ManualClock } from '../helpers/manualClock';
import { heldCall, session, writtenCall } from '../helpers/presentationSnapshots';

const T = 1_750_000_000_000;
const base = { session_id: 's1', transcript_path: '/t/s1.jsonl' };

function written(id: string, line: number, at: number, over: Partial<Extract<EngineEvent, { event: 'written' }>> = {}): EngineEvent {
  return {
    ...base, event: 'written', tool_use_id: id, tool_name: 'Bash', at, line, generation: 0, record_at: at - 40,
    fired_at: null, lag_ms: null, with_result: false, shape: over.with_result ? 'with_result' : 'before_result', record: {}, batch_first_line: line, batch_last_line: line, ...over,
  };
}

describe('presentation: lag samples from engine events', () => {
  it('joins held, written, result and wait events of one call', () => {
    const store = new LagSampleStore();
    store.add({ ...base, event: 'held', tool_use_id: 'a', tool_name: 'Edit', at: T });
    store.add(written('a', 12, T + 900, { fired_at: T, lag_ms: 900, with_result: true }));
    store.add({ ...base, event: 'result', tool_use_id: 'a', at: T + 900, line: 13, with_result: true });
    store.add({ ...base, event: 'wait', tool_use_id: 'a', at: T + 5000, outcome: 'behind', polls: 50, waited_ms: 5000, bytes_on_disk: 10 });
    const [s] = store.samples('s1');
    assert.deepEqual(
      [s.tool_name, s.line, s.fired_at, s.observed_at, s.lag_ms, s.shape, s.result_line, s.wait_outcome, s.wait_polls],
      ['Edit', 12, T, T + 900, 900, 'with_result', 13, 'behind', 50],
    );
  });

  it('takes a lag learned late from a joined event, and ignores a replayed record', () => {
    const store = new LagSampleStore();
    store.add(written('b', 7, T + 200));
    store.add({ ...base, event: 'joined', tool_use_id: 'b', at: T + 300, fired_at: T, lag_ms: 200 });
    store.add(written('b', 99, T + 999));
    const [s] = store.samples();
    assert.deepEqual([s.line, s.observed_at, s.lag_ms, s.fired_at], [7, T + 200, 200, T]);
  });

  it('keeps a bounded number of calls per session, dropping the oldest', () => {
    const store = new LagSampleStore(3);
    for (let i = 1; i <= 5; i++) store.add(written(`c${i}`, i, T + i));
    assert.deepEqual(store.samples('s1').map((s) => s.tool_use_id), ['c3', 'c4', 'c5']);
  });

  it('absorbs calls it has only seen in a snapshot, without overwriting what events told it', () => {
    const store = new LagSampleStore();
    store.add(written('w1', 30, T + 100, { fired_at: T, lag_ms: 100 }));
    const snap = session({
      session_id: 's1',
      held: [heldCall('h1', T + 50, { tool_name: 'Grep' })],
      recent: [writtenCall('w1', 99, T + 999, { lag_ms: 7 }), writtenCall('w0', 12, T - 400, { lag_ms: 300, with_result: true, shape: 'with_result' })],
    });
    store.absorb(snap);
    // Oldest first, whatever order the calls reached the store in.
    assert.deepEqual(store.samples('s1').map((s) => s.tool_use_id), ['w0', 'h1', 'w1']);
    const byId = new Map(store.samples('s1').map((s) => [s.tool_use_id, s]));
    assert.deepEqual([...byId.keys()].sort(), ['h1', 'w0', 'w1']);
    assert.deepEqual([byId.get('w1')?.line, byId.get('w1')?.lag_ms], [30, 100]);
    assert.deepEqual([byId.get('w0')?.line, byId.get('w0')?.lag_ms, byId.get('w0')?.shape], [12, 300, 'with_result']);
    assert.deepEqual([byId.get('h1')?.line, byId.get('h1')?.fired_at, byId.get('h1')?.tool_name], [null, T + 50, 'Grep']);
  });

  it('keeps a bounded number of sessions, dropping the first seen', () => {
    const store = new LagSampleStore(10, 2);
    for (const sid of ['a', 'b', 'c']) store.add({ ...written('x', 1, T), session_id: sid } as EngineEvent);
    assert.deepEqual(store.sessionIds(), ['b', 'c']);
  });

  it('ignores session and tail events', () => {
    const store = new LagSampleStore();
    assert.equal(store.add({ event: 'tail', session_id: 's1', transcript_path: '/t', at: T, change: 'truncated', generation: 1 }), false);
    assert.equal(store.samples().length, 0);
  });
});

describe('presentation: export rows', () => {
  it('writes a CSV header and one quoted row per call', () => {
    const store = new LagSampleStore();
    store.add(written('d', 4, T + 100, { tool_name: 'mcp__x,"y"', fired_at: T, lag_ms: 100 }));
    const csv = samplesToCsv(store.samples());
    const lines = csv.trimEnd().split('\r\n');
    assert.equal(lines.length, 2);
    assert.equal(lines[0], csvHeader().join(','));
    assert.ok(lines[0].includes('fired_at,fired_at_iso'));
    assert.ok(lines[1].includes('"mcp__x,""y"""'));
    assert.ok(lines[1].includes(new Date(T).toISOString()));
    const header = lines[0].split(',');
    // Cells line up with the header: the lag column holds the lag.
    const cells = lines[1].replace('"mcp__x,""y"""', 'TOOL').split(',');
    assert.equal(cells[header.indexOf('lag_ms')], '100');
    assert.equal(cells[header.indexOf('shape')], 'before_result');
  });

  it('writes JSON with every field, nulls kept', () => {
    const store = new LagSampleStore();
    store.add({ ...base, event: 'held', tool_use_id: 'e', at: T });
    const parsed = JSON.parse(samplesToJson(store.samples(), T));
    assert.equal(parsed.exported_at, new Date(T).toISOString());
    assert.equal(parsed.samples[0].tool_use_id, 'e');
    assert.equal(parsed.samples[0].line, null);
    assert.equal(parsed.samples[0].fired_at, T);
  });
});

describe('presentation: lag histogram', () => {
  it('puts each lag in the bin whose bounds hold it', () => {
    const bins = lagHistogram([0, 49, 50, 999, 1000, 120_000, -3]);
    const count = (from: number) => bins.find((b) => b.from === from)?.count;
    assert.equal(count(0), 3); // 0, 49 and the clamped -3
    assert.equal(count(50), 1);
    assert.equal(count(500), 1);
    assert.equal(count(1000), 1);
    assert.equal(count(60_000), 1);
    assert.equal(bins.at(-1)?.to, null);
    assert.deepEqual([bins[0].label, bins.at(-2)?.label, bins.at(-1)?.label], ['< 50 ms', '< 1m', '≥ 1m']);
  });

  it('counts every finite lag exactly once (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -10, max: 200_000 })), (lags) => {
        const bins = lagHistogram(lags);
        return bins.length === LAG_BIN_EDGES_MS.length && bins.reduce((n, b) => n + b.count, 0) === lags.length;
      }),
    );
  });
});

describe('presentation: report model', () => {
  it('lists calls newest first with formatted cells and a histogram of their lags', () => {
    const store = new LagSampleStore();
    store.add(written('f1', 3, T + 250, { fired_at: T, lag_ms: 250 }));
    store.add({ ...base, event: 'held', tool_use_id: 'f2', tool_name: 'Write', at: T + 400 });
    const s = session({ session_id: 's1', batches: [{ observed_at: T + 250, first_line: 1, last_line: 3, bytes: 900 }] });
    const r = buildReport(s, store.samples('s1'), T + 500);
    assert.deepEqual(r.rows.map((row) => [row.tool_use_id, row.line, row.held]), [['f2', 'held', true], ['f1', '3', false]]);
    assert.equal(r.rows[1].lag, '250 ms');
    assert.equal(r.rows[1].fired_at, new Date(T).toISOString().slice(11, 23));
    assert.equal(r.histogram.reduce((n, b) => n + b.count, 0), 1);
    assert.equal(r.batches.length, 1);
    assert.ok(r.summary.some((x) => x.label === 'Waits seen / behind'));
  });

  it("keeps the tree's order (newest first by when each call began, not when its record landed), says none with a dash, and its time as HH:MM:SS", () => {
    const store = new LagSampleStore();
    // a began first and was held long; b began later and landed first: the tree lists b above a, and so does the report.
    store.add(written('a', 3, T + 5000, { fired_at: T, lag_ms: 5000 }));
    store.add(written('b', 4, T + 1200, { fired_at: T + 1000, lag_ms: 200 }));
    const calls = [writtenCall('a', 3, T + 5000, { fired_at: T }), writtenCall('b', 4, T + 1200, { fired_at: T + 1000 })];
    const r = buildReport(session({ recent: calls }), store.samples('s1'), Date.parse('2026-12-07T14:05:07.123Z'));
    assert.deepEqual(r.rows.map((row) => row.tool_use_id), ['b', 'a']);
    assert.deepEqual(treeModel([session({ recent: calls })], T + 6000)[0]!.children.map((c) => c.tool_use_id), ['b', 'a']);
    // Nothing timed its hooks, no wait ended: a dash says none, where a blank read as a cell not drawn.
    assert.deepEqual([r.rows[0]!.hooks, r.rows[0]!.wait], ['—', '—']);
    const held = buildReport(session(), (() => {
      const st = new LagSampleStore();
      st.add({ ...base, event: 'held', tool_use_id: 'h', tool_name: 'Write', at: T });
      return st.samples('s1');
    })(), T);
    assert.deepEqual([held.rows[0]!.record_at, held.rows[0]!.on_disk, held.rows[0]!.lag, held.rows[0]!.shape], ['—', '—', '—', '—']);
    // On the clock of the table's times (UTC), as HH:MM:SS, not a raw ISO timestamp.
    assert.equal(r.generated_at, '14:05:07 UTC');
  });

  it('shows record lags by type beside the call lags, saying how each birth was known; none before any', () => {
    const empty = buildReport(session(), [], T);
    assert.deepEqual(empty.record_lags, []);
    assert.equal(empty.summary.find((x) => x.label === 'Record lags (born → on disk)')?.value, 'none read live yet');
    const s = session({
      record_lags: [
        { type: 'assistant', count: 12, from_mod: 12, p50_ms: 40, p95_ms: 900, max_ms: 2500 },
        { type: 'user', count: 3, from_mod: 1, p50_ms: 10, p95_ms: 20, max_ms: 20 },
        { type: 'system', count: 1, from_mod: 0, p50_ms: 5, p95_ms: 5, max_ms: 5 },
      ],
    });
    const r = buildReport(s, [], T);
    assert.deepEqual(r.record_lags, [
      { type: 'assistant', count: '12', born_by: 'mod', p50: '40 ms', p95: '900 ms', max: '2.5s' },
      { type: 'user', count: '3', born_by: 'mod 1 · timestamp 2', p50: '10 ms', p95: '20 ms', max: '20 ms' },
      { type: 'system', count: '1', born_by: 'timestamp', p50: '5 ms', p95: '5 ms', max: '5 ms' },
    ]);
    assert.equal(r.summary.find((x) => x.label === 'Record lags (born → on disk)')?.value, '16 records · worst p95 900 ms · max 2.5s');
  });
});

describe('presentation: refresh coalescing', () => {
  it('runs the first request at once and folds a burst into at most one run per interval', () => {
    const clock = new ManualClock(0);
    const runs: number[] = [];
    const c = createCoalescer(() => runs.push(clock.now()), 100, clock);
    c.request();
    assert.deepEqual(runs, [0]);
    // A burst: one event every millisecond for one second.
    for (let i = 0; i < 1000; i++) {
      clock.advance(1);
      c.request();
    }
    clock.advance(200);
    assert.ok(runs.length <= 12, `ran ${runs.length} times`);
    assert.ok(runs.length >= 10, `ran ${runs.length} times`);
    for (let i = 1; i < runs.length; i++) assert.ok(runs[i] - runs[i - 1] >= 100);
    // The last request of the burst was not lost: a run happened after it.
    assert.ok(runs.at(-1)! >= 1000);
  });

  it('never runs twice within an interval, even when timers fire early', () => {
    const exact = new ManualClock(0);
    // Node's timers can fire a millisecond or two before Date.now() says they are due.
    const early: Scheduler = {
      now: () => exact.now(),
      setTimeout: (fn, ms) => exact.setTimeout(fn, Math.max(1, ms - 2)),
      clearTimeout: (h) => exact.clearTimeout(h),
    };
    const runs: number[] = [];
    const c = createCoalescer(() => runs.push(exact.now()), 100, early);
    for (let i = 0; i < 3000; i++) {
      c.request();
      exact.advance(1);
    }
    for (let i = 1; i < runs.length; i++) assert.ok(runs[i]! - runs[i - 1]! >= 100, `runs ${runs[i - 1]} and ${runs[i]} are closer than the interval`);
    for (let from = 0; from <= 2000; from += 7) {
      assert.ok(runs.filter((t) => t >= from && t < from + 1000).length <= 10, `more than 10 runs in the second from ${from}`);
    }
  });

  it('runs nothing after dispose', () => {
    const clock = new ManualClock(0);
    let runs = 0;
    const c = createCoalescer(() => runs++, 100, clock);
    c.request();
    c.request();
    c.dispose();
    clock.advance(500);
    assert.equal(runs, 1);
  });
});
