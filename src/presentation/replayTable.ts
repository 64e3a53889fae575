/**
 * What Replay Hook on Session… shows (src/vscode/replayCommand.ts, replayPanel.ts): the per-call table
 * of a replay (src/platform/replaySession.ts), the calls decided differently first, and the page it is
 * drawn in. The page is HTML made here, every text escaped (a tool name, a reason or a command line is
 * someone else's input), under a policy that allows no script but the panel's own by nonce, which
 * draws nothing (it keeps the table for a reload): a click on a call is a command link (`command:` URI,
 * the one command the panel allows), not page code.
 */
import type { Decision } from '../core/replay/decision';
import { hookLabel } from '../core/replay/hookLabel';
import type { LiveBasis } from '../core/replay/liveCut';
import { liveTimingsText, ReplayTally, type CallReport, type RunReport } from '../core/replay/replayReport';
import type { RevealTarget } from './callChoice';
import { COMMANDS } from './commandIds';
import { formatDuration } from './format';
import { printable } from '../rules/printable';

/** One replayed call as the replay hands it over: its report, and where its record lies. */
export interface ReplayRowInput {
  report: CallReport;
  record: { path: string; line: number };
}

/** One run (live or complete) in a cell: the decision and its reason, one printable line. */
export interface ReplayRunCell {
  decision: Decision;
  /** Bounded to REASON_CHARS; '' without a reason. */
  reason: string;
  /** The reason less bounded, for the hover. */
  reason_full: string;
  /** How the hook's process ended: `exit 2`; `killed` when it did not exit by itself (a timeout, a signal) or never started. */
  exit: string;
  /** How long it ran. */
  took: string;
}

export interface ReplayRow {
  tool_use_id: string;
  /** The tool, `(agent)` after a subagent's. */
  tool: string;
  /** 1-based line of the call's record in `target.transcript_path`. */
  line: number;
  /** The file the line is in when it is a subagent's own transcript, by name; else ''. */
  file: string;
  basis: LiveBasis;
  live: ReplayRunCell;
  complete: ReplayRunCell;
  /** Bytes of the transcript each was handed: `live / complete` (the live copy's at the fire). */
  bytes: string;
  differs: boolean;
  /** The live runs did not all decide alike: the hook's decision depends on when its call's record lands. */
  timing_dependent: boolean;
  /**
   * The live runs, each as when the record landed and what the hook decided then, in the CLI's words
   * (`from the start allow · 220 ms block · not while it ran block`).
   */
  timings: string;
  /** With configured hooks: which one ran; else ''. */
  hook: string;
  /** Where a click opens: the call's record line. */
  target: RevealTarget;
}

export type ReplayState = 'running' | 'done' | 'cancelled' | 'failed';

export interface ReplayTableData {
  session_id: string;
  /** The session's name, as the views give it. */
  session: string;
  transcript_path: string;
  /** What was replayed: the command line, one configured hook, or all of them. */
  hooks: string;
  /** When the replay started (ms since epoch): a tab restored after a reload says when it ran. Absent in a tab kept before it was. */
  started_at?: number;
  state: ReplayState;
  /** `call 3 of 12` while running. */
  progress: string;
  /** The sentence for the hook's author (src/core/replay/replayReport.ts verdictOf), once done or cancelled. */
  verdict: string;
  /** What to do about it (ReplayTally.nextStep, the CLI's words); '' when nothing was decided differently. */
  next_step: string;
  /** What the replay said along the way (files not read, hooks left out). */
  notes: string[];
  /** Calls replayed (a call once per hook with configured hooks), and of them those decided differently. */
  calls: number;
  differs: number;
  /** Of them, those whose live decisions depend on when the record lands. */
  timing_dependent: number;
  /** Differing first; at most REPLAY_MAX_ROWS. */
  rows: ReplayRow[];
}

/** A reason is cut here in its cell (the hover holds up to REASON_TITLE_CHARS). */
export const REASON_CHARS = 160;
const REASON_TITLE_CHARS = 2000;
/** Rows drawn at most; the differing ones come first, so they are the ones kept. */
export const REPLAY_MAX_ROWS = 2000;
/** A text from outside, in a heading or a note, is cut here. */
const TEXT_CHARS = 500;

/** One printable line of at most `max` characters. */
export function oneLine(text: string, max: number): string {
  const line = printable(text).replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function runCell(run: RunReport): ReplayRunCell {
  const reason = run.reason ?? '';
  return {
    decision: run.decision,
    reason: oneLine(reason, REASON_CHARS),
    reason_full: oneLine(reason, REASON_TITLE_CHARS),
    exit: run.exit_code === null ? 'killed' : `exit ${run.exit_code}`,
    took: formatDuration(run.ms),
  };
}

function baseName(p: string): string {
  return p.slice(Math.max(p.lastIndexOf('/'), p.lastIndexOf('\\')) + 1);
}

/** One call's row. */
function replayRow(sessionId: string, mainTranscript: string, { report: r, record }: ReplayRowInput): ReplayRow {
  const tool = oneLine(r.tool_name, 100) || 'tool call';
  return {
    tool_use_id: oneLine(r.tool_use_id, 200),
    tool: r.agent_id === undefined ? tool : `${tool} (agent)`,
    line: record.line,
    file: record.path === mainTranscript ? '' : oneLine(baseName(record.path), 200),
    basis: r.basis,
    live: runCell(r.live),
    complete: runCell(r.complete),
    bytes: `${r.live.transcript_bytes} / ${r.complete.transcript_bytes}`,
    differs: r.differs,
    timing_dependent: r.timing_dependent,
    timings: liveTimingsText(r.live_timings),
    hook: r.hook === undefined ? '' : oneLine(hookLabel(r.hook), TEXT_CHARS),
    target: { session_id: sessionId, tool_use_id: r.tool_use_id, transcript_path: record.path, line: Math.max(1, record.line), held: false },
  };
}

/**
 * The calls replayed so far, as the table shows them: their rows, the calls decided differently first,
 * each group in the order replayed, at most REPLAY_MAX_ROWS; the counts and the verdict of all of them
 * (ReplayTally). A call's report is not kept, nor its hook's outputs (up to 256 KiB a run): its row's
 * cells are cut to what they show.
 */
export class ReplayedCalls {
  readonly tally = new ReplayTally();
  private readonly differing: ReplayRow[] = [];
  private readonly same: ReplayRow[] = [];

  constructor(
    private readonly sessionId: string,
    private readonly mainTranscript: string,
  ) {}

  /** One call replayed; `liveLacksRecord`: its live copy lacked the call's record. */
  add(call: ReplayRowInput, liveLacksRecord: boolean): void {
    this.tally.add(call.report, liveLacksRecord);
    const differs = call.report.differs;
    // A row that would not be drawn is not made: the differing ones first, then the others while there is room.
    if (differs ? this.differing.length >= REPLAY_MAX_ROWS : this.differing.length + this.same.length >= REPLAY_MAX_ROWS) return;
    (differs ? this.differing : this.same).push(replayRow(this.sessionId, this.mainTranscript, call));
    if (this.differing.length + this.same.length > REPLAY_MAX_ROWS) this.same.pop();
  }

  /** The rows to draw: differing first, at most REPLAY_MAX_ROWS. */
  rows(): ReplayRow[] {
    return [...this.differing, ...this.same];
  }
}

/** The rows of these calls: calls decided differently first, each group in the order replayed. */
export function replayRows(sessionId: string, mainTranscript: string, calls: readonly ReplayRowInput[]): ReplayRow[] {
  const replayed = new ReplayedCalls(sessionId, mainTranscript);
  for (const call of calls) replayed.add(call, false);
  return replayed.rows();
}

/** Where a replay stands, as the command gathers it. */
export interface ReplayProgress {
  session_id: string;
  session: string;
  transcript_path: string;
  hooks: string;
  started_at: number;
  state: ReplayState;
  progress: string;
  notes: readonly string[];
  /** Configured hooks, each on the calls its matcher takes (the verdict speaks of hook runs). */
  byMatcher: boolean;
  /** The calls replayed so far, as the table shows them. */
  replayed: ReplayedCalls;
}

/** The table's data: rows (differing first), counts, and the verdict once the replay has ended. */
export function replayTable(p: ReplayProgress): ReplayTableData {
  const tally = p.replayed.tally;
  const ended = p.state === 'done' || p.state === 'cancelled';
  const verdict = ended ? tally.verdict(p.byMatcher) : '';
  return {
    session_id: p.session_id,
    session: p.session,
    transcript_path: p.transcript_path,
    hooks: p.hooks,
    started_at: p.started_at,
    state: p.state,
    progress: p.progress,
    verdict: p.state === 'cancelled' ? `Cancelled. So far: ${verdict}` : verdict.charAt(0).toUpperCase() + verdict.slice(1),
    next_step: ended ? tally.nextStep() : '',
    notes: [...p.notes],
    calls: tally.calls,
    differs: tally.differs,
    timing_dependent: tally.timingDependent,
    rows: p.replayed.rows(),
  };
}

/** The text as HTML text or a quoted attribute value: nothing in it is markup. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** The link a click on a call follows: Open Call in Transcript with the call's record line. */
export function openCallUri(target: RevealTarget): string {
  return `command:${COMMANDS.openCall}?${encodeURIComponent(JSON.stringify([target]))}`;
}

const DECISION_CLASS: Record<Decision, string> = { allow: 'allow', ask: 'ask', deny: 'deny', block: 'deny', error: 'error', timeout: 'error' };

function runHtml(run: ReplayRunCell): string {
  const reason = run.reason === '' ? '' : ` <span class="reason"${run.reason_full !== run.reason ? ` title="${escapeHtml(run.reason_full)}"` : ''}>${escapeHtml(run.reason)}</span>`;
  return `<td class="run"><span class="decision ${DECISION_CLASS[run.decision] ?? 'error'}">${escapeHtml(run.decision)}</span> <span class="exit">${escapeHtml(`${run.exit} · ${run.took}`)}</span>${reason}</td>`;
}

/** What a row's basis means, for its hover and the legend. */
const BASIS_TEXT: Record<LiveBasis, string> = {
  channel: "channel: when the hook fired and what was on disk then, from this session's own channel file",
  model: "model: this session's channel file does not say, so when the record lands is the field suite's measure for its Claude Code version, mode and the call's place in its message (docs/COMPATIBILITY.md)",
};

function rowHtml(r: ReplayRow, withHook: boolean): string {
  const href = escapeHtml(openCallUri(r.target));
  const title = escapeHtml(`${r.tool_use_id}: open at line ${r.line}${r.file ? ` of ${r.file}` : ''}`);
  const timing = r.timing_dependent
    ? `<td class="timing depends"><span class="flag">depends on timing</span> <span class="reason">record landed: ${escapeHtml(r.timings)}</span></td>`
    : `<td class="timing"><span class="muted" title="${escapeHtml(`record landed: ${r.timings}`)}">same at each landing time</span></td>`;
  const cells = [
    `<td><a href="${href}" title="${title}">${escapeHtml(r.tool)}</a></td>`,
    `<td class="num"><a href="${href}" title="${title}">${r.line}</a>${r.file ? ` <span class="muted">${escapeHtml(r.file)}</span>` : ''}</td>`,
    `<td class="differs-cell">${r.differs ? '<span class="flag">differs</span>' : '<span class="muted">same</span>'}</td>`,
    runHtml(r.live),
    runHtml(r.complete),
    timing,
    `<td><abbr title="${escapeHtml(BASIS_TEXT[r.basis])}">${escapeHtml(r.basis)}</abbr></td>`,
    `<td class="num">${escapeHtml(r.bytes)}</td>`,
    ...(withHook ? [`<td class="mono">${escapeHtml(r.hook)}</td>`] : []),
  ];
  return `<tr class="${r.differs ? 'differs' : 'same'}" data-call="${escapeHtml(r.tool_use_id)}">${cells.join('')}</tr>`;
}

/** A sentence whose `backquoted` parts are code: each part escaped, the code in <code>. */
function withCode(text: string): string {
  return text
    .split('`')
    .map((part, i) => (i % 2 === 1 ? `<code>${escapeHtml(part)}</code>` : escapeHtml(part)))
    .join('');
}

/** `2026-12-07 09:14` in the extension host's time zone. */
export function localTimeText(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
}

const STATE_TEXT: Record<ReplayState, string> = { running: 'Running', done: 'Done', cancelled: 'Cancelled', failed: 'Could not run' };

/** The page's body: heading, what ran, the verdict and the next step, notes, the table and what its columns mean. */
export function replayBodyHtml(d: ReplayTableData): string {
  const out: string[] = [];
  out.push(`<h1>${escapeHtml(oneLine(`Replay: ${d.session}`, TEXT_CHARS))}</h1>`);
  out.push(`<p class="muted mono">${escapeHtml(oneLine(d.transcript_path, TEXT_CHARS * 4))}</p>`);
  // The command on a line of its own, the page's width: in a summary cell it wrapped into a narrow column.
  out.push(`<pre class="command"><code>${escapeHtml(oneLine(d.hooks, TEXT_CHARS * 4))}</code></pre>`);
  const state = d.state === 'running' && d.progress ? `${STATE_TEXT.running}: ${d.progress}` : STATE_TEXT[d.state];
  out.push(
    '<dl class="summary">',
    `<div><dt>State</dt><dd id="state" data-state="${d.state}">${escapeHtml(state)}</dd></div>`,
    ...(d.started_at !== undefined ? [`<div><dt>Started</dt><dd id="started">${escapeHtml(localTimeText(d.started_at))}</dd></div>`] : []),
    `<div><dt>Decided differently live</dt><dd>${d.differs} of ${d.calls}</dd></div>`,
    `<div><dt>Depends on timing</dt><dd>${d.timing_dependent} of ${d.calls}</dd></div>`,
    '</dl>',
  );
  if (d.verdict) out.push(`<p class="verdict">${escapeHtml(oneLine(d.verdict, TEXT_CHARS * 2))}</p>`);
  if (d.next_step) out.push(`<p class="next-step">${withCode(oneLine(d.next_step, TEXT_CHARS * 2))}</p>`);
  if (d.notes.length > 0) out.push(`<ul class="notes">${d.notes.map((n) => `<li class="muted">${escapeHtml(oneLine(n, TEXT_CHARS * 2))}</li>`).join('')}</ul>`);
  out.push(`<h2>${escapeHtml(d.rows.length < d.calls ? `Calls (${d.rows.length} of ${d.calls} shown, those decided differently first)` : `Calls (${d.calls})`)}</h2>`);
  if (d.rows.length === 0) {
    out.push(`<p class="muted">${d.state === 'running' ? 'No call replayed yet.' : 'No call was replayed.'}</p>`);
    return out.join('\n');
  }
  const withHook = d.rows.some((r) => r.hook !== '');
  const heads = ['Tool', 'Line', 'Differs', 'Live', 'Complete', 'Timing', 'Basis', 'Bytes live / complete', ...(withHook ? ['Hook'] : [])];
  out.push('<table>', `<thead><tr>${heads.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead>`, '<tbody>');
  for (const r of d.rows) out.push(rowHtml(r, withHook));
  out.push('</tbody>', '</table>');
  out.push(
    '<dl class="legend muted">',
    `<dt>Live</dt><dd>the hook handed the transcript as it stood when it fired, its call's record appended while it runs when it landed (its decision at the likeliest landing; beside it how its process ended and how long it ran).</dd>`,
    `<dt>Complete</dt><dd>the hook handed a transcript that holds its call's own record, as if Claude Code wrote first.</dd>`,
    `<dt>Differs</dt><dd>a live run decided otherwise than the complete one: the hook depends on its call being in the transcript.</dd>`,
    `<dt>Timing</dt><dd>the live runs, one at each time the record may land: from the start (on disk when the hook fired), N ms after the hook started, or not while it ran; "depends on timing" when they did not all decide alike.</dd>`,
    `<dt>Basis</dt><dd>where those times come from: ${escapeHtml(BASIS_TEXT.channel)}; ${escapeHtml(BASIS_TEXT.model)}.</dd>`,
    `<dt>Bytes</dt><dd>of the transcript each run was handed (live: at the fire).</dd>`,
    '</dl>',
    '<p class="muted">Click a call to open its record.</p>',
  );
  return out.join('\n');
}

/** The whole page: our stylesheets only, no script (`cspSource`: the webview's, for the stylesheets' URIs). */
export function replayPageHtml(d: ReplayTableData, page: { cspSource: string; stylesheets: readonly string[]; script?: { src: string; nonce: string } }): string {
  // `script`: the one script the panel may run, by nonce (media/replayState.js: it keeps the table in the tab's state for a reload); it draws nothing.
  const scriptSrc = page.script ? [`script-src 'nonce-${page.script.nonce}'`] : [];
  const csp = ["default-src 'none'", `style-src ${page.cspSource}`, `img-src ${page.cspSource}`, ...scriptSrc].join('; ');
  const links = page.stylesheets.map((href) => `<link rel="stylesheet" href="${escapeHtml(href)}">`).join('\n');
  const script = page.script ? `\n<script nonce="${escapeHtml(page.script.nonce)}" src="${escapeHtml(page.script.src)}"></script>` : '';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
${links}
<title>${escapeHtml(oneLine(`Replay: ${d.session}`, TEXT_CHARS))}</title>
</head>
<body>
<main id="replay">
${replayBodyHtml(d)}
</main>${script}
</body>
</html>`;
}
