/**
 * What `replay` needs to know of a transcript, read in one pass and kept by call, not by line: the
 * calls (./calls.ts: each call's record and its message's records, where each lies, so a copy can end
 * before or after them; its result; the session as it was), the first working directory, and the
 * answers the live cut asks of the file's lines (./liveCut.ts: the first line born after a fire, by the
 * mod's births; the first line created after a time, for a subagent's call). A call's own input and its
 * message's text are read again from its lines when its turn comes (./hookInput.ts callDetailOf).
 *
 * The file is someone else's input: read through the tail (regular files only) by the record scanner
 * (src/core/scanner/: a line of up to 16 KiB parsed whole, a longer one streamed in bounded memory), a
 * line longer than MAX_FACTS_LINE_BYTES stepped over: its call's detail would be parsed whole.
 */
import type { Clock } from '../../rules/clock';
import type { FileAccess } from '../fileAccess';
import { copiedFrom, type MalformedLine } from '../records';
import { FieldScanner } from '../scanner';
import type { CapturedFields } from '../scanner/fields';
import { FileTail } from '../tail';
import type { TailLine } from '../tailTypes';
import { CallsOfLines, keptLine, type IndexedLine, type LineFacts, type LinePlace, type ReplayCall, type ToolUseFact } from './calls';
import { LaterThan, RisingSteps } from './firstLater';

/** Lines longer than this are not read (the longest seen in real transcripts is ~64 MB). */
export const MAX_FACTS_LINE_BYTES = 64 * 1024 * 1024;
/** Bytes a read of the whole file takes at a time (lines are handed on as read: nothing of them is held). */
const READ_BYTES = 64 * 1024 * 1024;
/** Bytes a read takes while looking for the session's id, which its first lines name. */
const HEAD_READ_BYTES = 1024 * 1024;

export interface IndexOptions {
  /** The subagent whose transcript it is. */
  agentId?: string;
  /** The mod's record births by uuid (./channelEvidence.ts): firstBornAfter answers from them. */
  births?: ReadonlyMap<string, number>;
  /** The times firstCreatedAfter is asked for (the subagents' calls' records', of the session's own file). */
  createdAfter?: readonly number[];
  /** Records of messages with no call yet held at most (default PENDING_RECORDS of ./calls.ts). */
  pendingRecords?: number;
}

export class TranscriptIndex {
  /** The end of the last complete line read: a partial last line is not on disk yet. */
  end = 0;
  /** Lines over MAX_FACTS_LINE_BYTES, stepped over. */
  oversizeLines = 0;
  /** Lines that are not JSON objects. */
  malformedLines = 0;
  /** The calls, in file order. */
  calls: ReplayCall[] = [];
  /** The `cwd` of the first record that names one. */
  firstCwd: string | undefined;

  constructor(
    readonly path: string,
    /** The lines with a birth that raise the latest birth so far. */
    private readonly born: RisingSteps,
    /** The questions of firstCreatedAfter, answered as the lines went by. */
    private readonly created: LaterThan,
  ) {}

  /** Where the first line born after `at` (the mod's births) starts; undefined when none was. */
  firstBornAfter(at: number): number | undefined {
    return this.born.firstLaterThan(at);
  }

  /** Where the first line created after `at` (its `timestamp`) starts, `at` one of IndexOptions.createdAfter; undefined when none was. */
  firstCreatedAfter(at: number): number | undefined {
    return this.created.firstLaterThan(at);
  }
}

const NO_USES: readonly ToolUseFact[] = Object.freeze([]);
const NO_RESULTS: readonly string[] = Object.freeze([]);

/** The facts of a line's kept fields, as replay reads them: its calls and results as the scanner gives them (by the record-line rule, src/rules/recordLine.ts), the message and text of an assistant's line. */
export function factsOf(f: CapturedFields): LineFacts {
  const type = f.type;
  const assistant = (type ?? f.role) === 'assistant';
  const toolUses: readonly ToolUseFact[] = f.toolUses.length > 0 ? f.toolUses : NO_USES;
  const toolResults = f.toolResults.length > 0 ? f.toolResults : NO_RESULTS;
  return {
    type,
    uuid: f.uuid,
    sessionId: f.sessionId,
    messageId: assistant ? f.messageId : undefined,
    timestamp: f.timestamp,
    entrypoint: f.entrypoint,
    version: f.version,
    cwd: f.cwd,
    permissionMode: f.permissionMode,
    promptId: f.promptId,
    copied: toolUses.length > 0 && copiedFrom({ kind: 'record', toolUses: [...toolUses], toolResults: [], isMetadata: false, sessionId: f.sessionId, requestSessionId: f.requestSessionId }) !== undefined,
    toolUses,
    toolResults,
    hasText: assistant && f.hasText,
  };
}

const OVERSIZE = { kind: 'oversize' } as const;
type Scanned = CapturedFields | MalformedLine | typeof OVERSIZE;

/** The record scanner, up to a line's kept fields; a line past MAX_FACTS_LINE_BYTES is counted, not scanned. Exported for the record-line rule's test. */
export class FactsScanner extends FieldScanner<CapturedFields | typeof OVERSIZE> {
  private bytes = 0;
  private over = false;

  protected fromFields(fields: CapturedFields): CapturedFields {
    return fields;
  }

  override push(chunk: Buffer): void {
    if (this.over) return;
    this.bytes += chunk.length;
    if (this.bytes > MAX_FACTS_LINE_BYTES) {
      this.over = true;
      super.reset();
      return;
    }
    super.push(chunk);
  }

  override finish(): Scanned {
    const over = this.over;
    this.bytes = 0;
    this.over = false;
    return over ? OVERSIZE : super.finish();
  }

  override finishLine(chunk: Buffer, start: number, end: number): Scanned {
    if (this.bytes === 0 && end - start <= MAX_FACTS_LINE_BYTES) return super.finishLine(chunk, start, end);
    if (end > start) this.push(chunk.subarray(start, end));
    return this.finish();
  }

  override reset(): void {
    this.bytes = 0;
    this.over = false;
    super.reset();
  }
}

/** The transcript cannot be read as one (missing, not a regular file, replaced while read). */
export class TranscriptReadError extends Error {
  override name = 'TranscriptReadError';
}

/**
 * Each complete line of the file as it is now, to `onLine` (a line's object is reused for the next:
 * read it during the call); `stop`, asked after each read of `readBytes`, ends it early. The end of the
 * last line read.
 */
async function eachLine(path: string, files: FileAccess, clock: Clock, readBytes: number, onLine: (line: TailLine<Scanned>) => void, stop?: () => boolean): Promise<number> {
  const st = await files.stat(path);
  if (st === undefined) throw new TranscriptReadError(`${path}: no such file`);
  if (!st.isFile) throw new TranscriptReadError(`${path}: not a regular file`);
  let end = 0;
  const tail = new FileTail<Scanned>({
    path,
    files,
    clock,
    scanner: new FactsScanner(),
    maxBytesPerRead: readBytes,
    onLine: (line) => {
      end = line.byteEnd;
      onLine(line);
    },
  });
  try {
    for (;;) {
      const read = await tail.read(st.size);
      const change = read.changes[0];
      if (change !== undefined) throw new TranscriptReadError(`${path}: ${change.kind}${change.detail ? ` (${change.detail})` : ''} while it was read`);
      if (!read.more || stop?.()) break;
    }
  } finally {
    await tail.close();
  }
  return end;
}

function isFields(scan: Scanned): scan is CapturedFields {
  return (scan as { kind?: string }).kind === undefined;
}

/**
 * The session id of the first record that names one `accepted`; reads no further than that record
 * (the first few lines, as a rule), so the session's channel can be read before its transcript is
 * indexed (replaySession: the births it holds are what firstBornAfter answers from).
 */
export async function firstSessionId(path: string, files: FileAccess, clock: Clock, accepted: (id: string) => boolean): Promise<string | undefined> {
  let found: string | undefined;
  await eachLine(
    path,
    files,
    clock,
    HEAD_READ_BYTES,
    (line) => {
      if (found === undefined && isFields(line.scan) && line.scan.sessionId !== undefined && accepted(line.scan.sessionId)) found = line.scan.sessionId;
    },
    () => found !== undefined,
  );
  return found;
}

/**
 * Where the write batch that brings each line starts when it is the first of its message: the line,
 * or the `tools-used` lines right before it, without a line between (measured: test/field/recordings,
 * Claude Code writes them with the message after them); a line that is no record breaks the run.
 */
class BatchStarts {
  private prevType: string | undefined;
  private prevEnd = -1;
  private prevBatchStart = 0;

  of(type: string | undefined, place: LinePlace): number {
    const start = this.prevType === 'tools-used' && this.prevEnd === place.start ? this.prevBatchStart : place.start;
    this.prevType = type;
    this.prevEnd = place.end;
    this.prevBatchStart = start;
    return start;
  }
}

/** Indexes the complete lines of a transcript as it is now, streaming (see the file's comment). */
export async function indexTranscript(path: string, files: FileAccess, clock: Clock, opts: IndexOptions = {}): Promise<TranscriptIndex> {
  const born = new RisingSteps();
  const created = new LaterThan(opts.createdAfter ?? []);
  const index = new TranscriptIndex(path, born, created);
  const calls = new CallsOfLines(index, opts.agentId, opts.pendingRecords);
  const births = opts.births !== undefined && opts.births.size > 0 ? opts.births : undefined;
  const batches = new BatchStarts();
  const place: LinePlace = { start: 0, end: 0, line: 0 };
  index.end = await eachLine(path, files, clock, READ_BYTES, (line) => {
    const scan = line.scan;
    if (!isFields(scan)) {
      if (scan.kind === 'oversize') index.oversizeLines += 1;
      else index.malformedLines += 1;
      return;
    }
    const facts = factsOf(scan);
    place.start = line.byteStart;
    place.end = line.byteEnd;
    place.line = line.line;
    const batchStart = batches.of(facts.type, place);
    if (index.firstCwd === undefined) index.firstCwd = facts.cwd;
    if (births !== undefined && facts.uuid !== undefined) {
      const at = births.get(facts.uuid);
      if (at !== undefined) born.see(place.start, at);
    }
    if (!created.done && facts.timestamp !== undefined) {
      const at = Date.parse(facts.timestamp);
      if (Number.isFinite(at)) created.see(place.start, at);
    }
    calls.add(facts, place, batchStart);
  });
  if (calls.missing.size > 0) await readEarlierRecords(index, calls, files, clock);
  index.calls = calls.calls();
  return index;
}

/** A second pass for the messages whose records before a call were let go (CallsOfLines.missing): those records alone. */
async function readEarlierRecords(index: TranscriptIndex, calls: CallsOfLines, files: FileAccess, clock: Clock): Promise<void> {
  const wanted = new Map<string, { before: number; lines: IndexedLine[] }>([...calls.missing].map((id) => [id, { before: calls.firstKept(id), lines: [] }]));
  const last = Math.max(...[...wanted.values()].map((m) => m.before));
  const batches = new BatchStarts();
  const place: LinePlace = { start: 0, end: 0, line: 0 };
  let read = 0;
  await eachLine(
    index.path,
    files,
    clock,
    READ_BYTES,
    (line) => {
      read = line.byteEnd;
      if (!isFields(line.scan)) return;
      const facts = factsOf(line.scan);
      place.start = line.byteStart;
      place.end = line.byteEnd;
      place.line = line.line;
      const batchStart = batches.of(facts.type, place);
      const message = facts.messageId === undefined ? undefined : wanted.get(facts.messageId);
      if (message !== undefined && place.start < message.before) message.lines.push(keptLine(facts, place, batchStart));
    },
    () => read >= last,
  );
  for (const [id, message] of wanted) calls.addEarlier(id, message.lines);
}
