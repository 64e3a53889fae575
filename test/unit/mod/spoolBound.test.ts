import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { modReportsCall } from '../../../src/rules/modFiles';
import { ModHarness, SESSION } from './modHarness';

// The mod's spool is bounded (20,000 files unfolded) for when nothing folds it (issue 30 §2): at the
// bound it must notice `watch` or a window emptying it, and the calls whose events it drops must be
// left to the command hooks (not in mod/<session>.json).
describe('mod: the spool at its bound', function () {
  let h: ModHarness;
  afterEach(() => h?.dispose());

  const spoolDir = () => h.real(h.claudePath('transcript-lag', 'spool'));
  /** Another copy's 20,000 unfolded files: over the bound once this copy counts them. */
  function fillSpool(): void {
    h.otherSpoolFiles = 20_000;
  }
  let rows = 0;
  const record = (tag = `r${rows++}`) => h.emit('session.append', { message: { type: 'system', content: [] }, door: 'test', uuid: tag });
  /** This copy spools `n` record events; the 1000th makes it count the spool. */
  async function spoolRecords(n: number): Promise<void> {
    for (let i = 0; i < n; i++) await record();
    await h.settle();
  }
  const spooledUuids = () => h.spooled().map((e) => (e as { uuid?: string }).uuid);
  /** `watch` folds the spool: every file in it is taken. */
  const fold = () => {
    h.otherSpoolFiles = 0;
    for (const n of fs.readdirSync(spoolDir())) fs.rmSync(path.join(spoolDir(), n));
  };

  it('recounts while at the bound (one count at a time, at most one a second) and spools again once the spool was emptied', async () => {
    h = new ModHarness();
    await h.start();
    fillSpool();
    await spoolRecords(1000);
    assert.equal(h.lists, 1, 'the 1000th spooled event counts the spool');
    await record('dropped');
    for (let i = 0; i < 50; i++) await record();
    await h.settle();
    assert.ok(!spooledUuids().includes('dropped'), 'at the bound: dropped');
    assert.equal(h.lists, 1, 'at the bound: not counted again within the second, however many events');
    // A second later, still full: counted again; a count still running is not started twice.
    let open!: () => void;
    h.listGate = new Promise((r) => (open = r));
    await h.tick(1000);
    await record();
    await h.tick(1000);
    await record();
    assert.equal(h.lists, 2, 'one count at a time');
    open();
    await h.settle();
    // watch folds the spool: the next count sees it empty, and events are spooled again.
    fold();
    await h.tick(1000);
    await record('counts');
    await h.settle();
    assert.equal(h.lists, 3);
    await record('spooled');
    await h.settle();
    assert.deepEqual(spooledUuids(), ['spooled']);
  });

  it('at the bound, transcript-lag/ deleted: a spool folder that is gone holds nothing, and events are spooled again', async () => {
    h = new ModHarness();
    await h.start();
    fillSpool();
    await spoolRecords(1000);
    fs.rmSync(h.claudePath('transcript-lag'), { recursive: true });
    await h.tick(1000);
    await record('counts');
    await h.settle();
    await record('spooled');
    await h.settle();
    assert.deepEqual(spooledUuids(), ['spooled']);
  });

  it('a call whose events it would drop is not listed, so the command hooks report it; a call listed before the bound keeps its events', async () => {
    h = new ModHarness();
    await h.start();
    const before = await h.call('toolu_01B');
    fillSpool();
    await spoolRecords(999); // with the pre of toolu_01B: the 1000th counts the spool, 21,000
    const input = (id: string) => ({ session_id: SESSION, transcript_path: h.transcript, tool_use_id: id });
    const atBound = await h.call('toolu_01A');
    assert.deepEqual(h.listed(), ['toolu_01B']);
    assert.equal(modReportsCall(input('toolu_01A')), false, 'the command hook reports the call');
    assert.equal(modReportsCall(input('toolu_01B')), true, 'the command hook stands aside');
    await atBound.finish();
    await before.finish();
    h.appendRecord('toolu_01B');
    h.appendRecord('toolu_01A');
    await h.tick(100);
    const calls = h.spooled().filter((e) => e.tool_use_id !== undefined).map((e) => `${e.event} ${e.tool_use_id}`);
    assert.deepEqual(calls, ['pre toolu_01B', 'post toolu_01B', 'landed toolu_01B']);
  });
});
