import { strict as assert } from 'node:assert';
import { jsonLine, readableLine } from '../../../../src/cli/watch';
import { TranscriptLagEngine } from '../../../../src/core/engine';
import type { EngineEvent } from '../../../../src/core/engineEvents';
import { nodeFileAccess } from '../../../../src/platform/nodeFileAccess';
import { ClaudeDirFixture, toolUseRecord, userPrompt } from '../../helpers/engineFixture';

// A line on disk without its newline is half a record: what a hook polling the
// file at that moment sees. The engine reports it once (`partial`), and the
// record's `written` says how long it sat partial.
describe('engine: partial lines', () => {
  let fx: ClaudeDirFixture;
  let now: number;
  let engine: TranscriptLagEngine;
  let events: EngineEvent[];
  const SID = 'sess-partial-1';

  beforeEach(async () => {
    fx = await ClaudeDirFixture.create();
    now = 1_760_000_000_000;
    events = [];
    engine = new TranscriptLagEngine({ claudeDir: fx.claudeDir, workspaceFolders: [fx.workspace], scope: 'workspace', files: nodeFileAccess, clock: { now: () => now } });
    engine.onEvent((e) => events.push(e));
    await engine.start();
  });

  afterEach(async () => {
    await engine.dispose();
    await fx.remove();
  });

  it('reports a partial line once, with its bytes and line number, and its dwell on the written event', async () => {
    const t = fx.transcriptPath(SID);
    await fx.append(t, [userPrompt(SID, fx.workspace)]);
    await engine.tick();
    const record = JSON.stringify(toolUseRecord(SID, fx.workspace, 'toolu_half'));
    const half = record.slice(0, 40);
    await fx.appendRaw(t, half);
    now += 10;
    await engine.tick();
    const partials = () => events.filter((e) => e.event === 'partial');
    assert.equal(partials().length, 1);
    const p = partials()[0];
    assert.ok(p.event === 'partial');
    assert.deepEqual([p.session_id, p.transcript_path, p.line, p.bytes, p.at, p.generation], [SID, t, 2, 40, now, 1]);

    // More of the same line, still no newline: the same partial line, not reported again.
    await fx.appendRaw(t, record.slice(40, 80));
    now += 500;
    await engine.tick();
    assert.equal(partials().length, 1);

    await fx.appendRaw(t, `${record.slice(80)}\n`);
    now += 500;
    await engine.tick();
    const written = events.find((e) => e.event === 'written');
    assert.ok(written?.event === 'written');
    assert.deepEqual([written.line, written.partial_dwell_ms], [2, 1000]);
    assert.match(readableLine(written), /sat partial 1\.0s/);
    assert.equal(JSON.parse(jsonLine(written)).partial_dwell_ms, 1000);
    assert.equal(JSON.parse(jsonLine(p)).bytes, 40);
    assert.match(readableLine(p), /line 2 is partial on disk: 40 bytes/);

    // The next partial line is a new one: reported again.
    await fx.appendRaw(t, '{"type":"user"');
    now += 10;
    await engine.tick();
    assert.deepEqual(partials().map((e) => e.event === 'partial' && [e.line, e.bytes]), [[2, 40], [3, 14]]);
  });

  it('a record that arrives whole has no dwell and no partial event', async () => {
    const t = fx.transcriptPath(SID);
    await fx.append(t, [userPrompt(SID, fx.workspace)]);
    await engine.tick();
    await fx.append(t, [toolUseRecord(SID, fx.workspace, 'toolu_whole')]);
    now += 10;
    await engine.tick();
    const written = events.find((e) => e.event === 'written');
    assert.ok(written?.event === 'written' && !('partial_dwell_ms' in written));
    assert.equal(events.filter((e) => e.event === 'partial').length, 0);
  });
});
