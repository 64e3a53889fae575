import { strict as assert } from 'node:assert';
import type { EngineEvent } from '../../../../src/core/engineEvents';
import { type EngineNotice, engineNoticeText } from '../../../../src/core/engineNotices';
import { TranscriptLagEngine } from '../../../../src/core/engine';
import { nodeFileAccess } from '../../../../src/platform/nodeFileAccess';
import { ManualClock } from '../../helpers/manualClock';
import { ClaudeDirFixture, preLine, toolUseRecord, userPrompt } from '../../helpers/engineFixture';

const S = 'a1b2c3d4-0000-4000-8000-0000000000f1';

describe('TranscriptLagEngine notices', () => {
  let fx: ClaudeDirFixture;
  let engine: TranscriptLagEngine | undefined;
  beforeEach(async () => {
    fx = await ClaudeDirFixture.create();
  });
  afterEach(async () => {
    await engine?.dispose();
    engine = undefined;
    await fx.remove();
  });

  it('says once that a session flooded with pre events for ids never written is capped, and its real calls still get through', async () => {
    const clock = new ManualClock(Date.now());
    const t = fx.transcriptPath(S);
    await fx.append(t, [userPrompt(S, fx.workspace)]);
    engine = new TranscriptLagEngine({ claudeDir: fx.claudeDir, workspaceFolders: [fx.workspace], scope: 'workspace', files: nodeFileAccess, clock });
    const notices: EngineNotice[] = [];
    const events: EngineEvent[] = [];
    engine.onNotice((n) => notices.push(n));
    engine.onEvent((e) => events.push(e));
    await engine.start();
    await engine.indexed();

    const fired = clock.now();
    await fx.append(fx.channelPath(S), Array.from({ length: 1200 }, (_, i) => preLine(S, t, `forged_${i}`, fired)));
    clock.advance(10);
    await engine.tick();
    await fx.append(fx.channelPath(S), [...Array.from({ length: 300 }, (_, i) => preLine(S, t, `forged_more_${i}`, fired)), preLine(S, t, 'toolu_real', clock.now())]);
    clock.advance(10);
    await engine.tick();
    await fx.append(t, [toolUseRecord(S, fx.workspace, 'toolu_real')]);
    clock.advance(30);
    await engine.tick();

    assert.deepEqual(notices.map((n) => n.kind), ['held_calls_capped']);
    assert.ok(engineNoticeText(notices[0]).includes(S));
    const written = events.find((e) => e.event === 'written' && e.tool_use_id === 'toolu_real');
    assert.ok(written?.event === 'written');
    // Fired when its pre line was written (after the first tick), observed two ticks later.
    assert.equal(written.lag_ms, 40);
    assert.equal(engine.session(S)?.stats.held_now, 499);
  });

  it('words each notice as one line', () => {
    const limit: EngineNotice = { kind: 'file_limit', at: 0, code: 'EMFILE', path: '/p/x.jsonl', open_handles: 100, recovered: false, max_open: 256 };
    assert.match(engineNoticeText(limit), /^too many open files \(EMFILE\): could not open \/p\/x\.jsonl with 100 open/);
    assert.match(engineNoticeText({ ...limit, recovered: true, max_open: 99 }), /closed idle files, keeping at most 99 open/);
    for (const n of [limit, { ...limit, recovered: true }]) assert.ok(!engineNoticeText(n).includes('\n'));
  });
});
