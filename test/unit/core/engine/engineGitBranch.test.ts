import { strict as assert } from 'node:assert';
import { TranscriptLagEngine } from '../../../../src/core/engine';
import { nodeFileAccess } from '../../../../src/platform/nodeFileAccess';
import { sessionNames } from '../../../../src/presentation/sessionLabel';
import { ManualClock } from '../../helpers/manualClock';
import { ClaudeDirFixture, toolUseRecord, userPrompt } from '../../helpers/engineFixture';

const A = 'a1b2c3d4-0000-4000-8000-0000000000b1';
const B = 'a1b2c3d4-0000-4000-8000-0000000000b2';

describe('engine: the git branch of a session', () => {
  let fx: ClaudeDirFixture;
  let engine: TranscriptLagEngine;
  afterEach(async () => {
    await engine?.dispose();
    await fx.remove();
  });

  it("fills git_branch from the records (the latest own one wins, an empty one says nothing), and two same-prompt sessions are named by it", async () => {
    fx = await ClaudeDirFixture.create();
    const clock = new ManualClock(Date.now());
    const a = fx.transcriptPath(A);
    const b = fx.transcriptPath(B);
    // Same prompt, same start, same folder: only the branch tells them apart.
    await fx.append(a, [{ ...userPrompt(A, fx.workspace, 'fix the flaky test'), gitBranch: 'main' }]);
    await fx.append(b, [{ ...userPrompt(B, fx.workspace, 'fix the flaky test'), gitBranch: 'fix/flaky' }]);
    engine = new TranscriptLagEngine({ claudeDir: fx.claudeDir, workspaceFolders: [fx.workspace], scope: 'workspace', files: nodeFileAccess, clock });
    await engine.start();
    await engine.indexed();
    assert.equal(engine.session(A)?.git_branch, 'main');
    assert.equal(engine.session(B)?.git_branch, 'fix/flaky');
    const names = sessionNames([engine.session(A)!, engine.session(B)!], clock.now());
    assert.match(names.get(A)!, /^fix the flaky test · .* · main$/);
    assert.match(names.get(B)!, /^fix the flaky test · .* · fix\/flaky$/);

    // Session A switches branch: its later records name the new one; a record without a branch, or with "", changes nothing.
    await fx.append(a, [{ ...toolUseRecord(A, fx.workspace, 'toolu_g1'), gitBranch: 'feature' }, toolUseRecord(A, fx.workspace, 'toolu_g2'), { ...toolUseRecord(A, fx.workspace, 'toolu_g3'), gitBranch: '' }]);
    await engine.tick();
    assert.equal(engine.session(A)?.git_branch, 'feature');
  });
});
