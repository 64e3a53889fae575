/**
 * How the transcript moved while a call's PreToolUse hook ran: the bytes of the file that holds the
 * call's record when the hook fired, and when the record (with what landed with it: its message's
 * records up to its result) was appended after that, if it was while the hook ran. `replay` starts
 * the live copy at the first and appends the rest at its delay from the hook's start
 * (src/platform/replaySession.ts), so a hook that reads early sees what a real one sees early and one
 * that polls finds its call when a real one would. Against it, "complete": everything up to and
 * including the call's record, as a hook would see it if Claude Code wrote first.
 *
 * Where the record may land at several times, the hook is run at each (`timings`): on disk at the
 * fire, at the earliest and latest measured landing while the hooks run, and not while they run.
 * Their decisions differ for a hook that depends on when it reads: `timing_dependent`.
 *
 * From the session's own evidence first (`basis: "channel"`): a `pre` event's `bytes_on_disk` that
 * lacks the record (the size of the file when our hook looked, a partial last line included; taken
 * only when it agrees with the file: the record was not there at the fire either); the mod's `record`
 * events (a record born after the fire cannot have been on disk at it); the looks of the call's own
 * hooks, which bound when the record landed (src/rules/hookEvidence.ts: at most until the first
 * find, plus the hooks' start skew, since they count from the fire the channel knows; at least until
 * a proven miss; a miss of the mod's proves nothing).
 * Else the field suite's measure for the session's build, mode and the call's place in its message
 * (`basis: "model"`, ./landingModel.ts, docs/COMPATIBILITY.md).
 */
import type { ReplayCall } from './calls';
import { LANDING_TABLE, landingModelFor, modeOf, placeOf, type LandingModel, type LandingTable } from './landingModel';
import type { TranscriptIndex } from './transcriptIndex';

export type LiveBasis = 'channel' | 'model';

/** What the channel holds about one call (./channelEvidence.ts). */
export interface CallEvidence {
  /** The earliest `pre` event that said what was on disk. */
  onDisk?: { bytes: number; recordOnDisk?: boolean; recordPath?: string };
  /** When the call fired: the mod's `pre`, else the earliest (src/rules/fireTime.ts). */
  firedAt?: number;
  /**
   * When the record landed, from the fire, as the looks of the call's own hooks bound it;
   * `duringHooks`: a PreToolUse hook of the call found it, so it was not held until they ended.
   */
  landed?: {
    minMs: number;
    maxMs: number | null;
    duringHooks?: boolean;
    /**
     * The bounds count from the mod's `tool.call`, which runs before any settings hook starts: no hook
     * of the call started (or read) before it, so a find bounds the landing from a hook's start too.
     */
    fromToolCall?: boolean;
  };
  /** Whether the session's mod kept the call's held message, as its `post` said (`held_message`); null: its post does not say (a mod from before it did). */
  heldMessage?: boolean | null;
}

/** One way the record may land: ms after the hook's start; 0: on disk when it fired; null: not while it runs. */
export type RecordAt = number | null;

export interface LiveTimeline {
  /** Bytes of the record's file on disk when the hook fired (with `recordAt` 0: `landedBytes`). */
  bytes: number;
  /** Bytes once the record has landed: the call's record and its message's records up to its result. */
  landedBytes: number;
  basis: LiveBasis;
  /** Each time the record may land, ascending, null last; never empty. */
  timings: RecordAt[];
  /** The most likely of them (the measured majority; within a landing range, its median). */
  likely: RecordAt;
  /** The measured rows behind the timings (`2.1.332 print first`); empty when none applied. */
  model: string[];
}

/** What a hook would see if Claude Code wrote first: up to and including the call's record. */
export function completeCut(call: ReplayCall): number {
  return call.record.end;
}

/** The end of what lands with the record: its message's records up to its result (print mode writes them as one). */
export function landedEnd(call: ReplayCall): number {
  let end = call.record.end;
  for (const line of call.message) end = Math.max(end, line.end);
  return end;
}

/**
 * Where the batch that brings the call's message starts: its first record, and the lines written with
 * it before it (`tools-used`, when a tool is first used: measured, test/field/recordings; on disk only
 * with the message; the index finds them, ./transcriptIndex.ts BatchStarts).
 */
export function batchStart(call: ReplayCall): number {
  return (call.message[0] ?? call.record).batchStart;
}

/** Whether a `pre` event's sighting is of this file as it is: else it is of another copy, and not used. */
function onDiskAgrees(call: ReplayCall, onDisk: NonNullable<CallEvidence['onDisk']>, fileSize: number): boolean {
  if (onDisk.bytes > fileSize) return false;
  // A subagent's call is looked for in the subagent's own file, which the event names; the session's in transcript_path.
  if (call.agentId === undefined ? onDisk.recordPath !== undefined : !onDisk.recordPath?.replace(/\\/g, '/').endsWith(`/agent-${call.agentId}.jsonl`)) return false;
  return onDisk.recordOnDisk === undefined || onDisk.recordOnDisk === onDisk.bytes >= call.record.end;
}

const orderTimings = (a: RecordAt, b: RecordAt) => (a === null ? (b === null ? 0 : 1) : b === null ? -1 : a - b);

/**
 * The timings the model gives, narrowed by what the evidence proved: `landed` (the looks' bounds on
 * the landing), `notAtFire` (a look at the fire missed the record).
 */
function modelTimings(
  model: LandingModel,
  skewMs: number,
  evidence: { landed?: CallEvidence['landed']; notAtFire: boolean },
): { timings: RecordAt[]; likely: RecordAt; narrowed: boolean } {
  let narrowed = false;
  const ways: Array<{ count: number; timings: RecordAt[]; likely: RecordAt }> = [];
  if (model.onDiskAtFire > 0 && !evidence.notAtFire) ways.push({ count: model.onDiskAtFire, timings: [0], likely: 0 });
  const d = model.landed;
  // A hook under Claude Code starts later than it does when replayed (measured: `hook_start_skew_ms`,
  // the latest start of a hook after the first of its fire), so its read may come after a landing
  // that here comes after it: the earliest landing of a range is run that much earlier.
  const floor = evidence.notAtFire ? 1 : 0;
  const earliest = (lo: number) => Math.max(floor, lo - skewMs);
  // The looks' times count from the fire the channel knows: the mod's `tool.call`, before every hook's
  // start; else our hook's own start, itself up to the skew after the fire, so a find bounds the landing
  // only that much later.
  const latest = (maxMs: number) => maxMs + (evidence.landed?.fromToolCall === true ? 0 : skewMs);
  if (d !== null && d.calls > 0) {
    let lo = d.min_ms;
    let hi = d.max_ms;
    const proven = evidence.landed;
    if (proven !== undefined) {
      narrowed = true;
      const pHi = proven.maxMs === null ? Infinity : latest(proven.maxMs);
      // The latest the record can have landed is this call's own: a find is a fact, the measure's
      // largest landing only the largest seen elsewhere (field: a later call of a session's first
      // message found 2.3 s after its fire where the measure's one such landing was 99 ms; a replay
      // capped there said "allow" of a hook that blocked). The measure keeps only its floor, where the
      // call's looks allow it: a landing earlier than any measured is not run.
      lo = pHi >= lo ? Math.max(lo, proven.minMs) : proven.minMs;
      hi = pHi;
    }
    if (hi === Infinity) {
      // Missed later than any landing measured, and never found: from the miss on, or not while the hook runs.
      ways.push({ count: d.calls, timings: [earliest(lo), null], likely: null });
    } else {
      const mid = Math.min(hi, Math.max(lo, d.p50_ms));
      ways.push({ count: d.calls, timings: [earliest(lo), mid, hi], likely: mid });
    }
  } else if (evidence.landed?.duringHooks === true && evidence.landed.maxMs !== null) {
    // Never measured landing while the hooks ran, but this call's own PreToolUse hook found it: its bounds.
    narrowed = true;
    const lo = earliest(evidence.landed.minMs);
    ways.push({ count: 1, timings: [lo, latest(evidence.landed.maxMs)], likely: lo });
  }
  // A PreToolUse hook of the call found its record: it did not wait for the hooks to end.
  if (model.notWhileHooksRun > 0 && evidence.landed?.duringHooks !== true) ways.push({ count: model.notWhileHooksRun, timings: [null], likely: null });
  // Nothing measured applies: unknown, so both ends: there at the fire, and never while the hook runs.
  if (ways.length === 0) return { timings: evidence.notAtFire ? [null] : [0, null], likely: null, narrowed };
  // Ways the build and mode were seen to land elsewhere: possible here too, never the likely one.
  const pool = model.anyPlace;
  if (pool !== undefined) {
    if (model.onDiskAtFire === 0 && pool.onDiskAtFire > 0 && !evidence.notAtFire) ways.push({ count: 0, timings: [0], likely: 0 });
    if (model.landed === null && pool.landed !== null && pool.landed.calls > 0 && !ways.some((w) => w.count > 0 && w.timings.some((t) => t !== null && t > 0))) {
      const lo = earliest(pool.landed.min_ms);
      ways.push({ count: 0, timings: [lo, Math.max(lo, pool.landed.max_ms)], likely: lo });
    }
    if (model.notWhileHooksRun === 0 && pool.notWhileHooksRun > 0 && evidence.landed?.duringHooks !== true) ways.push({ count: 0, timings: [null], likely: null });
  }
  const likely = ways.reduce((a, b) => (b.count > a.count ? b : a)).likely;
  const timings = [...new Set(ways.flatMap((w) => w.timings))].sort(orderTimings);
  return { timings, likely, narrowed };
}

/**
 * The live timeline of a call (see the file's comment). `fileSize`: the size of the record's file (a
 * pre event's bytes may end in a partial line).
 */
export function liveTimelineOf(
  call: ReplayCall,
  evidence: CallEvidence | undefined,
  births: ReadonlyMap<string, number>,
  fileSize: number,
  table: LandingTable = LANDING_TABLE,
): LiveTimeline {
  const landedBytes = landedEnd(call);
  const model = landingModelFor(table, call.context.version, modeOf(call.context.entrypoint), placeOf(call));
  // What our hook saw when it looked: not at the fire but at its own look, which under load comes
  // hundreds of ms later (field: 300 ms). Without the record, it was not there at the fire either, and
  // the bytes before are at most what the hook was handed; with it, the record landed by the look: a
  // bound the looks' fold already gives (evidence.landed), not a copy at the fire.
  const agreed = evidence?.onDisk !== undefined && onDiskAgrees(call, evidence.onDisk, fileSize) ? evidence.onDisk : undefined;
  const onDisk = agreed !== undefined && agreed.bytes < call.record.end ? agreed : undefined;
  let bytes = onDisk?.bytes ?? batchStart(call);
  let basis: LiveBasis = onDisk !== undefined ? 'channel' : 'model';
  if (evidence?.firedAt !== undefined && births.size > 0) {
    // The first line of the file born after the fire, by the mod's `record` events (the index answers from the same births).
    const born = call.file.firstBornAfter(evidence.firedAt);
    if (born !== undefined && born < bytes) {
      bytes = born;
      basis = 'channel';
    }
  }
  // A look at the fire that missed it, a proven miss after the fire, or the record born after the
  // fire: it was not on disk then.
  const bornAt = call.record.uuid === undefined ? undefined : births.get(call.record.uuid);
  const bornAfter = evidence?.firedAt !== undefined && bornAt !== undefined && bornAt > evidence.firedAt;
  if (bornAfter) basis = 'channel';
  const notAtFire = onDisk !== undefined || bornAfter || (evidence?.landed?.minMs ?? 0) > 0;
  const { timings, likely, narrowed } = modelTimings(model, table.hook_start_skew_ms, { landed: evidence?.landed, notAtFire });
  if (narrowed) basis = 'channel';
  return { bytes, landedBytes, basis, timings, likely, model: model.from };
}

/**
 * How much of the session's own transcript a subagent's call sees: its records up to the call's
 * (by their creation times; the session's file says nothing of when the subagent's records were
 * written), the same for the live and the complete run.
 */
export function mainCutForSubagentCall(main: TranscriptIndex, call: ReplayCall): number {
  const at = call.record.timestampMs;
  if (at === undefined) return main.end;
  // Asked of the index as it read the session's file (IndexOptions.createdAfter: the subagents' calls' times).
  return main.firstCreatedAfter(at) ?? main.end;
}
