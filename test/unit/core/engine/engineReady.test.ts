import { strict as assert } from 'node:assert';
import { promises as fsp } from 'node:fs';
import type { ChangeSource } from '../../../../src/core/changeSource';
import type { EngineEvent } from '../../../../src/core/engineEvents';
import { TranscriptLagEngine, type EngineReady } from '../../../../src/core/engine';
import { Correlator } from '../../../../src/core/correlator';
import { nodeFileAccess } from '../../../../src/platform/nodeFileAccess';
import { GatedFileAccess } from '../../helpers/gatedFileAccess';
import { ManualClock } from '../../helpers/manualClock';
import { ClaudeDirFixture, preLine, toolResultRecord, toolUseRecord, userPrompt } from '../../helpers/engineFixture';

const S = 'a1b2c3d4-0000-4000-8000-00000000000b';
/** Small reads, so the history below (~40 KB) takes dozens of steps to index. */
const STEP = 1024;

/**
 * Issue 15 §4: `ready` comes once every followed file's history end is fixed,
 * before its history is indexed, and every line appended after it is live
 * however much history is still being indexed.
 */
describe('engine: ready before history is indexed', () => {
  let fx: ClaudeDirFixture;
  let clock: ManualClock;
  let engine: TranscriptLagEngine | undefined;
  let gate: GatedFileAccess | undefined;
  let events: EngineEvent[];
  let t: string;

  beforeEach(async () => {
    fx = await ClaudeDirFixture.create();
    clock = new ManualClock(Date.now());
    events = [];
    t = fx.transcriptPath(S);
    const filler = Array.from({ length: 150 }, (_, i) => userPrompt(S, fx.workspace, `prompt ${i} ${'x'.repeat(200)}`));
    await fx.append(t, [userPrompt(S, fx.workspace), toolUseRecord(S, fx.workspace, 'toolu_hist'), toolResultRecord(S, fx.workspace, 'toolu_hist'), ...filler]);
  });
  afterEach(async () => {
    gate?.release();
    await engine?.dispose();
    engine = undefined;
    await fx.remove();
  });

  const callSeq = (id: string) => events.filter((e) => 'tool_use_id' in e && e.tool_use_id === id).map((e) => e.event);
  const writtenOf = (id: string) => events.find((e) => e.event === 'written' && e.tool_use_id === id);

  /** Starts the engine with reads of the transcript stopping after `passBefore` steps until released. */
  async function startGated(passBefore: number, changes?: ChangeSource): Promise<{ ready: EngineReady; files: GatedFileAccess }> {
    const files = (gate = new GatedFileAccess((p) => p === t, passBefore));
    engine = new TranscriptLagEngine({ claudeDir: fx.claudeDir, workspaceFolders: [fx.workspace], scope: 'workspace', files, clock, maxBytesPerRead: STEP, ...(changes ? { changes } : {}) });
    engine.onEvent((e) => events.push(e));
    // Were start() to wait for the history, it would wait at the gate for ever: say so instead of timing out.
    const started = engine.start();
    const outcome = await Promise.race([started, files.reachedGate.then(() => new Promise((r) => setImmediate(r))).then(() => 'stuck')]);
    assert.notEqual(outcome, 'stuck', 'start() waited for the history to be indexed');
    return { ready: await started, files };
  }

  it('resolves start() with the history end fixed; records appended while indexing are live, with their lags', async () => {
    const fired = clock.now() - 1000;
    await fx.append(fx.channelPath(S), [preLine(S, t, 'toolu_held', fired)]);
    await fx.append(t, [toolUseRecord(S, fx.workspace, 'toolu_before')]);
    const historyBytes = (await fsp.stat(t)).size;
    const historyLines = 154;

    const { ready, files } = await startGated(3);
    assert.deepEqual([ready.files, ready.historyBytes, ready.at], [1, historyBytes, clock.now()]);
    await files.reachedGate;
    assert.ok(historyBytes > 10 * STEP, 'the history takes many reads');
    assert.equal(engine!.session(S), undefined, 'not shown while its history is being indexed: which calls are held is not known yet');

    // After ready, while indexing is held at the gate: the held call's record, a call whose
    // PreToolUse fired after ready and its record, and a call without a hook with its result.
    clock.advance(200);
    await fx.append(t, [toolUseRecord(S, fx.workspace, 'toolu_held')]);
    await fx.append(fx.channelPath(S), [preLine(S, t, 'toolu_late', clock.now())]);
    await fx.append(t, [toolUseRecord(S, fx.workspace, 'toolu_late')]);
    await fx.append(t, [toolUseRecord(S, fx.workspace, 'toolu_live'), toolResultRecord(S, fx.workspace, 'toolu_live')]);
    clock.advance(300);
    files.release();
    await engine!.indexed();

    assert.deepEqual(callSeq('toolu_hist'), [], 'history: indexed, no call events');
    assert.deepEqual(callSeq('toolu_before'), [], 'appended before start: history');
    assert.deepEqual(callSeq('toolu_held'), ['held', 'written']);
    assert.deepEqual(callSeq('toolu_late'), ['held', 'written']);
    assert.deepEqual(callSeq('toolu_live'), ['written', 'result']);
    const held = writtenOf('toolu_held');
    const late = writtenOf('toolu_late');
    const live = writtenOf('toolu_live');
    assert.ok(held?.event === 'written' && late?.event === 'written' && live?.event === 'written');
    assert.deepEqual([held.line, held.lag_ms, held.fired_at], [historyLines + 1, 1500, fired]);
    assert.deepEqual([late.line, late.lag_ms], [historyLines + 2, 300]);
    assert.deepEqual([live.line, live.lag_ms, live.with_result], [historyLines + 3, null, true]);
    const snap = engine!.session(S);
    assert.equal(snap?.stats.calls_written, 5);
    assert.equal(snap?.stats.held_now, 0);
    assert.equal(snap?.last_line, historyLines + 4);
  });

  it('a line appended before start stays history however late indexing reaches it', async () => {
    await fx.append(t, [toolUseRecord(S, fx.workspace, 'toolu_last_before')]);
    const { files } = await startGated(2);
    await files.reachedGate;
    await fx.append(t, [toolUseRecord(S, fx.workspace, 'toolu_first_after')]);
    files.release();
    await engine!.indexed();
    assert.deepEqual(callSeq('toolu_last_before'), []);
    assert.deepEqual(callSeq('toolu_first_after'), ['written']);
    assert.equal(engine!.session(S)?.stats.calls_written, 3);
  });

  it('ticks go on reading the other sessions while a big one is being indexed', async () => {
    const small = 'a1b2c3d4-0000-4000-8000-00000000000c';
    const ts = fx.transcriptPath(small);
    await fx.append(ts, [userPrompt(small, fx.workspace)]);
    const { files } = await startGated(3);
    await files.reachedGate;
    await fx.append(ts, [toolUseRecord(small, fx.workspace, 'toolu_small')]);
    clock.advance(10);
    // Were ticks queued behind the indexing held at the gate, this would not return (the test times out).
    await engine!.tick();
    assert.deepEqual(callSeq('toolu_small'), ['written']);
    assert.deepEqual(engine!.sessions().map((x) => x.session_id), [small], 'the big session shows once its history is in');
    files.release();
    await engine!.indexed();
    assert.deepEqual(engine!.sessions().map((x) => x.session_id).sort(), [S, small].sort());
  });

  it('a tick reads a file still waiting for its history to be indexed once a record is appended to it', async () => {
    // Bigger than S, so indexing (smallest first) reaches it only after S, which is held at the gate.
    const late = 'a1b2c3d4-0000-4000-8000-00000000000d';
    const tl = fx.transcriptPath(late);
    await fx.append(tl, [userPrompt(late, fx.workspace), ...Array.from({ length: 250 }, (_, i) => userPrompt(late, fx.workspace, `prompt ${i} ${'y'.repeat(200)}`))]);
    const { files } = await startGated(3);
    await files.reachedGate;
    await fx.append(tl, [toolUseRecord(late, fx.workspace, 'toolu_late')]);
    clock.advance(10);
    await engine!.tick();
    assert.deepEqual(callSeq('toolu_late'), ['written'], 'the appended record waited behind the indexing of other files');
    const w = writtenOf('toolu_late');
    assert.equal(w?.event === 'written' ? w.line : undefined, 252);
    assert.deepEqual(engine!.sessions().map((x) => x.session_id), [late]);
  });

  it('indexing settles each file\'s own session, not every session after every file (quadratic over 20,000)', async () => {
    const ids = Array.from({ length: 120 }, (_, i) => `a1b2c3d4-0000-4000-8000-${String(i).padStart(12, '0')}`);
    for (const id of ids) await fx.append(fx.transcriptPath(id), [userPrompt(id, fx.workspace)]);
    const sessionIds = Correlator.prototype.sessionIds;
    let walks = 0;
    Correlator.prototype.sessionIds = function (this: Correlator) {
      walks++;
      return sessionIds.call(this);
    };
    try {
      engine = new TranscriptLagEngine({ claudeDir: fx.claudeDir, workspaceFolders: [fx.workspace], scope: 'workspace', files: nodeFileAccess, clock });
      engine.onEvent((e) => events.push(e));
      await engine.start();
      await engine.indexed();
    } finally {
      Correlator.prototype.sessionIds = sessionIds;
    }
    assert.equal(events.filter((e) => e.event === 'session').length, ids.length + 1);
    assert.ok(walks < 10, `every session walked ${walks} times while indexing ${ids.length + 1} files`);
  });

  it('a hook event read while indexing, for a record that turns out to be history, is not reported held', async () => {
    let notify: ((p: string) => void) | undefined;
    const changes: ChangeSource = { watch: (_folders, onChange) => ((notify = onChange), { dispose: () => undefined }) };
    await fx.append(t, [toolUseRecord(S, fx.workspace, 'toolu_landed')]);
    const { files } = await startGated(2, changes);
    await files.reachedGate;
    // The hook's event lands after ready, its record before: read at once through the change notification.
    await fx.append(fx.channelPath(S), [preLine(S, t, 'toolu_landed', clock.now() - 50)]);
    await fx.append(fx.channelPath(S), [preLine(S, t, 'toolu_open', clock.now())]);
    assert.ok(notify);
    notify(fx.channelPath(S));
    const channelSize = (await fsp.stat(fx.channelPath(S))).size;
    // No clock involved: turns of the event loop until the notification's read is done, then one more for its handling.
    for (let turns = 0; (files.readEnds.get(fx.channelPath(S)) ?? 0) < channelSize && turns < 10_000; turns++) await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    assert.equal(files.readEnds.get(fx.channelPath(S)), channelSize, 'the change notification read the channel while indexing was held');
    files.release();
    await engine!.indexed();
    assert.deepEqual(callSeq('toolu_landed'), []);
    assert.deepEqual(callSeq('toolu_open'), ['held']);
    assert.equal(engine!.session(S)?.stats.held_now, 1);
  });
});
