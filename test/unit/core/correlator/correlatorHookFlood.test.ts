import { strict as assert } from 'node:assert';
import { Correlator } from '../../../../src/core/correlator';
import { SESSION, TRANSCRIPT, pre, tailRead, toolUse } from '../../helpers/correlatorInputs';

// A hook channel is written by whatever runs as the user: a flood of pre events
// for ids that never reach the transcript must not make every later event slower.
describe('Correlator: a flood of pre events for ids never written', () => {
  const FORGED = 40_000;

  it('keeps the calls per session bounded and a real pre + record still gets held and written', () => {
    const c = new Correlator();
    let largest = 0;
    for (let i = 0; i < FORGED; i++) {
      c.ingestHook(pre(`forged-${i}`, 1_000 + i), 1_000 + i);
      // What each ingest costs is proportional to the calls the session keeps (each walks them).
      largest = Math.max(largest, c.callsKept(SESSION));
    }
    assert.ok(largest <= 500, `calls kept per session reached ${largest}`);
    assert.equal(c.heldCallsDropped(SESSION), FORGED - 500);

    const real = c.ingestHook(pre('toolu_real', 50_000), 50_000);
    assert.deepEqual(
      real.filter((e) => e.event === 'held').map((e) => e.event === 'held' && e.tool_use_id),
      ['toolu_real'],
    );
    const read = tailRead(50_040, 1, [toolUse('toolu_real')]);
    const written = c.ingestTranscript({ sessionId: SESSION, transcriptPath: TRANSCRIPT, isMain: true, read }).find((e) => e.event === 'written');
    assert.ok(written && written.event === 'written');
    assert.equal(written.tool_use_id, 'toolu_real');
    assert.equal(written.lag_ms, 40);
    // The real call took the place of the forged one fired first, and is written now.
    assert.equal(c.snapshot(SESSION)?.stats.held_now, 499);
  });

  it('drops the call fired first, not a real one fired after the flood', () => {
    const c = new Correlator({ maxHeldCalls: 3 });
    for (const [id, at] of [['a', 10], ['b', 20], ['c', 30], ['real', 40], ['d', 50]] as const) c.ingestHook(pre(id, at), at);
    const held = c.snapshot(SESSION)?.held.map((h) => h.tool_use_id);
    assert.deepEqual(held, ['c', 'real', 'd']);
    assert.equal(c.heldCallsDropped(SESSION), 2);
  });
});
