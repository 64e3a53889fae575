import { strict as assert } from 'node:assert';
import type { EngineEvent } from '../../../../src/core/engineEvents';
import { TranscriptLagEngine, type EngineOptions } from '../../../../src/core/engine';
import { nodeFileAccess } from '../../../../src/platform/nodeFileAccess';
import { ManualClock } from '../../helpers/manualClock';
import { ClaudeDirFixture, preLine, toolResultRecord, toolUseRecord, userPrompt } from '../../helpers/engineFixture';

const S = 'a1b2c3d4-0000-4000-8000-0000000000af';

/**
 * A window opened after the calls happened (activation, reload, a late open):
 * what the hook saw on disk is the only evidence of how each call was written,
 * and the views must say exactly that much.
 */
describe('engine: calls indexed as history, labelled from their hook evidence', () => {
  let fx: ClaudeDirFixture;
  let clock: ManualClock;
  let engine: TranscriptLagEngine;
  let events: EngineEvent[];

  beforeEach(async () => {
    fx = await ClaudeDirFixture.create();
    clock = new ManualClock(Date.now());
    events = [];
  });
  afterEach(async () => {
    await engine?.dispose();
    await fx.remove();
  });

  async function startEngine(extra: Partial<EngineOptions> = {}): Promise<void> {
    engine = new TranscriptLagEngine({ claudeDir: fx.claudeDir, workspaceFolders: [fx.workspace], scope: 'workspace', files: nodeFileAccess, clock, ...extra });
    engine.onEvent((e) => events.push(e));
    await engine.start();
    await engine.indexed();
  }

  const sighting = (event: 'pre' | 'post', t: string, id: string, at: number, checkedAfter: number, record: boolean, result: boolean) => ({
    ...preLine(S, t, id, at),
    event,
    checked_at: at + checkedAfter,
    bytes_on_disk: 100,
    record_on_disk: record,
    result_on_disk: result,
  });
  const landed = (t: string, id: string, at: number, withResult: boolean) => ({ ...preLine(S, t, id, at), event: 'landed', with_result: withResult });

  it('held 2.1 s and written before its result: "before_result", held between the two looks, never "no hook"', async () => {
    const t = fx.transcriptPath(S);
    const t0 = clock.now() - 60_000;
    const ids = ['toolu_a', 'toolu_b', 'toolu_c'];
    await fx.append(t, [userPrompt(S, fx.workspace), ...ids.flatMap((id) => [toolUseRecord(S, fx.workspace, id), toolResultRecord(S, fx.workspace, id)])]);
    await fx.append(
      fx.channelPath(S),
      ids.flatMap((id, i) => [
        sighting('pre', t, id, t0 + i * 5000, 40, false, false),
        sighting('post', t, id, t0 + i * 5000 + 3100, 50, true, false),
      ]),
    );
    await startEngine();
    const snap = engine.session(S)!;
    assert.equal(snap.recent.length, 3);
    for (const call of snap.recent) {
      assert.equal(call.shape, 'before_result');
      assert.notEqual(call.fired_at, undefined, 'the hook ran: the view must not say "no hook"');
      assert.equal(call.lag_ms, null, 'when the record reached disk was not seen');
      assert.deepEqual(call.lag_bounds, { min_ms: 40, max_ms: 3150 });
    }
    assert.equal(snap.stats.shape_before_result, 3);
    assert.equal(snap.stats.shape_with_result, 0);
    assert.equal(snap.stats.shape_unknown, 0);
    assert.equal(events.filter((e) => e.event === 'written').length, 0, 'history brings no call events');
  });

  it('missed at PostToolUse, then landed with its result: "with_result", held from the post look to the landing', async () => {
    const t = fx.transcriptPath(S);
    const t0 = clock.now() - 60_000;
    await fx.append(t, [userPrompt(S, fx.workspace), toolUseRecord(S, fx.workspace, 'toolu_w'), toolResultRecord(S, fx.workspace, 'toolu_w')]);
    await fx.append(fx.channelPath(S), [
      sighting('pre', t, 'toolu_w', t0, 30, false, false),
      sighting('post', t, 'toolu_w', t0 + 2000, 60, false, false),
      landed(t, 'toolu_w', t0 + 2100, true),
    ]);
    await startEngine();
    const [call] = engine.session(S)!.recent;
    assert.equal(call!.shape, 'with_result');
    assert.deepEqual(call!.lag_bounds, { min_ms: 2060, max_ms: 2100 });
    assert.equal(engine.session(S)!.stats.shape_with_result, 1);
  });

  it('an older hook (no sightings) and a missed post with no landing: "unknown", with the fire time still known', async () => {
    const t = fx.transcriptPath(S);
    const t0 = clock.now() - 60_000;
    await fx.append(t, [
      userPrompt(S, fx.workspace),
      ...['toolu_old', 'toolu_nolanding'].flatMap((id) => [toolUseRecord(S, fx.workspace, id), toolResultRecord(S, fx.workspace, id)]),
    ]);
    await fx.append(fx.channelPath(S), [
      preLine(S, t, 'toolu_old', t0),
      sighting('pre', t, 'toolu_nolanding', t0 + 10, 30, false, false),
      sighting('post', t, 'toolu_nolanding', t0 + 900, 30, false, false),
    ]);
    await startEngine();
    const snap = engine.session(S)!;
    for (const call of snap.recent) {
      assert.equal(call.shape, 'unknown', call.tool_use_id);
      assert.notEqual(call.fired_at, undefined);
    }
    assert.equal(snap.stats.shape_unknown, 2);
    assert.deepEqual(snap.recent.find((c) => c.tool_use_id === 'toolu_nolanding')!.lag_bounds, { min_ms: 920, max_ms: null });
  });

  it('calls pruned from the recent list still count their proven shape, whatever came first', async () => {
    const t = fx.transcriptPath(S);
    const t0 = clock.now() - 60_000;
    const ids = ['toolu_1', 'toolu_2', 'toolu_3', 'toolu_4'];
    await fx.append(t, [userPrompt(S, fx.workspace), ...ids.flatMap((id) => [toolUseRecord(S, fx.workspace, id), toolResultRecord(S, fx.workspace, id)])]);
    await fx.append(fx.channelPath(S), ids.map((id, i) => sighting('pre', t, id, t0 + i * 1000, 20, true, false)));
    await startEngine({ recentCalls: 1 });
    const snap = engine.session(S)!;
    assert.equal(snap.recent.length, 1);
    assert.equal(snap.stats.shape_before_result, 4);
    assert.equal(snap.stats.shape_unknown, 0);
  });

  it('reload mid-session: history labelled from evidence, the held call announced, then measured live when it lands', async () => {
    const t = fx.transcriptPath(S);
    const t0 = clock.now() - 10_000;
    await fx.append(t, [userPrompt(S, fx.workspace), toolUseRecord(S, fx.workspace, 'toolu_done'), toolResultRecord(S, fx.workspace, 'toolu_done')]);
    await fx.append(fx.channelPath(S), [
      sighting('pre', t, 'toolu_done', t0, 20, true, false),
      sighting('pre', t, 'toolu_live', clock.now() - 1500, 20, false, false),
    ]);
    await startEngine();
    assert.deepEqual(
      events.filter((e) => e.event === 'held').map((e) => 'tool_use_id' in e && e.tool_use_id),
      ['toolu_live'],
    );
    assert.equal(engine.session(S)!.recent[0]!.shape, 'before_result');
    clock.advance(500);
    await fx.append(t, [toolUseRecord(S, fx.workspace, 'toolu_live'), toolResultRecord(S, fx.workspace, 'toolu_live')]);
    await engine.tick();
    const live = engine.session(S)!.recent.find((c) => c.tool_use_id === 'toolu_live')!;
    assert.equal(live.shape, 'with_result', 'measured: record and result came in one read');
    assert.equal(live.lag_ms, 2000);
    assert.equal(live.lag_bounds, undefined);
  });
});
