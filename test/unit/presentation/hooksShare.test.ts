import { strict as assert } from 'node:assert';
import type { EngineEvent } from '../../../src/core/engineEvents';
import { readableLine } from '../../../src/cli/watch';
import { LagMetrics } from '../../../src/platform/lagMetrics';
import { hooksText } from '../../../src/presentation/format';
import { LagSampleStore } from '../../../src/presentation/lagSamples';
import { buildReport } from '../../../src/presentation/reportModel';
import { terminalStatusText } from '../../../src/presentation/terminalStatus';
import { treeModel } from '../../../src/presentation/treeModel';
import { heldCall, session, writtenCall } from '../helpers/presentationSnapshots';

// The settings hooks' share of each hold, as the mod timed them (issue 33 §4), in every view that
// says it: the tree row and tooltip, the status line, `watch`, the report, /metrics. Without the
// mod's figures none of them says anything of the hooks.
const NOW = 1_750_000_000_000;
const base = { session_id: 's1', transcript_path: '/t/s1.jsonl' };
const hooksEvent = (id: string, ms: number, decision?: 'allow' | 'ask' | 'deny'): EngineEvent => ({
  ...base,
  event: 'hooks',
  tool_use_id: id,
  tool_name: 'Bash',
  at: NOW,
  hooks_ms: ms,
  ...(decision !== undefined ? { hooks_decision: decision } : {}),
});
const writtenEvent = (id: string, lag: number, extra: Partial<Extract<EngineEvent, { event: 'written' }>> = {}): EngineEvent => ({
  ...base, event: 'written', tool_use_id: id, tool_name: 'Bash', at: NOW, line: 3, generation: 0, record_at: null, fired_at: NOW - lag,
  lag_ms: lag, with_result: false, shape: 'before_result', record: {}, batch_first_line: 3, batch_last_line: 3, ...extra,
});

describe("views: the settings hooks' share of each hold", () => {
  it('in words: their time; denied and asked said first; nothing without the figures', () => {
    assert.equal(hooksText({ ms: 2004 }), 'hooks 2.0s');
    assert.equal(hooksText({ ms: 2004, decision: 'allow' }), 'hooks 2.0s');
    assert.equal(hooksText({ ms: 850, decision: 'deny' }), 'denied by a hook · hooks 850 ms');
    assert.equal(hooksText({ ms: 850, decision: 'ask' }), 'a hook asked · hooks 850 ms');
    assert.equal(hooksText(undefined), undefined);
  });

  it('the tree: "held 2.1s · hooks 2.0s" once they settled, "lag 2.1s · hooks 2.0s" after, "denied by a hook"; the tooltip says the mod timed them', () => {
    const s = session({
      held: [heldCall('h1', NOW - 2100, { hooks: { ms: 2000, decision: 'allow' }, transport: 'mod' }), heldCall('h2', NOW - 500)],
      recent: [
        writtenCall('w1', 30, NOW - 10, { lag_ms: 2100, hooks: { ms: 2000 }, shape: 'before_result' }),
        writtenCall('w2', 20, NOW - 20, { lag_ms: 900, hooks: { ms: 850, decision: 'deny' }, shape: 'before_result' }),
        writtenCall('w3', 10, NOW - 30, { lag_ms: 300, shape: 'before_result' }),
      ],
    });
    const rows = Object.fromEntries(treeModel([s], NOW)[0].children.map((c) => [c.tool_use_id, c]));
    // The user's settings hooks (`hooks`) beside what the mod does for the call, never "hook fired" (ours).
    assert.equal(rows.h1.description, 'held 2.1s · hooks 2.0s · mod watching');
    assert.equal(rows.h2.description, 'held 500 ms · hook fired');
    assert.equal(rows.w1.description, 'lag 2.1s · hooks 2.0s · before result');
    assert.equal(rows.w2.description, 'lag 900 ms · denied by a hook · hooks 850 ms · before result');
    assert.equal(rows.w3.description, 'lag 300 ms · before result');
    assert.match(rows.h1.tooltip, /settings PreToolUse hooks ran 2\.0s \(timed by the mod\) and allowed it/);
    assert.match(rows.w2.tooltip, /and denied it/);
    assert.doesNotMatch(rows.w3.tooltip, /PreToolUse hooks ran/);
  });

  it('the status line: the oldest held call\'s hooks, else the newest written call\'s', () => {
    assert.equal(terminalStatusText({ held: 2, oldestHeldMs: 2100, oldestHeldHooks: { ms: 2000 }, hooked: true }), 'transcript-lag: 2 held · 2.1s · hooks 2.0s');
    assert.equal(terminalStatusText({ held: 0, oldestHeldMs: 0, last: { toolUseId: 'a', bounds: { min_ms: 0, max_ms: 2100 }, hooks: { ms: 850, decision: 'deny' } }, hooked: true }), 'transcript-lag: lag ≤ 2.1s · denied by a hook · hooks 850 ms');
    assert.equal(terminalStatusText({ held: 0, oldestHeldMs: 0, last: { toolUseId: 'a', bounds: { min_ms: 0, max_ms: 2100 } }, hooked: true }), 'transcript-lag: lag ≤ 2.1s');
  });

  it('watch: a hooks line, and the figures on a written line that has them', () => {
    assert.match(readableLine(hooksEvent('toolu_01AAAAAAAAAA', 2004, 'deny')), /hooks +Bash +01AAAAAA {2}settings hooks settled {2}denied by a hook · hooks 2\.0s\n$/);
    assert.match(readableLine(writtenEvent('toolu_01BBBBBBBBBB', 2100, { hooks_ms: 2004 })), /lag 2\.1s {2}before its result {2}hooks 2\.0s\n$/);
    assert.doesNotMatch(readableLine(writtenEvent('toolu_01CCCCCCCCCC', 300)), /hooks/);
  });

  it("the report: each call's hooks and their share of its hold, and the share over the session", () => {
    const store = new LagSampleStore();
    // d: its record landed before its hooks ended (released early): they were no part of its hold, no share said.
    for (const e of [writtenEvent('a', 2000), hooksEvent('a', 1500, 'allow'), writtenEvent('b', 1000, { hooks_ms: 500, hooks_decision: 'deny' }), writtenEvent('c', 400), writtenEvent('d', 300, { hooks_ms: 2000 })]) store.add(e);
    const report = buildReport(session(), store.samples('s1'), NOW);
    const cells = Object.fromEntries(report.rows.map((r) => [r.tool_use_id, r.hooks]));
    assert.deepEqual(cells, { a: '1.5s (75%)', b: 'denied · 500 ms (50%)', c: '—', d: '2.0s' });
    const share = report.summary.find((s) => s.label === "Your hooks' share of the holds")?.value;
    assert.equal(share, '2.0s of 3.0s held (67%) over 2 calls · 1 denied');
    const none = buildReport(session(), (() => {
      const s = new LagSampleStore();
      s.add(writtenEvent('c', 400));
      return s.samples('s1');
    })(), NOW);
    // The figure in the card's large type; why, in its small note.
    const notTimed = none.summary.find((s) => s.label === "Your hooks' share of the holds");
    assert.deepEqual([notTimed?.value, notTimed?.note], ['not timed', "the plugin's mod times them, on Claude Code 2.1.286+"]);
  });

  it('/metrics: transcript_lag_hooks_seconds by tool and decision, once a call; nothing from a written event alone', async () => {
    const m = new LagMetrics({ sessions: () => [] });
    m.observe(hooksEvent('a', 2004, 'allow'));
    // Said again (a report beyond the mod's two changed it): a histogram cannot take the first back, nor counts the call twice.
    m.observe(hooksEvent('a', 1800, 'allow'));
    m.observe(hooksEvent('b', 300));
    m.observe(writtenEvent('c', 900, { hooks_ms: 800 }));
    const text = await m.text();
    const sample = (series: string) => Number(text.split('\n').find((l) => l.startsWith(`${series} `))?.split(' ')[1]);
    assert.equal(sample('transcript_lag_hooks_seconds_count{tool="Bash",decision="allow"}'), 1);
    assert.equal(sample('transcript_lag_hooks_seconds_sum{tool="Bash",decision="allow"}'), 2.004);
    assert.equal(sample('transcript_lag_hooks_seconds_bucket{le="3",tool="Bash",decision="allow"}'), 1);
    assert.equal(sample('transcript_lag_hooks_seconds_bucket{le="2",tool="Bash",decision="allow"}'), 0);
    assert.equal(sample('transcript_lag_hooks_seconds_count{tool="Bash",decision="none"}'), 1);
  });
});
