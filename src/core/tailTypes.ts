import type { Clock } from '../rules/clock';
import type { FileAccess } from './fileAccess';
import type { ScanResult } from './records';

/**
 * Turns the bytes of one line into a value, without ever needing the whole line
 * in memory: the tail pushes a line's bytes in chunks as they arrive (a 64 MB
 * line arrives in many), then calls finish() when its newline is read.
 * The transcript scanner and the channel reader both implement it.
 */
export interface LineScanner<T> {
  /** Bytes of the current line, newline excluded. `chunk` may be a view into a reused buffer: copy what you keep. */
  push(chunk: Buffer): void;
  /** The newline arrived: the value of the line; the scanner is ready for the next line. */
  finish(): T;
  /**
   * Optional: push(chunk.subarray(start, end)) then finish(), in one call. The
   * tail uses it for the last bytes of every line, so a scanner can take a line
   * that lies whole in one chunk straight from the read buffer (no copy into a
   * line buffer of its own, no view per line).
   */
  finishLine?(chunk: Buffer, start: number, end: number): T;
  /** Drop the partial line (the file was truncated or replaced under it). */
  reset(): void;
}

/** One read that brought new complete lines: a write batch as seen from outside. */
export interface WriteBatch {
  /** Clock time of the read that found the bytes. */
  observedAt: number;
  /** Bumped on truncation, replacement, re-creation; line numbers restart at 1. */
  generation: number;
  /** 1-based line numbers (within the generation) of the first and last complete line. */
  firstLine: number;
  lastLine: number;
  /** Byte range [byteStart, byteEnd) of those complete lines. */
  byteStart: number;
  byteEnd: number;
}

export interface TailLine<T = ScanResult> {
  line: number;
  byteStart: number;
  /** Exclusive; includes the newline. */
  byteEnd: number;
  scan: T;
  /** Ms between the first bytes of this line being read and its newline being read (0 when read in one go). */
  partialDwellMs: number;
}

export type TailChangeKind = 'truncated' | 'replaced' | 'deleted' | 'recreated' | 'unreadable';

export interface TailChange {
  kind: TailChangeKind;
  at: number;
  /** Generation after the change. */
  generation: number;
  detail?: string;
}

export interface TailRead<T = ScanResult> {
  /** Present when the read brought complete lines. */
  batch?: WriteBatch;
  lines: TailLine<T>[];
  changes: TailChange[];
  /** The file holds more than this read took (maxBytesPerRead): read again at once. */
  more?: boolean;
}

/** What a FileTail (./tail.ts) follows, and how. */
export interface FileTailOptions<T> {
  path: string;
  files: FileAccess;
  clock: Clock;
  scanner: LineScanner<T>;
  /** Size of each read buffer (up to three: two are read into while the third is scanned), reused for every read; no pushed chunk is larger. */
  chunkSize?: number;
  /**
   * At most this many bytes per read(); the rest waits for the next one and the
   * read says `more`. Bounds the lines one TailRead holds when a multi-GB file is
   * first indexed. Default: unbounded.
   */
  maxBytesPerRead?: number;
  /**
   * When set, each complete line goes to it as soon as it is read, and
   * TailRead.lines stays empty (`batch` still spans the read), so one read can
   * cover a multi-GB file without holding its lines. Must not throw. The
   * TailLine is one object, reused for the next line: read it during the call.
   */
  onLine?: (line: TailLine<T>) => void;
}
