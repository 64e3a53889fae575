import * as assert from 'node:assert/strict';
import type { Decision } from '../../../../src/core/replay/decision';
import { summaryOf, verdictOf, verdictOfRuns, type CallReport } from '../../../../src/core/replay/replayReport';

function report(live: Decision, complete: Decision, others: Array<[number | null, Decision]> = []): CallReport {
  const run = (decision: Decision) => ({ decision, reason: null, exit_code: 0, ms: 1, stdout: '', stderr: '', transcript_bytes: 1 });
  const likely = { record_at_ms: null, ...run(live) };
  const timings = [...others.map(([at, d]) => ({ record_at_ms: at, ...run(d) })), likely];
  return { tool_use_id: 't', tool_name: 'Bash', basis: 'model', live: likely, live_timings: timings, complete: run(complete), ...verdictOfRuns(timings, run(complete)) };
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
    // A hook whose live runs disagree: when it reads decides, and the sentence says when the record lands.
    const timed = [report('block', 'allow', [[0, 'allow'], [220, 'block']]), report('allow', 'allow')];
    assert.deepEqual([timed[0]!.differs, timed[0]!.timing_dependent, timed[1]!.timing_dependent], [true, true, false]);
    assert.equal(
      verdictOf(timed, [true, true]),
      'decided differently on 1 of 2 calls: your hook depends on its call being in the transcript, which it is not while it runs; on 1 of them it depends on timing: it decides otherwise when it reads before its call lands (here 220 ms after it started, or not while it runs).',
    );
  });

  it('differs when any live run differs from the complete one, even where the likely one agrees', () => {
    const r = report('allow', 'allow', [[400, 'block']]);
    assert.deepEqual([r.differs, r.timing_dependent], [true, true]);
  });

  it('the summary counts lines, differing ones, errors and timeouts (either run)', () => {
    assert.deepEqual(summaryOf([report('deny', 'allow'), report('error', 'error'), report('allow', 'timeout')], 2), { event: 'summary', calls: 3, differs: 2, timing_dependent: 0, errors: 1, timeouts: 1, skipped: 2 });
  });
});
