import { strict as assert } from 'node:assert';
import type { RecordEvent } from '../../../../src/core/channel/schema';
import { Correlator } from '../../../../src/core/correlator';
import type { EngineEvent, RecordWrittenEvent } from '../../../../src/core/engineEvents';
import { SESSION, TRANSCRIPT, plain, tailRead, toolUse } from '../../helpers/correlatorInputs';

const TS = '2026-01-01T00:00:00.000Z';
const T0 = Date.parse(TS);

const birth = (uuid: string, at: number, type: RecordEvent['record_type'] = 'assistant'): RecordEvent => ({
  v: 1,
  event: 'record',
  at,
  session_id: SESSION,
  transcript_path: TRANSCRIPT,
  uuid,
  record_type: type,
  source: 'transcript-lag-mod',
});

const records = (events: EngineEvent[]) => events.filter((e): e is RecordWrittenEvent => e.event === 'record');

function read(c: Correlator, observedAt: number, firstLine: number, scans: Parameters<typeof tailRead>[2], historical = false): EngineEvent[] {
  return c.ingestTranscript({ sessionId: SESSION, transcriptPath: TRANSCRIPT, isMain: true, read: tailRead(observedAt, firstLine, scans), historical });
}

describe("Correlator: a call's per-call fields (the field table's perCall lines)", () => {
  it('written events and snapshots carry the record\'s per-call fields under record, {} for none; history\'s snapshots too', () => {
    const c = new Correlator();
    const model = { requestedModel: 'claude-opus-5-5' };
    const out = read(c, T0 + 10, 1, [toolUse('t1', { perCall: model }), toolUse('t2')]);
    const written = out.filter((e) => e.event === 'written');
    assert.deepEqual(written.map((e) => [e.tool_use_id, e.record]), [['t1', model], ['t2', {}]]);
    read(c, T0 + 20, 3, [toolUse('t3', { perCall: { requestedModel: 'claude-haiku-5' } })], true);
    const recent = c.snapshot(SESSION)!.recent;
    assert.deepEqual(recent.map((r) => [r.tool_use_id, r.record]).sort(), [['t1', model], ['t2', {}], ['t3', { requestedModel: 'claude-haiku-5' }]]);
  });
});

describe('Correlator: record events (born -> on disk)', () => {
  it("a record the mod saw born: born_at is the mod's time, whatever the record's own timestamp", () => {
    const c = new Correlator();
    c.ingestHook(birth('u-1', T0 + 40), T0 + 41);
    const [r] = records(read(c, T0 + 100, 3, [plain({ type: 'assistant', uuid: 'u-1', timestamp: TS })]));
    assert.deepEqual(r, {
      event: 'record',
      session_id: SESSION,
      transcript_path: TRANSCRIPT,
      at: T0 + 100,
      uuid: 'u-1',
      type: 'assistant',
      line: 3,
      born_at: T0 + 40,
      born_from: 'mod',
      written_at: T0 + 100,
      lag_ms: 60,
    });
  });

  it('without the mod: born by its own timestamp; with neither: no lag', () => {
    const c = new Correlator();
    const rs = records(read(c, T0 + 250, 1, [plain({ type: 'user', uuid: 'u-2', timestamp: TS }), plain({ type: 'system', uuid: 'u-3' }), plain({ type: 'user' })]));
    assert.deepEqual(
      rs.map((r) => [r.uuid, r.type, r.born_at, r.born_from, r.lag_ms]),
      [
        ['u-2', 'user', T0, 'timestamp', 250],
        ['u-3', 'system', null, null, null],
      ],
    );
  });

  it('a tool_use record gets its written event and its record event; history gets neither', () => {
    const c = new Correlator();
    const hist = read(c, T0 + 10, 1, [toolUse('A', { uuid: 'u-h' })], true);
    assert.deepEqual(records(hist), []);
    const live = read(c, T0 + 500, 2, [toolUse('B', { uuid: 'u-b' })]);
    assert.deepEqual(live.filter((e) => e.event === 'written' || e.event === 'record').map((e) => e.event), ['written', 'record']);
    assert.equal(records(live)[0].lag_ms, 500);
  });

  it('a line read again (the file replaced) is reported once; lags by type in the snapshot', () => {
    const c = new Correlator();
    c.ingestHook(birth('u-1', T0 + 10), T0 + 11);
    read(c, T0 + 30, 1, [plain({ type: 'assistant', uuid: 'u-1', timestamp: TS }), plain({ type: 'assistant', uuid: 'u-2', timestamp: TS }), plain({ type: 'user', uuid: 'u-3', timestamp: TS })]);
    const again = c.ingestTranscript({ sessionId: SESSION, transcriptPath: TRANSCRIPT, isMain: true, read: tailRead(T0 + 900, 1, [plain({ type: 'assistant', uuid: 'u-1', timestamp: TS })], 2) });
    assert.deepEqual(records(again), []);
    assert.deepEqual(c.snapshot(SESSION)!.record_lags, [
      { type: 'assistant', count: 2, from_mod: 1, p50_ms: 20, p95_ms: 30, max_ms: 30 },
      { type: 'user', count: 1, from_mod: 0, p50_ms: 30, p95_ms: 30, max_ms: 30 },
    ]);
  });

  it('keeps a bounded number of births per session, the oldest dropped first', () => {
    const c = new Correlator();
    for (let i = 0; i < 5000; i++) c.ingestHook(birth(`u-${i}`, T0 + i), T0 + i);
    const rs = records(read(c, T0 + 10_000, 1, [plain({ type: 'assistant', uuid: 'u-0', timestamp: TS }), plain({ type: 'assistant', uuid: 'u-4999', timestamp: TS })]));
    assert.deepEqual(rs.map((r) => r.born_from), ['timestamp', 'mod']);
  });
});
