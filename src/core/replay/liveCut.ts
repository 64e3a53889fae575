/**
 * Where the transcript ended when a call's PreToolUse hook fired: how many bytes of the file that
 * holds the call's record the hook saw ("live"), against what it would see if Claude Code wrote
 * first ("complete": everything up to and including the call's record).
 *
 * From the channel when it says so (`basis: "channel"`):
 * - a `pre` event's `bytes_on_disk`: the size of the file when the hook looked, exactly (a partial
 *   last line included); taken only when it agrees with the file (no larger than it, and its
 *   `record_on_disk` says what those bytes hold);
 * - else the mod's `record` events (births): a record born after the fire cannot have been on disk.
 * Not the mod's `landed` event: it says when the record was found, not what a hook saw at its fire.
 * Its first look comes a tick (100 ms) after the fire, so a find there does not put the record on
 * disk at the fire; and a miss proves nothing, by the rule every view keeps
 * (src/rules/hookEvidence.ts): the mod sees the file through Claude Code's `$.fs`, whose `stat` was
 * seen (2.1.332) ~100 ms stale, and channel files recorded before the mod stopped asking it hold
 * misses of records that were on disk.
 * Else from the rule the field suite measured for the session's mode and build (`basis: "model"`,
 * docs/COMPATIBILITY.md): interactive sessions of 2.1.281 and later hold the call's message (every
 * record with its `message.id`) while its PreToolUse hooks run, so the hook sees the file up to the
 * message's first record; print mode, and 2.1.280 and earlier, write the message when it ends, so the
 * hook sees the message and not the call's result.
 */
import { versionAtLeast, type ReplayCall } from './calls';
import type { IndexedLine, TranscriptIndex } from './transcriptIndex';

/** The first build whose interactive sessions hold a call's record while its PreToolUse hooks run (2.1.280 does not). */
export const HELD_WHILE_HOOKS_RUN_SINCE = [2, 1, 281] as const;

export type LiveBasis = 'channel' | 'model';

export type ModelRule = 'held-while-hooks-run' | 'message-end';

/** What the channel holds about one call (./channelEvidence.ts). */
export interface CallEvidence {
  /** The earliest `pre` event that said what was on disk. */
  onDisk?: { bytes: number; recordOnDisk?: boolean; recordPath?: string };
  /** When the call fired: the mod's `pre`, else the earliest (src/rules/fireTime.ts). */
  firedAt?: number;
}

export interface LiveCut {
  /** Bytes of the record's file the hook saw. */
  bytes: number;
  basis: LiveBasis;
}

/** Which rule the model applies to a call, from its session's mode (`entrypoint`) and build (`version`). */
export function modelRuleOf(call: Pick<ReplayCall, 'context'>): ModelRule {
  const { entrypoint, version } = call.context;
  return entrypoint === 'cli' && versionAtLeast(version, HELD_WHILE_HOOKS_RUN_SINCE) ? 'held-while-hooks-run' : 'message-end';
}

/** The model's live cut (see the file's comment). */
export function modelCut(call: ReplayCall): number {
  if (modelRuleOf(call) === 'held-while-hooks-run') return (call.message[0] ?? call.record).start;
  let end = call.record.end;
  for (const line of call.message) end = Math.max(end, line.end);
  return end;
}

/** What a hook would see if Claude Code wrote first: up to and including the call's record. */
export function completeCut(call: ReplayCall): number {
  return call.record.end;
}

/** Whether a `pre` event's sighting is of this file as it is: else it is of another copy, and not used. */
function onDiskAgrees(call: ReplayCall, onDisk: NonNullable<CallEvidence['onDisk']>, fileSize: number): boolean {
  if (onDisk.bytes > fileSize) return false;
  // A subagent's call is looked for in the subagent's own file, which the event names; the session's in transcript_path.
  if (call.agentId === undefined ? onDisk.recordPath !== undefined : !onDisk.recordPath?.replace(/\\/g, '/').endsWith(`/agent-${call.agentId}.jsonl`)) return false;
  return onDisk.recordOnDisk === undefined || onDisk.recordOnDisk === onDisk.bytes >= call.record.end;
}

/** The first line of the file born after `firedAt`, by the mod's `record` events. */
function firstBornAfter(file: TranscriptIndex, births: ReadonlyMap<string, number>, firedAt: number): IndexedLine | undefined {
  for (const line of file.lines) {
    const born = line.uuid === undefined ? undefined : births.get(line.uuid);
    if (born !== undefined && born > firedAt) return line;
  }
  return undefined;
}

/**
 * The live cut of a call: from the channel's evidence when it has some for the call, else the
 * model. `fileSize`: the size of the record's file (a pre event's bytes may end in a partial line).
 */
export function liveCutOf(call: ReplayCall, evidence: CallEvidence | undefined, births: ReadonlyMap<string, number>, fileSize: number): LiveCut {
  if (evidence?.onDisk !== undefined && onDiskAgrees(call, evidence.onDisk, fileSize)) return { bytes: evidence.onDisk.bytes, basis: 'channel' };
  const bytes = modelCut(call);
  if (evidence?.firedAt !== undefined && births.size > 0) {
    const born = firstBornAfter(call.file, births, evidence.firedAt);
    if (born !== undefined && born.start < bytes) return { bytes: born.start, basis: 'channel' };
  }
  return { bytes, basis: 'model' };
}

/**
 * How much of the session's own transcript a subagent's call sees: its records up to the call's
 * (by their creation times; the session's file says nothing of when the subagent's records were
 * written), the same for the live and the complete run.
 */
export function mainCutForSubagentCall(main: TranscriptIndex, call: ReplayCall): number {
  const at = call.record.timestampMs;
  if (at === undefined) return main.end;
  for (const line of main.lines) if (line.timestampMs !== undefined && line.timestampMs > at) return line.start;
  return main.end;
}
