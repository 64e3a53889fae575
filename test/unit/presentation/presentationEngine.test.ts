import { strict as assert } from 'node:assert';
import { TranscriptLagEngine } from '../../../src/core/engine';
import type { EngineEvent } from '../../../src/core/engineEvents';
import { nodeFileAccess } from '../../../src/platform/nodeFileAccess';
import { statusClickTarget } from '../../../src/presentation/callChoice';
import { callDecoration } from '../../../src/presentation/decoration';
import { samplesToCsv } from '../../../src/presentation/exportRows';
import { LagSampleStore } from '../../../src/presentation/lagSamples';
import { buildReport } from '../../../src/presentation/reportModel';
import { ERROR_BACKGROUND, WARNING_BACKGROUND, statusView } from '../../../src/presentation/statusView';
import { heldBadge, treeModel } from '../../../src/presentation/treeModel';
import { ClaudeDirFixture, preLine, toolResultRecord, toolUseRecord, userPrompt, waitLine } from '../helpers/engineFixture';

// The view logic on what the real engine reports: real temp files, an injected
// clock, engine.tick() instead of waiting. What the status bar, the tree, the
// reveal and the report would show at each step of one held call.
describe('presentation on the engine', () => {
  let fx: ClaudeDirFixture;
  let now: number;
  let engine: TranscriptLagEngine;
  let events: EngineEvent[];
  const samples = new LagSampleStore();
  const SID = 'sess-presentation-1';
  const opts = { warnAfterMs: 2000 };

  beforeEach(async () => {
    fx = await ClaudeDirFixture.create();
    now = 1_760_000_000_000;
    events = [];
    samples.clear();
    engine = new TranscriptLagEngine({
      claudeDir: fx.claudeDir,
      workspaceFolders: [fx.workspace],
      scope: 'workspace',
      files: nodeFileAccess,
      clock: { now: () => now },
    });
    engine.onEvent((e) => {
      events.push(e);
      samples.add(e);
    });
    await engine.start();
  });

  afterEach(async () => {
    await engine.dispose();
    await fx.remove();
  });

  it('follows one call from held to written: text, colour, click target, decoration, tree, samples', async () => {
    const transcript = fx.transcriptPath(SID);
    await fx.append(transcript, [userPrompt(SID, fx.workspace, 'fix the parser')]);
    await engine.tick();
    assert.equal(statusView(engine.sessions(), now, opts).text, '$(check) in sync');

    await fx.append(fx.channelPath(SID), [preLine(SID, transcript, 'toolu_p1', now)]);
    now += 300;
    await engine.tick();
    const held = statusView(engine.sessions(), now, opts);
    assert.equal(held.text, '$(watch) 1 held · 300 ms');
    assert.equal(held.background, undefined);
    assert.equal(heldBadge(engine.sessions())?.value, 1);
    const target = statusClickTarget(engine.sessions());
    assert.deepEqual([target?.tool_use_id, target?.line, target?.held], ['toolu_p1', 1, true]);
    assert.equal(callDecoration(engine.session(SID), 'toolu_p1', now)?.line, 1);

    now += 2000;
    await engine.tick();
    const late = statusView(engine.sessions(), now, opts);
    assert.equal(late.text, '$(watch) 1 held · 2.3s');
    assert.equal(late.background, WARNING_BACKGROUND);

    await fx.append(transcript, [toolUseRecord(SID, fx.workspace, 'toolu_p1'), toolResultRecord(SID, fx.workspace, 'toolu_p1')]);
    now += 100;
    await engine.tick();
    const synced = statusView(engine.sessions(), now, opts);
    assert.equal(synced.text, '$(check) 2.4s');
    assert.equal(synced.background, undefined);
    assert.equal(heldBadge(engine.sessions()), undefined);
    const deco = callDecoration(engine.session(SID), 'toolu_p1', now);
    assert.deepEqual([deco?.line, deco?.held], [2, false]);
    const [root] = treeModel(engine.sessions(), now);
    assert.deepEqual(root.children.map((c) => [c.kind, c.label, c.target?.line]), [['written', 'Bash', 2]]);
    assert.match(root.children[0].description, /lag 2\.4s · with result/);

    const [sample] = samples.samples(SID);
    assert.deepEqual([sample.line, sample.lag_ms, sample.shape], [2, 2400, 'with_result']);
    assert.ok(samplesToCsv(samples.samples()).includes('toolu_p1'));
    const report = buildReport(engine.session(SID)!, samples.samples(SID), now);
    assert.equal(report.rows[0].lag, '2.4s');
    assert.equal(report.histogram.reduce((n, b) => n + b.count, 0), 1);
    // The records read live (the prompt, the call's and its result's), beside it: born by their own timestamps here (no mod).
    assert.deepEqual(report.record_lags.map((r) => [r.type, r.count, r.born_by]), [['user', '2', 'timestamp'], ['assistant', '1', 'timestamp']]);
    assert.ok(events.some((e) => e.event === 'written'));
  });

  it('turns red when a probing hook reports its wait ended behind', async () => {
    const transcript = fx.transcriptPath(SID);
    await fx.append(transcript, [userPrompt(SID, fx.workspace)]);
    await fx.append(fx.channelPath(SID), [preLine(SID, transcript, 'toolu_p2', now), waitLine(SID, transcript, 'toolu_p2', now + 5000, 'behind')]);
    now += 5100;
    await engine.tick();
    const v = statusView(engine.sessions(), now, opts);
    assert.equal(v.background, ERROR_BACKGROUND);
    assert.equal(v.reason, 'hook-behind');
    assert.match(v.tooltip, /Waits seen \/ behind: \*\*0\*\* \/ \*\*1\*\*/);
  });
});
