import { strict as assert } from 'node:assert';
import type { EngineEvent } from '../../../../src/core/engineEvents';
import { TranscriptLagEngine } from '../../../../src/core/engine';
import { nodeFileAccess } from '../../../../src/platform/nodeFileAccess';
import { ManualClock } from '../../helpers/manualClock';
import { ClaudeDirFixture, preLine, toolUseRecord, userPrompt, waitLine } from '../../helpers/engineFixture';

const S = 'a1b2c3d4-0000-4000-8000-0000000000c7';

describe('engine: the Claude Code version that wrote the calls', () => {
  let fx: ClaudeDirFixture;
  let engine: TranscriptLagEngine;
  afterEach(async () => {
    await engine?.dispose();
    await fx.remove();
  });

  it("a written record says its version; a wait says its call's, else the session's latest; the snapshot the latest", async () => {
    fx = await ClaudeDirFixture.create();
    const clock = new ManualClock(Date.now());
    const events: EngineEvent[] = [];
    const t = fx.transcriptPath(S);
    await fx.append(t, [userPrompt(S, fx.workspace)]);
    engine = new TranscriptLagEngine({ claudeDir: fx.claudeDir, workspaceFolders: [fx.workspace], scope: 'workspace', files: nodeFileAccess, clock });
    engine.onEvent((e) => events.push(e));
    await engine.start();
    await engine.indexed();
    // A wait before any record said a version: none claimed.
    await fx.append(fx.channelPath(S), [preLine(S, t, 'toolu_v0', clock.now()), waitLine(S, t, 'toolu_v0', clock.now(), 'behind')]);
    await engine.tick();
    await fx.append(t, [toolUseRecord(S, fx.workspace, 'toolu_v0', { version: '2.1.283' })]);
    await engine.tick();
    // A resumed session under a newer build: its later records say so, and so does a wait whose record is not on disk yet.
    await fx.append(t, [toolUseRecord(S, fx.workspace, 'toolu_v1', { version: '2.1.332' })]);
    await engine.tick();
    await fx.append(fx.channelPath(S), [preLine(S, t, 'toolu_v2', clock.now()), waitLine(S, t, 'toolu_v2', clock.now(), 'behind')]);
    await engine.tick();
    const version = (kind: string, id: string) => (events.find((e) => e.event === kind && 'tool_use_id' in e && e.tool_use_id === id) as { claude_version?: string } | undefined)?.claude_version;
    assert.equal(version('wait', 'toolu_v0'), undefined);
    assert.equal(version('written', 'toolu_v0'), '2.1.283');
    assert.equal(version('written', 'toolu_v1'), '2.1.332');
    assert.equal(version('wait', 'toolu_v2'), '2.1.332');
    assert.equal(engine.session(S)?.claude_version, '2.1.332');
  });
});
