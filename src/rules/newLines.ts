/**
 * One look at a growing file through its LineCursor (./lineCursor.ts): ask the size, tell the cursor,
 * read what it says to read, in bounded reads, and hand the bytes to it. The one stat-and-read loop of
 * the tail, the hook's probe and landing watch and the mod's looks. No I/O of its own: the caller
 * brings its stat and its read (synchronous in the hook, `$.fs` in the mod, a handle read ahead in
 * the tail), so the mod, which has no Node APIs, reads through the same loop.
 */
import type { LineCursor, LineHandler, LinePieces, LookResult } from './lineCursor';

/** What a stat says of the file: its size now and, where the caller has one, its identity (`dev:ino`). */
export interface FileSize {
  size: number;
  identity?: string | number;
}

/** The file as the caller reaches it: its stat, and its read one chunk at a time or a span at once. */
export type NewLinesSource<B extends Uint8Array = Uint8Array> = ChunkSource<B> | SpanSource<B>;

/** Either may be sync or async; what they throw is the caller's to catch. */
export interface ChunkSource<B extends Uint8Array> {
  stat(): FileSize | Promise<FileSize>;
  /** Up to `length` bytes at `offset`: fewer at the file's end, none past it. */
  read(offset: number, length: number): B | Promise<B>;
}

/**
 * Reads [from, to) itself and hands each chunk, in order, to `chunk` (false back: stop), and returns a
 * read error as a value (undefined: none). The tail's reads run ahead of its scan this way
 * (src/core/tailReadAhead.ts). `stat` only.
 */
export interface SpanSource<B extends Uint8Array> {
  stat(): FileSize | Promise<FileSize>;
  readSpan(from: number, to: number, chunk: (bytes: B) => boolean): Promise<unknown>;
}

export interface NewLinesOptions<B extends Uint8Array = Uint8Array> {
  /** Bytes one read asks for at most (the caller's buffer). */
  readBytes: number;
  /**
   * `stat` (default): the size is asked first and read up to. `read`: one read at the offset comes
   * first and its length is the size; the size is asked only when it gives nothing, to see a file cut
   * or replaced (then the look reads once more, from byte 0). For a stat that can be older than a read
   * (the mod's `$.fs.stat` was seen ~100 ms behind its `$.fs.read`): a look is one read at most.
   */
  sizeFrom?: 'stat' | 'read';
  /** Not past this offset (unless the cursor is already there); `stat` only. */
  upTo?: number;
  /**
   * After the cursor's look, before any read (`stat` only): false ends the look unread (a watch that
   * gives up on a restart, the tail's check below the offset failing). May be async.
   */
  onLook?(result: LookResult): boolean | void | Promise<boolean | void>;
  /** Asked before each read (`stat` only): true ends the look there (a deadline, the line found). */
  stop?(): boolean;
}

/** What a look did. */
export interface NewLinesLook extends LookResult {
  /** The size it went by. */
  size: number;
  /** It read all the cursor said to (a stop, a short read or `onLook` ended it otherwise). */
  done: boolean;
  /** A read error `readSpan` gave back: reading stopped there. */
  failure?: unknown;
}

/**
 * One look: the cursor told the size, then read up to it (at most the cursor's read limit, not past
 * `upTo`), each chunk handed to `sink`: line pieces (`take`) or, a function, whole lines (`takeLines`).
 * A read shorter than asked is taken as far as it goes and the next read starts there; an empty one
 * (the file ended before the size the stat said) ends the look.
 */
export async function readNewLines<B extends Uint8Array>(
  cursor: LineCursor,
  source: NewLinesSource<B>,
  sink: LinePieces<B> | LineHandler,
  opts: NewLinesOptions<B>,
): Promise<NewLinesLook> {
  const take = typeof sink === 'function' ? (chunk: B) => cursor.takeLines(chunk, sink) : (chunk: B) => cursor.take(chunk, sink);
  if (opts.sizeFrom === 'read') {
    if (!('read' in source)) throw new TypeError("sizeFrom 'read' takes a source that reads a chunk at a time");
    return readFirst(cursor, source, take, opts.readBytes);
  }
  const { size, identity } = await source.stat();
  const looked = cursor.look(size, identity);
  if (opts.onLook !== undefined && (await opts.onLook(looked)) === false) return { ...looked, size, done: false };
  const end = cursor.readEnd(opts.upTo);
  let failure: unknown;
  if ('readSpan' in source) {
    if (cursor.offset < end) {
      failure = await source.readSpan(cursor.offset, end, (chunk) => {
        take(chunk);
        return opts.stop?.() !== true;
      });
    }
  } else {
    for (let r = cursor.nextRead(Math.min(opts.readBytes, end - cursor.offset)); r !== undefined && opts.stop?.() !== true; r = cursor.nextRead(Math.min(opts.readBytes, end - cursor.offset))) {
      take(await source.read(r.offset, r.length));
    }
  }
  const out: NewLinesLook = { ...looked, size, done: cursor.readEnd(opts.upTo) <= cursor.offset };
  if (failure !== undefined) out.failure = failure;
  return out;
}

/** `sizeFrom: 'read'`: the read first, its length the size; a stat only when it gives nothing. */
async function readFirst<B extends Uint8Array>(cursor: LineCursor, source: ChunkSource<B>, take: (chunk: B) => void, readBytes: number): Promise<NewLinesLook> {
  let bytes = await source.read(cursor.offset, readBytes);
  let looked: LookResult = { skipped: 0 };
  if (bytes.length === 0) {
    const { size, identity } = await source.stat();
    looked = cursor.look(size, identity);
    // Smaller than read, or another file: truncated or replaced; read again from its start, now.
    if (looked.restarted === undefined) return { ...looked, size, done: true };
    bytes = await source.read(cursor.offset, readBytes);
  }
  if (bytes.length > 0) {
    cursor.look(cursor.offset + bytes.length);
    take(bytes);
  }
  return { ...looked, size: cursor.offset, done: true };
}
