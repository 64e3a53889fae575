import type { ChannelLine } from '../channel/reader';
import { readSpool } from '../../rules/spoolRead';
import { spoolOfChannelFile } from '../../rules/spoolNames';
import type { Clock } from '../../rules/clock';
import { type CallSightings, noteSighting } from '../../rules/hookEvidence';
import type { FileAccess } from '../fileAccess';
import { type FireReport, isBetterFire } from '../../rules/fireTime';
import { hookRunOf, withHookRun } from '../../rules/hookRun';
import { FileTail } from '../tail';
import type { AnalyzedCall, ChannelSummary, WaitSummary } from './types';

/**
 * Joins a hook channel file (src/core/channel/schema.ts) to one transcript's calls on tool_use_id:
 * per call its `wait` outcomes, when its hook fired and what its hooks and waits saw; overall, waits seen / behind.
 */
const MAX_SPOOLED_READ = 100_000;

export async function joinChannel(
  channelPath: string,
  files: FileAccess,
  clock: Clock,
  callOf: (toolUseId: string) => AnalyzedCall | undefined,
): Promise<{ waits: WaitSummary; channel: ChannelSummary; sightings: Map<string, CallSightings> }> {
  // The reader validates with zod, large to load: required here, so `analyze` without --channel
  // never loads it (the CLI's build makes it a bundle of its own, see scripts/build.mjs).
  const { createChannelScanner, parseChannelLine } = require('../channel/reader') as typeof import('../channel/reader');
  const scanner = createChannelScanner();
  const tail = new FileTail<ChannelLine>({ path: channelPath, files, clock, scanner });
  const waits: WaitSummary = { seen: 0, behind: 0, error: 0, unmatched: 0 };
  const channel: ChannelSummary = { file: channelPath, lines: 0, events: { pre: 0, post: 0, hooks: 0, hook_run: 0, wait: 0, landed: 0, record: 0, measured: 0 }, spooled: 0, skipped: {} };
  const sightings = new Map<string, CallSightings>();
  /** The report each call's `hook_fired_at` came from: the mod's wins (../../rules/fireTime.ts). */
  const fires = new Map<string, FireReport>();
  const join = (scan: ChannelLine) => {
    if (scan.kind !== 'event') {
      channel.skipped[scan.kind] = (channel.skipped[scan.kind] ?? 0) + 1;
      return;
    }
    const event = scan.event;
    channel.events[event.event] += 1;
    // An engine's kept read (`measured`) is counted, not used: analyze says what the transcript and the hooks' looks prove.
    if (event.event === 'record' || event.event === 'measured') return;
    const call = callOf(event.tool_use_id);
    if (event.event === 'pre' || event.event === 'post' || event.event === 'hooks' || event.event === 'landed') {
      if (!call) return;
      if (event.event === 'pre') {
        const report = { at: event.at, transport: event.transport ?? 'command' } as const;
        if (isBetterFire(fires.get(call.tool_use_id), report)) {
          fires.set(call.tool_use_id, report);
          call.hook_fired_at = event.at;
        }
      }
      let seen = sightings.get(call.tool_use_id);
      if (!seen) sightings.set(call.tool_use_id, (seen = {}));
      // Folded as the engine and the status line fold them: the earliest look of each, the landing that proves most.
      noteSighting(seen, event);
    } else if (event.event === 'hook_run') {
      // Each wrapped hook's run, as the wrapper reported it: kept on the call (bounded, as the engine keeps them).
      if (!call) return;
      call.hook_runs = withHookRun(call.hook_runs ?? [], hookRunOf(event)) ?? call.hook_runs ?? [];
    } else if (event.event === 'wait') {
      waits[event.outcome] += 1;
      if (!call) {
        waits.unmatched += 1;
        return;
      }
      const wait: NonNullable<AnalyzedCall['waits']>[number] = {
        outcome: event.outcome,
        polls: event.polls,
        waited_ms: event.waited_ms,
      };
      if (event.line !== undefined) wait.line = event.line;
      if (event.source !== undefined) wait.source = event.source;
      (call.waits ??= []).push(wait);
      // What its looks prove (a `seen` wait found the record at PreToolUse), folded as the engine and the status line fold it.
      let seen = sightings.get(call.tool_use_id);
      if (!seen) sightings.set(call.tool_use_id, (seen = {}));
      noteSighting(seen, event);
    }
  };
  // The mod's events not folded into the channel yet, read where they lie (analyze writes nothing), as
  // many as a mod leaves unfolded and more (src/mod/: 20,000 a loaded copy), bounded all the same.
  // Read before the channel: an event folded meanwhile is then in both, and counted once, never in neither.
  const spool = spoolOfChannelFile(channelPath);
  const spooled =
    spool === undefined
      ? []
      : (await readSpool({ files, clock, ...spool, maxFiles: MAX_SPOOLED_READ }, 0)).ready.map((e) => parseChannelLine(JSON.stringify(e.event)));
  const inChannel = new Set<string>();
  // No channel file yet: the mod spooled and nobody folded (./index.ts lets that through).
  const hasFile = (await files.stat(channelPath)) !== undefined;
  try {
    // Channel files are small (a few hundred bytes per event): one read takes all of it.
    const read = hasFile ? await tail.read() : { lines: [] };
    for (const { scan } of read.lines) {
      channel.lines += 1;
      if (scan.kind === 'event' && spooled.length > 0) inChannel.add(JSON.stringify(scan.event));
      join(scan);
    }
  } finally {
    await tail.close();
  }
  for (const scan of spooled) {
    if (scan.kind === 'event' && inChannel.has(JSON.stringify(scan.event))) continue;
    channel.spooled += 1;
    join(scan);
  }
  return { waits, channel, sightings };
}

