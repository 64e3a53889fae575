/**
 * When a call's record reaches disk, as the field suite measured it (src/core/replay/landings.json,
 * written by `npm run landings` from the field suite's truth scenarios, shown in
 * docs/COMPATIBILITY.md): per Claude Code version, mode (interactive `cli`, print `sdk-cli`) and the
 * call's place in its message, how many calls had their record on disk at their PreToolUse fire, how
 * many had it land while the hooks ran (and after how long: min, p10, p50, p90, max from the fire),
 * and how many had it land only once the hooks had ended ("not while the hooks run": the hold of
 * interactive 2.1.281+). `replay` runs a hook at each of these ends (./liveCut.ts), so a hook whose
 * decision depends on when the record lands is said to depend on it.
 */
import landings from './landings.json';
import { versionParts, type ReplayCall } from './calls';

/**
 * Where a call sits: in the session's first assistant message (`opening`: interactive sessions race its
 * write against their first flush), else in its message: its first tool call with no text before it,
 * its first after text, a later call of the same message; or a subagent's call (in its own file).
 */
export type CallPlace = 'opening' | 'first' | 'first-after-text' | 'later' | 'subagent';
export const CALL_PLACES: readonly CallPlace[] = ['opening', 'first', 'first-after-text', 'later', 'subagent'];

export type SessionMode = 'interactive' | 'print';

/** Landing times from the fire, in ms, of the calls whose record landed while their hooks ran. */
export interface LandingDelays {
  calls: number;
  min_ms: number;
  p10_ms: number;
  p50_ms: number;
  p90_ms: number;
  max_ms: number;
}

/** One measured row: a version, a mode, a place. */
export interface LandingRow {
  version: string;
  mode: SessionMode;
  place: CallPlace;
  /** Calls measured. */
  calls: number;
  /** Of them, their record on disk when their PreToolUse hooks fired. */
  on_disk_at_fire: number;
  /** Of them, their record landed only after every PreToolUse hook had ended. */
  not_while_hooks_run: number;
  /** Of them, their record landed while the hooks ran: when. */
  landed_while_hooks_run: LandingDelays | null;
}

export interface LandingTable {
  v: 1;
  /** How the rows were measured: the scenarios, the hooks, the date. */
  measured: { at: string; how: string };
  /**
   * The latest a hook started after the first hook of the same fire, over the measured calls: under
   * Claude Code a hook starts (and so reads) that much later than its first sibling (a Python hook
   * after a shell one, on a busy machine), so a landing measured at t may come before its read.
   */
  hook_start_skew_ms: number;
  rows: LandingRow[];
}

export const LANDING_TABLE = landings as LandingTable;

/** What replay knows of when a call's record lands: the counts behind it, merged over the rows that apply. */
export interface LandingModel {
  /** The rows it comes from (`2.1.332 interactive later`), or empty when nothing was measured for the session. */
  from: string[];
  onDiskAtFire: number;
  notWhileHooksRun: number;
  landed: LandingDelays | null;
  /**
   * The ways the build and mode were seen to land in any place (merged rows): a way never seen in
   * this place but seen in another is possible here too, as the least likely. Rare landings (a first
   * call's record written while its hooks ran, in 1 of 10–20 sessions) are missed by a few sessions
   * of one place, and a replay that leaves them out would give a decision the real hook never made.
   */
  anyPlace?: LandingModel;
}

/** The mode of a session from its records' `entrypoint`. */
export function modeOf(entrypoint: string | undefined): SessionMode | undefined {
  if (entrypoint === 'cli') return 'interactive';
  if (entrypoint === 'sdk-cli') return 'print';
  return undefined;
}

/** The call's place in its message (./calls.ts gives the message's records before its result, in file order). */
export function placeOf(call: Pick<ReplayCall, 'toolUseId' | 'agentId' | 'record' | 'message' | 'opening'>): CallPlace {
  if (call.agentId !== undefined) return 'subagent';
  if (call.opening) return 'opening';
  // Claude Code writes one record per block; a record that holds several tool_use blocks is read alike.
  if (call.record.toolUses.findIndex((u) => u.id === call.toolUseId) > 0) return 'later';
  let text = call.record.hasText;
  for (const line of call.message) {
    if (line.start >= call.record.start) break;
    if (line.toolUses.length > 0) return 'later';
    if (line.hasText) text = true;
  }
  return text ? 'first-after-text' : 'first';
}

function compareVersions(a: number[], b: number[]): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

function merge(rows: readonly LandingRow[]): LandingModel {
  const model: LandingModel = { from: [], onDiskAtFire: 0, notWhileHooksRun: 0, landed: null };
  for (const r of rows) {
    model.from.push(`${r.version} ${r.mode} ${r.place}`);
    model.onDiskAtFire += r.on_disk_at_fire;
    model.notWhileHooksRun += r.not_while_hooks_run;
    const d = r.landed_while_hooks_run;
    if (d === null || d.calls === 0) continue;
    const m = model.landed;
    // Merged rows keep the widest range; their median is the larger group's (a summary, not a figure of either).
    model.landed =
      m === null
        ? { ...d }
        : {
            calls: m.calls + d.calls,
            min_ms: Math.min(m.min_ms, d.min_ms),
            p10_ms: Math.min(m.p10_ms, d.p10_ms),
            p50_ms: d.calls > m.calls ? d.p50_ms : m.p50_ms,
            p90_ms: Math.max(m.p90_ms, d.p90_ms),
            max_ms: Math.max(m.max_ms, d.max_ms),
          };
  }
  return model;
}

/**
 * The model for a call: the rows of the session's version, mode and the call's place. A version not
 * measured takes the rows of the measured ones around it, merged (between two: either behaviour may
 * be its own); past the newest, the newest's; before the oldest, the oldest's. Where the mode or the
 * place was not measured, every row that could apply is merged: replay then runs the hook at each way
 * the record was seen to land, and says so.
 */
export function landingModelFor(table: LandingTable, version: string | undefined, mode: SessionMode | undefined, place: CallPlace): LandingModel {
  const v = versionParts(version);
  let rows = table.rows.filter((r) => mode === undefined || r.mode === mode);
  if (v !== undefined && rows.length > 0) {
    const measured = [...new Set(rows.map((r) => r.version))].map((s) => ({ s, parts: versionParts(s)! })).sort((a, b) => compareVersions(a.parts, b.parts));
    const below = measured.filter((m) => compareVersions(m.parts, v) <= 0).at(-1);
    const above = measured.find((m) => compareVersions(m.parts, v) >= 0);
    const chosen = new Set<string>();
    if (below !== undefined && compareVersions(below.parts, v) === 0) chosen.add(below.s);
    else {
      if (below !== undefined) chosen.add(below.s);
      if (above !== undefined) chosen.add(above.s);
    }
    rows = rows.filter((r) => chosen.has(r.version));
  }
  const ofPlace = rows.filter((r) => r.place === place && r.calls > 0);
  if (ofPlace.length === 0) return merge(rows);
  return { ...merge(ofPlace), anyPlace: merge(rows) };
}
