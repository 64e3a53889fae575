/**
 * What the record scanner keeps of one transcript line: only what the engine
 * needs, never the content of messages or tool results.
 */
export interface ToolUseRef {
  id: string;
  name: string;
}

/** Record types Claude Code appends as a per-batch trailer or as session metadata. */
export const METADATA_TYPES: ReadonlySet<string> = new Set([
  'last-prompt',
  'ai-title',
  'custom-title',
  'summary',
  'mode',
  'permission-mode',
  'atis-latch',
  'tools-used',
  'cost-state',
  'file-history-snapshot',
  'api-request',
  'api-request-shape',
  'api-request-blob',
]);

/** A value of a per-call field (src/core/scanner/fieldTable.ts, `perCall`). */
export type PerCallValue = string | number | boolean;

/**
 * A call's record's per-call fields by key, as the field table declares them (`perCall`): what `record` holds on
 * analyze's calls, `written` events and call snapshots. Keys the record lacks (or holds as another JSON type) are absent.
 */
export type PerCallFields = Readonly<Record<string, PerCallValue>>;

/** The per-call fields of a record with none: one frozen object, shared. */
export const NO_PER_CALL: PerCallFields = Object.freeze({});

export interface ScannedRecord {
  kind: 'record';
  type?: string;
  /** The record's `uuid` (capped); the mod's `record` events name rows by it. */
  uuid?: string;
  /**
   * The record's own `timestamp`: its creation time, not when it reached disk.
   * Kept on records with a uuid or with tool uses. The other fields of a call's context (`isSidechain`, `agentId`,
   * `messageId`, `apiBlockIndex`, `stopReason`, `requestSessionId`, `version`) are kept only on records with
   * tool uses, where they are read.
   */
  timestamp?: string;
  sessionId?: string;
  /**
   * `requestSessionId`: the session whose API request made the message. Seen (2.1.332)
   * only on the assistant records a forked session (`--resume <id> --fork-session`)
   * copies from its parent, with the parent's id; call context.
   */
  requestSessionId?: string;
  /** The Claude Code version that wrote the record (`"version":"2.1.332"`); call context. */
  version?: string;
  cwd?: string;
  /** `gitBranch`: the git branch of the session's working tree as Claude Code wrote it in the record. */
  gitBranch?: string;
  isSidechain?: boolean;
  agentId?: string;
  /** `message.id`: shared by every per-block record of one assistant message. */
  messageId?: string;
  apiBlockIndex?: number;
  /** `message.stop_reason`; null while the message was still streaming. */
  stopReason?: string | null;
  /** The field table's per-call fields of a record with tool uses, when it holds any; call context. */
  perCall?: PerCallFields;
  toolUses: ToolUseRef[];
  /** `tool_use_id` of every tool_result block in `message.content`. */
  toolResults: string[];
  /** True for `type` in METADATA_TYPES. */
  isMetadata: boolean;
  /** `aiTitle` of an ai-title record, `customTitle` of custom-title. */
  title?: string;
  /** `lastPrompt` of a last-prompt record, or the text of a human user prompt (first 200 chars). */
  prompt?: string;
}

export interface MalformedLine {
  kind: 'malformed';
  /** Short, for logs: "not JSON", "not an object", "truncated", "invalid UTF-8"… */
  reason: string;
}

export type ScanResult = ScannedRecord | MalformedLine;

/**
 * The session a record with tool uses was copied from, when it names one other
 * than its own `sessionId`: a fork's copy of its parent's conversation, whose
 * calls are the parent's history, not calls of the fork. A record that does
 * not name both is no proven copy.
 */
export function copiedFrom(rec: ScannedRecord): string | undefined {
  const origin = rec.requestSessionId;
  return origin !== undefined && rec.sessionId !== undefined && origin !== rec.sessionId ? origin : undefined;
}
