import * as assert from 'node:assert/strict';
import type { Decision } from '../../../../src/core/replay/decision';
import { summaryOf, verdictOf, type CallReport } from '../../../../src/core/replay/report';

function report(live: Decision, complete: Decision): CallReport {
  const run = (decision: Decision) => ({ decision, reason: null, exit_code: 0, ms: 1, stdout: '', stderr: '', transcript_bytes: 1 });
  return { tool_use_id: 't', tool_name: 'Bash', basis: 'model', live: run(live), complete: run(complete), differs: live !== complete };
}

describe('replay: what it says of the whole run', () => {
  it('the sentence a hook author needs', () => {
    const four = [report('deny', 'allow'), report('deny', 'allow'), report('block', 'allow'), report('deny', 'allow'), report('allow', 'allow')];
    assert.equal(verdictOf(four, [true, true, true, true, true]), 'decided differently on 4 of 5 calls: your hook depends on its call being in the transcript, which it is not while it runs.');
    assert.equal(verdictOf(four, [true, true, true, false, true]), 'decided differently on 4 of 5 calls: your hook depends on what the transcript holds when it runs.');
    assert.equal(verdictOf([report('allow', 'allow')], [true]), 'decided the same on the one call, live and complete: your hook does not depend on its call being in the transcript.');
    assert.equal(verdictOf([report('allow', 'allow')], [false]), "decided the same on the one call, live and complete (each call's record was in the transcript it saw live).");
    assert.equal(verdictOf([report('timeout', 'timeout'), report('error', 'allow')], [true, true], true), 'decided differently on 1 of 2 hook runs: your hooks depend on their call being in the transcript, which it is not while it runs; 1 of them timed out; 1 of them ended in an error (an exit other than 0 or 2: Claude Code goes on).');
    assert.equal(verdictOf([], []), 'no calls to replay.');
  });

  it('the summary counts lines, differing ones, errors and timeouts (either run)', () => {
    assert.deepEqual(summaryOf([report('deny', 'allow'), report('error', 'error'), report('allow', 'timeout')], 2), { event: 'summary', calls: 3, differs: 2, errors: 1, timeouts: 1, skipped: 2 });
  });
});
