import { strict as assert } from 'node:assert';
import * as fc from 'fast-check';
import type { ChannelEvent } from '../../../../src/core/channel/schema';
import { Correlator } from '../../../../src/core/correlator';
import type { ScanResult } from '../../../../src/core/records';
import type { TailRead } from '../../../../src/core/tailTypes';
import { SESSION, TRANSCRIPT, malformed, plain, post, pre, tailRead, toolResult, toolUse, wait } from '../../helpers/correlatorInputs';

/**
 * Random sessions: calls with or without a hook, waits, results; the
 * transcript cut into write batches at random places; some inputs duplicated;
 * sometimes the whole file re-read as a new generation. Whatever order the
 * inputs arrive in, the final snapshot is the one of the natural order.
 */
type Input = { kind: 'hook'; ev: ChannelEvent; observedAt: number } | { kind: 'read'; read: TailRead<ScanResult> };

const callArb = fc.record({
  hook: fc.boolean(),
  waitOutcome: fc.constantFrom(undefined, 'seen' as const, 'behind' as const),
  posted: fc.boolean(),
  resultDelay: fc.integer({ min: 0, max: 3 }),
  /** Copied from a parent session by a fork (its record names the parent): history, never hooked here. */
  copied: fc.boolean(),
});

const scenarioArb = fc.record({
  calls: fc.array(callArb, { minLength: 1, maxLength: 6 }),
  cuts: fc.array(fc.boolean(), { minLength: 30, maxLength: 30 }),
  malformedAt: fc.option(fc.integer({ min: 0, max: 10 }), { nil: undefined }),
  duplicate: fc.array(fc.nat(), { maxLength: 4 }),
  replay: fc.boolean(),
});

type Scenario = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

function build(s: Scenario): Input[] {
  // Lines in file order: each call's record, then its result after `resultDelay` other lines.
  const lines: ScanResult[] = [plain({ cwd: '/w', prompt: 'go' })];
  const pending: { id: string; due: number }[] = [];
  const flush = (all: boolean) => {
    for (const p of [...pending]) {
      if (!all && p.due > lines.length) continue;
      lines.push(toolResult(p.id));
      pending.splice(pending.indexOf(p), 1);
    }
  };
  s.calls.forEach((c, i) => {
    lines.push(toolUse(`T${i}`, c.copied ? { sessionId: SESSION, requestSessionId: 'parent-session' } : {}));
    pending.push({ id: `T${i}`, due: lines.length + c.resultDelay });
    flush(false);
  });
  flush(true);
  if (s.malformedAt !== undefined) lines.splice(Math.min(s.malformedAt, lines.length), 0, malformed);

  const inputs: Input[] = [];
  let start = 0;
  let t = 1000;
  for (let i = 1; i <= lines.length; i++) {
    if (i === lines.length || s.cuts[i % s.cuts.length]) {
      inputs.push({ kind: 'read', read: tailRead((t += 100), start + 1, lines.slice(start, i)) });
      start = i;
    }
  }
  s.calls.forEach((c, i) => {
    const fired = 1000 + i * 37;
    if (c.copied) return;
    if (c.hook) inputs.push({ kind: 'hook', ev: pre(`T${i}`, fired), observedAt: fired + 1 });
    if (c.waitOutcome) inputs.push({ kind: 'hook', ev: wait(`T${i}`, fired + 500, c.waitOutcome), observedAt: fired + 501 });
    if (c.posted) inputs.push({ kind: 'hook', ev: post(`T${i}`, fired + 900), observedAt: fired + 901 });
  });
  if (s.replay) inputs.push({ kind: 'read', read: tailRead(t + 5000, 1, lines, 2) });
  for (const d of s.duplicate) inputs.push(inputs[d % inputs.length]);
  return inputs;
}

function finalSnapshot(inputs: Input[]) {
  const c = new Correlator({ recentCalls: 50 });
  for (const i of inputs) {
    if (i.kind === 'hook') c.ingestHook(i.ev, i.observedAt);
    else c.ingestTranscript({ sessionId: SESSION, transcriptPath: TRANSCRIPT, isMain: true, read: i.read });
  }
  return c.snapshot(SESSION);
}

describe('Correlator: random scenarios in random orders (property)', () => {
  it('end in the snapshot of the natural order', () => {
    fc.assert(
      fc.property(
        scenarioArb.chain((s) => {
          const inputs = build(s);
          return fc.tuple(fc.constant(inputs), fc.shuffledSubarray(inputs, { minLength: inputs.length, maxLength: inputs.length }));
        }),
        ([natural, shuffled]) => {
          assert.deepEqual(finalSnapshot(shuffled), finalSnapshot(natural));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('count every call written once, and waits once per call', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const snap = finalSnapshot(build(s));
        assert.ok(snap);
        assert.equal(snap.stats.calls_written, s.calls.length);
        const own = s.calls.filter((c) => !c.copied);
        assert.equal(snap.stats.shape_before_result + snap.stats.shape_with_result, own.length);
        assert.equal(snap.stats.shape_unknown, s.calls.length - own.length);
        assert.equal(snap.stats.waits_seen, own.filter((c) => c.waitOutcome === 'seen').length);
        assert.equal(snap.stats.waits_behind, own.filter((c) => c.waitOutcome === 'behind').length);
        assert.equal(snap.stats.malformed_lines, s.malformedAt === undefined ? 0 : 1);
        assert.equal(snap.stats.held_now, 0);
        assert.ok(snap.recent.every((r) => r.state === 'result'));
        // A hooked call's lag is the engine's read, unless its probe's `seen` wait (fired + 500) found the
        // record first: that read came late, and the call has the wait's bound instead.
        s.calls.forEach((c, i) => {
          const r = snap.recent.find((x) => x.tool_use_id === `T${i}`);
          assert.ok(r);
          const fired = 1000 + i * 37;
          const waitFirst = c.waitOutcome === 'seen' && fired + 500 < (r.observed_at as number);
          if (c.copied || !c.hook) assert.equal(r.lag_ms, null);
          else if (!waitFirst) assert.equal(r.lag_ms, Math.max(0, (r.observed_at as number) - fired));
          else assert.deepEqual([r.lag_ms, r.lag_bounds], [null, { min_ms: 0, max_ms: 500 }]);
        });
      }),
      { numRuns: 200 },
    );
  });
});
