import { z } from 'zod';
import { CHANNEL_SCHEMA_VERSION, CHANNEL_TRANSPORTS, HOOK_RUN_DECISIONS, HOOKS_DECISIONS, MAX_HOOK_LABEL_LENGTH, MAX_HOOKS_MS } from '../../rules/channelConstants';

/**
 * The hook channel: one JSONL file per session under `<claude dir>/transcript-lag/`.
 * Our hook writes it; other hooks may append `wait` events of their own (see
 * schema/channel-event.schema.json, generated from this file). Field names are
 * snake_case like Claude Code's hook input.
 */
// Defined in src/rules/channelConstants.ts (zod-free, so the bundled hook can share it); re-exported here unchanged.
export { CHANNEL_SCHEMA_VERSION };

/** Fields of every event. */
const sessionBase = {
  /** Schema version. Readers skip versions they do not know. */
  v: z.literal(CHANNEL_SCHEMA_VERSION),
  /** Ms since epoch when the event happened (for `pre`, when the hook was fired; for `record`, when the row was born). */
  at: z.number().int().nonnegative(),
  session_id: z.string().min(1).max(200),
  transcript_path: z.string().min(1).max(4096),
  agent_id: z.string().max(200).optional(),
  /** Who wrote the event: "transcript-lag-hook", "transcript-lag-mod", or another hook's own name. */
  source: z.string().max(200).optional(),
};

/** Fields of every event about one tool call. */
const base = {
  ...sessionBase,
  tool_use_id: z.string().min(1).max(200),
  tool_name: z.string().max(200).optional(),
};

/** How the call's report reached us: a `command` hook process (the default when absent), an `http` hook, or the in-process `mod`. */
const transport = z.enum(CHANNEL_TRANSPORTS);

/**
 * What was on disk for the call while its hook ran (pre and post events,
 * optional: older hooks and other writers leave it out). A reader that was
 * not watching proves a call's write shape from it (docs/CHANNEL.md).
 */
const onDisk = {
  /** Ms since epoch when the hook looked. */
  checked_at: z.number().int().nonnegative().optional(),
  /** Size in bytes of the file holding the call's record then, a partial last line included. */
  bytes_on_disk: z.number().int().nonnegative().optional(),
  /** The call's tool_use record was on disk; absent when the hook could not tell. */
  record_on_disk: z.boolean().optional(),
  /** A tool_result for the call was on disk; absent when the hook could not tell. */
  result_on_disk: z.boolean().optional(),
  /** The file looked in, when it is not `transcript_path` (a subagent's own transcript). */
  record_path: z.string().min(1).max(4096).optional(),
};

export const preEventSchema = z.object({
  ...base,
  ...onDisk,
  event: z.literal('pre'),
  prompt_id: z.string().max(200).optional(),
  /** `announce` reports only; `probe` also waits for its own call and reports a `wait`. */
  mode: z.enum(['announce', 'probe']).optional(),
  /** How the report reached us (see `transport` above); absent: a command hook. */
  transport: transport.optional(),
  /** Hook timeout in ms, when known: views warn as a hold nears it. */
  timeout_ms: z.number().int().positive().optional(),
});

/**
 * The call's settings PreToolUse hooks, as the mod timed them around `classic.PreToolUse`'s `next`
 * (issue 33): how long they ran (ms, by the mod's clock) and how they decided, when they did.
 * Only the mod sends them: absent, nothing is known of them.
 */
const hooksTimed = {
  hooks_ms: z.number().int().nonnegative().max(MAX_HOOKS_MS),
  hooks_decision: z.enum(HOOKS_DECISIONS).optional(),
};

export const postEventSchema = z.object({
  ...base,
  ...onDisk,
  event: z.literal('post'),
  /** As on `pre`; absent: a command hook. */
  transport: transport.optional(),
  /** The mod's post (sent when tool.call's `next` settles, a denied call's too) carries its hooks' figures. */
  hooks_ms: hooksTimed.hooks_ms.optional(),
  hooks_decision: hooksTimed.hooks_decision,
  /** The mod's post: whether it kept the call's held message for its hooks (docs/HELD-MESSAGE.md); replay's live runs follow it. */
  held_message: z.boolean().optional(),
});

/** The mod: the call's settings PreToolUse hooks have settled (`at`: when). Sent at once, before the tool runs. */
export const hooksEventSchema = z.object({
  ...base,
  event: z.literal('hooks'),
  transport: transport.optional(),
  ...hooksTimed,
});

/**
 * One PreToolUse command hook's run, as the completing wrapper (`transcript-lag complete`) in front of
 * it saw it (issue 39 §4): each wrapped hook of a call reports its own, so the views give each hook's
 * share of a hold. `at`: when the hook exited.
 */
export const hookRunEventSchema = z.object({
  ...base,
  event: z.literal('hook_run'),
  /** A short label of the hook's command: its program's or script's file name, never its arguments (src/rules/hookRun.ts). */
  hook: z.string().min(1).max(MAX_HOOK_LABEL_LENGTH),
  /** Its run, spawn to exit, in whole ms on the wall clock. */
  ms: z.number().int().nonnegative().max(MAX_HOOKS_MS),
  /** As Claude Code reads its exit and stdout: `block` (exit 2), `allow`/`deny`/`ask` (exit 0), `error` (another exit, a signal); absent when its answer was too long to read. */
  decision: z.enum(HOOK_RUN_DECISIONS).optional(),
  /** Its exit code; null when a signal ended it. */
  exit_code: z.number().int().nullable(),
  /** The signal that ended it. */
  signal: z.string().max(32).optional(),
  /** The transcript it was given held the call's record (the wrapper's copy, or the transcript once it landed). */
  completed: z.boolean(),
});

export const waitEventSchema = z.object({
  ...base,
  event: z.literal('wait'),
  /** `seen`: the call's record was on disk within the bound; `behind`: the bound passed without it. */
  outcome: z.enum(['seen', 'behind', 'error']),
  polls: z.number().int().nonnegative(),
  waited_ms: z.number().nonnegative(),
  /** Transcript size in bytes when the wait ended. */
  bytes_on_disk: z.number().int().nonnegative(),
  /**
   * Ms since epoch of the wait's last look: when the look that found the record ended (`seen`: on
   * disk by then), or when the last look that read the whole transcript without it began (`behind`:
   * not on disk then; absent when no look read it all). Optional: older hooks leave it out, and a
   * `seen` wait is then bounded by `at`, when it ended.
   */
  checked_at: z.number().int().nonnegative().optional(),
  /** 1-based transcript line of the record, when seen. */
  line: z.number().int().positive().optional(),
  max_polls: z.number().int().positive().optional(),
  poll_ms: z.number().int().positive().optional(),
  error: z.string().max(500).optional(),
});

/**
 * The call's record reached disk after its PostToolUse hook had looked and not
 * found it (our hook watches for it from a detached process). `at`: when the
 * look that found it ran.
 */
export const landedEventSchema = z.object({
  ...base,
  event: z.literal('landed'),
  /** The look that found the record's line also found its result's: one write, as far as a reader can tell. */
  with_result: z.boolean(),
  /** The file watched, when it is not `transcript_path` (a subagent's own transcript). */
  record_path: z.string().min(1).max(4096).optional(),
  /** `pre`: the watcher looked from the call's fire on (the mod); absent: from PostToolUse (the hook's watcher). */
  watched_from: z.enum(['pre', 'post']).optional(),
  /** When the watcher last looked and did not find the record (ms since epoch). */
  missed_at: z.number().int().nonnegative().optional(),
  /** The call's fire time as the watcher knew it (the mod's `pre`), from which its hold is measured. */
  fired_at: z.number().int().nonnegative().optional(),
});

/**
 * A row was appended to the conversation (the mod's `session.append`): its
 * birth time, before it is written to the transcript. The row's `uuid` is the
 * same in the transcript file, so a reader joins the two on it. Not about one
 * call: no `tool_use_id` of its own.
 */
export const recordEventSchema = z.object({
  ...sessionBase,
  event: z.literal('record'),
  uuid: z.string().min(1).max(200),
  record_type: z.enum(['user', 'assistant', 'attachment', 'system']),
  /** Ids of an assistant row's tool_use blocks, or of a user row's tool_results. */
  tool_use_ids: z.array(z.string().min(1).max(200)).max(1000).optional(),
});

/**
 * What an engine (a window, `watch`) measured of a call by its own live read: the read that first
 * found the call's record (`at`: when), and whether it brought the result too (`shape`). Written by
 * the engine, once per call, so that a reload or a later window, which finds the record already on
 * disk, gives the call the lag and shape that were measured instead of none (docs/CHANNEL.md, "What
 * an engine measured"). Trusted only for the record it names: the same file (`record_path`, else
 * `transcript_path`), the same line ending at the same byte; another record there drops it.
 */
export const measuredEventSchema = z.object({
  ...base,
  event: z.literal('measured'),
  /** The call's fire time the lag was measured from (its best report then), on the clock of `at`; absent when no report gave one yet. */
  fired_at: z.number().int().nonnegative().optional(),
  /** Which report gave `fired_at` (see `transport` above). */
  transport: transport.optional(),
  /** `at - fired_at`, never below 0, when `fired_at` is known. */
  lag_ms: z.number().int().nonnegative().optional(),
  /** The read that found the record brought its result too (`with_result`), or not (`before_result`). */
  shape: z.enum(['before_result', 'with_result']),
  /** 1-based line of the record in its file. */
  line: z.number().int().positive(),
  /** Byte offset just past the record's line (its newline included). */
  byte_end: z.number().int().positive(),
  /** The file holding the record, when it is not `transcript_path` (a subagent's own transcript). */
  record_path: z.string().min(1).max(4096).optional(),
});

export const channelEventSchema = z.discriminatedUnion('event', [preEventSchema, postEventSchema, hooksEventSchema, hookRunEventSchema, waitEventSchema, landedEventSchema, recordEventSchema, measuredEventSchema]);

export type PreEvent = z.infer<typeof preEventSchema>;
export type PostEvent = z.infer<typeof postEventSchema>;
export type HooksEvent = z.infer<typeof hooksEventSchema>;
export type HookRunEvent = z.infer<typeof hookRunEventSchema>;
export type WaitEvent = z.infer<typeof waitEventSchema>;
export type LandedEvent = z.infer<typeof landedEventSchema>;
export type RecordEvent = z.infer<typeof recordEventSchema>;
export type MeasuredEvent = z.infer<typeof measuredEventSchema>;
/** The events about one call (every event but `record`). */
export type CallChannelEvent = Exclude<ChannelEvent, RecordEvent>;
export type { ChannelTransport } from '../../rules/channelConstants';
export type ChannelEvent = z.infer<typeof channelEventSchema>;
