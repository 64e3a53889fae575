import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import type { Decision } from '../../../src/core/replay/decision';
import { liveTimingsText, NEXT_STEP, type CallReport } from '../../../src/core/replay/replayReport';
import { COMMANDS } from '../../../src/presentation/commandIds';
import { hookPickItems, hookPickPlaceholder } from '../../../src/presentation/replayHookPick';
import { escapeHtml, REPLAY_MAX_ROWS, ReplayedCalls, replayPageHtml, replayRows, replayTable, type ReplayProgress, type ReplayRowInput, type ReplayTableData } from '../../../src/presentation/replayTable';

const MAIN = '/c/projects/-w/s1.jsonl';

function report(id: string, live: Decision, complete: Decision, over: Partial<CallReport> = {}, reasons: [string | null, string | null] = [null, null]): CallReport {
  const run = (decision: Decision, reason: string | null, ms: number) => ({ decision, reason, exit_code: 0, ms, stdout: '', stderr: '', transcript_bytes: 10 });
  const likely = { record_at_ms: null, ...run(live, reasons[0], 12) };
  return { tool_use_id: id, tool_name: 'Bash', basis: 'model', live: likely, live_timings: [likely], complete: run(complete, reasons[1], 1500), timing_dependent: false, differs: live !== complete, ...over };
}

type Replayed = ReplayRowInput & { liveLacksRecord: boolean };

function progress(calls: readonly Replayed[], over: Partial<ReplayProgress> = {}): ReplayProgress {
  const replayed = new ReplayedCalls('s1', over.transcript_path ?? MAIN);
  for (const c of calls) replayed.add(c, c.liveLacksRecord);
  return { session_id: 's1', session: 'Fix the build · 14:05', transcript_path: MAIN, hooks: 'sh review.sh', started_at: Date.UTC(2026, 11, 7, 9, 14), state: 'done', progress: '', notes: [], byMatcher: false, replayed, ...over };
}

const call = (r: CallReport, line: number, path = MAIN): Replayed => ({ report: r, record: { path, line }, liveLacksRecord: true });

/** Tags the page may hold: anything else came from a text that was not escaped. */
const TAGS = new Set(['!DOCTYPE', 'html', 'head', 'meta', 'link', 'title', 'body', 'main', 'h1', 'h2', 'p', 'pre', 'code', 'abbr', 'dl', 'div', 'dt', 'dd', 'ul', 'li', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'a', 'span']);

function tagsOf(html: string): string[] {
  return [...html.matchAll(/<\/?([!A-Za-z][A-Za-z0-9]*)/g)].map((m) => m[1]!);
}

const unescape = (s: string) => s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** Each row's link targets, read back from the page as VS Code reads a command URI. */
function linkTargets(html: string): unknown[] {
  const prefix = `command:${COMMANDS.openCall}?`;
  return [...html.matchAll(/href="([^"]*)"/g)]
    .map((m) => unescape(m[1]!))
    .filter((h) => h.startsWith(prefix))
    .map((h) => (JSON.parse(decodeURIComponent(h.slice(prefix.length))) as unknown[])[0]);
}

const page = (d: ReplayTableData) => replayPageHtml(d, { cspSource: 'vscode-resource:', stylesheets: ['vscode-resource:/media/report.css'] });

describe('presentation: the replay table', () => {
  it('puts the calls decided differently first, each group in the order replayed', () => {
    const d = replayTable(
      progress([
        call(report('toolu_1', 'allow', 'allow'), 10),
        call(report('toolu_2', 'deny', 'allow'), 14),
        call(report('toolu_3', 'allow', 'allow'), 20),
        call(report('toolu_4', 'block', 'allow'), 31),
      ]),
    );
    assert.deepEqual(d.rows.map((r) => [r.tool_use_id, r.differs]), [['toolu_2', true], ['toolu_4', true], ['toolu_1', false], ['toolu_3', false]]);
    assert.deepEqual([d.calls, d.differs], [4, 2]);
    assert.equal(d.verdict, 'Decided differently on 2 of 4 calls: your hook depends on its call being in the transcript, which it is not while it runs.');
    // The page lists them in that order too.
    assert.deepEqual([...page(d).matchAll(/data-call="([^"]*)"/g)].map((m) => m[1]), ['toolu_2', 'toolu_4', 'toolu_1', 'toolu_3']);
  });

  it('keeps the rows it draws, not every call: at most REPLAY_MAX_ROWS, a differing call made late still among them; counts and verdict of all', () => {
    const n = REPLAY_MAX_ROWS + 10;
    const calls = Array.from({ length: n }, (_, i) => call(report(`toolu_${i}`, i % 500 === 499 || i >= n - 3 ? 'deny' : 'allow', 'allow'), i + 1));
    const d = replayTable(progress(calls));
    const differing = calls.filter((c) => c.report.differs).map((c) => c.report.tool_use_id);
    assert.equal(d.rows.length, REPLAY_MAX_ROWS);
    assert.deepEqual(d.rows.slice(0, differing.length).map((r) => r.tool_use_id), differing, 'the differing calls first, the last three included');
    assert.deepEqual(d.rows.slice(differing.length).map((r) => r.tool_use_id), calls.filter((c) => !c.report.differs).slice(0, REPLAY_MAX_ROWS - differing.length).map((c) => c.report.tool_use_id));
    assert.deepEqual([d.calls, d.differs], [n, differing.length]);
    assert.equal(d.verdict, `Decided differently on ${differing.length} of ${n} calls: your hook depends on its call being in the transcript, which it is not while it runs.`);
  });

  it('gives each row its columns: tool, line (and a subagent file), basis, both decisions with reasons and times; a click opens the record line', () => {
    const sub = '/c/projects/-w/s1/subagents/agent-a1.jsonl';
    const d = replayTable(
      progress([
        call(report('toolu_m', 'deny', 'allow', {}, ['my call is not in the transcript', null]), 7),
        call(report('toolu_s', 'allow', 'allow', { agent_id: 'a1', tool_name: 'Read', basis: 'channel' }), 3, sub),
      ]),
    );
    const [m, s] = d.rows;
    assert.deepEqual([m!.tool, m!.line, m!.file, m!.basis, m!.live.decision, m!.live.reason, m!.complete.decision, m!.complete.reason, m!.live.took, m!.complete.took], ['Bash', 7, '', 'model', 'deny', 'my call is not in the transcript', 'allow', '', '12 ms', '1.5s']);
    assert.deepEqual([s!.tool, s!.line, s!.file, s!.basis], ['Read (agent)', 3, 'agent-a1.jsonl', 'channel']);
    assert.deepEqual(m!.target, { session_id: 's1', tool_use_id: 'toolu_m', transcript_path: MAIN, line: 7, held: false });
    assert.deepEqual(s!.target, { session_id: 's1', tool_use_id: 'toolu_s', transcript_path: sub, line: 3, held: false });
    // Tool and line of each row link to Open Call in Transcript with that target.
    assert.deepEqual(linkTargets(page(d)), [m!.target, m!.target, s!.target, s!.target]);
  });

  it('escapes every text: tool names, ids, reasons, hook commands, notes, the session and the paths', () => {
    const evil = `<img src=x onerror="alert(1)">'&"</td><script>alert(2)</script>`;
    const d = replayTable(
      progress([call(report(`toolu_${evil}`, 'block', 'allow', { tool_name: evil, hook: { command: evil, source: 'user' } }, [`${evil}\nsecond line\u001b[2J`, evil]), 4, `/p/${evil}.jsonl`)], {
        session: evil,
        transcript_path: `/p/${evil}.jsonl`,
        hooks: evil,
        notes: [evil],
        byMatcher: true,
      }),
    );
    const html = page(d);
    assert.deepEqual([...new Set(tagsOf(html))].filter((t) => !TAGS.has(t)), []);
    assert.ok(!html.includes('<script') && !html.includes('<img') && !html.includes('onerror="'), html);
    assert.ok(html.includes(escapeHtml(evil)), 'the text is shown, as text');
    // Control characters and line breaks from a hook's stderr never reach the page; the reason stays one line.
    assert.ok(!/[\u0000-\u001f]/.test(html.replace(/\n/g, '')), 'no control characters');
    assert.equal(d.rows[0]!.live.reason, `${evil} second line[2J`);
    // The link still carries the call exactly.
    assert.equal((linkTargets(html)[0] as { tool_use_id: string }).tool_use_id, `toolu_${evil}`);
    // No script runs in the page: the policy allows none.
    assert.match(html, /content="default-src &#39;none&#39;; style-src vscode-resource:; img-src vscode-resource:"/);
    assert.ok(!/script-src/.test(html));
  });

  it('any text stays text (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (tool, reason, id, note) => {
        const d = replayTable(progress([call(report(id, 'deny', 'allow', { tool_name: tool }, [reason, reason]), 1)], { notes: [note], hooks: note }));
        const html = page(d);
        assert.deepEqual([...new Set(tagsOf(html))].filter((t) => !TAGS.has(t)), []);
        assert.equal((linkTargets(html)[0] as { tool_use_id: string }).tool_use_id, id);
      }),
    );
  });

  it('cuts a long reason in its cell and keeps more of it for the hover', () => {
    const long = 'x'.repeat(5000);
    const [row] = replayRows('s1', MAIN, [call(report('toolu_l', 'block', 'allow', {}, [long, null]), 2)]);
    assert.equal(row!.live.reason.length, 160);
    assert.ok(row!.live.reason.endsWith('…'));
    assert.equal(row!.live.reason_full.length, 2000);
  });

  it("says what to do next in the CLI's words, explains basis and timing, and gives each row differs, exit codes, bytes and its live runs", () => {
    const lands = (at: number | null, decision: Decision) => ({ decision, reason: null, exit_code: decision === 'block' ? 2 : 0, ms: 5, stdout: '', stderr: '', transcript_bytes: 900, record_at_ms: at });
    const timed = report('toolu_t', 'block', 'allow', {
      live_timings: [lands(0, 'allow'), lands(99, 'allow'), lands(null, 'block')],
      live: lands(null, 'block'),
      complete: { decision: 'allow', reason: null, exit_code: 0, ms: 7, stdout: '', stderr: '', transcript_bytes: 1200 },
      timing_dependent: true,
      basis: 'channel',
    });
    const killed = report('toolu_k', 'timeout', 'timeout');
    killed.live.exit_code = null;
    killed.complete.exit_code = null;
    const d = replayTable(progress([call(timed, 5), call(killed, 9)]));
    const [t, k] = d.rows;
    // The next step names the message tool and the complete wrapper, once the replay has ended; the CLI prints the same sentence.
    assert.equal(d.next_step, NEXT_STEP);
    assert.match(d.next_step, /`transcript-lag message`.*`complete` wrapper.*transcript-lag-complete\.js -- <your hook>.*Wrap PreToolUse Hooks/);
    assert.equal(replayTable(progress([call(timed, 5)], { state: 'running' })).next_step, '');
    assert.equal(replayTable(progress([call(report('toolu_s', 'allow', 'allow'), 2)])).next_step, '', 'nothing to do when every call was decided alike');
    assert.deepEqual([d.differs, d.timing_dependent, d.calls], [1, 1, 2]);
    // A block with no stderr still says how the hook ended; a run cut at its timeout says it was killed.
    assert.deepEqual([t!.live.decision, t!.live.reason, t!.live.exit, t!.complete.exit], ['block', '', 'exit 2', 'exit 0']);
    assert.deepEqual([k!.live.exit, k!.complete.exit], ['killed', 'killed']);
    // Beside each decision: how the run ended and how long it took.
    assert.match(page(d), new RegExp('data-call="toolu_t">.*<span class="decision deny">block</span> <span class="exit">exit 2 · 5 ms</span>.*<span class="decision allow">allow</span> <span class="exit">exit 0 · 7 ms</span>'));
    assert.equal(t!.bytes, '900 / 1200');
    // The landing-time words are the CLI's (one function says them for both).
    assert.equal(t!.timings, liveTimingsText(timed.live_timings));
    assert.equal(t!.timings, 'from the start allow · 99 ms allow · not while it ran block');
    assert.equal(t!.timing_dependent, true);
    const html = page(d);
    // The command on a line of its own; the next step with its code as code.
    assert.match(html, /<pre class="command"><code>sh review\.sh<\/code><\/pre>/);
    assert.match(html, /<p class="next-step">Next: .*<code>transcript-lag message<\/code>.*<code>complete<\/code>.*<code>node ~\/\.claude\/transcript-lag\/bin\/transcript-lag-complete\.js -- &lt;your hook&gt;<\/code>/);
    assert.deepEqual([...html.matchAll(/<th>([^<]*)<\/th>/g)].map((m) => m[1]), ['Tool', 'Line', 'Differs', 'Live', 'Complete', 'Timing', 'Basis', 'Bytes live / complete']);
    const rowOf = (id: string) => new RegExp(`<tr[^>]*data-call="${id}">(.*?)</tr>`).exec(html)![1]!;
    assert.match(rowOf('toolu_t'), /<span class="flag">differs<\/span>/);
    assert.match(rowOf('toolu_t'), /<span class="flag">depends on timing<\/span> <span class="reason">record landed: from the start allow · 99 ms allow · not while it ran block<\/span>/);
    assert.match(rowOf('toolu_t'), /<abbr title="channel: when the hook fired and what was on disk then[^"]*">channel<\/abbr>/);
    assert.match(rowOf('toolu_k'), /<span class="muted">same<\/span>/);
    assert.match(rowOf('toolu_k'), /same at each landing time/);
    // What basis and timing mean, under the table.
    assert.match(html, /<dt>Basis<\/dt><dd>where those times come from: channel: .*; model: .*field suite&#39;s measure/);
    assert.match(html, /<dt>Timing<\/dt><dd>the live runs, one at each time the record may land/);
  });

  it('says where the replay stands: running with its progress, cancelled with what it found so far, failed', () => {
    const running = replayTable(progress([], { state: 'running', progress: 'call 1 of 2' }));
    assert.equal(running.verdict, '');
    assert.match(page(running), /Running: call 1 of 2/);
    assert.match(page(running), /No call replayed yet/);
    const cancelled = replayTable(progress([call(report('toolu_1', 'deny', 'allow'), 3)], { state: 'cancelled' }));
    assert.equal(cancelled.verdict, 'Cancelled. So far: decided differently on 1 of 1 call: your hook depends on its call being in the transcript, which it is not while it runs.');
    const failed = replayTable(progress([], { state: 'failed', notes: ['no such file'] }));
    assert.equal(failed.verdict, '');
    assert.match(page(failed), /Could not run/);
  });
});

describe('presentation: the replay hook picker', () => {
  it('offers to type a command, each configured hook with where it is set, and all of them', () => {
    const items = hookPickItems({
      hooks: [
        { command: 'sh review.sh', matcher: 'Bash', source: 'project', timeoutSec: 5 },
        { command: '/usr/bin/node', args: ['/h/my hook.js'], source: 'user' },
      ],
      disabled: false,
    });
    assert.deepEqual(
      items.map((i) => [i.kind, i.label, 'description' in i ? i.description : undefined]),
      [
        ['type', 'Type a command…', undefined],
        ['one', 'sh review.sh', 'project settings · matcher Bash · timeout 5s'],
        ['one', '/usr/bin/node "/h/my hook.js"', 'user settings · every tool'],
        ['all', 'All configured hooks', '2 PreToolUse command hooks, each on the calls its matcher takes'],
      ],
    );
    assert.deepEqual(hookPickItems({ hooks: [], disabled: false }).map((i) => i.kind), ['type']);
  });

  it('makes a command typed in its box an item that runs it: first, unless the text finds a configured hook', () => {
    const none = { hooks: [], disabled: false };
    assert.match(hookPickPlaceholder(0), /type the command your hook runs, then Enter/);
    const typed = hookPickItems(none, 'sh ~/.claude/hooks/review.sh');
    assert.deepEqual(typed.map((i) => [i.kind, i.label]), [['typed', 'Run: sh ~/.claude/hooks/review.sh'], ['type', 'Type a command…']]);
    assert.equal(typed[0]!.kind === 'typed' && typed[0]!.command, 'sh ~/.claude/hooks/review.sh');
    assert.deepEqual(hookPickItems(none, '   ').map((i) => i.kind), ['type'], 'blanks run nothing');
    // Typed to find a configured hook: that hook stays ahead of running the text itself.
    const configured = { hooks: [{ command: 'sh review.sh', matcher: 'Bash', source: 'project' as const }], disabled: false };
    assert.deepEqual(hookPickItems(configured, 'REVIEW').map((i) => i.kind), ['type', 'one', 'typed', 'all']);
    assert.deepEqual(hookPickItems(configured, 'node other.js').map((i) => i.kind), ['typed', 'type', 'one', 'all']);
  });
});
