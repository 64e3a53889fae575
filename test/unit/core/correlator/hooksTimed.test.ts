import { strict as assert } from 'node:assert';
import * as fc from 'fast-check';
import type { ChannelEvent, HooksEvent, PostEvent } from '../../../../src/core/channel/schema';
import { Correlator } from '../../../../src/core/correlator';
import type { EngineEvent, HooksEvent as EngineHooksEvent, WrittenEvent } from '../../../../src/core/engineEvents';
import { SESSION, TRANSCRIPT, post, pre, tailRead, toolUse } from '../../helpers/correlatorInputs';

// The mod times each call's settings PreToolUse hooks (issue 33 §4): its `hooks` event, and the same
// figures on its `post`. The engine keeps them on the call, says them once as `hooks`, and puts them
// on the call's `written` when it knows them by then.
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

type Input = { hook: ChannelEvent; at: number } | { record: string; at: number; line: number };

function feed(c: Correlator, inputs: Input[]): EngineEvent[] {
  return inputs.flatMap((i) =>
    'hook' in i ? c.ingestHook(i.hook, i.at) : c.ingestTranscript({ sessionId: SESSION, transcriptPath: TRANSCRIPT, isMain: true, read: tailRead(i.at, i.line, [toolUse(i.record)]) }),
  );
}
const hooksEvents = (events: EngineEvent[]) => events.filter((e): e is EngineHooksEvent => e.event === 'hooks');
const written = (events: EngineEvent[]) => events.filter((e): e is WrittenEvent => e.event === 'written');

describe("Correlator: the settings hooks' share of each hold (the mod's figures)", () => {
  it('hooks settled while held: one hooks event, the held snapshot shows them, the written event carries them', () => {
    const c = new Correlator();
    const early = feed(c, [
      { hook: modPre('A', 1000), at: 1002 },
      { hook: modHooks('A', 3004, 2004, 'allow'), at: 3006 },
    ]);
    assert.deepEqual(
      hooksEvents(early).map((e) => [e.tool_use_id, e.at, e.hooks_ms, e.hooks_decision]),
      [['A', 3004, 2004, 'allow']],
    );
    const held = c.snapshot(SESSION)!.held;
    assert.deepEqual(held.map((h) => [h.tool_use_id, h.hooks]), [['A', { ms: 2004, decision: 'allow' }]], 'held, with its hooks done');
    const late = feed(c, [
      { record: 'A', at: 3100, line: 1 },
      { hook: modPost('A', 3500, 2004, 'allow'), at: 3502 },
    ]);
    assert.deepEqual(written(late).map((e) => [e.lag_ms, e.hooks_ms, e.hooks_decision]), [[2100, 2004, 'allow']]);
    assert.deepEqual(hooksEvents(late), [], 'the post says the same figures: not said twice');
    assert.deepEqual(c.snapshot(SESSION)!.recent[0].hooks, { ms: 2004, decision: 'allow' });
  });

  it("a denied call's figures come on its post alone: said then, after its written (which had none)", () => {
    const c = new Correlator();
    const events = feed(c, [
      { hook: modPre('D', 1000), at: 1001 },
      { record: 'D', at: 1200, line: 1 },
      { hook: modPost('D', 1900, 850, 'deny'), at: 1901 },
    ]);
    const w = written(events);
    assert.equal(w.length, 1);
    assert.equal('hooks_ms' in w[0], false, 'not known when written: no field, not a guess');
    assert.deepEqual(hooksEvents(events).map((e) => [e.at, e.hooks_ms, e.hooks_decision]), [[1900, 850, 'deny']]);
    assert.deepEqual(c.snapshot(SESSION)!.recent[0].hooks, { ms: 850, decision: 'deny' });
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

  it('whatever the order the reports come in, the call ends with the same figures and one hooks event', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 5000 }),
        fc.integer({ min: 0, max: 5000 }),
        fc.constantFrom(undefined, 'allow' as const, 'ask' as const, 'deny' as const),
        fc.boolean(),
        (ms, otherMs, decision, written) => {
          const inputs: Input[] = [
            { hook: modPre('P', 1000), at: 1001 },
            { hook: modHooks('P', 1000 + ms, ms, decision), at: 1001 + ms },
            { hook: modPost('P', 9000, otherMs, decision), at: 9001 },
            ...(written ? [{ record: 'P', at: 1000 + ms + 50, line: 1 }] : []),
          ];
          const ends = [inputs, [...inputs].reverse()].map((order) => {
            const c = new Correlator();
            const events = feed(c, order);
            assert.equal(hooksEvents(events).length, 1);
            const snap = c.snapshot(SESSION)!;
            return [...snap.held, ...snap.recent][0].hooks;
          });
          assert.deepEqual(ends[0], ends[1]);
          assert.deepEqual(ends[0], { ms: Math.min(ms, otherMs), ...(decision !== undefined ? { decision } : {}) });
        },
      ),
    );
  });
});
