import { strict as assert } from 'node:assert';
import type { Decision } from '../../../src/core/replay/decision';
import type { CallReport } from '../../../src/core/replay/replayReport';
import { RELOADED_WHILE_RUNNING, restoredReplay } from '../../../src/presentation/replayRestore';
import { ReplayedCalls, replayPageHtml, replayTable, type ReplayProgress } from '../../../src/presentation/replayTable';

const MAIN = '/c/projects/-w/s1.jsonl';

function report(id: string, live: Decision, complete: Decision): CallReport {
  const run = (decision: Decision, ms: number) => ({ decision, reason: decision === 'block' ? 'not in the <transcript>' : null, exit_code: 0, ms, stdout: '', stderr: '', transcript_bytes: 10 });
  const likely = { record_at_ms: null, ...run(live, 12) };
  return { tool_use_id: id, tool_name: 'Bash', basis: 'model', live: likely, live_timings: [likely], complete: run(complete, 1500), timing_dependent: false, differs: live !== complete };
}

function table(over: Partial<ReplayProgress> = {}) {
  const replayed = new ReplayedCalls('s1', MAIN);
  replayed.add({ report: report('toolu_1', 'block', 'allow'), record: { path: MAIN, line: 7 } }, true);
  replayed.add({ report: report('toolu_2', 'allow', 'allow'), record: { path: MAIN, line: 9 } }, true);
  return replayTable({ session_id: 's1', session: 'Fix the build · 14:05', transcript_path: MAIN, hooks: 'sh review.sh', started_at: Date.UTC(2026, 11, 7, 9, 14), state: 'done', progress: '', notes: [], byMatcher: false, replayed, ...over });
}

/** What the tab's state holds after a reload: the table as its page kept it, through JSON. */
const kept = (d: unknown) => JSON.parse(JSON.stringify(d)) as unknown;

describe('presentation: a replay tab restored after a reload', () => {
  it('shows what that replay said: the same table, the same page', () => {
    const d = table();
    const back = restoredReplay(kept(d));
    assert.deepEqual(back, d);
    const opts = { cspSource: 'vscode-resource:', stylesheets: [] };
    assert.equal(replayPageHtml(back!, opts), replayPageHtml(d, opts));
    // It says when that replay started, in the host's time zone.
    const started = new Date(Date.UTC(2026, 11, 7, 9, 14));
    const hhmm = `${String(started.getHours()).padStart(2, '0')}:${String(started.getMinutes()).padStart(2, '0')}`;
    assert.match(replayPageHtml(back!, opts), new RegExp(`<dt>Started</dt><dd id="started">2026-12-0[67] ${hhmm}</dd>`));
    // A tab kept before replays said when: restored, without it.
    const { started_at: _, ...older } = kept(d) as Record<string, unknown>;
    assert.doesNotMatch(replayPageHtml(restoredReplay(older)!, opts), /Started/);
  });

  it('a replay the reload stopped is said cancelled, with why, never running', () => {
    const d = table({ state: 'running', progress: 'call 2 of 5' });
    const back = restoredReplay(kept(d))!;
    assert.equal(back.state, 'cancelled');
    assert.deepEqual(back.notes, [RELOADED_WHILE_RUNNING]);
    assert.deepEqual(back.rows, d.rows);
  });

  it('restores nothing from a state that is not a table: wrong types, unknown decisions, too many rows', () => {
    const d = kept(table()) as Record<string, unknown>;
    const rows = d.rows as Record<string, unknown>[];
    for (const bad of [
      undefined,
      null,
      'a string',
      { ...d, state: 'exploded' },
      { ...d, started_at: 'yesterday' },
      { ...d, started_at: 1e20 },
      { ...d, calls: -1 },
      { ...d, notes: [{}] },
      { ...d, verdict: 'x'.repeat(10_001) },
      { ...d, rows: [{ ...rows[0], line: 0 }] },
      { ...d, rows: [{ ...rows[0], live: { ...(rows[0].live as object), decision: 'maybe' } }] },
      { ...d, rows: [{ ...rows[0], target: { ...(rows[0].target as object), transcript_path: 7 } }] },
      { ...d, rows: Array.from({ length: 2001 }, () => rows[0]) },
    ]) {
      assert.equal(restoredReplay(bad), undefined, JSON.stringify(bad)?.slice(0, 120));
    }
  });

  it('the page runs the panel\'s one script by nonce, and none without it', () => {
    const d = table();
    const withScript = replayPageHtml(d, { cspSource: 'vscode-resource:', stylesheets: [], script: { src: 'vscode-resource:/media/replayState.js', nonce: 'abc123' } });
    assert.match(withScript, /script-src &#39;nonce-abc123&#39;/, 'in the policy (the attribute escaped)');
    assert.match(withScript, /<script nonce="abc123" src="vscode-resource:\/media\/replayState.js"><\/script>/);
    assert.equal((withScript.match(/<script/g) ?? []).length, 1);
    const without = replayPageHtml(d, { cspSource: 'vscode-resource:', stylesheets: [] });
    assert.doesNotMatch(without, /<script|script-src/);
  });
});
