import { channelEventHead } from '../rules/channelEvent';
import { HOOK_SOURCE, MAX_ID_LENGTH, MAX_PATH_LENGTH } from '../rules/channelConstants';
import { appendChannelLine } from '../rules/channelWriter';
import type { LandingJob } from './landingProcess';
import { checkOnDisk, recordFileOf } from '../rules/onDiskCheck';
import type { HookInput } from '../rules/stdin';

/**
 * One PreToolUse / PostToolUse reported to the channel, with what was on disk
 * for the call: shared by the command hook (./main.ts) and the HTTP receiver
 * (src/platform/hookReceiver.ts), so both transports write the same events.
 */
export interface ReportOptions {
  channelDir: string;
  /** When the hook fired: the process start for a command hook, the request's arrival for http. */
  firedAt: number;
  mode: 'announce' | 'probe';
  transport: 'command' | 'http';
  timeoutMs?: number;
  now: () => number;
  /** Watches a record not on disk at PostToolUse land (a detached process, or the receiver itself). */
  watchLanding: (job: LandingJob) => void;
}

export interface ReportedCall {
  event: 'pre' | 'post';
  /** The line reached the channel. */
  written: boolean;
  base: CallFields;
  /** `head` of further events about the call (the probe's wait). */
  head: (event: 'wait', at: number) => Record<string, unknown>;
}

interface CallFields {
  session_id: string;
  transcript_path: string;
  tool_use_id: string;
}

/** An id-like optional field, left out when it would not pass the channel schema. */
function optional(value: string | undefined): string | undefined {
  return value && value.length <= MAX_ID_LENGTH ? value : undefined;
}

/** The fields every event carries, or undefined when the input cannot make a valid event. */
function baseFields(input: HookInput): CallFields | undefined {
  const { session_id, transcript_path, tool_use_id } = input;
  if (!session_id || !transcript_path || !tool_use_id) return undefined;
  if (session_id.length > MAX_ID_LENGTH || tool_use_id.length > MAX_ID_LENGTH) return undefined;
  if (transcript_path.length > MAX_PATH_LENGTH) return undefined;
  return { session_id, transcript_path, tool_use_id };
}

export function reportCall(input: HookInput, opts: ReportOptions): ReportedCall | undefined {
  const hookEvent = input.hook_event_name;
  const isPost = hookEvent === 'PostToolUse' || hookEvent === 'PostToolUseFailure';
  if (!isPost && hookEvent !== 'PreToolUse') return undefined;
  const base = baseFields(input);
  if (!base) return undefined;
  // Key order (v, event, at first) only serves people reading the file.
  const head = <E extends string>(event: E, at: number) => ({
    ...channelEventHead(event, at, base.session_id, base.transcript_path),
    ...base,
    tool_name: optional(input.tool_name),
    agent_id: optional(input.agent_id),
  });
  // What was on disk for this call while its hook ran: lets a reader that was not watching prove the
  // call's shape later (docs/CHANNEL.md, "After the fact"). Checked before the line is appended, so `checked_at`
  // precedes the moment a watcher can see the event.
  const recordPath = recordFileOf(base.transcript_path, base.session_id, optional(input.agent_id));
  const found = recordPath === undefined ? undefined : checkOnDisk(recordPath, base.tool_use_id);
  const { complete_bytes: completeBytes, ...seen } = found ?? { complete_bytes: 0 };
  const evidence = found && {
    ...seen,
    checked_at: opts.now(),
    ...(recordPath !== base.transcript_path && recordPath !== undefined && recordPath.length <= MAX_PATH_LENGTH ? { record_path: recordPath } : {}),
  };
  if (isPost) {
    const written = appendChannelLine(opts.channelDir, base.session_id, { ...head('post', opts.firedAt), ...evidence, source: HOOK_SOURCE });
    // Neither record nor result on disk yet: whether the record lands with its result is decided after
    // this hook returns (Claude Code appends the result once PostToolUse hooks have run): watch for it
    // without making Claude Code wait.
    if (written && recordPath !== undefined && found?.record_on_disk === false && found.result_on_disk === false) {
      opts.watchLanding({ ...head('landed', 0), record_path: recordPath, from_byte: completeBytes, channel_dir: opts.channelDir });
    }
    return { event: 'post', written, base, head };
  }
  const written = appendChannelLine(opts.channelDir, base.session_id, {
    ...head('pre', opts.firedAt),
    ...evidence,
    prompt_id: optional(input.prompt_id),
    mode: opts.mode,
    ...(opts.transport === 'http' ? { transport: 'http' } : {}),
    timeout_ms: opts.timeoutMs,
    source: HOOK_SOURCE,
  });
  return { event: 'pre', written, base, head };
}
