import { strict as assert } from 'node:assert';
import type { LandedEvent } from '../../../../src/core/channel/schema';
import { Correlator } from '../../../../src/core/correlator';
import type { EngineEvent, WrittenEvent } from '../../../../src/core/engineEvents';
import { SESSION, TRANSCRIPT, pre, tailRead, toolUse } from '../../helpers/correlatorInputs';

// One number per call (issue 32): the engine's lag is its read's time, unless a look of the call's
// own hooks found the record on disk before that read (the read came late: a busy window). Then the
// read would overstate the hold and contradict the bound the mod's row and the status line give from
// that look, so the engine gives that bound too.
const modPre = (id: string, at: number) => pre(id, at, { transport: 'mod', source: 'transcript-lag-mod' });
const modLanded = (id: string, at: number, missedAt: number, firedAt: number): LandedEvent => ({
  v: 1,
  event: 'landed',
  at,
  session_id: SESSION,
  transcript_path: TRANSCRIPT,
  tool_use_id: id,
  tool_name: 'Bash',
  with_result: false,
  watched_from: 'pre',
  missed_at: missedAt,
  fired_at: firedAt,
  source: 'transcript-lag-mod',
});
const read = (c: Correlator, at: number, id: string) => c.ingestTranscript({ sessionId: SESSION, transcriptPath: TRANSCRIPT, isMain: true, read: tailRead(at, 1, [toolUse(id)]) });
const written = (events: EngineEvent[]) => events.filter((e): e is WrittenEvent => e.event === 'written');

describe('Correlator: a read that came late is no measure of the hold', () => {
  it('read before the mod found it: the read is the lag (the look\'s bound contains it)', () => {
    const c = new Correlator();
    c.ingestHook(modPre('A', 1000), 1001);
    const w = written(read(c, 1550, 'A'));
    c.ingestHook(modLanded('A', 1600, 1500, 1000), 1601);
    assert.equal(w[0].lag_ms, 550);
    const call = c.snapshot(SESSION)!.recent[0];
    assert.deepEqual([call.lag_ms, call.lag_bounds], [550, undefined]);
    assert.equal(c.snapshot(SESSION)!.stats.lag_p50_ms, 550);
  });

  it('the mod found it before the read, known at the read: no lag, the look\'s bound, as the mod\'s row says it', () => {
    const c = new Correlator();
    c.ingestHook(modPre('A', 1000), 1001);
    c.ingestHook(modLanded('A', 1600, 1500, 1000), 1601);
    const w = written(read(c, 1900, 'A'));
    assert.equal(w[0].lag_ms, null);
    const call = c.snapshot(SESSION)!.recent[0];
    assert.deepEqual([call.lag_ms, call.lag_bounds, call.shape], [null, { min_ms: 500, max_ms: 600 }, 'before_result']);
    assert.equal(c.snapshot(SESSION)!.stats.lag_p50_ms, null, 'not counted among the measured lags');
  });

  it('the mod\'s landing read after the late read: the lag is taken back from the call and the stats', () => {
    const c = new Correlator();
    c.ingestHook(modPre('A', 1000), 1001);
    assert.equal(written(read(c, 1900, 'A'))[0].lag_ms, 900);
    assert.equal(c.snapshot(SESSION)!.stats.lag_p50_ms, 900);
    c.ingestHook(modLanded('A', 1600, 1500, 1000), 1950);
    const call = c.snapshot(SESSION)!.recent[0];
    assert.deepEqual([call.lag_ms, call.lag_bounds], [null, { min_ms: 500, max_ms: 600 }]);
    assert.equal(c.snapshot(SESSION)!.stats.lag_p50_ms, null);
  });

  it("a command hook's post that saw the record before the read bounds it too", () => {
    const c = new Correlator();
    c.ingestHook(pre('B', 1000, { checked_at: 1010, record_on_disk: false, result_on_disk: false }), 1011);
    c.ingestHook({ ...pre('B', 1400), event: 'post', checked_at: 1405, record_on_disk: true, result_on_disk: false } as never, 1406);
    read(c, 2000, 'B');
    const call = c.snapshot(SESSION)!.recent[0];
    assert.deepEqual([call.lag_ms, call.lag_bounds], [null, { min_ms: 10, max_ms: 405 }]);
  });
});
