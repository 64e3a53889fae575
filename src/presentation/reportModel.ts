import type { SessionStats } from '../core/sessionStats';
import type { HookRunSnapshot, RecordLagRow, SessionSnapshot } from '../core/snapshot';
import { boundsText, callShapeText, formatDuration, formatStat, plural } from './format';
import { lagHistogram, type HistogramBin } from './histogram';
import { hookRunDecisionText } from './hookRuns';
import type { LagSample } from './lagSamples';
import { newestCallFirst } from './treeModel';
import { printable } from '../rules/printable';
import { sinceText } from '../core/compat/claudeCode';
import { sessionTitle, toolLabel } from './sessionLabel';

/**
 * What the report webview draws, posted to it as JSON. Texts are formatted
 * here (tested) so media/report.js only lays them out.
 */
export interface ReportRow {
  tool_use_id: string;
  tool: string;
  line: string;
  /** The file the line is in when it is not the session's own transcript (a subagent's), by name; else ''. */
  file: string;
  record_at: string;
  fired_at: string;
  on_disk: string;
  lag: string;
  lag_ms: number | null;
  shape: string;
  wait: string;
  /** The call's settings PreToolUse hooks, as the mod timed them, and their share of its hold: `2.0s (95%)`, `denied · 2.0s`; a dash without the mod. */
  hooks: string;
  held: boolean;
}

/** One wrapped hook's run (`transcript-lag complete`'s hook_run): a row per hook, beside its call's row. */
export interface ReportHookRunRow {
  tool_use_id: string;
  tool: string;
  /** The call's record line, or `held`. */
  line: string;
  hook: string;
  /** When it started (UTC time of day). */
  started_at: string;
  ran: string;
  /** Its share of the call's measured hold, when it ran within it (`40%`); '' else. */
  share: string;
  decision: string;
  /** Whether the transcript it was given held its call: `complete`, `without its call`. */
  transcript: string;
  /** It blocked, denied or failed: the row is marked. */
  stopped: boolean;
}

export interface ReportBatch {
  observed_at: number;
  first_line: number;
  last_line: number;
  bytes: number;
}

/** One record type's lags (born → on disk), beside the calls' lags. */
export interface ReportRecordLagRow {
  type: string;
  count: string;
  /** How births were known: "mod" (its session.append), "timestamp" (the record's own), or both with counts. */
  born_by: string;
  p50: string;
  p95: string;
  max: string;
}

export interface ReportData {
  session_id: string;
  title: string;
  transcript_path: string;
  /** When the report was made, `HH:MM:SS UTC`: on the clock the table's times are on. */
  generated_at: string;
  stats: SessionStats;
  /** Each card: its figure, and a `note` in small type where the figure needs words (why it is missing). */
  summary: { label: string; value: string; note?: string }[];
  histogram: HistogramBin[];
  rows: ReportRow[];
  batches: ReportBatch[];
  /** Records read live, by type (the engine's record events); empty before any. */
  record_lags: ReportRecordLagRow[];
  /** Each wrapped hook's run, newest call first, a call's hooks by start; empty without `transcript-lag complete`. */
  hook_runs: ReportHookRunRow[];
}

/** Clock time of day with milliseconds, in UTC so rows compare across machines; a dash when there is none. */
export function timeOfDay(ms: number | null): string {
  return ms === null ? NONE : new Date(ms).toISOString().slice(11, 23);
}

/** A cell with nothing to say: a dash, not a blank a reader may take for a value not drawn. */
export const NONE = '—';

/** Rows shown in the table at most; the export has them all. */
export const REPORT_MAX_ROWS = 2000;

/**
 * A lag cell, as the tree says it: the figure when measured, else the bound the looks of the call's
 * hooks prove (`≤ 600 ms`); "no hook" only when no hook event joined the call; joined but neither is
 * "lag unknown".
 */
function reportLag(s: LagSample): string {
  if (s.lag_ms !== null) return formatDuration(s.lag_ms);
  if (s.lag_min_ms !== null) return boundsText({ min_ms: s.lag_min_ms, max_ms: s.lag_max_ms });
  return s.fired_at === null ? 'no hook' : 'lag unknown';
}

function reportRow(s: LagSample, mainPath: string): ReportRow {
  const wait = s.wait_outcome === null ? NONE : `${s.wait_outcome} (${s.wait_polls ?? 0} polls, ${formatDuration(s.wait_ms ?? 0)})`;
  return {
    tool_use_id: s.tool_use_id,
    tool: toolLabel(s.tool_name ?? undefined),
    line: s.line === null ? 'held' : String(s.line),
    file: s.transcript_path === mainPath ? '' : printable(s.transcript_path).slice(Math.max(s.transcript_path.lastIndexOf('/'), s.transcript_path.lastIndexOf('\\')) + 1),
    record_at: timeOfDay(s.record_at),
    fired_at: timeOfDay(s.fired_at),
    on_disk: timeOfDay(s.observed_at),
    lag: s.line === null ? NONE : reportLag(s),
    lag_ms: s.lag_ms,
    shape: s.line === null ? NONE : callShapeText(s.shape ?? undefined),
    wait,
    hooks: hooksCell(s),
    held: s.line === null,
  };
}

/**
 * Whether the call's hooks ran within its hold, so their time is a share of it: a record may land
 * before its hooks end (released early, a build that does not hold records for them), and then they
 * are no part of the hold.
 */
function hooksWithinHold(s: LagSample): boolean {
  return s.hooks_ms !== null && s.lag_ms !== null && s.lag_ms > 0 && s.hooks_ms <= s.lag_ms;
}

/** A call's hooks cell: their time, their share of its measured lag when they ran within it, and a decision other than allow. */
function hooksCell(s: LagSample): string {
  if (s.hooks_ms === null) return NONE;
  const share = hooksWithinHold(s) ? ` (${Math.round(((s.hooks_ms as number) / (s.lag_ms as number)) * 100)}%)` : '';
  const decided = s.hooks_decision === 'deny' ? 'denied · ' : s.hooks_decision === 'ask' ? 'asked · ' : '';
  return `${decided}${formatDuration(s.hooks_ms)}${share}`;
}

/**
 * The hooks' share of the holds, over the calls the mod timed whose lag was measured and whose hooks
 * ran within the hold (hooksWithinHold): their hooks' time against their holds'.
 */
function hooksShareSummary(samples: readonly LagSample[]): { value: string; note?: string } {
  const timed = samples.filter((s) => s.hooks_ms !== null);
  // The figure alone in the card's large type; why, in its small note (a whole sentence in large bold read as a heading).
  if (timed.length === 0) return { value: 'not timed', note: `the plugin's mod times them, on Claude Code ${sinceText('mods') ?? '(no version measured yet)'}` };
  const measured = timed.filter(hooksWithinHold);
  const hooks = measured.reduce((n, s) => n + (s.hooks_ms as number), 0);
  const held = measured.reduce((n, s) => n + (s.lag_ms as number), 0);
  const denied = timed.filter((s) => s.hooks_decision === 'deny').length;
  const share = held > 0 ? `${formatDuration(hooks)} of ${formatDuration(held)} held (${Math.round((hooks / held) * 100)}%) over ${plural(measured.length, 'call')}` : `${plural(timed.length, 'call')} timed, none within a measured hold`;
  return { value: denied > 0 ? `${share} · ${denied} denied` : share };
}

function recordLagRow(r: RecordLagRow): ReportRecordLagRow {
  const byTimestamp = r.count - r.from_mod;
  const born_by = r.from_mod === 0 ? 'timestamp' : byTimestamp === 0 ? 'mod' : `mod ${r.from_mod} · timestamp ${byTimestamp}`;
  return { type: r.type, count: String(r.count), born_by, p50: formatStat(r.p50_ms), p95: formatStat(r.p95_ms), max: formatStat(r.max_ms) };
}

/** The summary line of record lags: how many, and the worst type's p95 and max. */
/**
 * A hook's share of its call's hold: its run against the call's measured lag, when it ran within the
 * hold (no longer than it, and over by the time the record landed: a record released before its
 * hooks end makes their time no share of it); '' else.
 */
function hookRunShare(s: LagSample, run: HookRunSnapshot): string {
  if (s.lag_ms === null || s.lag_ms <= 0 || run.ms > s.lag_ms) return '';
  if (s.fired_at !== null && run.at > s.fired_at + s.lag_ms) return '';
  return `${Math.round((run.ms / s.lag_ms) * 100)}%`;
}

function hookRunRows(s: LagSample): ReportHookRunRow[] {
  return s.hook_runs.map((run) => ({
    tool_use_id: s.tool_use_id,
    tool: toolLabel(s.tool_name ?? undefined),
    line: s.line === null ? 'held' : String(s.line),
    hook: printable(run.hook),
    started_at: timeOfDay(run.at - run.ms),
    ran: formatDuration(run.ms),
    share: hookRunShare(s, run),
    decision: hookRunDecisionText(run),
    transcript: run.completed ? 'complete' : 'without its call',
    stopped: run.decision === 'block' || run.decision === 'deny' || run.decision === 'error',
  }));
}

/** Each hook's runs over the session: `review.sh 12 runs, 14.2s · lint.py 12 runs, 1.1s`, most time first. */
function hookRunsSummary(samples: readonly LagSample[]): string {
  const byHook = new Map<string, { runs: number; ms: number }>();
  for (const s of samples) {
    for (const r of s.hook_runs) {
      const h = byHook.get(r.hook) ?? { runs: 0, ms: 0 };
      h.runs += 1;
      h.ms += r.ms;
      byHook.set(r.hook, h);
    }
  }
  if (byHook.size === 0) return 'none reported (hooks behind transcript-lag complete report each run)';
  return [...byHook]
    .sort((a, b) => b[1].ms - a[1].ms || a[0].localeCompare(b[0]))
    .map(([hook, h]) => `${printable(hook)} ${plural(h.runs, 'run')}, ${formatDuration(h.ms)}`)
    .join(' · ');
}

function recordLagSummary(rows: readonly RecordLagRow[]): string {
  if (rows.length === 0) return 'none read live yet';
  const count = rows.reduce((n, r) => n + r.count, 0);
  const max = Math.max(...rows.map((r) => r.max_ms ?? 0));
  const p95 = Math.max(...rows.map((r) => r.p95_ms ?? 0));
  return `${count} records · worst p95 ${formatStat(p95)} · max ${formatStat(max)}`;
}

/** `name`: the session's name among all sessions (sessionNames), so the report says which of like-named sessions it is. */
export function buildReport(session: SessionSnapshot, samples: readonly LagSample[], now: number, name = sessionTitle(session)): ReportData {
  const st = session.stats;
  const lags = samples.flatMap((s) => (s.lag_ms === null ? [] : [s.lag_ms]));
  // The tree's order: newest first by when each call began, so a call is where the view has it.
  const ordered = [...samples].sort(newestCallFirst);
  const rows = ordered.slice(0, REPORT_MAX_ROWS).map((s) => reportRow(s, session.transcript_path));
  return {
    session_id: session.session_id,
    title: name,
    transcript_path: session.transcript_path,
    generated_at: `${new Date(now).toISOString().slice(11, 19)} UTC`,
    stats: st,
    summary: [
      { label: 'Waits seen / behind', value: `${st.waits_seen} / ${st.waits_behind}` },
      { label: 'Held now', value: String(session.held.length) },
      { label: 'Calls written', value: String(st.calls_written) },
      { label: 'Lag p50 / p95 / max', value: `${formatStat(st.lag_p50_ms)} / ${formatStat(st.lag_p95_ms)} / ${formatStat(st.lag_max_ms)}` },
      { label: 'Record lags (born → on disk)', value: recordLagSummary(session.record_lags ?? []) },
      { label: "Your hooks' share of the holds", ...hooksShareSummary(samples) },
      { label: 'Each wrapped hook', value: hookRunsSummary(samples) },
      { label: 'Shapes', value: `${st.shape_before_result} before result · ${st.shape_with_result} with result · ${st.shape_unknown} unknown` },
      { label: 'Malformed lines', value: String(st.malformed_lines) },
    ],
    histogram: lagHistogram(lags),
    rows,
    batches: session.batches.map((b) => ({ ...b })),
    record_lags: (session.record_lags ?? []).map(recordLagRow),
    hook_runs: ordered.flatMap(hookRunRows).slice(0, REPORT_MAX_ROWS),
  };
}
