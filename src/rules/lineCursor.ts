/**
 * One reader of a growing file's new lines: where it has read to, the line in progress, a
 * file truncated or replaced under it, how much one look reads. No imports and no I/O: the
 * caller stats and reads (synchronously in the hook, through `$.fs` in the mod, ahead on
 * libuv's threads in the tail) and hands the cursor the size it saw and the bytes it got, each
 * through the one loop that drives a look (./newLines.ts `readNewLines`).
 * The hook, the mod and the engine share this file, so the rule is the same in all three.
 *
 * A look: `look(size, identity?)` (a restart, a jump), then `nextRead()` … `take()` until it
 * says the look is done. Complete lines come out of `take` as pieces of the chunks read
 * (`LinePieces`: nothing is copied or kept) or of `takeLines` whole, a long one as its head.
 */

/** What a look found before reading. */
export interface LookResult {
  /** The file is not the one read so far: smaller than the offset, or another identity. Reading starts over at byte 0. */
  restarted?: 'truncated' | 'replaced';
  /** Bytes jumped over (`overLimit: 'skip'`): their lines are never seen; 0 when none. */
  skipped: number;
}

/** One read to make: `length` bytes at `offset`. */
export interface ByteRange {
  offset: number;
  length: number;
}

/**
 * What takes lines piece by piece, straight from the chunks read (views: copy what you keep).
 * A line's pieces come in order: `part` for those its newline is not in, then `line` for its last.
 */
export interface LinePieces<B extends Uint8Array = Uint8Array> {
  /** chunk[from, to) continues the line in progress; its newline is in a later chunk. */
  part(chunk: B, from: number, to: number): void;
  /** chunk[from, to) ends the line in progress (its newline is chunk[to]); the line is [start, end) of the file, newline included. */
  line(chunk: B, from: number, to: number, start: number, end: number): void;
  /**
   * Optional: at a line's start (chunk[from], file offset `base + from`), take as many whole lines
   * from the chunk as it can in one go; returns where it stopped (`from` when it took none).
   */
  lines?(chunk: B, from: number, base: number): number;
}

/** A complete line for `takeLines`: its bytes, or only its first `maxLineBytes` (`cut`). */
export type LineHandler = (bytes: Uint8Array, cut: boolean, start: number, end: number) => void;

export interface LineCursorOptions {
  /** Where reading starts (default 0). */
  from?: number;
  /** `from` is a line's start (default: when it is 0); otherwise the bytes up to the first newline are skipped. */
  lineStart?: boolean;
  /** `takeLines` only: a longer line is handed as its first this many bytes, `cut`; no more of it is ever held (default 1 MiB). */
  maxLineBytes?: number;
  /** Bytes one look reads at most (default unbounded). */
  readLimit?: number;
  /** Past `readLimit`: `later`, the rest waits for the next look; `skip`, only the last `readLimit` bytes are read (default `later`). */
  overLimit?: 'later' | 'skip';
}

const NEWLINE = 0x0a;

/** Some editors write a UTF-8 byte order mark at a file's first byte: no part of the first line. */
function bomLength(chunk: Uint8Array): number {
  return chunk.length >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf ? 3 : 0;
}

export class LineCursor {
  private at: number;
  /** Bytes of the line in progress taken so far (its start is at - partial). */
  private partial = 0;
  /** The line in progress began before the first byte read (a start mid-file, a jump): dropped up to its newline. */
  private skipping: boolean;
  /** The size the last look saw (-1 before the first). */
  private seenSize = -1;
  private identity: string | number | undefined;
  /** Where this look's reads end. */
  private stop: number;
  private readonly readLimit: number;
  private readonly skipOverLimit: boolean;
  private readonly maxLineBytes: number;
  /** `takeLines` only, made at its first call: a process following thousands of files through `take` holds none. */
  private heads: LineHeads | undefined;

  constructor(opts: LineCursorOptions = {}) {
    const from = opts.from ?? 0;
    if (!(Number.isSafeInteger(from) && from >= 0)) throw new RangeError(`from must be a byte offset, got ${from}`);
    const readLimit = opts.readLimit ?? Infinity;
    if (!(readLimit >= 1)) throw new RangeError(`readLimit must be at least 1, got ${readLimit}`);
    this.at = from;
    this.stop = from;
    this.skipping = !(opts.lineStart ?? from === 0);
    this.readLimit = readLimit;
    this.skipOverLimit = opts.overLimit === 'skip';
    this.maxLineBytes = opts.maxLineBytes ?? 1024 * 1024;
  }

  /** Bytes taken: complete lines and the line in progress. */
  get offset(): number {
    return this.at;
  }
  /** Bytes of the line in progress taken so far (0 at a line's start). */
  get partialBytes(): number {
    return this.skipping ? 0 : this.partial;
  }

  /**
   * A look begins: the file's size now and, where the caller has one, its identity (compared as
   * given; `dev:ino`). Another identity, or a size below the offset, starts over at byte 0.
   */
  look(size: number, identity?: string | number): LookResult {
    let restarted: LookResult['restarted'];
    if (identity !== undefined && this.identity !== undefined && identity !== this.identity) restarted = 'replaced';
    else if (size < this.at) restarted = 'truncated';
    if (restarted !== undefined) this.reset();
    if (identity !== undefined) this.identity = identity;
    this.seenSize = size;
    const skipped = this.plan();
    return restarted !== undefined ? { restarted, skipped } : { skipped };
  }

  /** Where this look's reading ends: the size it saw, at most the read limit past the offset, not past `upTo` (unless already there). */
  readEnd(upTo = Infinity): number {
    return Math.max(this.at, Math.min(this.stop, upTo));
  }

  /** The next read of this look, at most `maxBytes` (its buffer); undefined once the look has read all it may. */
  nextRead(maxBytes: number): ByteRange | undefined {
    const length = Math.min(maxBytes, this.stop - this.at);
    return length > 0 ? { offset: this.at, length } : undefined;
  }

  /**
   * The bytes read at `offset` (what `nextRead` asked for, or fewer): complete lines to `sink`, the
   * rest as the line in progress. An empty chunk (the file ended early) ends the look.
   */
  take<B extends Uint8Array>(chunk: B, sink: LinePieces<B>): void {
    const n = chunk.length;
    if (n === 0) {
      this.stop = this.at;
      return;
    }
    const base = this.at;
    let pos = base === 0 ? bomLength(chunk) : 0;
    const many = sink.lines !== undefined;
    while (pos < n) {
      if (many && this.partial === 0 && !this.skipping) {
        const next = sink.lines!(chunk, pos, base);
        if (next > pos) {
          pos = next;
          continue;
        }
      }
      const newline = chunk.indexOf(NEWLINE, pos);
      if (newline === -1) {
        if (!this.skipping) sink.part(chunk, pos, n);
        this.partial += n - pos;
        break;
      }
      if (this.skipping) this.skipping = false;
      else {
        const end = base + newline + 1;
        sink.line(chunk, pos, newline, end - 1 - (newline - pos) - this.partial, end);
      }
      this.partial = 0;
      pos = newline + 1;
    }
    this.at = base + n;
  }

  /** As `take`, each complete line handed whole (or its first `maxLineBytes`, `cut`); the line in progress is carried, up to that bound. */
  takeLines(chunk: Uint8Array, onLine: LineHandler): void {
    const heads = (this.heads ??= new LineHeads(this.maxLineBytes));
    heads.onLine = onLine;
    this.take(chunk, heads);
  }

  /**
   * Back to byte 0, a line's start: the caller knows the file changed under the offset (rewritten in
   * place, deleted, re-created). A look under way goes on from there, within the size it saw.
   */
  restart(): void {
    this.reset();
    if (this.seenSize >= 0) this.plan();
  }

  private reset(): void {
    this.at = 0;
    this.stop = 0;
    this.partial = 0;
    this.skipping = false;
    this.identity = undefined;
    this.heads?.drop();
  }

  /** Where this look's reads end, after a jump when the read limit says skip; returns the bytes jumped over. */
  private plan(): number {
    const size = this.seenSize;
    let skipped = 0;
    if (this.skipOverLimit && size - this.at > this.readLimit) {
      skipped = size - this.readLimit - this.at;
      this.at = size - this.readLimit;
      this.partial = 0;
      this.skipping = true;
      this.heads?.drop();
    }
    this.stop = Math.max(this.at, Math.min(size, this.at + this.readLimit));
    return skipped;
  }
}

/** The line in progress as `takeLines` carries it: its first maxLineBytes, copied. */
class LineHeads implements LinePieces {
  onLine: LineHandler = () => undefined;
  private pieces: Uint8Array[] = [];
  private held = 0;
  private cut = false;

  constructor(private readonly max: number) {}

  part(chunk: Uint8Array, from: number, to: number): void {
    this.keep(chunk, from, to);
  }

  line(chunk: Uint8Array, from: number, to: number, start: number, end: number): void {
    if (this.pieces.length === 0 && !this.cut) {
      // The whole line is in this chunk: handed as a view, nothing copied.
      const cut = to - from > this.max;
      this.onLine(chunk.subarray(from, cut ? from + this.max : to), cut, start, end);
      return;
    }
    this.keep(chunk, from, to);
    const bytes = this.pieces.length === 1 ? this.pieces[0]! : new Uint8Array(this.held);
    if (this.pieces.length > 1) {
      let at = 0;
      for (const p of this.pieces) {
        bytes.set(p, at);
        at += p.length;
      }
    }
    const cut = this.cut;
    this.drop();
    this.onLine(bytes, cut, start, end);
  }

  drop(): void {
    this.pieces = [];
    this.held = 0;
    this.cut = false;
  }

  private keep(chunk: Uint8Array, from: number, to: number): void {
    const room = this.max - this.held;
    if (to - from > room) this.cut = true;
    const n = Math.min(room, to - from);
    if (n <= 0) return;
    // Copied (`slice` of a Buffer would be a view): the chunk's buffer is read into again.
    const copy = new Uint8Array(n);
    copy.set(chunk.subarray(from, from + n));
    this.pieces.push(copy);
    this.held += n;
  }
}
