/**
 * The tool calls `replay` runs a hook on, gathered while a transcript's lines go by
 * (./transcriptIndex.ts reads them): each call's record, the other records of its message, its result,
 * and what the hook's input says about the session when it fired (the mode, the build, the working
 * directory, the permission mode). What is kept is what the calls need, not a line's worth of every
 * line: a session of a gigabyte holds a few hundred calls among half a million lines, and replay runs
 * in VS Code's extension host too.
 */

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

/** One tool_use block of an assistant record. */
export interface ToolUseFact {
  id: string;
  name: string;
}

/** What one line says, as far as the calls are made of it (./transcriptIndex.ts reads it). */
export interface LineFacts {
  type?: string;
  uuid?: string;
  sessionId?: string;
  /** `message.id` of an assistant record: shared by every per-block record of one message. */
  messageId?: string;
  /** The record's `timestamp` (its creation time) as written. */
  timestamp?: string;
  /** `cli` (interactive) or `sdk-cli` (print mode, `claude -p`), among others. */
  entrypoint?: string;
  version?: string;
  cwd?: string;
  permissionMode?: string;
  promptId?: string;
  /** A fork's copy of its parent's record (`requestSessionId` names another session): the parent's history. */
  copied: boolean;
  /** An assistant record's tool_use blocks. */
  toolUses: readonly ToolUseFact[];
  /** A user record's tool_result blocks' ids. */
  toolResults: readonly string[];
  /** An assistant record has a text block with text (what a reviewing hook reads as the call's reason). */
  hasText: boolean;
}

/** Where a line lies: [start, end), the newline included, and its 1-based line number. */
export interface LinePlace {
  start: number;
  end: number;
  line: number;
}

/** A record kept for a call: the call's own, or another of its message. */
export interface IndexedLine extends LinePlace {
  type?: string;
  uuid?: string;
  messageId?: string;
  /** The record's `timestamp` in ms since the epoch. */
  timestampMs?: number;
  toolUses: readonly ToolUseFact[];
  hasText: boolean;
  /**
   * Where the write batch that brings the record starts, when it is the first of its message: the record,
   * or the `tools-used` lines right before it (Claude Code writes them with the message after them: ./liveCut.ts).
   */
  batchStart: number;
}

/**
 * The file that holds a call's record, as the call needs it: where the first line born after a time
 * starts (./transcriptIndex.ts keeps it, from the mod's births).
 */
export interface CallFile {
  readonly path: string;
  firstBornAfter(at: number): number | undefined;
}

export interface ReplayCall {
  toolUseId: string;
  toolName: string;
  /** The subagent whose transcript holds the call (`<session>/subagents/agent-<id>.jsonl`); absent for the session's own. */
  agentId?: string;
  /** The file that holds the call's record. */
  file: CallFile;
  record: IndexedLine;
  /**
   * The records of the call's message (every assistant record with its `message.id`) that come
   * before the call's result, in file order; the call's record among them. Only the record when it
   * has no `message.id`.
   */
  message: IndexedLine[];
  /** The first record holding the call's result, after its record. */
  result?: LinePlace;
  context: CallContext;
  /**
   * The call's message is the file's first assistant message: in interactive sessions its write races
   * the session's first flush (docs/COMPATIBILITY.md), so it is measured apart (./landingModel.ts).
   */
  opening: boolean;
}

/**
 * Records of messages that have made no call yet, held this many at most. A message's records come
 * together (Claude Code writes one per block as the message streams), so the ones a call needs from
 * before its record are among the last few; a message let go that makes a call after all has its
 * records read again (CallsOfLines.missing). A record held is ~250 bytes.
 */
export const PENDING_RECORDS = 4096;

/**
 * Every call of one transcript in file order, its lines given one by one (`add`): the first record of
 * an id wins, and a fork's copies of its parent's calls are left out (they are the parent's history:
 * no hook fired for them here).
 */
export class CallsOfLines {
  private readonly found: ReplayCall[] = [];
  /** Every tool_use id seen, copies' included. */
  private readonly seen = new Set<string>();
  /** The calls whose result has not come yet. */
  private readonly awaiting = new Map<string, ReplayCall>();
  /** The records of each message that made a call, in file order. */
  private readonly ofMessage = new Map<string, IndexedLine[]>();
  private readonly pending: PendingRecords;
  private readonly ctx: CallContext = {};
  /** The file's first assistant message, by message.id (its first record's place, when it has none). */
  private opening: string | number | undefined;
  /** Messages that made a call after some of their records were let go: their records before the first kept are to be read again (addEarlier). */
  readonly missing = new Set<string>();

  constructor(
    private readonly file: CallFile,
    private readonly agentId?: string,
    pendingRecords = PENDING_RECORDS,
  ) {
    this.pending = new PendingRecords(pendingRecords);
  }

  /** One line that parsed, in file order; `batchStart`: see IndexedLine. */
  add(facts: LineFacts, place: LinePlace, batchStart: number): void {
    for (const id of facts.toolResults) {
      const call = this.awaiting.get(id);
      if (call === undefined) continue;
      call.result = { start: place.start, end: place.end, line: place.line };
      this.awaiting.delete(id);
    }
    const ctx = this.ctx;
    ctx.sessionId = facts.sessionId ?? ctx.sessionId;
    ctx.entrypoint = facts.entrypoint ?? ctx.entrypoint;
    ctx.version = facts.version ?? ctx.version;
    ctx.cwd = facts.cwd ?? ctx.cwd;
    ctx.permissionMode = facts.permissionMode ?? ctx.permissionMode;
    if (facts.type === 'user') ctx.promptId = facts.promptId ?? ctx.promptId;
    if (this.opening === undefined && facts.type === 'assistant') this.opening = facts.messageId ?? place.start;
    let kept: IndexedLine | undefined;
    let made = false;
    for (const use of facts.toolUses) {
      if (this.seen.has(use.id)) continue;
      this.seen.add(use.id);
      if (facts.copied) continue;
      kept ??= keptLine(facts, place, batchStart);
      const call: ReplayCall = {
        toolUseId: use.id,
        toolName: use.name,
        ...(this.agentId !== undefined ? { agentId: this.agentId } : {}),
        file: this.file,
        record: kept,
        message: [],
        context: { ...ctx, promptId: facts.promptId ?? ctx.promptId },
        opening: this.opening === (facts.messageId ?? place.start),
      };
      this.found.push(call);
      this.awaiting.set(use.id, call);
      made = true;
    }
    const messageId = facts.messageId;
    if (messageId === undefined) return;
    const records = this.ofMessage.get(messageId);
    kept ??= keptLine(facts, place, batchStart);
    if (records !== undefined) records.push(kept);
    else if (!made) this.pending.add(messageId, kept);
    else {
      if (this.pending.mayHaveLetGo(messageId)) this.missing.add(messageId);
      this.ofMessage.set(messageId, [...this.pending.take(messageId), kept]);
    }
  }

  /** Where the first record kept of a message in `missing` starts: its records before it are the ones to read again. */
  firstKept(messageId: string): number {
    return this.ofMessage.get(messageId)?.[0]?.start ?? Infinity;
  }

  /** The records of a message in `missing` read again: those before its first kept, in file order. */
  addEarlier(messageId: string, earlier: readonly IndexedLine[]): void {
    const records = this.ofMessage.get(messageId);
    if (records === undefined) return;
    const first = this.firstKept(messageId);
    this.ofMessage.set(messageId, [...earlier.filter((l) => l.start < first), ...records]);
  }

  /** The calls, each with its message's records up to its result; once every line is in. */
  calls(): ReplayCall[] {
    for (const call of this.found) {
      const messageId = call.record.messageId;
      const result = call.result;
      const records = messageId === undefined ? undefined : this.ofMessage.get(messageId);
      call.message = records === undefined ? [call.record] : records.filter((l) => result === undefined || l.start < result.start);
    }
    return this.found;
  }
}

/** What is kept of a line for a call. */
export function keptLine(facts: LineFacts, place: LinePlace, batchStart: number): IndexedLine {
  const ms = facts.timestamp === undefined ? NaN : Date.parse(facts.timestamp);
  return {
    start: place.start,
    end: place.end,
    line: place.line,
    type: facts.type,
    uuid: facts.uuid,
    messageId: facts.messageId,
    timestampMs: Number.isFinite(ms) ? ms : undefined,
    toolUses: facts.toolUses,
    hasText: facts.hasText,
    batchStart,
  };
}

/** The records of messages that have made no call yet: the oldest messages let go past `cap` records, and remembered as let go. */
class PendingRecords {
  private readonly byMessage = new Map<string, IndexedLine[]>();
  private count = 0;
  private letGo: LetGo | undefined;

  constructor(private readonly cap: number) {}

  add(messageId: string, line: IndexedLine): void {
    const records = this.byMessage.get(messageId);
    if (records !== undefined) records.push(line);
    else this.byMessage.set(messageId, [line]);
    this.count += 1;
    // A Map iterates in insertion order: the first entry is the message seen first.
    while (this.count > this.cap) {
      const [oldest, lines] = this.byMessage.entries().next().value as [string, IndexedLine[]];
      this.byMessage.delete(oldest);
      this.count -= lines.length;
      (this.letGo ??= new LetGo()).add(oldest);
    }
  }

  take(messageId: string): IndexedLine[] {
    const records = this.byMessage.get(messageId);
    if (records === undefined) return [];
    this.byMessage.delete(messageId);
    this.count -= records.length;
    return records;
  }

  mayHaveLetGo(messageId: string): boolean {
    return this.letGo?.mayHave(messageId) ?? false;
  }
}

/**
 * The messages let go, as a Bloom filter of fixed size: remembering each id would cost memory by line
 * again (every turn's last message makes no call), and a false "maybe" costs only a second read of the
 * file for the call's message (exact either way). 2^23 bits (1 MiB, made at the first let go), 3 hashes:
 * after 100,000 messages let go, a call's message is taken for one about once in 23,000 calls.
 */
class LetGo {
  private readonly bits = new Int32Array(1 << 18);

  add(id: string): void {
    const [a, b, c] = hashes(id);
    this.bits[a >>> 5]! |= 1 << (a & 31);
    this.bits[b >>> 5]! |= 1 << (b & 31);
    this.bits[c >>> 5]! |= 1 << (c & 31);
  }

  mayHave(id: string): boolean {
    const [a, b, c] = hashes(id);
    return (this.bits[a >>> 5]! & (1 << (a & 31))) !== 0 && (this.bits[b >>> 5]! & (1 << (b & 31))) !== 0 && (this.bits[c >>> 5]! & (1 << (c & 31))) !== 0;
  }
}

/** Three 23-bit hashes of a string: FNV-1a and a second FNV-1a of another basis, combined (Kirsch–Mitzenmacher). */
function hashes(s: string): [number, number, number] {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
  }
  h2 |= 1;
  const mask = (1 << 23) - 1;
  return [h1 & mask, (h1 + h2) & mask, (h1 + 2 * h2) & mask];
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
