import { strict as assert } from 'node:assert';
import type { EngineEvent, HookRanEvent } from '../../../src/core/engineEvents';
import { jsonLine, readableLine } from '../../../src/cli/watch';
import { HookLabels, LagMetrics, MAX_HOOK_LABELS } from '../../../src/platform/lagMetrics';
import { hookRunDecisionText, hookRunLines, hookRunText } from '../../../src/presentation/hookRuns';
import { LagSampleStore } from '../../../src/presentation/lagSamples';
import { buildReport } from '../../../src/presentation/reportModel';
import { treeModel } from '../../../src/presentation/treeModel';
import type { HookRun } from '../../../src/rules/hookRun';
import { heldCall, session, writtenCall } from '../helpers/presentationSnapshots';

// Each wrapped hook's share of a hold (issue 39 §4), in every view that gives it: the tree row's
// tooltip (a line per hook), `watch` (an event per run), the report (a row per hook), /metrics (by hook,
// its labels bounded). Without runs none of them says anything of them.
const NOW = 1_750_000_000_000;
const base = { session_id: 's1', transcript_path: '/t/s1.jsonl' };
const run = (hook: string, at: number, ms: number, over: Partial<HookRun> = {}): HookRun => ({ hook, at, ms, decision: 'allow', exit_code: 0, completed: true, ...over });
const runEvent = (id: string, r: HookRun): HookRanEvent => ({ ...base, event: 'hook_run', tool_use_id: id, tool_name: 'Bash', ...r });
const writtenEvent = (id: string, firedAt: number, lag: number): EngineEvent => ({
  ...base, event: 'written', tool_use_id: id, tool_name: 'Bash', at: firedAt + lag, line: 3, generation: 0, record_at: null, fired_at: firedAt,
  lag_ms: lag, with_result: false, shape: 'before_result', record: {}, batch_first_line: 3, batch_last_line: 3,
});

describe("views: each wrapped hook's run", () => {
  it('in words: label, time, decision as Claude Code read it', () => {
    assert.equal(hookRunText(run('review.py', NOW, 2000, { decision: 'block', exit_code: 2 })), 'review.py 2.0s · blocked (exit 2)');
    assert.equal(hookRunText(run('lint.sh', NOW, 280)), 'lint.sh 280 ms · allowed');
    assert.equal(hookRunText(run('guard', NOW, 40, { decision: 'deny', completed: false })), 'guard 40 ms · denied · transcript without its call');
    assert.equal(hookRunDecisionText({ decision: 'error', exit_code: null, signal: 'SIGTERM' }), 'error (killed by SIGTERM)');
    assert.equal(hookRunDecisionText({ decision: 'error', exit_code: 1 }), 'error (exit 1)');
    assert.equal(hookRunDecisionText({ exit_code: 0 }), 'decision not read (exit 0)');
    assert.deepEqual(hookRunLines({}), []);
  });

  it("the tree: the call's tooltip has a line per hook, held or written; a call without runs has none", () => {
    const runs = [run('review.py', NOW - 100, 2000, { decision: 'block', exit_code: 2 }), run('lint.sh', NOW - 1700, 280)];
    const s = session({
      held: [heldCall('h1', NOW - 2100, { hook_runs: runs })],
      recent: [writtenCall('w1', 30, NOW - 10, { lag_ms: 2100, hook_runs: [run('a\u001b[2Jb.sh', NOW, 5)] }), writtenCall('w2', 20, NOW - 20, { lag_ms: 300 })],
    });
    const rows = Object.fromEntries(treeModel([s], NOW)[0].children.map((c) => [c.tool_use_id, c]));
    assert.match(rows.h1.tooltip, /Its wrapped PreToolUse hooks \(transcript-lag complete\):\n {2}review\.py 2\.0s · blocked \(exit 2\)\n {2}lint\.sh 280 ms · allowed/);
    assert.match(rows.w1.tooltip, / {2}a\[2Jb\.sh 5 ms · allowed/, 'control characters stripped');
    assert.doesNotMatch(rows.w2.tooltip, /wrapped/);
  });

  it('watch: an event per run, JSON with its fields; a readable line', () => {
    const e = runEvent('toolu_01AAAAAAAAAA', run('review.py', NOW, 2000, { decision: 'block', exit_code: 2 }));
    assert.deepEqual(JSON.parse(jsonLine(e)), {
      event: 'hook_run', session_id: 's1', tool_use_id: 'toolu_01AAAAAAAAAA', at: NOW, transcript_path: '/t/s1.jsonl', tool_name: 'Bash',
      hook: 'review.py', ms: 2000, decision: 'block', exit_code: 2, completed: true,
    });
    assert.match(readableLine(e), /hook_run +Bash +01AAAAAA {2}review\.py 2\.0s · blocked \(exit 2\)\n$/);
  });

  it("the report: a row per hook, its share of the call's measured hold when it ran within it; a summary per hook", () => {
    const store = new LagSampleStore();
    const fired = NOW - 5000;
    for (const e of [
      runEvent('a', run('lint.sh', fired + 300, 250)),
      runEvent('a', run('review.py', fired + 2010, 2000, { decision: 'block', exit_code: 2 })),
      writtenEvent('a', fired, 2500),
      // b's record landed at fired + 100, before its hook ended: the hook's time is no share of that hold.
      writtenEvent('b', fired, 100),
      runEvent('b', run('review.py', fired + 900, 800)),
      writtenEvent('c', fired, 400),
    ]) store.add(e);
    const report = buildReport(session(), store.samples('s1'), NOW);
    assert.deepEqual(
      report.hook_runs.map((r) => [r.tool_use_id, r.hook, r.ran, r.share, r.decision, r.transcript, r.stopped]),
      [
        ['a', 'review.py', '2.0s', '80%', 'blocked (exit 2)', 'complete', true],
        ['a', 'lint.sh', '250 ms', '10%', 'allowed', 'complete', false],
        ['b', 'review.py', '800 ms', '', 'allowed', 'complete', false],
      ],
    );
    assert.equal(report.hook_runs[0].started_at, new Date(fired + 10).toISOString().slice(11, 23));
    assert.equal(report.summary.find((s) => s.label === 'Each wrapped hook')?.value, 'review.py 2 runs, 2.8s · lint.sh 1 run, 250 ms');
    const none = buildReport(session(), (() => {
      const s = new LagSampleStore();
      s.add(writtenEvent('c', fired, 400));
      return s.samples('s1');
    })(), NOW);
    assert.deepEqual(none.hook_runs, []);
    assert.match(none.summary.find((s) => s.label === 'Each wrapped hook')?.value ?? '', /^none reported/);
  });

  it("the report takes a call's runs from its snapshot too (calls from before the window opened)", () => {
    const store = new LagSampleStore();
    store.absorb(session({ recent: [writtenCall('w1', 3, NOW - 10, { lag_ms: 1000, fired_at: NOW - 1010, hook_runs: [run('guard', NOW - 600, 400)] })] }));
    assert.deepEqual(buildReport(session(), store.samples('s1'), NOW).hook_runs.map((r) => [r.hook, r.share]), [['guard', '40%']]);
  });

  it('/metrics: transcript_lag_hook_seconds by hook and decision, once a run', async () => {
    const m = new LagMetrics({ sessions: () => [] });
    m.observe(runEvent('a', run('review.py', NOW, 2000, { decision: 'block', exit_code: 2 })));
    m.observe(runEvent('b', run('review.py', NOW, 500, { decision: 'block', exit_code: 2 })));
    m.observe(runEvent('b', run('lint.sh', NOW, 300, { decision: undefined })));
    const text = await m.text();
    const sample = (series: string) => Number(text.split('\n').find((l) => l.startsWith(`${series} `))?.split(' ')[1]);
    assert.equal(sample('transcript_lag_hook_seconds_count{hook="review.py",decision="block"}'), 2);
    assert.equal(sample('transcript_lag_hook_seconds_sum{hook="review.py",decision="block"}'), 2.5);
    assert.equal(sample('transcript_lag_hook_seconds_bucket{le="1",hook="review.py",decision="block"}'), 1);
    assert.equal(sample('transcript_lag_hook_seconds_count{hook="lint.sh",decision="none"}'), 1);
  });

  it(`/metrics: the hook label is bounded, the first ${MAX_HOOK_LABELS} distinct labels then "other"`, async () => {
    const labels = new HookLabels(3);
    assert.deepEqual(['a', 'b', 'a', 'c', 'd', 'b', 'e'].map((h) => labels.of(h)), ['a', 'b', 'a', 'c', 'other', 'b', 'other']);
    assert.equal(new HookLabels(3).of('other'), 'other_', "a hook named other is not folded into the others' series");
    const m = new LagMetrics({ sessions: () => [] });
    for (let i = 0; i < MAX_HOOK_LABELS + 30; i++) m.observe(runEvent(`t${i}`, run(`hook-${i}.sh`, NOW, 10)));
    const text = await m.text();
    const hooks = new Set([...text.matchAll(/^transcript_lag_hook_seconds_count\{hook="([^"]*)"/gm)].map((x) => x[1]));
    assert.equal(hooks.size, MAX_HOOK_LABELS + 1);
    assert.ok(hooks.has('other') && hooks.has('hook-0.sh') && !hooks.has(`hook-${MAX_HOOK_LABELS}.sh`));
    assert.equal(Number(text.match(/^transcript_lag_hook_seconds_count\{hook="other",decision="allow"\} (\d+)/m)?.[1]), 30);
  });
});
