import { strict as assert } from 'node:assert';
import type { ChannelEvent, MeasuredEvent } from '../../../../src/core/channel/schema';
import { Correlator } from '../../../../src/core/correlator';
import { pre, SESSION, tailRead, toolResult, toolUse, TRANSCRIPT, wait } from '../../helpers/correlatorInputs';

/** A kept live read of `id`'s record on line `line` (tailRead puts line n's end at byte n × 100). */
function measured(id: string, at: number, line: number, extra: Partial<MeasuredEvent> = {}): MeasuredEvent {
  return { v: 1, event: 'measured', at, session_id: SESSION, transcript_path: TRANSCRIPT, tool_use_id: id, source: 'transcript-lag-engine', fired_at: 1000, transport: 'command', lag_ms: at - 1000, shape: 'before_result', line, byte_end: line * 100, ...extra };
}

type Input = { hook: ChannelEvent } | { history: number };

/** The call's verdict after the inputs, in this order; the transcript read as history (a reload) at 9000. */
function verdictAfter(inputs: Input[]) {
  const c = new Correlator();
  for (const i of inputs) {
    if ('hook' in i) c.ingestHook(i.hook, 9000);
    else c.ingestTranscript({ sessionId: SESSION, transcriptPath: TRANSCRIPT, isMain: true, historical: true, read: tailRead(i.history, 1, [toolUse('toolu_1'), toolResult('toolu_1')]) });
  }
  const call = c.snapshot(SESSION)!.recent.find((x) => x.tool_use_id === 'toolu_1')!;
  return { lag_ms: call.lag_ms, shape: call.shape, lag_bounds: call.lag_bounds, read_back: call.read_back, observed_at: call.observed_at };
}

describe('correlator: a kept live read, read back', () => {
  it('gives the record read as history the measured lag and shape, whichever came first', () => {
    const inputs: Input[] = [{ hook: pre('toolu_1', 1000) }, { hook: measured('toolu_1', 1700, 1) }, { history: 9000 }];
    const expected = { lag_ms: 700, shape: 'before_result', lag_bounds: undefined, read_back: true, observed_at: 1700 };
    assert.deepEqual(verdictAfter(inputs), expected);
    assert.deepEqual(verdictAfter([inputs[2]!, inputs[1]!, inputs[0]!]), expected);
    assert.deepEqual(verdictAfter([inputs[1]!, inputs[2]!, inputs[0]!]), expected);
  });

  it('of two kept reads the earliest, in either order; one of another record is no read of this one', () => {
    const a = measured('toolu_1', 1650, 1);
    const b = measured('toolu_1', 1600, 1, { shape: 'with_result' });
    const elsewhere = measured('toolu_1', 1100, 4);
    for (const order of [[a, b, elsewhere], [elsewhere, b, a]]) {
      const v = verdictAfter([{ hook: pre('toolu_1', 1000) }, ...order.map((hook) => ({ hook })), { history: 9000 }]);
      assert.deepEqual([v.lag_ms, v.shape, v.read_back], [600, 'with_result', true]);
    }
    const none = verdictAfter([{ hook: pre('toolu_1', 1000) }, { hook: elsewhere }, { history: 9000 }]);
    assert.deepEqual([none.lag_ms, none.shape, none.read_back], [null, 'unknown', undefined]);
  });

  it('a look of the call\'s hooks that found the record before the kept read wins, as it would have live', () => {
    // A seen wait found it at 1300; the kept read at 1700 came late: the looks' bound, not 700.
    const v = verdictAfter([{ hook: pre('toolu_1', 1000) }, { hook: wait('toolu_1', 1400, 'seen', { checked_at: 1300 }) }, { hook: measured('toolu_1', 1700, 1) }, { history: 9000 }]);
    assert.equal(v.lag_ms, null);
    assert.deepEqual(v.lag_bounds, { min_ms: 0, max_ms: 300 });
    assert.equal(v.shape, 'before_result');
  });
});
