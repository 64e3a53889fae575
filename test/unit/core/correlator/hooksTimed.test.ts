import { strict as assert } from 'node:assert';
import * as fc from 'fast-check';
import type { ChannelEvent, HooksEvent, PostEvent } from '../../../../src/core/channel/schema';
import { Correlator } from '../../../../src/core/correlator';
import type { EngineEvent, HooksSettledEvent, WrittenEvent } from '../../../../src/core/engineEvents';
import { SESSION, TRANSCRIPT, post, pre, tailRead, toolResult, toolUse } from '../../helpers/correlatorInputs';

// The mod times each call's settings PreToolUse hooks (issue 33 §4): its `hooks` event, and the same
// figures on its `post`. The engine keeps them on the call (canonicalHooks: the shorter), shows them on
// its snapshot at once, and says them as `hooks` once both reports are in (issue 40 §5: one figure per
// call), on the call's `written` only when said by then.
const modPre = (id: string, at: number) => pre(id, at, { transport: 'mod', source: 'transcript-lag-mod' });
const modHooks = (id: string, at: number, ms: number, decision?: 'allow' | 'ask' | 'deny'): HooksEvent => ({
  v: 1,
  event: 'hooks',
  at,
  session_id: SESSION,
  transcript_path: TRANSCRIPT,
  tool_use_id: id,
  tool_name: 'Bash',
  transport: 'mod',
  hooks_ms: ms,
  ...(decision !== undefined ? { hooks_decision: decision } : {}),
  source: 'transcript-lag-mod',
});
const modPost = (id: string, at: number, ms?: number, decision?: 'allow' | 'ask' | 'deny'): PostEvent => ({
  ...post(id, at),
  transport: 'mod',
  source: 'transcript-lag-mod',
  ...(ms !== undefined ? { hooks_ms: ms } : {}),
  ...(decision !== undefined ? { hooks_decision: decision } : {}),
});

type Input = { hook: ChannelEvent; at: number } | { record: string; at: number; line: number; result?: boolean; historical?: boolean };

function feed(c: Correlator, inputs: Input[]): EngineEvent[] {
  return inputs.flatMap((i) =>
    'hook' in i
      ? c.ingestHook(i.hook, i.at)
      : c.ingestTranscript({ sessionId: SESSION, transcriptPath: TRANSCRIPT, isMain: true, historical: i.historical, read: tailRead(i.at, i.line, [toolUse(i.record), ...(i.result ? [toolResult(i.record)] : [])]) }),
  );
}
const hooksEvents = (events: EngineEvent[]) => events.filter((e): e is HooksSettledEvent => e.event === 'hooks');
const written = (events: EngineEvent[]) => events.filter((e): e is WrittenEvent => e.event === 'written');

describe("Correlator: the settings hooks' share of each hold (the mod's figures)", () => {
  it('hooks settled while held: the held snapshot shows them at once; said once the post confirms them, not on a written before that', () => {
    const c = new Correlator();
    const early = feed(c, [
      { hook: modPre('A', 1000), at: 1002 },
      { hook: modHooks('A', 3004, 2004, 'allow'), at: 3006 },
    ]);
    assert.deepEqual(hooksEvents(early), [], 'one report of two: the post may still change the figure');
    const held = c.snapshot(SESSION)!.held;
    assert.deepEqual(held.map((h) => [h.tool_use_id, h.hooks]), [['A', { ms: 2004, decision: 'allow' }]], 'held, with its hooks done');
    const late = feed(c, [
      { record: 'A', at: 3100, line: 1 },
      { hook: modPost('A', 3500, 2004, 'allow'), at: 3502 },
    ]);
    assert.deepEqual(written(late).map((e) => [e.lag_ms, 'hooks_ms' in e]), [[2100, false]], 'not final when written: no field, not a figure to take back');
    assert.deepEqual(hooksEvents(late).map((e) => [e.tool_use_id, e.at, e.hooks_ms, e.hooks_decision]), [['A', 3004, 2004, 'allow']], 'at: when they settled');
    assert.deepEqual(c.snapshot(SESSION)!.recent[0].hooks, { ms: 2004, decision: 'allow' });
  });

  it('both reports in before the record: said once, and the written carries the same figures', () => {
    const c = new Correlator();
    const events = feed(c, [
      { hook: modPre('B', 1000), at: 1001 },
      { hook: modPost('B', 3500, 2004), at: 3501 },
      { hook: modHooks('B', 3004, 2004), at: 3502 },
      { record: 'B', at: 3600, line: 1 },
    ]);
    assert.deepEqual(hooksEvents(events).map((e) => [e.at, e.hooks_ms, 'hooks_decision' in e]), [[3004, 2004, false]]);
    assert.deepEqual(written(events).map((e) => [e.hooks_ms, 'hooks_decision' in e]), [[2004, false]]);
  });

  it("a call only one report timed (its post alone): said when it leaves memory, not before; history's never", () => {
    const c = new Correlator({ recentCalls: 1 });
    const events = feed(c, [
      { hook: modPre('D', 1000), at: 1001 },
      { record: 'D', at: 1200, line: 1, result: true },
      { hook: modPost('D', 1900, 850, 'deny'), at: 1901 },
    ]);
    assert.equal('hooks_ms' in written(events)[0], false);
    assert.deepEqual(hooksEvents(events), [], 'the `hooks` line may yet come');
    assert.deepEqual(c.snapshot(SESSION)!.recent[0].hooks, { ms: 850, decision: 'deny' }, 'the snapshot shows it meanwhile');
    // A newer call pushes D out of the recent ring (1 here): buried, it takes no more reports, so its figure is final.
    const buried = feed(c, [{ record: 'E', at: 2500, line: 3, result: true }]);
    assert.deepEqual(hooksEvents(buried).map((e) => [e.tool_use_id, e.at, e.hooks_ms, e.hooks_decision]), [['D', 1900, 850, 'deny']]);
    assert.deepEqual(hooksEvents(feed(c, [{ hook: modHooks('D', 1500, 500, 'deny'), at: 2600 }])), [], 'a buried call takes no more reports');

    // A call read as history gets no call events, its hooks included, when it leaves memory.
    const h = new Correlator({ recentCalls: 1 });
    feed(h, [
      { hook: modPost('H', 900, 400), at: 901 },
      { record: 'H', at: 1000, line: 1, result: true, historical: true },
    ]);
    assert.deepEqual(hooksEvents(feed(h, [{ record: 'I', at: 2000, line: 3, result: true }])), []);
  });

  it('a report beyond the two (another copy of the mod) that changes the figure: said again, as the snapshot has it', () => {
    const c = new Correlator();
    const events = feed(c, [
      { hook: modPre('M', 1000), at: 1001 },
      { hook: modHooks('M', 3000, 2000), at: 3001 },
      { hook: modPost('M', 4000, 2000), at: 4001 },
      { record: 'M', at: 4100, line: 1 },
      { hook: modHooks('M', 2800, 1800), at: 4200 },
      { hook: modPost('M', 4300, 1800), at: 4301 },
    ]);
    assert.deepEqual(hooksEvents(events).map((e) => [e.at, e.hooks_ms]), [[3000, 2000], [2800, 1800]]);
    assert.deepEqual(written(events).map((e) => e.hooks_ms), [2000]);
    assert.deepEqual(c.snapshot(SESSION)!.recent[0].hooks, { ms: 1800 });
  });

  it('without the mod nothing is said: a command hook\'s post has no figures, no hooks event, no field', () => {
    const c = new Correlator();
    const events = feed(c, [
      { hook: pre('C', 1000), at: 1001 },
      { record: 'C', at: 1500, line: 1 },
      { hook: post('C', 1700), at: 1701 },
    ]);
    assert.deepEqual(hooksEvents(events), []);
    assert.equal('hooks_ms' in written(events)[0], false);
    assert.equal(c.snapshot(SESSION)!.recent[0].hooks, undefined);
  });

  it('whatever the order the reports and the record come in: one hooks event, the figure the call ends with, on written too when said by then', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 5000 }),
        fc.integer({ min: 0, max: 5000 }),
        fc.constantFrom(undefined, 'allow' as const, 'ask' as const, 'deny' as const),
        fc.boolean(),
        fc.integer({ min: 0, max: 5 }),
        (ms, otherMs, decision, withRecord, order) => {
          const hooksLine: Input = { hook: modHooks('P', 1000 + ms, ms, decision), at: 0 };
          const postLine: Input = { hook: modPost('P', 9000, otherMs, decision), at: 0 };
          const record: Input = { record: 'P', at: 0, line: 1 };
          const steps = withRecord ? [hooksLine, postLine, record] : [hooksLine, postLine];
          const orders = withRecord ? [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] : [[0, 1], [1, 0]];
          // Read in that order, each at a later time.
          const inputs = [{ hook: modPre('P', 1000), at: 1001 }, ...orders[order % orders.length].map((i, n) => ({ ...steps[i], at: 10_000 + n * 100 }))];
          const c = new Correlator();
          const events = feed(c, inputs);
          const snap = c.snapshot(SESSION)!;
          const end = [...snap.held, ...snap.recent][0].hooks;
          assert.deepEqual(end, { ms: Math.min(ms, otherMs), ...(decision !== undefined ? { decision } : {}) });
          assert.deepEqual(hooksEvents(events).map((e) => ({ ms: e.hooks_ms, ...(e.hooks_decision !== undefined ? { decision: e.hooks_decision } : {}) })), [end]);
          for (const w of written(events)) if ('hooks_ms' in w) assert.deepEqual([w.hooks_ms, w.hooks_decision], [end?.ms, end?.decision]);
        },
      ),
    );
  });
});
