import { z } from 'zod';
import { CHANNEL_SCHEMA_VERSION } from './constants';

/**
 * The hook channel: one JSONL file per session under `<claude dir>/transcript-lag/`.
 * Our hook writes it; other hooks may append `wait` events of their own (see
 * schema/channel-event.schema.json, generated from this file). Field names are
 * snake_case like Claude Code's hook input.
 */
// Defined in ./constants (zod-free, so the bundled hook can share it); re-exported here unchanged.
export { CHANNEL_SCHEMA_VERSION };

const base = {
  /** Schema version. Readers skip versions they do not know. */
  v: z.literal(CHANNEL_SCHEMA_VERSION),
  /** Ms since epoch when the event happened (for `pre`, when the hook was fired). */
  at: z.number().int().nonnegative(),
  session_id: z.string().min(1).max(200),
  transcript_path: z.string().min(1).max(4096),
  tool_use_id: z.string().min(1).max(200),
  tool_name: z.string().max(200).optional(),
  agent_id: z.string().max(200).optional(),
  /** Who wrote the event: "transcript-lag-hook", or another hook's own name. */
  source: z.string().max(200).optional(),
};

/**
 * What was on disk for the call while its hook ran (pre and post events,
 * optional: older hooks and other writers leave it out). A reader that was
 * not watching proves a call's write shape from it (README, "The channel").
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
  /** How the hook reached us: a `command` hook process (the default when absent) or an `http` hook. */
  transport: z.enum(['command', 'http']).optional(),
  /** Hook timeout in ms, when known: views warn as a hold nears it. */
  timeout_ms: z.number().int().positive().optional(),
});

export const postEventSchema = z.object({
  ...base,
  ...onDisk,
  event: z.literal('post'),
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
});

export const channelEventSchema = z.discriminatedUnion('event', [preEventSchema, postEventSchema, waitEventSchema, landedEventSchema]);

export type PreEvent = z.infer<typeof preEventSchema>;
export type PostEvent = z.infer<typeof postEventSchema>;
export type WaitEvent = z.infer<typeof waitEventSchema>;
export type LandedEvent = z.infer<typeof landedEventSchema>;
export type ChannelEvent = z.infer<typeof channelEventSchema>;
