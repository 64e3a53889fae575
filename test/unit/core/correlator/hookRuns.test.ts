import { strict as assert } from 'node:assert';
import type { HookRunEvent } from '../../../../src/core/channel/schema';
import { Correlator } from '../../../../src/core/correlator';
import type { EngineEvent, HookRanEvent } from '../../../../src/core/engineEvents';
import { MAX_HOOK_RUNS_PER_CALL } from '../../../../src/rules/hookRun';
import { SESSION, TRANSCRIPT, pre, tailRead, toolUse } from '../../helpers/correlatorInputs';

// Each wrapped hook's run (issue 39 §4): the engine keeps a call's runs (bounded, by start, a run read
// twice once), shows them on the call's snapshot, held or written, and says each once as `hook_run`.
const hookRun = (id: string, hook: string, at: number, ms: number, over: Partial<HookRunEvent> = {}): HookRunEvent => ({
  v: 1,
  event: 'hook_run',
  at,
  session_id: SESSION,
  transcript_path: TRANSCRIPT,
  source: 'transcript-lag-complete',
  tool_use_id: id,
  tool_name: 'Bash',
  hook,
  ms,
  decision: 'allow',
  exit_code: 0,
  completed: true,
  ...over,
});
const runsSaid = (events: EngineEvent[]) => events.filter((e): e is HookRanEvent => e.event === 'hook_run');

describe("Correlator: each wrapped hook's run (hook_run)", () => {
  it('held: the runs on its snapshot by start; each said once, with its fields; written: still there', () => {
    const c = new Correlator();
    const said = [
      ...c.ingestHook(pre('A', 1000), 1001),
      ...c.ingestHook(hookRun('A', 'lint.sh', 1300, 280), 1301),
      ...c.ingestHook(hookRun('A', 'review.py', 3010, 2000, { decision: 'block', exit_code: 2, completed: false }), 3011),
      // The same line read again (a channel read twice): one run.
      ...c.ingestHook(hookRun('A', 'lint.sh', 1300, 280), 3012),
    ];
    assert.deepEqual(
      runsSaid(said).map((e) => [e.event, e.session_id, e.tool_use_id, e.tool_name, e.transcript_path, e.at, e.hook, e.ms, e.decision, e.exit_code, e.completed]),
      [
        ['hook_run', SESSION, 'A', 'Bash', TRANSCRIPT, 1300, 'lint.sh', 280, 'allow', 0, true],
        ['hook_run', SESSION, 'A', 'Bash', TRANSCRIPT, 3010, 'review.py', 2000, 'block', 2, false],
      ],
    );
    const held = c.snapshot(SESSION)!.held;
    assert.deepEqual(held[0].hook_runs?.map((r) => r.hook), ['review.py', 'lint.sh'], 'review.py started at 1010, lint.sh at 1020');
    c.ingestTranscript({ sessionId: SESSION, transcriptPath: TRANSCRIPT, isMain: true, read: tailRead(3100, 1, [toolUse('A')]) });
    const written = c.snapshot(SESSION)!.recent[0];
    assert.equal(written.tool_use_id, 'A');
    assert.deepEqual(written.hook_runs, [
      { hook: 'review.py', at: 3010, ms: 2000, decision: 'block', exit_code: 2, completed: false },
      { hook: 'lint.sh', at: 1300, ms: 280, decision: 'allow', exit_code: 0, completed: true },
    ]);
  });

  it('a run that comes before anything else of its call starts the call; one after it was written joins it', () => {
    const c = new Correlator();
    c.ingestHook(hookRun('B', 'guard', 900, 100), 901);
    c.ingestTranscript({ sessionId: SESSION, transcriptPath: TRANSCRIPT, isMain: true, read: tailRead(1000, 1, [toolUse('B')]) });
    const said = c.ingestHook(hookRun('B', 'late.sh', 1200, 50, { exit_code: null, signal: 'SIGTERM', decision: 'error' }), 1201);
    assert.deepEqual(runsSaid(said).map((e) => [e.hook, e.exit_code, e.signal]), [['late.sh', null, 'SIGTERM']]);
    assert.deepEqual(c.snapshot(SESSION)!.recent[0].hook_runs?.map((r) => r.hook), ['guard', 'late.sh']);
  });

  it(`keeps at most ${MAX_HOOK_RUNS_PER_CALL} runs a call; later ones are said, not kept`, () => {
    const c = new Correlator();
    c.ingestHook(pre('C', 1000), 1001);
    let said = 0;
    for (let i = 0; i < MAX_HOOK_RUNS_PER_CALL + 5; i++) said += runsSaid(c.ingestHook(hookRun('C', `h${i}`, 2000 + i, 10), 3000)).length;
    assert.equal(said, MAX_HOOK_RUNS_PER_CALL + 5);
    assert.equal(c.snapshot(SESSION)!.held[0].hook_runs?.length, MAX_HOOK_RUNS_PER_CALL);
  });

  it('a call without wrapped hooks has no runs on its snapshot', () => {
    const c = new Correlator();
    c.ingestHook(pre('D', 1000), 1001);
    assert.equal('hook_runs' in c.snapshot(SESSION)!.held[0], false);
  });
});
