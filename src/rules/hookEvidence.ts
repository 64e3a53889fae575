/**
 * A call's write shape and how long it was held, proven from what its own hook
 * saw on disk (the `pre` / `post` events' on-disk fields, written by
 * src/rules/onDiskCheck.ts). One rule for the live engine, a window opened
 * after the fact and `analyze --channel`, so they never disagree.
 *
 * The rule rests on the order Claude Code runs things in, checked against the
 * real CLI by the field suite (test/field): PreToolUse runs before the tool,
 * and the tool's result is appended to the transcript only after PostToolUse
 * has run. So:
 * - record on disk at PreToolUse, or at PostToolUse with no result yet: the
 *   record reached disk before its result (`before_result`);
 * - neither on disk at PostToolUse: only what happens after the hook exits
 *   decides, so the hook leaves a watcher behind (src/hook/landingWatch.ts)
 *   whose `landed` event says whether the look that found the record's line
 *   also found its result's: `with_result` if so, else `before_result`.
 * - the mod (src/mod/) looks from the call's fire on, so its `landed` event
 *   (`watched_from: "pre"`) says the shape by itself.
 * - a `wait` is a PreToolUse hook's (our probe's, or a reviewing hook's that reports its own, as
 *   docs/CHANNEL.md asks): `seen` found the record before the tool ran, so before its result, and
 *   bounds the hold from above by the find; `behind` proves only that its last look, a whole read
 *   through the OS, missed the record (a lower bound), never a shape.
 * Anything else (no evidence, no `landed` event after a miss at PostToolUse,
 * a result already on disk at PostToolUse without an earlier sighting) proves
 * nothing: the shape stays unknown.
 */

import type { HooksDecision } from './channelConstants';

/** What one hook event says was on disk for its call. */
export interface HookSighting {
  /** When the hook fired (`at`). */
  at: number;
  checked_at?: number;
  record_on_disk?: boolean;
  result_on_disk?: boolean;
}

/** What the watcher a post hook left behind, or the mod, saw when the record landed. */
export interface LandingSighting {
  /** When the look that found the record ran. */
  at: number;
  with_result: boolean;
  /**
   * `pre`: the mod looked from the call's fire on (the hook's watcher starts at PostToolUse), so
   * its landing proves the shape alone. `missed_at` (its last look without the record) is what it
   * saw, not a bound: its looks go through Claude Code's `$.fs` (verdictFromHook).
   */
  watched_from?: 'pre' | 'post';
  missed_at?: number;
  /** The call's fire time as the watcher knew it (the mod's `pre`): its hold is measured from there. */
  fired_at?: number;
}

export interface HeldBounds {
  /** Held at least this long (hook fired → record on disk). */
  min_ms: number;
  /** Held at most this long; null when nothing bounds it from above. */
  max_ms: number | null;
}

/**
 * A look of the mod's that found a record and its result together proves one write only when it came this soon
 * after its last look that found neither (the field suite's ground truth takes writes this close as one): after a
 * longer gap (Claude Code's event loop busy on a loaded machine: 359 ms seen) both were there, and may have landed apart.
 */
export const ONE_WRITE_WINDOW_MS = 20;

/** A landing's shape: before its result when found without it; with it only within ONE_WRITE_WINDOW_MS of the last miss (`since`); else not proven. */
function landingShape(landed: Pick<LandingSighting, 'at' | 'with_result'>, since: number | undefined): EvidenceVerdict['shape'] {
  if (!landed.with_result) return 'before_result';
  return since !== undefined && landed.at - since <= ONE_WRITE_WINDOW_MS ? 'with_result' : undefined;
}

export interface EvidenceVerdict {
  shape?: 'before_result' | 'with_result';
  /** Present when a fire time anchors them (the reader's, the mod landing's, a pre hook's) and a look bounds them. */
  held?: HeldBounds;
}

/** What one channel event carries about its look on disk (a `pre` or `post` event's fields, as schema.ts names them). */
export interface SightingFields {
  at: number;
  checked_at?: number;
  record_on_disk?: boolean;
  result_on_disk?: boolean;
}

/** What a `wait` event says of its looks, as schema.ts names its fields. */
export interface WaitFields {
  /** When the wait ended (it is reported after its last look). */
  at: number;
  outcome: 'seen' | 'behind' | 'error';
  /**
   * Its last look: when the one that found the record ended (`seen`), when the last that read the
   * whole file without it began (`behind`). Absent from older hooks and other writers.
   */
  checked_at?: number;
  /** A subagent's call: its record lands in the subagent's own file, not the `transcript_path` a wait looks in. */
  agent_id?: string;
}

/** The hooks' fields of a `hooks` or `post` event, as schema.ts names them. */
export interface HooksFields {
  hooks_ms?: number;
  hooks_decision?: HooksDecision;
}

/** Whether a `pre` or `post` event carries a look on disk (sightingOf's test, without building one). */
export function carriesSighting(ev: SightingFields): boolean {
  return ev.checked_at !== undefined || ev.record_on_disk !== undefined;
}

/** The on-disk sighting a `pre` or `post` event carries, when it carries one (a look's time or what it found). */
export function sightingOf(ev: SightingFields): HookSighting | undefined {
  if (!carriesSighting(ev)) return undefined;
  // Fields set one by one, not spread, in this order: earlierSighting's tie-break compares their JSON.
  const sighting: HookSighting = { at: ev.at };
  if (ev.checked_at !== undefined) sighting.checked_at = ev.checked_at;
  if (ev.record_on_disk !== undefined) sighting.record_on_disk = ev.record_on_disk;
  if (ev.result_on_disk !== undefined) sighting.result_on_disk = ev.result_on_disk;
  return sighting;
}

/** A `landed` event's landing. */
export function landingOf(ev: LandingSighting): LandingSighting {
  return { at: ev.at, with_result: ev.with_result, watched_from: ev.watched_from, missed_at: ev.missed_at, fired_at: ev.fired_at };
}

/** The earlier of two sightings of one kind: the result must not depend on arrival order. */
export function earlierSighting<T extends { at: number }>(known: T | undefined, next: T): T {
  if (!known || next.at < known.at) return next;
  if (next.at > known.at) return known;
  return JSON.stringify(next) < JSON.stringify(known) ? next : known;
}

/**
 * A call's settings PreToolUse hooks as the mod timed them around `classic.PreToolUse`'s `next`
 * (its `hooks` event, and its `post`): whole ms by the mod's clock, and their decision when they made
 * one. Nothing else times them: without the mod a call has none, and nothing is guessed.
 */
export interface HooksTimed {
  ms: number;
  decision?: HooksDecision;
}

/**
 * Of two reports of a call's hooks (its `hooks` event and its `post` say the same), the one kept, by
 * a total order (the shorter time, then the decision's name) so the result never depends on which
 * was read first.
 */
export function canonicalHooks(known: HooksTimed | undefined, next: HooksTimed | undefined): HooksTimed | undefined {
  if (known === undefined || next === undefined) return known ?? next;
  if (next.ms !== known.ms) return next.ms < known.ms ? next : known;
  return (next.decision ?? '') < (known.decision ?? '') ? next : known;
}

/** The fields a `hooks` or `post` event carries for the call's hooks (the mod writes them so): none when they were not timed. */
export function hooksFields(hooks: HooksTimed | undefined): HooksFields {
  if (hooks === undefined) return {};
  return hooks.decision !== undefined ? { hooks_ms: hooks.ms, hooks_decision: hooks.decision } : { hooks_ms: hooks.ms };
}

/** What a call's own hooks saw, folded from its events in any order: the earliest pre and post sightings, the landing that proves most, its hooks' time. */
export interface CallSightings {
  pre?: HookSighting;
  post?: HookSighting;
  landed?: LandingSighting;
  hooks?: HooksTimed;
  /**
   * When a look of the call's own hooks first found its record (recordFoundAt), over every event
   * folded, kept apart: the pre and post kept are the earliest fired, the landing kept the one that
   * proves the shape, and either may not be the first find.
   */
  foundAt?: number;
  /** When a PreToolUse hook's wait first found the record (`seen`): on disk before the tool ran. */
  waitFoundAt?: number;
  /** The latest look of a `behind` wait that proves the record absent then (waitLookOf). */
  waitMissedAt?: number;
}

/** The hooks' figures a `hooks` or `post` event carries, when it carries them (the mod's); hooksFields is its inverse. */
export function hooksTimedOf(ev: { hooks_ms?: number; hooks_decision?: HooksDecision }): HooksTimed | undefined {
  if (ev.hooks_ms === undefined) return undefined;
  const hooks: HooksTimed = { ms: ev.hooks_ms };
  if (ev.hooks_decision !== undefined) hooks.decision = ev.hooks_decision;
  return hooks;
}

/**
 * Folds one more event into a call's sightings: every reader of the channel folds them so. The hooks'
 * figures come on the mod's `hooks` event and again on its `post`, one measure twice: canonicalHooks
 * keeps one whatever the order.
 */
export function noteSighting(
  seen: CallSightings,
  ev:
    | ({ event: 'pre' | 'post' } & SightingFields & HooksFields)
    | ({ event: 'hooks' } & HooksFields)
    | ({ event: 'landed' } & LandingSighting)
    | ({ event: 'wait' } & WaitFields),
): void {
  if (ev.event === 'wait') {
    const look = waitLookOf(ev);
    if (look?.found !== undefined) {
      seen.waitFoundAt = earlierFind(seen.waitFoundAt, look.found);
      seen.foundAt = earlierFind(seen.foundAt, look.found);
    }
    if (look?.missed !== undefined && (seen.waitMissedAt === undefined || look.missed > seen.waitMissedAt)) seen.waitMissedAt = look.missed;
    return;
  }
  if (ev.event === 'landed') {
    seen.landed = betterLanding(seen.landed, landingOf(ev));
    seen.foundAt = earlierFind(seen.foundAt, ev.at);
    return;
  }
  if (ev.event === 'hooks' || ev.event === 'post') seen.hooks = canonicalHooks(seen.hooks, hooksTimedOf(ev));
  if (ev.event === 'hooks') return;
  const sighting = sightingOf(ev);
  if (sighting) {
    seen[ev.event] = earlierSighting(seen[ev.event], sighting);
    seen.foundAt = earlierFind(seen.foundAt, foundBy(sighting));
  }
}

/**
 * What a `wait` proves, when it proves anything: `found`, the record was on disk by then (a `seen`
 * wait's last look; without its time, the wait's end, which comes after it); `missed`, the record
 * was not on disk then (a `behind` wait's last look that read the whole file: only with its time, and
 * only for a call of the session itself, whose record lands in the transcript the wait reads).
 */
export function waitLookOf(ev: WaitFields): { found?: number; missed?: number } | undefined {
  if (ev.outcome === 'seen') return { found: ev.checked_at ?? ev.at };
  if (ev.outcome === 'behind' && ev.checked_at !== undefined && ev.agent_id === undefined) return { missed: ev.checked_at };
  return undefined;
}

/** When a pre or post hook's look found the record: its look's time, if it found it. */
function foundBy(look: HookSighting | undefined): number | undefined {
  return look?.record_on_disk === true ? look.checked_at : undefined;
}

function earlierFind(known: number | undefined, next: number | undefined): number | undefined {
  return next === undefined || (known !== undefined && known <= next) ? known : next;
}

/**
 * Whether a look of the call's own hooks found its record on disk: a pre or post hook saw it, a
 * wait found it, or a landing was seen. False says only that no look found it, not that it is absent.
 */
export function hookSawRecord(seen: CallSightings): boolean {
  return seen.pre?.record_on_disk === true || seen.post?.record_on_disk === true || recordFoundAt(seen) !== undefined;
}

/**
 * When a look of the call's own hooks first found its record on disk: a pre or post hook that saw
 * it (at its look's `checked_at`), a `seen` wait (waitLookOf), a landing (at the look that found
 * it), the earliest folded (`foundAt`). A look that found the record proves it was there by then, through whatever it read
 * with; a miss proves less (the mod's `$.fs`, verdictFromHook). Undefined when no look found it.
 */
export function recordFoundAt(seen: CallSightings): number | undefined {
  return earlierFind(earlierFind(earlierFind(seen.foundAt, foundBy(seen.pre)), foundBy(seen.post)), seen.landed?.at);
}

/**
 * "Is the call held?", the one rule: its hook fired and its record is not on disk. `recordOnDisk`
 * is what the reader knows: true, false (proven absent: the engine read the whole file, or the
 * status line's window holds all of it), undefined (cannot tell), which is not held.
 */
export function isHeld(call: { firedAt?: number; recordOnDisk?: boolean }): boolean {
  return call.firedAt !== undefined && call.recordOnDisk === false;
}

/**
 * A call's shape and hold as the looks of its own hooks prove them: every view's rule for a call the
 * engine did not read live (history, the status line, the mod's row) or read late (its read after one
 * of these looks had found the record: src/core/correlator/callFacts.ts).
 *
 * Held, from the fire (`firedAt`: the call's best report as the reader knows it, src/rules/fireTime.ts;
 * else the mod's when its landing says it, else the pre hook's): at most until the
 * first look that found the record (recordFoundAt); at least until the latest look of the call's pre
 * and post hooks (the earliest fired of each) and of its `behind` waits that missed the record before
 * that (a whole read through Node's fs). Not until the mod's last miss: the mod sees the file through Claude Code's `$.fs`, whose `stat` was seen (field, 2.1.332) ~100 ms stale,
 * its looks then missing for ~120 ms a record the engine and a 5 ms tailer had read. The mod now reads
 * without it, but a miss through `$.fs` is not taken as proof of absence; `missed_at` stays as what
 * the mod saw.
 *
 * Shape: a PreToolUse look that found the record (the pre hook's, a `seen` wait's) proves it on disk
 * before the tool ran, so before its result; a `behind` wait proves none.
 */
export function verdictFromHook(seen: CallSightings, firedAt?: number): EvidenceVerdict {
  const { pre, post, landed } = seen;
  const verdict: EvidenceVerdict = {};
  const fromPre = landed?.watched_from === 'pre';
  // The mod's looks ran from the fire until the record was there: the look that found it says the shape.
  let shape: EvidenceVerdict['shape'];
  if (fromPre) shape = landingShape(landed, landed.missed_at ?? landed.fired_at);
  else {
    const preSaw = pre?.record_on_disk === true || seen.waitFoundAt !== undefined;
    const postSaw = post?.record_on_disk;
    const postMissed = postSaw === false && post?.result_on_disk === false;
    if (preSaw) shape = 'before_result';
    else if (postSaw === true && post?.result_on_disk === false) shape = 'before_result';
    // The hook's own watcher: its looks 10 ms apart in a process of its own, the first as it starts (its landing says no last miss).
    else if (postMissed && landed !== undefined) shape = landed.with_result ? 'with_result' : 'before_result';
  }
  if (shape !== undefined) verdict.shape = shape;
  const fire = firedAt ?? (fromPre ? landed.fired_at : undefined) ?? pre?.at;
  if (fire === undefined) return verdict;
  const found = recordFoundAt(seen);
  let missed: number | undefined;
  const looks = [pre?.record_on_disk === false ? pre.checked_at : undefined, post?.record_on_disk === false ? post.checked_at : undefined, seen.waitMissedAt];
  for (const at of looks) {
    if (at === undefined || (found !== undefined && at >= found)) continue;
    missed = Math.max(missed ?? at, at);
  }
  if (found === undefined && missed === undefined) return verdict;
  const min = missed === undefined ? 0 : Math.max(0, missed - fire);
  verdict.held = { min_ms: min, max_ms: found === undefined ? null : Math.max(min, found - fire) };
  return verdict;
}

/**
 * Of two landings of one call, the one that proves more: the mod's (it looked from the fire on, so
 * its landing says the shape by itself), else the earlier one.
 */
export function betterLanding(known: LandingSighting | undefined, next: LandingSighting): LandingSighting {
  const fromPre = (l: LandingSighting | undefined) => l?.watched_from === 'pre';
  if (known === undefined || fromPre(known) !== fromPre(next)) return known === undefined || fromPre(next) ? next : known;
  return next.at < known.at ? next : known;
}
