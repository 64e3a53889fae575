import type { ChannelTransport, HookRunDecision, HooksDecision } from '../rules/channelConstants';
import type { TailChangeKind } from './tailTypes';
import type { PerCallFields } from './records';
import type { CallShape } from './callShape';
import type { SessionStats } from './sessionStats';
import type { HeldBounds } from '../rules/hookEvidence';

/**
 * What the engine tells its views (and `watch --json`). Views never read files:
 * everything they show comes from these events and the snapshots built from them.
 * Field names are snake_case because they are the CLI's JSON contract.
 */
interface CallEventBase {
  session_id: string;
  tool_use_id: string;
  tool_name?: string;
  /** Ms since epoch. */
  at: number;
  transcript_path: string;
  agent_id?: string;
}

/** A PreToolUse fired and the call's record is not on disk yet. `at` = hook fired. */
export interface HeldEvent extends CallEventBase {
  event: 'held';
  /** How the call was reported: a command hook process, an http hook, or the in-process mod (preferred when several did). */
  transport?: ChannelTransport;
  timeout_ms?: number;
}

/** The call's tool_use record was observed on disk. `at` = observed. Emitted for every tool_use record, hook or not. */
export interface WrittenEvent extends CallEventBase {
  event: 'written';
  /** How the call was reported (as on `held`); absent without a hook event. */
  transport?: ChannelTransport;
  line: number;
  generation: number;
  /** The record's own timestamp (creation time), ms since epoch; null when absent. */
  record_at: number | null;
  /** When the PreToolUse fired; null without a hook event. */
  fired_at: number | null;
  /**
   * Observed minus fired, never below 0; null without a hook event, and when a look of the call's own
   * hooks had found the record on disk before this read (the read came late): `lag_bounds` then.
   */
  lag_ms: number | null;
  /** With `lag_ms` null: the hold the looks of the call's own hooks prove. */
  lag_bounds?: HeldBounds;
  /** This read brought the record and its tool_result in one batch (what the engine saw; the call's shape is `shape`). */
  with_result: boolean;
  /** The call's write shape, told by the record's first sighting (this read, or an earlier look of its hooks). */
  shape: CallShape;
  message_id?: string;
  block_index?: number;
  batch_first_line: number;
  batch_last_line: number;
  /** Ms the record's line sat on disk without its newline (half a record); absent when it arrived whole. */
  partial_dwell_ms?: number;
  /** The Claude Code version that wrote the record, when it says. */
  claude_version?: string;
  /** The record's per-call fields by key (src/core/scanner/fieldTable.ts, `perCall`): `{}` when it holds none. */
  record: PerCallFields;
  /**
   * Its settings PreToolUse hooks' time, as the mod timed them, when its `hooks` event was said before
   * (the figure final): the same figure. Else none here; the `hooks` event follows.
   */
  hooks_ms?: number;
  /** How they decided, when they did. */
  hooks_decision?: HooksDecision;
}

/** A hook event arrived after the call's record had been written: the call's lag, learned late. */
export interface JoinedEvent extends CallEventBase {
  event: 'joined';
  fired_at: number;
  lag_ms: number;
  /** Who reported the call's fire time (the best report: the mod's when it reported). */
  transport?: ChannelTransport;
}

/**
 * A look of the call's own hooks (the mod's, the landing watcher's, a pre or post hook's) turned out to
 * have found the record on disk before the engine read it: that read came late (a window busy longer
 * than the looks' interval), so its `written` lag overstated the hold. The call's lag is now the
 * looks' bound and its shape theirs, as the mod's row and the status line give them. At most a few a
 * call (a better look); never for a call whose read came first.
 */
export interface RevisedEvent extends CallEventBase {
  event: 'revised';
  /** When the PreToolUse fired; null without a hook event. */
  fired_at: number | null;
  /** The hold the looks prove; null without a fire time. */
  lag_bounds: HeldBounds | null;
  shape: CallShape;
}

/** The call's tool_result record was observed. `at` = observed. */
export interface ResultEvent extends CallEventBase {
  event: 'result';
  line: number;
  with_result: boolean;
}

/** A probe (ours or another hook's) reported how its wait for the call ended. */
export interface WaitOutcomeEvent extends CallEventBase {
  event: 'wait';
  outcome: 'seen' | 'behind' | 'error';
  polls: number;
  waited_ms: number;
  bytes_on_disk: number;
  source?: string;
  /** The Claude Code version of the call's record, else of the session's latest call record; absent while unknown. */
  claude_version?: string;
}

/**
 * The call's settings PreToolUse hooks settled, as the mod timed them (around `classic.PreToolUse`'s
 * `next`): the call's one figure (canonicalHooks' choice of the mod's reports), once per call, when it
 * is final: both the mod's reports of it read (its `hooks` event and its `post`, in either order), or
 * the call leaving memory with one. Again only should a further report change it (another copy of the
 * mod). `at` = when they settled.
 */
export interface HooksSettledEvent extends CallEventBase {
  event: 'hooks';
  hooks_ms: number;
  hooks_decision?: HooksDecision;
}

/**
 * One wrapped PreToolUse hook of the call ran (`transcript-lag complete`'s `hook_run` channel event):
 * once per run read, its fields as the channel gives them. `at` = when the hook exited.
 */
export interface HookRanEvent extends CallEventBase {
  event: 'hook_run';
  hook: string;
  ms: number;
  decision?: HookRunDecision;
  exit_code: number | null;
  signal?: string;
  completed: boolean;
}

/** PostToolUse fired. */
export interface PostToolUseEvent extends CallEventBase {
  event: 'post';
}

/** The transcript file changed under the tail: truncated, replaced, deleted, re-created. */
export interface TailChangeEvent {
  event: 'tail';
  session_id: string;
  transcript_path: string;
  at: number;
  change: TailChangeKind;
  generation: number;
}

/**
 * A read left bytes after the file's last newline: half a record sits on disk.
 * Once per partial line; `at` = the read that first saw it. Its `written` (if it
 * holds a call) says how long it sat partial.
 */
export interface PartialEvent {
  event: 'partial';
  session_id: string;
  transcript_path: string;
  at: number;
  generation: number;
  /** 1-based number the line will have once its newline lands. */
  line: number;
  /** Bytes of it on disk so far. */
  bytes: number;
}

/**
 * A transcript record with a `uuid` was observed on disk (live lines only, a
 * call's or not: text and thinking records too). `at` = `written_at`.
 */
export interface RecordWrittenEvent {
  event: 'record';
  session_id: string;
  /** The file it is in (a subagent's own transcript for its records). */
  transcript_path: string;
  at: number;
  agent_id?: string;
  uuid: string;
  /** The record's `type` ("user", "assistant", "attachment", "system", …); null when it has none. */
  type: string | null;
  line: number;
  /** When the record was born: the mod's `record` event for the uuid when the channel had it, else the record's own `timestamp`; null with neither. */
  born_at: number | null;
  born_from: 'mod' | 'timestamp' | null;
  /** When the tail read the line (as `written.at` for a call). */
  written_at: number;
  /** written_at − born_at, never below 0; null without born_at. */
  lag_ms: number | null;
}

/** A session started being followed, or its title/stats changed. */
export interface SessionEvent {
  event: 'session';
  session_id: string;
  transcript_path: string;
  at: number;
  title?: string;
  cwd?: string;
  stats: SessionStats;
}

export type EngineEvent =
  | HeldEvent
  | WrittenEvent
  | JoinedEvent
  | RevisedEvent
  | ResultEvent
  | WaitOutcomeEvent
  | PostToolUseEvent
  | HooksSettledEvent
  | HookRanEvent
  | TailChangeEvent
  | PartialEvent
  | RecordWrittenEvent
  | SessionEvent;

/** Each EngineEvent's name, once: a Record over the union, so the compiler refuses a name missing or one too many. */
const engineEventNames: Record<EngineEvent['event'], true> = {
  held: true,
  written: true,
  joined: true,
  revised: true,
  result: true,
  wait: true,
  post: true,
  hooks: true,
  hook_run: true,
  tail: true,
  partial: true,
  record: true,
  session: true,
};

/** The names `watch --json` prints besides its own first line, `ready` (the docs test holds the docs to them). */
export const ENGINE_EVENT_NAMES = Object.keys(engineEventNames) as readonly EngineEvent['event'][];
