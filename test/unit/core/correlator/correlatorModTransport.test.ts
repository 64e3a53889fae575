import { strict as assert } from 'node:assert';
import * as fc from 'fast-check';
import type { ChannelEvent, PostEvent } from '../../../../src/core/channel/schema';
import { isBetterFire } from '../../../../src/rules/fireTime';
import { Correlator } from '../../../../src/core/correlator';
import type { EngineEvent, WrittenEvent } from '../../../../src/core/engineEvents';
import { SESSION, post, pre, tailRead, toolUse } from '../../helpers/correlatorInputs';

const modPre = (id: string, at: number) => pre(id, at, { transport: 'mod', source: 'transcript-lag-mod' });
const modPost = (id: string, at: number): PostEvent => ({ ...post(id, at), transport: 'mod', source: 'transcript-lag-mod' });

function hooks(c: Correlator, evs: [ChannelEvent, number][]): EngineEvent[] {
  return evs.flatMap(([ev, observedAt]) => c.ingestHook(ev, observedAt));
}

const written = (events: EngineEvent[]) => events.filter((e): e is WrittenEvent => e.event === 'written');

describe('Correlator: several transports report one call', () => {
  it("the mod's pre wins even when it arrives after the command hook's, and even when its time is later", () => {
    for (const modAt of [900, 1100]) {
      const c = new Correlator();
      const events = hooks(c, [
        [pre('A', 1000), 1005],
        [modPre('A', modAt), 1010],
      ]);
      // One call: one held event (the first report), not two.
      assert.deepEqual(events.filter((e) => e.event === 'held').length, 1);
      const held = c.snapshot(SESSION)!.held;
      assert.equal(held.length, 1);
      assert.equal(held[0].fired_at, modAt);
      assert.equal(held[0].transport, 'mod');
      const w = written(c.ingestTranscript({ sessionId: SESSION, transcriptPath: held[0].transcript_path!, isMain: true, read: tailRead(1500, 1, [toolUse('A')]) }));
      assert.equal(w.length, 1);
      assert.equal(w[0].transport, 'mod');
      assert.equal(w[0].fired_at, modAt);
      assert.equal(w[0].lag_ms, 1500 - modAt);
    }
  });

  it("a command hook's pre after the mod's changes nothing", () => {
    const c = new Correlator();
    hooks(c, [
      [modPre('A', 1000), 1001],
      [pre('A', 950), 1100],
    ]);
    const snap = c.snapshot(SESSION)!;
    assert.equal(snap.held[0].fired_at, 1000);
    assert.equal(snap.held[0].transport, 'mod');
  });

  it('a mod pre learned after the record was written joins with the lag from its time', () => {
    const c = new Correlator();
    hooks(c, [[pre('A', 1200), 1205]]);
    c.ingestTranscript({ sessionId: SESSION, transcriptPath: '/claude/projects/-w/sess-1.jsonl', isMain: true, read: tailRead(1500, 1, [toolUse('A')]) });
    const events = hooks(c, [[modPre('A', 1000), 1600]]);
    const joined = events.filter((e) => e.event === 'joined');
    assert.equal(joined.length, 1);
    assert.ok(joined[0].event === 'joined' && joined[0].lag_ms === 500 && joined[0].fired_at === 1000);
    assert.equal(c.snapshot(SESSION)!.stats.lag_max_ms, 500);
    assert.equal(c.snapshot(SESSION)!.recent[0].transport, 'mod');
  });

  it('duplicate pre and post reports (mod and command hook) count once', () => {
    const c = new Correlator();
    const events = hooks(c, [
      [modPre('A', 1000), 1001],
      [pre('A', 1080), 1100],
      [modPre('A', 1000), 1102],
    ]);
    c.ingestTranscript({ sessionId: SESSION, transcriptPath: '/claude/projects/-w/sess-1.jsonl', isMain: true, read: tailRead(1300, 1, [toolUse('A')]) });
    const posts = hooks(c, [
      [modPost('A', 1400), 1401],
      [post('A', 1450), 1460],
    ]);
    assert.equal(events.filter((e) => e.event === 'held').length, 1);
    assert.equal(posts.filter((e) => e.event === 'post').length, 1);
    const snap = c.snapshot(SESSION)!;
    assert.equal(snap.stats.calls_written, 1);
    assert.equal(snap.stats.held_now, 0);
    assert.equal(snap.stats.lag_p50_ms, 300);
    assert.equal(snap.recent[0].post_at, 1400);
  });

  it('a call reported only by command hooks behaves as before: earliest pre, transport command', () => {
    const c = new Correlator();
    const events = hooks(c, [
      [pre('A', 1100), 1101],
      [pre('A', 1000), 1102],
    ]);
    const held = events.filter((e) => e.event === 'held');
    assert.equal(held.length, 1);
    assert.ok(held[0].event === 'held' && held[0].transport === 'command' && held[0].at === 1100);
    const w = written(c.ingestTranscript({ sessionId: SESSION, transcriptPath: '/claude/projects/-w/sess-1.jsonl', isMain: true, read: tailRead(1500, 1, [toolUse('A')]) }));
    assert.equal(w[0].transport, 'command');
    assert.equal(w[0].fired_at, 1000);
    assert.equal(w[0].lag_ms, 500);
  });

  it('the fire time chosen does not depend on arrival order (property)', () => {
    const report = fc.record({ at: fc.integer({ min: 0, max: 50 }), transport: fc.constantFrom('command' as const, 'http' as const, 'mod' as const) });
    fc.assert(
      fc.property(fc.array(report, { minLength: 1, maxLength: 6 }), (reports) => {
        const pick = (rs: typeof reports) => rs.reduce<(typeof reports)[number] | undefined>((best, r) => (isBetterFire(best, r) ? r : best), undefined);
        const forward = pick(reports)!;
        const backward = pick([...reports].reverse())!;
        assert.deepEqual({ ...forward }, { ...backward });
        if (reports.some((r) => r.transport === 'mod')) assert.equal(forward.transport, 'mod');
        else assert.equal(forward.at, Math.min(...reports.map((r) => r.at)));
      }),
    );
  });

  it("the mod's record events are kept out of the call bookkeeping", () => {
    const c = new Correlator();
    const events = c.ingestHook({ v: 1, event: 'record', at: 1000, session_id: SESSION, transcript_path: '/claude/projects/-w/sess-1.jsonl', uuid: 'u-1', record_type: 'assistant', tool_use_ids: ['A'] }, 1001);
    assert.deepEqual(events.filter((e) => e.event !== 'session'), []);
    const snap = c.snapshot(SESSION)!;
    assert.equal(snap.held.length, 0);
    assert.equal(snap.recent.length, 0);
  });
});
