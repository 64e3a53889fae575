/**
 * What each Claude Code release was measured to do (src/core/compat/claudeCode.json, written by
 * `npm run compat` from test/field/compat/results.jsonl and shown in docs/COMPATIBILITY.md): whether
 * interactive mode holds a message's records while its PreToolUse hooks run, whether a plugin's mod
 * loads, gets `classic.PreToolUse` and holds the message's text as the transcript will, whether a command
 * hook runs in exec form. The code's version rules about behaviour read this, not a number of their own.
 */
import table from './claudeCode.json';
import { versionParts } from '../replay/calls';

export type Decision = 'holds' | 'mods' | 'classic' | 'held_text' | 'exec' | 'stat_lags';

export interface MeasuredVersion {
  version: string;
  /** The day it was measured (UTC). */
  at: string;
  holds: boolean | null;
  mods: boolean | null;
  classic: boolean | null;
  held_text: boolean | null;
  exec: boolean | null;
  /** A test mod's `$.fs.stat` of the transcript gave fewer bytes than its `$.fs.read` had already read (test/field/measure/fsStat.mjs). */
  stat_lags: boolean | null;
  /** Interactive: a message's first calls held while their hooks ran, of those measured: [held, calls]. */
  first_calls_held: [number, number] | null;
  print_p50_ms: number | null;
}

export interface BehaviourTable {
  v: 1;
  versions: MeasuredVersion[];
  /** Per decision: the version from which it says yes (the split the fewest measured versions disagree with), and the newest before it that said no. */
  rules: Record<Decision, { since: string | null; last_without: string | null }>;
  /** Each rule's split: from the newest measured without to the first with. */
  changes: Array<{ what: Decision; from: string; to: string; now: boolean }>;
  /** Measured versions on the other side of their rule's split (one session each), kept in `versions` as measured. */
  exceptions: Array<{ what: Decision; version: string; value: boolean }>;
}

export const CLAUDE_CODE = table as BehaviourTable;

function compare(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

/**
 * What is known of a decision for a version. `measured`: its own row says so. Else from the measured
 * versions around it, each side the nearest measured version that tells (past the newest or before the
 * oldest, the side the rule's split puts it on): `between` when both are measured and agree, `rule` when
 * one side is the rule and agrees with the other; `unknown` when they disagree (a version between a
 * measured yes and a measured no could be either: 2.1.180 between 2.1.174, which does not hold, and
 * 2.1.186, which does; not the rule's answer, which the rows around it contradict).
 */
export type Known =
  | { value: boolean; how: 'measured' }
  | { value: boolean; how: 'rule' }
  | { value: boolean; how: 'between'; below: string; above: string }
  | { value: undefined; how: 'unknown'; below?: string; above?: string };

/** What the rule says of a version: yes from `since`, no at or before `last_without`, else nothing. */
function ruleSays(v: readonly number[], what: Decision, t: BehaviourTable): boolean | undefined {
  const rule = t.rules[what];
  if (rule.since !== null && compare(v, versionParts(rule.since)!) >= 0) return true;
  if (rule.last_without !== null && compare(v, versionParts(rule.last_without)!) <= 0) return false;
  return undefined;
}

/** Undefined when nothing is known: no version, or a side with neither a measured version that tells nor the rule. */
export function knownOf(version: string | undefined, what: Decision, t: BehaviourTable = CLAUDE_CODE): Known | undefined {
  const v = versionParts(version);
  if (v === undefined) return undefined;
  const row = t.versions.find((r) => compare(versionParts(r.version)!, v) === 0);
  if (row !== undefined && row[what] !== null) return { value: row[what] as boolean, how: 'measured' };
  if (what === 'held_text') {
    // A held message comes from the mod: where the mod is known not to load, none reaches a hook.
    const mods = knownOf(version, 'mods', t);
    if (mods?.value === false) return mods;
  }
  const told = t.versions.filter((r) => r[what] !== null && compare(versionParts(r.version)!, v) !== 0);
  const below = told.filter((r) => compare(versionParts(r.version)!, v) < 0).at(-1);
  const above = told.find((r) => compare(versionParts(r.version)!, v) > 0);
  const lower = below === undefined ? ruleSays(v, what, t) : (below[what] as boolean);
  const upper = above === undefined ? ruleSays(v, what, t) : (above[what] as boolean);
  if (lower === undefined || upper === undefined) return undefined;
  const sides = { ...(below !== undefined ? { below: below.version } : {}), ...(above !== undefined ? { above: above.version } : {}) };
  if (lower !== upper) return { value: undefined, how: 'unknown', ...sides };
  if (below !== undefined && above !== undefined) return { value: lower, how: 'between', below: below.version, above: above.version };
  return { value: lower, how: 'rule' };
}

/** `2.1.286+`, the versions a rule says yes for (for messages); undefined when the newest measured says no. */
export function sinceText(what: Decision, t: BehaviourTable = CLAUDE_CODE): string | undefined {
  const since = t.rules[what].since;
  return since === null ? undefined : `${since}+`;
}

const SAYS: Record<Decision, [string, string]> = {
  holds: ["holds a message's records while its PreToolUse hooks run", "writes a message's records without waiting for its PreToolUse hooks"],
  mods: ["loads the plugin's mod", "does not load the plugin's mod"],
  classic: ['gives the mod classic.PreToolUse', 'gives the mod no classic.PreToolUse'],
  held_text: ["has the mod hand a reviewing hook each call's held message, as the transcript will hold it", "had no held message from the mod reach a reviewing hook, or not as the transcript holds it"],
  exec: ['runs a command hook in exec form', 'does not run a command hook in exec form'],
  stat_lags: ["gives a mod a transcript's $.fs.stat size behind what its $.fs.read already read", "gives a mod a transcript's $.fs.stat size no older than its $.fs.read"],
};
/** The question a decision answers, for a version where it is unknown: "whether it …". */
const ASKS: Record<Decision, string> = {
  holds: "holds a message's records while its PreToolUse hooks run",
  mods: "loads the plugin's mod",
  classic: 'gives the mod classic.PreToolUse',
  held_text: "has the mod hand a reviewing hook each call's held message",
  exec: 'runs a command hook in exec form',
  stat_lags: "gives a mod a transcript's $.fs.stat size behind its $.fs.read",
};

/**
 * The sentence the views and `analyze` show for a session's version: "2.1.283 holds a message's records
 * while its PreToolUse hooks run (measured: 2 of 3 first calls of a message held)"; for a version with no
 * row, what the versions measured around it say and from what ("2.1.301 … (as 2.1.300 and 2.1.302 measured;
 * this version not measured)", "(as 2.1.281+; …)"), or that it is unknown for this version where they
 * disagree; undefined when nothing is known.
 */
export function versionSentence(version: string | undefined, what: Decision, t: BehaviourTable = CLAUDE_CODE): string | undefined {
  const k = knownOf(version, what, t);
  if (k === undefined || version === undefined) return undefined;
  const v = versionParts(version)!.join('.');
  if (k.how === 'unknown') {
    // What each measured version around it did (the other side, when there is none, is the rule's).
    const did = (r: string | undefined) => (r === undefined ? undefined : `${r} ${t.versions.find((x) => x.version === r)?.[what] ? 'did' : 'did not'}`);
    const sides = [did(k.below), did(k.above)];
    const around = sides.filter((x) => x !== undefined).join(', ');
    return `${v}: unknown for this version whether it ${ASKS[what]} (not measured${around ? `; ${around}` : ''})`;
  }
  const says = SAYS[what][k.value ? 0 : 1];
  if (k.how === 'measured') {
    // What the measure rests on, where it is a count (one session of each version, docs/COMPATIBILITY.md).
    const row = t.versions.find((r) => r.version === v);
    const counted = what === 'holds' && row?.first_calls_held ? `: ${row.first_calls_held[0]} of ${row.first_calls_held[1]} first calls of a message held` : '';
    return `${v} ${says} (measured${counted})`;
  }
  if (k.how === 'between') return `${v} ${says} (as ${k.below} and ${k.above} measured; this version not measured)`;
  const rule = t.rules[what];
  return `${v} ${says} (as ${k.value ? `${rule.since}+` : `${rule.last_without} and before`}; this version not measured)`;
}

/**
 * What the views and `analyze` say of a session's version: whether it holds a message's records while its
 * PreToolUse hooks run (in interactive mode: print mode was not seen to) and whether the plugin's mod loads,
 * the two that decide what a hook reading the transcript sees and what can tell it the message.
 */
export function claudeCodeSentences(version: string | undefined | null, t: BehaviourTable = CLAUDE_CODE): string[] {
  const out: string[] = [];
  for (const what of ['holds', 'mods'] as const) {
    const s = versionSentence(version ?? undefined, what, t);
    if (s !== undefined) out.push(s);
  }
  return out;
}

/**
 * The first Claude Code measured to run a command hook in exec form, `{"command": <exe>, "args": [...]}`,
 * spawning the program with no shell (`print-compat-exec`: `install-hook --form exec`, the hook reported
 * each call). An older Claude Code has no `args` (the binaries' schema text "Argument list for exec form"
 * is absent from 2.1.138 and before, present from 2.1.139), so `install-hook` writes the exec form only
 * for a version the table says runs it. Undefined when no measured version does.
 */
export const EXEC_FORM_SINCE: readonly [number, number, number] | undefined =
  CLAUDE_CODE.rules.exec.since === null ? undefined : (versionParts(CLAUDE_CODE.rules.exec.since) as [number, number, number]);

/** Whether a `claude --version` answer (`2.1.332 (Claude Code)`) names a version the table says runs the exec form. */
export function supportsExecForm(versionText: string | undefined): boolean {
  const m = /^\s*(\d+\.\d+\.\d+)/.exec(versionText ?? '');
  return m !== null && knownOf(m[1], 'exec')?.value === true;
}
