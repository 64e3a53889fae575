/**
 * The plain index replay had before issue 40 §4, kept as the reference its index is held to
 * (transcriptIndex.differential.test.ts): every line JSON.parse'd whole and its facts kept, the calls
 * grouped after the whole file is read, and the live cut's questions answered by walking the lines.
 * Its memory grows with every line (~1.5 KB a line): for tests only.
 */
import type { Clock } from '../../../../src/rules/clock';
import type { FileAccess } from '../../../../src/core/fileAccess';
import { copiedFrom } from '../../../../src/core/records';
import { FileTail } from '../../../../src/core/tail';
import type { LineScanner } from '../../../../src/core/tailTypes';
import type { CallContext } from '../../../../src/core/replay/calls';

/** Lines longer than this are not parsed (the longest seen in real transcripts is ~64 MB). */
export const MAX_FACTS_LINE_BYTES = 64 * 1024 * 1024;

/** One tool_use block of an assistant record. */
export interface ToolUseFact {
  id: string;
  name: string;
}

/** What one transcript line says, as far as replay reads it. */
export interface LineFacts {
  type?: string;
  uuid?: string;
  sessionId?: string;
  /** `message.id`: shared by every per-block record of one assistant message. */
  messageId?: string;
  /** The record's `timestamp` (its creation time), in ms since the epoch. */
  timestampMs?: number;
  /** `cli` (interactive) or `sdk-cli` (print mode, `claude -p`), among others. */
  entrypoint?: string;
  version?: string;
  cwd?: string;
  permissionMode?: string;
  agentId?: string;
  promptId?: string;
  /** A fork's copy of its parent's record (`requestSessionId` names another session): the parent's history. */
  copied: boolean;
  toolUses: ToolUseFact[];
  toolResults: string[];
  /** An assistant record's text blocks with text (what a reviewing hook reads as the call's reason). */
  textBlocks: number;
}

/** A line with facts, and where it lies: [start, end), the newline included, and its 1-based line number. */
export interface IndexedLine extends LineFacts {
  start: number;
  end: number;
  line: number;
}

export interface TranscriptIndex {
  path: string;
  /** The lines that parsed as JSON objects, in file order. */
  lines: IndexedLine[];
  /** The end of the last complete line read: a partial last line is not on disk yet. */
  end: number;
  /** Lines over MAX_FACTS_LINE_BYTES, stepped over. */
  oversizeLines: number;
  /** Lines that are not JSON objects. */
  malformedLines: number;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The facts of one line's text; undefined for a line that is not a JSON object. */
export function factsOfLine(text: string): LineFacts | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const r = v as Record<string, unknown>;
  const message = r.message && typeof r.message === 'object' ? (r.message as Record<string, unknown>) : undefined;
  const type = str(r.type);
  // Whose line it is, by the record-line rule (src/rules/recordLine.ts): its type, else its message's role.
  const owner = typeof r.type === 'string' ? r.type : message !== undefined && !Array.isArray(message) ? str(message.role) : undefined;
  const callId = (v: unknown) => (typeof v === 'string' && v !== '' && v.length <= 512 ? v : undefined);
  const toolUses: ToolUseFact[] = [];
  const toolResults: string[] = [];
  let textBlocks = 0;
  const content = message?.content;
  if (Array.isArray(content)) {
    for (const b of content as Array<Record<string, unknown> | null>) {
      if (!b || typeof b !== 'object') continue;
      if (owner === 'assistant' && b.type === 'text' && typeof b.text === 'string' && b.text !== '') textBlocks += 1;
      if (owner === 'assistant' && b.type === 'tool_use' && callId(b.id) && toolUses.length < 1000) toolUses.push({ id: b.id as string, name: str(b.name) ?? '' });
      if (owner === 'user' && b.type === 'tool_result' && callId(b.tool_use_id) && toolResults.length < 1000) toolResults.push(b.tool_use_id as string);
    }
  }
  const ts = str(r.timestamp);
  const tsMs = ts === undefined ? NaN : Date.parse(ts);
  const sessionId = str(r.sessionId);
  const requestSessionId = str(r.requestSessionId);
  const facts: LineFacts = {
    type,
    uuid: str(r.uuid),
    sessionId,
    messageId: owner === 'assistant' ? str(message?.id) : undefined,
    timestampMs: Number.isFinite(tsMs) ? tsMs : undefined,
    entrypoint: str(r.entrypoint),
    version: str(r.version),
    cwd: str(r.cwd),
    permissionMode: str(r.permissionMode),
    agentId: str(r.agentId),
    promptId: str(r.promptId),
    copied: toolUses.length > 0 && copiedFrom({ kind: 'record', toolUses, toolResults, isMetadata: false, sessionId, requestSessionId }) !== undefined,
    toolUses,
    toolResults,
    textBlocks,
  };
  return facts;
}

type Scanned = { kind: 'facts'; facts: LineFacts } | { kind: 'oversize' } | { kind: 'malformed' };

/** Gathers a line's bytes up to the bound, then parses it. */
class FactsScanner implements LineScanner<Scanned> {
  private chunks: Buffer[] = [];
  private bytes = 0;
  private over = false;

  push(chunk: Buffer): void {
    if (this.over) return;
    if (this.bytes + chunk.length > MAX_FACTS_LINE_BYTES) {
      this.over = true;
      this.chunks = [];
      return;
    }
    this.chunks.push(Buffer.from(chunk));
    this.bytes += chunk.length;
  }

  finish(): Scanned {
    const over = this.over;
    const text = over ? '' : Buffer.concat(this.chunks, this.bytes).toString('utf8');
    this.reset();
    if (over) return { kind: 'oversize' };
    const facts = factsOfLine(text);
    return facts === undefined ? { kind: 'malformed' } : { kind: 'facts', facts };
  }

  reset(): void {
    this.chunks = [];
    this.bytes = 0;
    this.over = false;
  }
}

/** The transcript cannot be read as one (missing, not a regular file, replaced while read). */
class TranscriptReadError extends Error {
  override name = 'TranscriptReadError';
}

/** Indexes the complete lines of a transcript as it is now, streaming. */
export async function indexTranscript(path: string, files: FileAccess, clock: Clock): Promise<TranscriptIndex> {
  const st = await files.stat(path);
  if (st === undefined) throw new TranscriptReadError(`${path}: no such file`);
  if (!st.isFile) throw new TranscriptReadError(`${path}: not a regular file`);
  const index: TranscriptIndex = { path, lines: [], end: 0, oversizeLines: 0, malformedLines: 0 };
  const tail = new FileTail<Scanned>({
    path,
    files,
    clock,
    scanner: new FactsScanner(),
    maxBytesPerRead: 64 * 1024 * 1024,
    onLine: (line) => {
      index.end = line.byteEnd;
      if (line.scan.kind === 'oversize') index.oversizeLines += 1;
      else if (line.scan.kind === 'malformed') index.malformedLines += 1;
      else index.lines.push({ ...line.scan.facts, start: line.byteStart, end: line.byteEnd, line: line.line });
    },
  });
  try {
    for (;;) {
      const read = await tail.read(st.size);
      const change = read.changes[0];
      if (change !== undefined) throw new TranscriptReadError(`${path}: ${change.kind}${change.detail ? ` (${change.detail})` : ''} while it was read`);
      if (!read.more) break;
    }
  } finally {
    await tail.close();
  }
  return index;
}

export interface PlainCall {
  toolUseId: string;
  toolName: string;
  agentId?: string;
  file: TranscriptIndex;
  record: IndexedLine;
  message: IndexedLine[];
  result?: IndexedLine;
  context: CallContext;
  opening: boolean;
}

/**
 * Every call of one transcript in file order: the first record of an id wins, and a fork's copies of
 * its parent's calls are left out (they are the parent's history: no hook fired for them here).
 */
export function callsOf(index: TranscriptIndex, agentId?: string): PlainCall[] {
  const calls: PlainCall[] = [];
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

/** Lines Claude Code writes in the same batch as the message after them. */
const WRITTEN_WITH_THE_MESSAGE = new Set(['tools-used']);

/** Where the batch that brings the call's message starts: its first record, and the lines written with it before it. */
export function batchStart(call: PlainCall): number {
  const first = call.message[0] ?? call.record;
  const lines = call.file.lines;
  let i = lines.indexOf(first);
  let start = first.start;
  while (i > 0 && WRITTEN_WITH_THE_MESSAGE.has(lines[i - 1]!.type ?? '') && lines[i - 1]!.end === start) {
    i -= 1;
    start = lines[i]!.start;
  }
  return start;
}

/** The first line of the file born after `firedAt`, by the mod's `record` events. */
export function firstBornAfter(file: TranscriptIndex, births: ReadonlyMap<string, number>, firedAt: number): IndexedLine | undefined {
  for (const line of file.lines) {
    const born = line.uuid === undefined ? undefined : births.get(line.uuid);
    if (born !== undefined && born > firedAt) return line;
  }
  return undefined;
}

/** How much of the session's file a subagent's call made at `at` sees: up to its first line created later. */
export function mainCutForSubagentCall(main: TranscriptIndex, at: number | undefined): number {
  if (at === undefined) return main.end;
  for (const line of main.lines) if (line.timestampMs !== undefined && line.timestampMs > at) return line.start;
  return main.end;
}
