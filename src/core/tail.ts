import type { Clock } from '../rules/clock';
import { ConsumedWindow } from './consumedWindow';
import type { FileAccess, FileIdentity, OpenFile } from './fileAccess';
import { LineCursor, type LinePieces } from '../rules/lineCursor';
import { readNewLines } from '../rules/newLines';
import { lendReadBuffers, readAhead } from './tailReadAhead';
import type { FileTailOptions, LineScanner, TailChange, TailChangeKind, TailLine, TailRead, WriteBatch } from './tailTypes';

export type { FileTailOptions } from './tailTypes';

export const DEFAULT_TAIL_CHUNK_SIZE = 1024 * 1024;

/** What the path names right now. */
type PathProbe =
  | { kind: 'file'; id: FileIdentity }
  | { kind: 'missing' }
  | { kind: 'unreadable'; detail: string };

/**
 * Where the tail stands between reads. `absent`: no file yet and nothing to
 * report (never seen, or just left a replaced one). `deleted` / `unreadable`:
 * reported once, so a later readable file is reported as `recreated`.
 */
type Status = 'absent' | 'open' | 'deleted' | 'unreadable';

/** What one read() gathers. */
interface ReadOutput<T> {
  now: number;
  lines: TailLine<T>[];
  changes: TailChange[];
  /** Lines read, whether gathered in `lines` or handed to onLine. */
  count: number;
  /** The batch's ends, once count > 0: the first line and its start, the last line and its end. */
  firstLine: number;
  byteStart: number;
  lastLine: number;
  byteEnd: number;
}

/**
 * analyze's capture path (src/core/analyze/capture/), beside its scanner: the
 * tail reads into `readBuffer(i)` (0 … READS_AHEAD, asked for at each use, all
 * of one size: views of a wasm memory, so chunks are scanned where they were
 * read to), and hands whole lines to `finishLines` many at a time: for a
 * scanner holding no partial line, the value of each whole line from `start`
 * of `chunk` on, as many as it takes in one go, each handed to `line` with its
 * bounds (`end`: its newline) in file order; it returns where it stopped (the
 * first line it leaves to the scanner, `start` if it took none), and `line`
 * must not call the scanner.
 */
export interface LineBatches<T> {
  readBuffer(index: number): Buffer;
  finishLines(chunk: Buffer, start: number, line: (start: number, end: number, value: T) => void): number;
}

/**
 * Follows one file by byte offset and pushes the bytes of its lines into a
 * LineScanner, one chunk at a time through a few reusable buffers, so
 * neither a huge file nor a huge line is ever held in memory.
 *
 * Guarantees, per generation (one incarnation of the file): every complete
 * (newline-terminated) line is reported once, in order, with contiguous line
 * numbers from 1 and contiguous byte ranges from 0. Truncation, rewriting in
 * place, replacement, deletion, re-creation and unreadability each start a new
 * generation and are reported as a TailChange. A TailRead never mixes
 * generations: its changes come first, its lines belong to the generation
 * after them. Concurrent read() calls run one after the other.
 */
export class FileTail<T> {
  private readonly path: string;
  private readonly files: FileAccess;
  private readonly clock: Clock;
  private readonly batches: LineBatches<T> | undefined;
  /** Size of a read buffer lent for each read (./tailReadAhead) when there are no `batches`. */
  private readonly chunkSize: number;
  private readonly window = new ConsumedWindow();
  /**
   * The offset, the line split and the line in progress, truncation and the read limit (maxBytesPerRead),
   * by the rule the hook and the mod read with. Replacement is not the cursor's here: the path naming
   * another file is seen before a read, and the rest of the open one is read first (drainLeaving).
   */
  private readonly cursor: LineCursor;
  /** What the cursor's line pieces become: scanned, numbered, gathered or handed to onLine. */
  private readonly lines: TailLines<T>;

  private handle: OpenFile | undefined;
  private identity: FileIdentity | undefined;
  private status: Status = 'absent';
  /** A file was opened in the current generation: the next change must start a new one. */
  private generationBound = false;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  private currentGeneration = 1;
  private knownSize = 0;
  private knownMtimeMs = -1;

  /** `batches`: analyze's capture path only (see LineBatches); the live engine never passes it. */
  constructor(opts: FileTailOptions<T>, batches?: LineBatches<T>) {
    this.path = opts.path;
    this.files = opts.files;
    this.clock = opts.clock;
    this.batches = batches;
    if (batches !== undefined) {
      // A read into an empty buffer reads nothing and looks like a file that shrank: refuse it here.
      if (batches.readBuffer(0).length < 1) throw new RangeError('readBuffer gives an empty buffer');
      this.chunkSize = 0;
    } else {
      const chunkSize = opts.chunkSize ?? DEFAULT_TAIL_CHUNK_SIZE;
      if (!Number.isInteger(chunkSize) || chunkSize < 1) throw new RangeError(`chunkSize must be a positive integer, got ${chunkSize}`);
      this.chunkSize = chunkSize;
    }
    const maxBytes = opts.maxBytesPerRead ?? Number.POSITIVE_INFINITY;
    if (!(maxBytes >= 1)) throw new RangeError(`maxBytesPerRead must be at least 1, got ${maxBytes}`);
    this.cursor = new LineCursor({ readLimit: maxBytes });
    this.lines = batches !== undefined ? new BatchLines(opts.scanner, opts.onLine, batches) : new TailLines(opts.scanner, opts.onLine);
  }

  /** Bytes consumed, the partial line included. */
  get offset(): number {
    return this.cursor.offset;
  }
  get generation(): number {
    return this.currentGeneration;
  }
  /** Complete lines reported in this generation. */
  get lineCount(): number {
    return this.lines.count;
  }
  /** Bytes of the last line already pushed into the scanner, still waiting for their newline. */
  get partialBytes(): number {
    return this.cursor.partialBytes;
  }
  /** Size of the file at the last read; 0 when there is none. */
  get size(): number {
    return this.knownSize;
  }

  /** Reads what the file gained up to its size at the start of the read, at most maxBytesPerRead, and not past `upTo`. */
  read(upTo = Number.POSITIVE_INFINITY): Promise<TailRead<T>> {
    const result = this.queue.then(() => this.readOnce(upTo));
    // Not result.catch(): the queue would hold this read's lines until the next read, long enough
    // for V8 to promote them to old space (a channel file is read again only after the next fold).
    this.queue = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  /** Releases the file handle; later reads return nothing. */
  close(): Promise<void> {
    const result = this.queue.then(async () => {
      this.closed = true;
      await this.closeHandle();
    });
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async readOnce(upTo: number): Promise<TailRead<T>> {
    const out: ReadOutput<T> = { now: this.clock.now(), lines: [], changes: [], count: 0, firstLine: 0, byteStart: 0, lastLine: 0, byteEnd: 0 };
    if (this.closed) return { lines: [], changes: [] };
    const probe = await this.probePath();
    if (this.handle) {
      if (probe.kind === 'file' && sameFile(probe.id, this.identity)) {
        await this.follow(probe.id, out, upTo);
        return this.finish(out);
      }
      // The path no longer names the open file. Lines appended to it before it went
      // belong to its generation: deliver them first, switch on the next read.
      await this.drainLeaving(out);
      if (out.count > 0) return this.finish(out);
      await this.leave(probe, out);
    }
    await this.openFromPath(probe, out, upTo);
    return this.finish(out);
  }

  private async probePath(): Promise<PathProbe> {
    try {
      const id = await this.files.stat(this.path);
      if (!id) return { kind: 'missing' };
      if (!id.isFile) return { kind: 'unreadable', detail: id.isDirectory ? 'is a directory' : 'not a regular file' };
      return { kind: 'file', id };
    } catch (err) {
      return { kind: 'unreadable', detail: describeError(err) };
    }
  }

  /** Same file as before: check it was not cut or rewritten under the offset, then read on. */
  private async follow(id: FileIdentity, out: ReadOutput<T>, upTo: number): Promise<void> {
    const changedSinceLastRead = id.size !== this.knownSize || id.mtimeMs !== this.knownMtimeMs;
    this.knownSize = id.size;
    this.knownMtimeMs = id.mtimeMs;
    const offset = this.cursor.offset;
    const look = await readNewLines(
      this.cursor,
      { stat: () => ({ size: id.size }), readSpan: (from, to, take) => this.readSpan(from, to, out, take) },
      this.lines,
      {
        readBytes: this.chunkSize,
        upTo,
        onLook: async (looked) => {
          if (looked.restarted !== undefined) {
            this.reanchor('truncated', `size ${id.size} below offset ${offset}`, out);
            this.generationBound = true;
          } else if (offset > 0 && changedSinceLastRead) {
            let intact: boolean;
            try {
              intact = await this.window.matches(this.handle!, offset);
            } catch (err) {
              await this.readFailed(err, out);
              return false;
            }
            if (!intact) {
              this.reanchor('truncated', 'rewritten in place below the offset', out);
              this.generationBound = true;
            }
          }
          return true;
        },
      },
    );
    if (look.failure !== undefined) await this.readFailed(look.failure, out);
  }

  /** A read error keeps the lines already gathered; with none, the file is given up as unreadable. */
  private async readFailed(err: unknown, out: ReadOutput<T>): Promise<void> {
    if (out.count > 0) return;
    await this.closeHandle();
    this.status = 'unreadable';
    this.reanchor('unreadable', describeError(err), out);
  }

  /** Reads the rest of a file that the path no longer names, if it is still intact below the offset. */
  private async drainLeaving(out: ReadOutput<T>): Promise<void> {
    let size: number;
    try {
      size = (await this.handle!.stat()).size;
      const offset = this.cursor.offset;
      if (size <= offset) return;
      if (offset > 0 && !(await this.window.matches(this.handle!, offset))) return;
    } catch {
      return; // the leaving file cannot be read any more: nothing to deliver from it
    }
    // All it has left, whatever the read limit (so past the cursor's look). A read error here only ends the drain: the switch that follows re-anchors anyway.
    await this.readSpan(this.cursor.offset, size, out, (chunk) => {
      this.cursor.take(chunk, this.lines);
      return true;
    });
  }

  /** Drops the open file because the path now names something else, or nothing. */
  private async leave(probe: PathProbe, out: ReadOutput<T>): Promise<void> {
    const before = this.identity;
    await this.closeHandle();
    if (probe.kind === 'missing') {
      this.status = 'deleted';
      this.reanchor('deleted', undefined, out);
    } else if (probe.kind === 'unreadable') {
      this.status = 'unreadable';
      this.reanchor('unreadable', probe.detail, out);
    } else {
      this.status = 'absent';
      this.reanchor('replaced', `inode ${before?.ino ?? '?'} -> ${probe.id.ino}`, out);
    }
  }

  /** No file is open: open what the path names, or note once why there is nothing to read. */
  private async openFromPath(probe: PathProbe, out: ReadOutput<T>, upTo: number): Promise<void> {
    this.knownSize = 0;
    if (probe.kind === 'missing') {
      if (this.status === 'unreadable') {
        this.status = 'deleted';
        this.reanchor('deleted', undefined, out);
      }
      return;
    }
    if (probe.kind === 'unreadable') {
      this.markUnreadable(probe.detail, out);
      return;
    }
    let handle: OpenFile;
    let id: FileIdentity;
    try {
      handle = await this.files.open(this.path);
    } catch (err) {
      this.markUnreadable(describeError(err), out);
      return;
    }
    try {
      // The handle's own identity is authoritative: the path may have changed since the probe.
      id = await handle.stat();
      if (!id.isFile) throw new Error(id.isDirectory ? 'is a directory' : 'not a regular file');
    } catch (err) {
      await handle.close().catch(() => undefined);
      this.markUnreadable(describeError(err), out);
      return;
    }
    if (this.status === 'deleted' || this.status === 'unreadable') {
      this.reanchor('recreated', `was ${this.status}`, out);
    }
    this.handle = handle;
    this.identity = id;
    this.status = 'open';
    this.generationBound = true;
    this.knownMtimeMs = -1;
    await this.follow(id, out, upTo);
  }

  private markUnreadable(detail: string, out: ReadOutput<T>): void {
    if (this.status === 'unreadable') return;
    this.status = 'unreadable';
    this.reanchor('unreadable', detail, out);
  }

  /**
   * Starts over from byte 0. A new generation only when the current one has seen
   * a file: a deletion followed by the re-creation is one generation change, not two.
   */
  private reanchor(kind: TailChangeKind, detail: string | undefined, out: ReadOutput<T>): void {
    if (this.generationBound) {
      this.currentGeneration += 1;
      this.generationBound = false;
    }
    this.lines.reset();
    this.cursor.restart();
    this.window.clear();
    const change: TailChange = { kind, at: out.now, generation: this.currentGeneration };
    if (detail !== undefined) change.detail = detail;
    out.changes.push(change);
  }

  /**
   * Reads [from, target) (up to the size seen at the start, so a busy writer cannot keep one read
   * going), reading ahead, into buffers lent for this read only; each chunk to `take`, which hands it
   * to the cursor, then to the window below the offset.
   */
  private async readSpan(from: number, target: number, out: ReadOutput<T>, take: (chunk: Buffer) => boolean): Promise<unknown> {
    const batches = this.batches;
    if (batches === undefined && target <= from) return undefined;
    const buffers = batches === undefined ? lendReadBuffers(this.chunkSize, target - from) : undefined;
    const buffer = buffers !== undefined ? buffers.buffer : (index: number) => batches!.readBuffer(index);
    this.lines.out = out;
    try {
      return await readAhead(this.handle!, buffer, from, target, (chunk) => {
        const base = this.cursor.offset;
        const more = take(chunk);
        this.window.record(chunk, base);
        return more;
      });
    } finally {
      // Not kept between reads: a tail holds nothing of a read once it is over.
      this.lines.out = undefined;
      buffers?.release();
    }
  }

  private finish(out: ReadOutput<T>): TailRead<T> {
    const read: TailRead<T> = { lines: out.lines, changes: out.changes };
    if (this.handle && this.cursor.offset < this.knownSize) read.more = true;
    if (out.count > 0) {
      const batch: WriteBatch = {
        observedAt: out.now,
        generation: this.currentGeneration,
        firstLine: out.firstLine,
        lastLine: out.lastLine,
        byteStart: out.byteStart,
        byteEnd: out.byteEnd,
      };
      read.batch = batch;
    }
    return read;
  }

  private async closeHandle(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    this.identity = undefined;
    if (handle) await handle.close().catch(() => undefined);
  }
}

function sameFile(a: FileIdentity, b: FileIdentity | undefined): boolean {
  return b !== undefined && a.ino === b.ino && a.dev === b.dev;
}

function describeError(err: unknown): string {
  const e = err as NodeJS.ErrnoException | undefined;
  if (e && typeof e === 'object' && typeof e.code === 'string') return e.code;
  return e instanceof Error ? e.message : String(err);
}

/**
 * The lines of a tail's reads, as its cursor hands them over in pieces: pushed into the scanner,
 * numbered within the generation, gathered into the read's output or handed to onLine.
 */
class TailLines<T> implements LinePieces<Buffer> {
  /** Complete lines in this generation. */
  count = 0;
  /** The read under way. */
  out: ReadOutput<T> | undefined;
  /** A line's first bytes were pushed, its newline not read yet; since that read. */
  private partial = false;
  private partialSince = 0;
  /** The one TailLine handed to onLine, line after line. */
  private handed: TailLine<T> | undefined;

  constructor(
    private readonly scanner: LineScanner<T>,
    private readonly onLine: ((line: TailLine<T>) => void) | undefined,
  ) {}

  part(chunk: Buffer, from: number, to: number): void {
    if (!this.partial) {
      this.partial = true;
      this.partialSince = this.out!.now;
    }
    this.scanner.push(chunk.subarray(from, to));
  }

  line(chunk: Buffer, from: number, to: number, start: number, end: number): void {
    const scanner = this.scanner;
    const dwell = this.partial ? this.out!.now - this.partialSince : 0;
    this.partial = false;
    let scan: T;
    if (scanner.finishLine !== undefined) scan = scanner.finishLine(chunk, from, to);
    else {
      if (to > from) scanner.push(chunk.subarray(from, to));
      scan = scanner.finish();
    }
    this.complete(start, end, scan, dwell);
  }

  /** A new generation: no line in progress, numbering from 1. */
  reset(): void {
    this.scanner.reset();
    this.count = 0;
    this.partial = false;
  }

  /** A complete line, numbered and handed on (to onLine, else into out.lines). */
  protected complete(byteStart: number, byteEnd: number, scan: T, dwell: number): void {
    const out = this.out!;
    const number = ++this.count;
    if (out.count++ === 0) {
      out.firstLine = number;
      out.byteStart = byteStart;
    }
    out.lastLine = number;
    out.byteEnd = byteEnd;
    if (this.onLine) {
      // One object for every line handed over (onLine reads it during the call): no garbage per line.
      const line = (this.handed ??= { line: 0, byteStart: 0, byteEnd: 0, scan, partialDwellMs: 0 });
      line.line = number;
      line.byteStart = byteStart;
      line.byteEnd = byteEnd;
      line.scan = scan;
      line.partialDwellMs = dwell;
      this.onLine(line);
    } else {
      out.lines.push({ line: number, byteStart, byteEnd, scan, partialDwellMs: dwell });
    }
  }
}

/** analyze's capture path: at a line's start, as many whole lines as `batches` takes in one go. */
class BatchLines<T> extends TailLines<T> {
  private base = 0;
  private readonly taken = (start: number, end: number, scan: T) => this.complete(this.base + start, this.base + end + 1, scan, 0);

  constructor(
    scanner: LineScanner<T>,
    onLine: ((line: TailLine<T>) => void) | undefined,
    private readonly batches: LineBatches<T>,
  ) {
    super(scanner, onLine);
  }

  lines(chunk: Buffer, from: number, base: number): number {
    this.base = base;
    return this.batches.finishLines(chunk, from, this.taken);
  }
}
