import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { TranscriptLagEngine } from '../../../../src/core/engine';
import type { EngineEvent } from '../../../../src/core/engineEvents';
import { subagentTranscriptPath } from '../../../../src/core/discovery';
import { nodeFileAccess } from '../../../../src/platform/nodeFileAccess';
import { revealTargetFor, statusClickTarget } from '../../../../src/presentation/callChoice';
import { callDecoration } from '../../../../src/presentation/decoration';
import { LagSampleStore } from '../../../../src/presentation/lagSamples';
import { buildReport } from '../../../../src/presentation/reportModel';
import { treeModel } from '../../../../src/presentation/treeModel';
import { ClaudeDirFixture, preLine, toolResultRecord, toolUseRecord, userPrompt } from '../../helpers/engineFixture';

// A subagent's calls live in its own transcript, `<session>/subagents/agent-<id>.jsonl`,
// while its hook payloads name the main transcript. Everything a view opens,
// annotates or exports for such a call must point at the subagent's file.
describe('subagent calls: their own transcript', () => {
  let fx: ClaudeDirFixture;
  let now: number;
  let engine: TranscriptLagEngine;
  let events: EngineEvent[];
  const samples = new LagSampleStore();
  const SID = 'sess-subagent-1';

  beforeEach(async () => {
    fx = await ClaudeDirFixture.create();
    now = 1_760_000_000_000;
    events = [];
    samples.clear();
    engine = new TranscriptLagEngine({ claudeDir: fx.claudeDir, workspaceFolders: [fx.workspace], scope: 'workspace', files: nodeFileAccess, clock: { now: () => now } });
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

  it('the subagent path is <session>/subagents/agent-<id>.jsonl beside the main transcript', () => {
    assert.equal(subagentTranscriptPath('/c/projects/-w/s1.jsonl', 'a7'), path.join('/c/projects/-w/s1/subagents/agent-a7.jsonl'));
  });

  it('a held subagent call is opened at the last line of its own file, then at its record line there; its sample names that file', async () => {
    const main = fx.transcriptPath(SID);
    const agent = path.join(path.dirname(main), SID, 'subagents', 'agent-ab12.jsonl');
    // The main transcript is longer than the subagent's: a held line taken from the main file would be 4, not 2.
    await fx.append(main, [userPrompt(SID, fx.workspace), userPrompt(SID, fx.workspace), userPrompt(SID, fx.workspace), toolUseRecord(SID, fx.workspace, 'toolu_agent')]);
    await fx.append(agent, [userPrompt(SID, fx.workspace, 'sub task'), userPrompt(SID, fx.workspace, 'more')]);
    await engine.tick();

    await fx.append(fx.channelPath(SID), [{ ...preLine(SID, main, 'toolu_sub1', now), agent_id: 'ab12' }]);
    now += 3000;
    await engine.tick();
    const s = engine.session(SID)!;
    assert.equal(s.transcript_path, main);
    const held = s.held[0];
    assert.deepEqual([held.tool_use_id, held.transcript_path, held.held_line], ['toolu_sub1', agent, 2]);
    const heldEvent = events.find((e) => e.event === 'held');
    assert.equal(heldEvent?.transcript_path, agent);
    const click = statusClickTarget(engine.sessions());
    assert.deepEqual([click?.transcript_path, click?.line, click?.held, click?.not_found], [agent, 2, true, undefined]);
    assert.equal(callDecoration(s, 'toolu_sub1', now)?.line, 2);
    assert.match(treeModel(engine.sessions(), now)[0].children.find((n) => n.kind === 'held')!.tooltip, /after line 2 of agent-ab12\.jsonl/);

    await fx.append(agent, [toolUseRecord(SID, fx.workspace, 'toolu_sub1', { isSidechain: true, agentId: 'ab12' }), toolResultRecord(SID, fx.workspace, 'toolu_sub1')]);
    now += 100;
    await engine.tick();
    const after = engine.session(SID)!;
    const written = after.recent.find((c) => c.tool_use_id === 'toolu_sub1')!;
    assert.deepEqual([written.transcript_path, written.line], [agent, 3]);
    const target = revealTargetFor(after, written);
    assert.deepEqual([target.transcript_path, target.line, target.held], [agent, 3, false]);
    assert.deepEqual([callDecoration(after, 'toolu_sub1', now)?.line, callDecoration(after, 'toolu_sub1', now)?.held], [3, false]);

    const row = samples.samples(SID).find((r) => r.tool_use_id === 'toolu_sub1')!;
    assert.deepEqual([row.transcript_path, row.line, row.agent_id], [agent, 3, 'ab12']);
    // The report names the file of a subagent's line (its link opens that file), and no file for the main transcript's.
    const rows = buildReport(after, samples.samples(SID), now).rows;
    assert.deepEqual(rows.map((r) => [r.tool_use_id, r.line, r.file]).sort(), [['toolu_agent', '4', ''], ['toolu_sub1', '3', 'agent-ab12.jsonl']].sort());
    // A store that learns the call from the snapshot alone (calls from before activation) names the same file.
    const fresh = new LagSampleStore();
    fresh.absorb(after);
    assert.equal(fresh.samples(SID).find((r) => r.tool_use_id === 'toolu_sub1')?.transcript_path, agent);
  });

  it('a held subagent call whose transcript was never seen says so instead of opening the main transcript', async () => {
    const main = fx.transcriptPath(SID);
    await fx.append(main, [userPrompt(SID, fx.workspace), userPrompt(SID, fx.workspace)]);
    await engine.tick();
    await fx.append(fx.channelPath(SID), [{ ...preLine(SID, main, 'toolu_lost', now), agent_id: 'gone9' }]);
    now += 500;
    await engine.tick();
    const s = engine.session(SID)!;
    const held = s.held[0];
    const expected = path.join(path.dirname(main), SID, 'subagents', 'agent-gone9.jsonl');
    assert.deepEqual([held.transcript_path, held.held_line], [expected, undefined]);
    const target = revealTargetFor(s, held);
    assert.deepEqual([target.transcript_path, target.not_found], [expected, true]);
    assert.match(treeModel(engine.sessions(), now)[0].children[0].tooltip, /agent-gone9\.jsonl was not found/);
  });

  it('a held main-thread call keeps the main transcript and its last line', async () => {
    const main = fx.transcriptPath(SID);
    const agent = path.join(path.dirname(main), SID, 'subagents', 'agent-zz.jsonl');
    await fx.append(main, [userPrompt(SID, fx.workspace), userPrompt(SID, fx.workspace), userPrompt(SID, fx.workspace)]);
    await fx.append(agent, [userPrompt(SID, fx.workspace, 'sub')]);
    await engine.tick();
    await fx.append(fx.channelPath(SID), [preLine(SID, main, 'toolu_main', now)]);
    now += 200;
    await engine.tick();
    const s = engine.session(SID)!;
    assert.deepEqual([s.held[0].transcript_path, s.held[0].held_line], [main, 3]);
    const target = revealTargetFor(s, s.held[0]);
    assert.deepEqual([target.transcript_path, target.line], [main, 3]);
  });
});
