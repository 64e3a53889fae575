/**
 * What `replay` needs to know of a transcript's lines, without holding them: for each record, where
 * it lies in the file (so a copy can end before or after it) and the few fields the live cut, the
 * hook's input and the held message are made from. A call's own input and its message's text are
 * read again from its lines when its turn comes (readCallDetail), so a transcript of many large
 * calls is never held in memory. The file is someone else's input: read through the tail (regular
 * files only), a line longer than MAX_FACTS_LINE_BYTES is stepped over, not parsed.
 */
import type { Clock } from '../../rules/clock';
import type { FileAccess } from '../fileAccess';
import { copiedFrom } from '../records';
import { FileTail } from '../tail';
import type { LineScanner } from '../tailTypes';

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
  const toolUses: ToolUseFact[] = [];
  const toolResults: string[] = [];
  let textBlocks = 0;
  const content = message?.content;
  if (Array.isArray(content)) {
    for (const b of content as Array<Record<string, unknown> | null>) {
      if (!b || typeof b !== 'object') continue;
      if (type === 'assistant' && b.type === 'text' && typeof b.text === 'string' && b.text !== '') textBlocks += 1;
      if (type === 'assistant' && b.type === 'tool_use' && typeof b.id === 'string' && b.id !== '') toolUses.push({ id: b.id, name: str(b.name) ?? '' });
      if (type === 'user' && b.type === 'tool_result' && typeof b.tool_use_id === 'string') toolResults.push(b.tool_use_id);
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
    messageId: type === 'assistant' ? str(message?.id) : undefined,
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
export class TranscriptReadError extends Error {
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
