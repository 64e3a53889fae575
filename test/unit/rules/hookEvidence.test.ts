import { strict as assert } from 'node:assert';
import { betterLanding, type CallSightings, canonicalHooks, type HookSighting, hookSawRecord, isHeld, type LandingSighting, noteSighting, recordFoundAt, verdictFromHook as verdictOf } from '../../../src/rules/hookEvidence';

/** The rule on the sightings as the fold keeps them (pre, post, landing). */
const verdictFromHook = (pre: HookSighting | undefined, post: HookSighting | undefined, landed?: LandingSighting) => verdictOf({ pre, post, landed });

const pre = (record: boolean, checkedAfter = 50) => ({ at: 1000, checked_at: 1000 + checkedAfter, record_on_disk: record, result_on_disk: false });
const post = (at: number, record: boolean, result: boolean, checkedAfter = 40) => ({ at, checked_at: at + checkedAfter, record_on_disk: record, result_on_disk: result });

describe('hook evidence: shape and held bounds from what the hook saw', () => {
  it('record on disk at PreToolUse: before its result, held at most until that look', () => {
    assert.deepEqual(verdictFromHook(pre(true), post(3000, true, false)), { shape: 'before_result', held: { min_ms: 0, max_ms: 50 } });
  });

  it('missed at PreToolUse, on disk at PostToolUse without its result: before its result, held between the looks', () => {
    assert.deepEqual(verdictFromHook(pre(false), post(3000, true, false)), { shape: 'before_result', held: { min_ms: 50, max_ms: 2040 } });
  });

  it('missed at PostToolUse: only the landing decides', () => {
    assert.deepEqual(verdictFromHook(pre(false), post(3000, false, false), { at: 3100, with_result: true }), {
      shape: 'with_result',
      held: { min_ms: 2040, max_ms: 2100 },
    });
    assert.deepEqual(verdictFromHook(pre(false), post(3000, false, false), { at: 3100, with_result: false }), {
      shape: 'before_result',
      held: { min_ms: 2040, max_ms: 2100 },
    });
    assert.deepEqual(verdictFromHook(pre(false), post(3000, false, false)), { held: { min_ms: 2040, max_ms: null } });
  });

  it('a result on disk at PostToolUse, or no sightings at all, proves no shape', () => {
    assert.equal(verdictFromHook(pre(false), post(3000, true, true)).shape, undefined);
    assert.deepEqual(verdictFromHook({ at: 1000 }, { at: 3000 }), {});
    assert.deepEqual(verdictFromHook(undefined, undefined), {});
  });

  it('a landing without a miss at PostToolUse is not used (the post look is what it continues)', () => {
    assert.equal(verdictFromHook(pre(false), undefined, { at: 3100, with_result: true }).shape, undefined);
  });

  it('without a pre event nothing anchors the hold, but the shape still stands', () => {
    assert.deepEqual(verdictFromHook(undefined, post(3000, true, false)), { shape: 'before_result' });
  });
});

describe('hook evidence: the mod looked from the fire on', () => {
  it('its landing says the shape by itself, and bounds the hold by the look that found it; its last miss proves nothing (its $.fs was seen to lag the disk)', () => {
    assert.deepEqual(verdictFromHook(undefined, undefined, { at: 3_000, with_result: true, watched_from: 'pre', missed_at: 2_990, fired_at: 1_000 }), {
      shape: 'with_result',
      held: { min_ms: 0, max_ms: 2_000 },
    });
    // Its look 100 ms after the last (its event loop busy) found both: not proven one write.
    assert.deepEqual(verdictFromHook(undefined, undefined, { at: 3_000, with_result: true, watched_from: 'pre', missed_at: 2_900, fired_at: 1_000 }), { held: { min_ms: 0, max_ms: 2_000 } });
    // No miss: on disk at the first look, so held from 0.
    assert.deepEqual(verdictFromHook({ at: 1_000 }, undefined, { at: 1_100, with_result: false, watched_from: 'pre' }), {
      shape: 'before_result',
      held: { min_ms: 0, max_ms: 100 },
    });
    // A post hook's watcher alone after a miss at PostToolUse is not the mod's: its rule stays.
    assert.equal(verdictFromHook(undefined, undefined, { at: 3_000, with_result: true }).shape, undefined);
  });

  it('of two landings the mod\'s wins, whatever came first; else the earlier', () => {
    const hooks = { at: 2_000, with_result: false };
    const mods = { at: 2_500, with_result: true, watched_from: 'pre' as const };
    assert.equal(betterLanding(hooks, mods), mods);
    assert.equal(betterLanding(mods, hooks), mods);
    assert.equal(betterLanding({ at: 3_000, with_result: true }, hooks), hooks);
    assert.equal(betterLanding(undefined, hooks), hooks);
  });
});

describe('hook evidence: one fold of a call\'s events, one held rule', () => {
  const events = [
    { event: 'pre' as const, at: 1000, transport: 'mod' },
    { event: 'pre' as const, at: 1080, checked_at: 1090, record_on_disk: false, result_on_disk: false },
    { event: 'pre' as const, at: 1080, checked_at: 1090, record_on_disk: false, result_on_disk: false },
    { event: 'post' as const, at: 1400, checked_at: 1405, record_on_disk: false, result_on_disk: false },
    { event: 'landed' as const, at: 1605, with_result: false },
    { event: 'landed' as const, at: 1520, with_result: false, watched_from: 'pre' as const, missed_at: 1500, fired_at: 1000 },
  ];

  it('any order of the events folds to the same sightings: the earliest look that says something, the landing that proves most', () => {
    const orders = [events, [...events].reverse(), [events[4], events[0], events[5], events[3], events[2], events[1]]];
    const folds = orders.map((order) => {
      const seen: CallSightings = {};
      for (const e of order) noteSighting(seen, e);
      return seen;
    });
    for (const f of folds) assert.deepEqual(f, folds[0]);
    assert.deepEqual(folds[0]!.pre, { at: 1080, checked_at: 1090, record_on_disk: false, result_on_disk: false }, 'the mod\'s pre says nothing of the disk');
    assert.equal(folds[0]!.landed?.watched_from, 'pre');
    assert.equal(hookSawRecord(folds[0]!), true);
    assert.deepEqual(verdictOf(folds[0]!).held, { min_ms: 405, max_ms: 520 }, 'the post hook\'s miss at 1405 (Node\'s fs) bounds it from below; the mod\'s own miss at 1500 does not');
  });

  it("the hooks' two reports of one measure: the shorter time, then the decision by name, whatever came first", () => {
    const pairs: Array<[Parameters<typeof canonicalHooks>[0], Parameters<typeof canonicalHooks>[1], unknown]> = [
      [{ ms: 2004, decision: 'allow' }, { ms: 2003 }, { ms: 2003 }],
      // One time, two decisions (a report that lost its decision, or two that disagree): the name first by order ('' < allow < ask < deny).
      [{ ms: 2004, decision: 'deny' }, { ms: 2004, decision: 'allow' }, { ms: 2004, decision: 'allow' }],
      [{ ms: 2004, decision: 'ask' }, { ms: 2004 }, { ms: 2004 }],
      [undefined, { ms: 5 }, { ms: 5 }],
    ];
    for (const [a, b, kept] of pairs) {
      assert.deepEqual(canonicalHooks(a, b), kept);
      assert.deepEqual(canonicalHooks(b, a), kept, 'the other order');
    }
    assert.equal(canonicalHooks(undefined, undefined), undefined);
  });

  it("the record's first sighting by the call's own hooks: a look that found it, never a miss, never the mod's last miss", () => {
    assert.equal(recordFoundAt({}), undefined);
    assert.equal(recordFoundAt({ pre: { at: 1000, checked_at: 1010, record_on_disk: false } }), undefined);
    assert.equal(recordFoundAt({ pre: { at: 1000, checked_at: 1010, record_on_disk: true } }), 1010);
    // Found without a look's time: when is not known.
    assert.equal(recordFoundAt({ pre: { at: 1000, record_on_disk: true } }), undefined);
    const landed = { at: 1520, with_result: false, watched_from: 'pre' as const, missed_at: 1500, fired_at: 1000 };
    assert.equal(recordFoundAt({ post: { at: 1400, checked_at: 1600, record_on_disk: true }, landed }), 1520, 'the earlier of the landing and the post');
    assert.equal(recordFoundAt({ post: { at: 1400, checked_at: 1405, record_on_disk: true }, landed }), 1405);
  });

  it("a find by a later report's look counts as the hooks seeing the record, though the kept pre is the earlier one that missed", () => {
    const seen: CallSightings = {};
    noteSighting(seen, { event: 'pre', at: 1010, checked_at: 1020, record_on_disk: false });
    noteSighting(seen, { event: 'pre', at: 1016, checked_at: 1030, record_on_disk: true });
    assert.equal(seen.pre?.record_on_disk, false, 'the earliest fired is kept');
    assert.equal(hookSawRecord(seen), true);
    assert.deepEqual(verdictOf(seen).held, { min_ms: 10, max_ms: 20 });
  });

  it('held: fired, and its record proven absent; a record not known either way is not held', () => {
    assert.equal(isHeld({ firedAt: 1000, recordOnDisk: false }), true);
    assert.equal(isHeld({ firedAt: 1000, recordOnDisk: true }), false);
    assert.equal(isHeld({ firedAt: 1000 }), false);
    assert.equal(isHeld({ recordOnDisk: false }), false, 'no hook fired: nothing is held back');
  });
});

describe("hook evidence: a PreToolUse hook's wait (our probe's, or a reviewing hook's)", () => {
  const fold = (...evs: Parameters<typeof noteSighting>[1][]) => {
    const seen: CallSightings = {};
    for (const e of evs) noteSighting(seen, e);
    return seen;
  };
  const seenWait = (at: number, checked_at?: number) => ({ event: 'wait' as const, at, outcome: 'seen' as const, ...(checked_at !== undefined ? { checked_at } : {}) });
  const behindWait = (at: number, checked_at?: number, agent_id?: string) => ({ event: 'wait' as const, at, outcome: 'behind' as const, ...(checked_at !== undefined ? { checked_at } : {}), ...(agent_id !== undefined ? { agent_id } : {}) });
  /** The fire the reader measures from (the call's best report). */
  const FIRE = 1000;

  it('seen: on disk before the tool ran, so before its result; held at most until the find (its look, else the wait\'s end, which follows it)', () => {
    // The demo's print-mode recording: fired at …806, the wait reported at …152 with no look time: ≤ 346 ms.
    assert.deepEqual(verdictOf(fold(seenWait(1346)), FIRE), { shape: 'before_result', held: { min_ms: 0, max_ms: 346 } });
    assert.deepEqual(verdictOf(fold(seenWait(1346, 1340)), FIRE), { shape: 'before_result', held: { min_ms: 0, max_ms: 340 } });
    assert.equal(recordFoundAt(fold(seenWait(1346, 1340))), 1340);
    assert.equal(hookSawRecord(fold(seenWait(1346))), true);
    // From the fire the reader measures from (the mod's, earlier than the hook's pre).
    assert.deepEqual(verdictOf(fold(seenWait(1346)), 900).held, { min_ms: 0, max_ms: 446 });
    // Without a fire nothing anchors the hold; the shape stands.
    assert.deepEqual(verdictOf(fold(seenWait(1346))), { shape: 'before_result' });
    // The pre hook's own report is the fire when the reader knows no other.
    assert.deepEqual(verdictOf(fold({ event: 'pre', at: 1000, checked_at: 1005, record_on_disk: false, result_on_disk: false }, seenWait(1346))).held, { min_ms: 5, max_ms: 346 });
  });

  it('behind: its last whole look missed the record, a lower bound and never a shape; unbounded above until something finds it', () => {
    assert.deepEqual(verdictOf(fold(behindWait(2010, 1930)), FIRE), { held: { min_ms: 930, max_ms: null } });
    // Found later (the post hook saw it without its result): between the two looks, and the post proves the shape.
    assert.deepEqual(verdictOf(fold(behindWait(2010, 1930), { event: 'post', at: 2500, checked_at: 2505, record_on_disk: true, result_on_disk: false }), FIRE), {
      shape: 'before_result',
      held: { min_ms: 930, max_ms: 1505 },
    });
    // Behind with a post that missed both and no landing: still no shape.
    assert.equal(verdictOf(fold(behindWait(2010, 1930), { event: 'post', at: 2500, checked_at: 2505, record_on_disk: false, result_on_disk: false }), FIRE).shape, undefined);
    assert.equal(hookSawRecord(fold(behindWait(2010, 1930))), false);
  });

  it('a behind wait proves nothing without its look\'s time (older hooks), for a subagent\'s call (its record lands in a file the wait does not read), nor an error', () => {
    assert.deepEqual(verdictOf(fold(behindWait(2010)), FIRE), {});
    assert.deepEqual(verdictOf(fold(behindWait(2010, 1930, 'agent-1')), FIRE), {});
    assert.deepEqual(verdictOf(fold({ event: 'wait', at: 2010, outcome: 'error', checked_at: 1930 }), FIRE), {});
  });

  it('several waits fold to the same sightings in any order: the earliest find, the latest miss; a miss after the find is no bound', () => {
    const evs = [behindWait(1500, 1200), seenWait(1800, 1700), seenWait(1650, 1600), behindWait(1900, 1750), behindWait(1400, 1300)];
    const folds = [evs, [...evs].reverse(), [evs[3]!, evs[0]!, evs[4]!, evs[1]!, evs[2]!]].map((order) => fold(...order));
    for (const f of folds) assert.deepEqual(f, folds[0]);
    assert.deepEqual([folds[0]!.waitFoundAt, folds[0]!.waitMissedAt], [1600, 1750]);
    // The miss at 1750 contradicts the find at 1600 (another source, another clock): no wait's miss
    // bounds the hold then, and 0 is still true.
    assert.deepEqual(verdictOf(folds[0]!, FIRE).held, { min_ms: 0, max_ms: 600 });
    assert.deepEqual(verdictOf(fold(behindWait(1500, 1200), behindWait(1400, 1300), seenWait(1650, 1600)), FIRE).held, { min_ms: 300, max_ms: 600 });
  });
});
