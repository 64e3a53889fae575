/**
 * What a session's channel (and the mod's spool beside it) says about when each call fired and what
 * was on disk then, for `replay`'s live cut (./liveCut.ts). Read as analyze reads it
 * (src/core/analyze/channelJoin.ts): the channel reader's checks (zod, 64 KiB lines), the spool in
 * place, nothing changed.
 */
import type { ChannelLine } from '../channel/reader';
import type { ChannelEvent } from '../channel/schema';
import { readSpool } from '../../rules/spoolRead';
import { spoolOfChannelFile } from '../../rules/spoolNames';
import { isBetterFire, type FireReport } from '../../rules/fireTime';
import { MOD_SOURCE } from '../../rules/channelConstants';
import { noteSighting, verdictFromHook, type CallSightings } from '../../rules/hookEvidence';
import type { Clock } from '../../rules/clock';
import type { FileAccess } from '../fileAccess';
import { FileTail } from '../tail';
import type { CallEvidence } from './liveCut';

/** As many spooled events as analyze reads. */
const MAX_SPOOLED_READ = 100_000;
/** A channel file holds a few hundred bytes per event: past this it is not one. */
export const MAX_CHANNEL_BYTES = 256 * 1024 * 1024;

export interface ChannelEvidence {
  calls: Map<string, CallEvidence>;
  /** The mod's `record` events: a record's uuid → its birth (`session.append`). */
  births: Map<string, number>;
  /** Events of the session read (from the file and the spool). */
  events: number;
  /** Of those, the mod's (`source` transcript-lag-mod): none among many says it did not run in the session. */
  modEvents: number;
}

/**
 * Whether the plugin's mod ran in the session, as its evidence says: it reports every call it sees, so
 * calls reported by our command hooks and none by the mod mean it did not (a build before 2.1.286, no
 * plugin, or a mod the build refused). Undefined where the evidence cannot say (none read, no call).
 */
export function modRanIn(evidence: ChannelEvidence | undefined): boolean | undefined {
  if (evidence === undefined) return undefined;
  if (evidence.modEvents > 0) return true;
  return evidence.calls.size > 0 ? false : undefined;
}

interface FoldState {
  /** The report each call's fire time came from. */
  fires: Map<string, FireReport>;
  /** What the looks of each call's own hooks saw, folded as every reader of the channel folds them. */
  sightings: Map<string, CallSightings>;
  /** When each call's settings hooks settled, by the mod's clock (its `hooks` event). */
  hooksSettled: Map<string, number>;
  /** When the on-disk sighting kept for each call was made. */
  lookedAt: Map<string, number>;
}

/** Folds one event into what is known: the earliest of each kind, so a duplicated line changes nothing. */
function fold(into: ChannelEvidence, seen: FoldState, event: ChannelEvent): void {
  if (event.event === 'record') {
    const known = into.births.get(event.uuid);
    if (known === undefined || event.at < known) into.births.set(event.uuid, event.at);
    return;
  }
  let call = into.calls.get(event.tool_use_id);
  if (call === undefined) into.calls.set(event.tool_use_id, (call = {}));
  if (event.event === 'pre' || event.event === 'post' || event.event === 'landed' || event.event === 'hooks' || event.event === 'wait') {
    let looks = seen.sightings.get(event.tool_use_id);
    if (looks === undefined) seen.sightings.set(event.tool_use_id, (looks = {}));
    noteSighting(looks, event);
    if (event.event === 'hooks') seen.hooksSettled.set(event.tool_use_id, Math.min(event.at, seen.hooksSettled.get(event.tool_use_id) ?? Infinity));
  }
  // The mod's word on whether the call's hooks had its held message: kept if any of its posts said so (a duplicated
  // line changes nothing); null where its post does not say (a mod from before it did).
  if (event.event === 'post' && event.source === MOD_SOURCE) {
    const said = event.held_message ?? null;
    call.heldMessage = call.heldMessage === true || said === true ? true : call.heldMessage === false || said === false ? false : null;
  }
  if (event.event === 'pre') {
    const report: FireReport = { at: event.at, transport: event.transport ?? 'command' };
    if (isBetterFire(seen.fires.get(event.tool_use_id), report)) {
      seen.fires.set(event.tool_use_id, report);
      call.firedAt = event.at;
    }
    const lookedAt = event.checked_at ?? event.at;
    if (event.bytes_on_disk !== undefined && lookedAt < (seen.lookedAt.get(event.tool_use_id) ?? Infinity)) {
      seen.lookedAt.set(event.tool_use_id, lookedAt);
      call.onDisk = { bytes: event.bytes_on_disk, recordOnDisk: event.record_on_disk, recordPath: event.record_path };
    }
  }
}

/** The evidence of `sessionId`'s events in a channel file and the spool beside it. */
export async function readChannelEvidence(channelPath: string, sessionId: string | undefined, files: FileAccess, clock: Clock): Promise<ChannelEvidence> {
  // The reader validates with zod, large to load: required only when a channel is given.
  const { createChannelScanner, parseChannelLine } = require('../channel/reader') as typeof import('../channel/reader');
  const evidence: ChannelEvidence = { calls: new Map(), births: new Map(), events: 0, modEvents: 0 };
  const seen: FoldState = { fires: new Map(), lookedAt: new Map(), sightings: new Map(), hooksSettled: new Map() };
  const take = (scan: ChannelLine) => {
    if (scan.kind !== 'event' || (sessionId !== undefined && scan.event.session_id !== sessionId)) return;
    evidence.events += 1;
    if (scan.event.source === MOD_SOURCE) evidence.modEvents += 1;
    fold(evidence, seen, scan.event);
  };
  const spool = spoolOfChannelFile(channelPath);
  if (spool !== undefined) {
    const read = await readSpool({ files, clock, ...spool, maxFiles: MAX_SPOOLED_READ }, 0);
    for (const entry of read.ready) take(parseChannelLine(JSON.stringify(entry.event)));
  }
  const st = await files.stat(channelPath);
  if (st === undefined) return withLandings(evidence, seen);
  if (!st.isFile) throw new Error(`${channelPath}: not a regular file`);
  if (st.size > MAX_CHANNEL_BYTES) throw new Error(`${channelPath}: over ${MAX_CHANNEL_BYTES >> 20} MiB, not a channel file`);
  const tail = new FileTail<ChannelLine>({ path: channelPath, files, clock, scanner: createChannelScanner(), onLine: (line) => take(line.scan) });
  try {
    await tail.read(st.size);
  } finally {
    await tail.close();
  }
  return withLandings(evidence, seen);
}

/** Each call's landing, as the looks of its own hooks bound it from its fire (the views' rule). */
function withLandings(evidence: ChannelEvidence, seen: FoldState): ChannelEvidence {
  for (const [id, call] of evidence.calls) {
    const sightings = seen.sightings.get(id);
    if (sightings === undefined) continue;
    const held = verdictFromHook(sightings, call.firedAt).held;
    // Found while the call's PreToolUse hooks ran: by one of them, or by the mod before they settled (its clock, both times).
    const settled = seen.hooksSettled.get(id);
    const duringHooks = sightings.pre?.record_on_disk === true || (sightings.landed !== undefined && settled !== undefined && sightings.landed.at < settled);
    // Counted from the mod's fire (its `pre`, else its landing's `fired_at`, as verdictFromHook takes them).
    const fromToolCall = seen.fires.get(id)?.transport === 'mod' || (call.firedAt === undefined && sightings.landed?.watched_from === 'pre' && sightings.landed.fired_at !== undefined);
    if (held !== undefined) {
      call.landed = { minMs: held.min_ms, maxMs: held.max_ms, ...(duringHooks ? { duringHooks: true } : {}), ...(fromToolCall ? { fromToolCall: true } : {}) };
    }
  }
  return evidence;
}
