/**
 * The tool calls `replay` runs a hook on, from a transcript's index: each call's record, the other
 * records of its message, its result, and what the hook's input says about the session when it
 * fired (the mode, the build, the working directory, the permission mode).
 */
import type { IndexedLine, TranscriptIndex } from './transcriptIndex';

/** What the session was when the call was made: from the call's own record, else the records before it. */
export interface CallContext {
  sessionId?: string;
  /** `cli`: interactive; `sdk-cli`: print mode (`claude -p`). */
  entrypoint?: string;
  version?: string;
  cwd?: string;
  permissionMode?: string;
  promptId?: string;
}

export interface ReplayCall {
  toolUseId: string;
  toolName: string;
  /** The subagent whose transcript holds the call (`<session>/subagents/agent-<id>.jsonl`); absent for the session's own. */
  agentId?: string;
  /** The file that holds the call's record. */
  file: TranscriptIndex;
  record: IndexedLine;
  /**
   * The records of the call's message (every assistant record with its `message.id`) that come
   * before the call's result, in file order; the call's record among them. Only the record when it
   * has no `message.id`.
   */
  message: IndexedLine[];
  /** The first record holding the call's result, after its record. */
  result?: IndexedLine;
  context: CallContext;
  /**
   * The call's message is the file's first assistant message: in interactive sessions its write races
   * the session's first flush (docs/COMPATIBILITY.md), so it is measured apart (./landingModel.ts).
   */
  opening: boolean;
}

/**
 * Every call of one transcript in file order: the first record of an id wins, and a fork's copies of
 * its parent's calls are left out (they are the parent's history: no hook fired for them here).
 */
export function callsOf(index: TranscriptIndex, agentId?: string): ReplayCall[] {
  const calls: ReplayCall[] = [];
  const seen = new Set<string>();
  const byMessage = new Map<string, IndexedLine[]>();
  const results = new Map<string, IndexedLine[]>();
  const ctx: CallContext = {};
  // The first assistant message of the file, by message.id (its first record's, when it has none).
  let openingMessage: string | IndexedLine | undefined;
  for (const line of index.lines) {
    if (openingMessage === undefined && line.type === 'assistant') openingMessage = line.messageId ?? line;
    if (line.messageId !== undefined) {
      const list = byMessage.get(line.messageId);
      if (list) list.push(line);
      else byMessage.set(line.messageId, [line]);
    }
    for (const id of line.toolResults) {
      const list = results.get(id);
      if (list) list.push(line);
      else results.set(id, [line]);
    }
    ctx.sessionId = line.sessionId ?? ctx.sessionId;
    ctx.entrypoint = line.entrypoint ?? ctx.entrypoint;
    ctx.version = line.version ?? ctx.version;
    ctx.cwd = line.cwd ?? ctx.cwd;
    ctx.permissionMode = line.permissionMode ?? ctx.permissionMode;
    if (line.type === 'user') ctx.promptId = line.promptId ?? ctx.promptId;
    if (line.copied) {
      for (const use of line.toolUses) seen.add(use.id);
      continue;
    }
    for (const use of line.toolUses) {
      if (seen.has(use.id)) continue;
      seen.add(use.id);
      calls.push({
        toolUseId: use.id,
        toolName: use.name,
        ...(agentId !== undefined ? { agentId } : {}),
        file: index,
        record: line,
        message: [],
        context: { ...ctx, promptId: line.promptId ?? ctx.promptId },
        opening: openingMessage === (line.messageId ?? line),
      });
    }
  }
  for (const call of calls) {
    call.result = results.get(call.toolUseId)?.find((l) => l.start >= call.record.end);
    const before = (l: IndexedLine) => call.result === undefined || l.start < call.result.start;
    const messageId = call.record.messageId;
    call.message = messageId === undefined ? [call.record] : (byMessage.get(messageId) ?? [call.record]).filter(before);
  }
  return calls;
}

/** Version parts of `2.1.332`; undefined for anything else. */
export function versionParts(version: string | undefined): number[] | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version ?? '');
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

/** `version` is `since` or later. */
export function versionAtLeast(version: string | undefined, since: readonly [number, number, number]): boolean {
  const v = versionParts(version);
  if (v === undefined) return false;
  for (let i = 0; i < 3; i++) if (v[i] !== since[i]) return v[i]! > since[i]!;
  return true;
}
