import type { Clock } from '../../rules/clock';
import type { FileAccess } from '../fileAccess';
import { FileTail } from '../tail';
import type { LineScanner, TailRead } from '../tailTypes';

/** Bytes one tail read takes: a multi-GB transcript is indexed in steps, never held as one read's lines. */
export const MAX_BYTES_PER_READ = 8 * 1024 * 1024;
/** A writer faster than us must not keep one read going for ever; the next tick goes on. */
const MAX_READS_PER_TURN = 1000;

/** Takes one read; a promise it returns is awaited before the next read of the file is handed over. */
export type ReadHandler<T> = (read: TailRead<T>, catchUp: boolean) => unknown;

/**
 * One followed file: its tail and a queue so that reads of the file, and the
 * handling of each read, happen one after the other whoever asks (a tick, a
 * change notification, the engine indexing history). Different files are
 * read independently.
 *
 * What the file held when we started following it is history: its complete
 * lines ending at or below `historyEnd` (a byte offset fixed before any read)
 * are handed over as catch-up, everything past it as live, whenever and by
 * whichever read they are read. So a line appended while history is still
 * being indexed is live however late it is read.
 */
export class FollowedFile<T> {
  readonly tail: FileTail<T>;
  private queue: Promise<void> = Promise.resolve();
  closed = false;
  /** Lines ending at or below this byte were on disk before we followed the file. 0: none. */
  private historyEndsAt: number;

  constructor(
    readonly path: string,
    files: FileAccess,
    clock: Clock,
    scanner: LineScanner<T>,
    historyEnd: number,
    maxBytesPerRead = MAX_BYTES_PER_READ,
  ) {
    this.historyEndsAt = historyEnd;
    this.tail = new FileTail<T>({ path, files, clock, scanner, maxBytesPerRead });
  }

  /** Where the history ends: lines ending at or below this byte were on disk before we followed the file. */
  get historyEnd(): number {
    return this.historyEndsAt;
  }

  /** History not read yet: the next read() indexes it (and stops where it ends). */
  get inHistory(): boolean {
    return !this.closed && this.tail.offset < this.historyEndsAt;
  }

  /** Bytes of history not read yet. */
  get historyLeft(): number {
    return this.inHistory ? this.historyEndsAt - this.tail.offset : 0;
  }

  /** Where what we have read or counted as history ends: a file followed again later is live only past it. */
  get seenUpTo(): number {
    return this.tail.offset + this.historyLeft;
  }

  /**
   * Reads what the file gained and hands it to `handle`, after every earlier
   * read of this file. A read that starts in history reads up to its end and
   * no further, handing it over in bounded steps (the engine reads the hook
   * channel again before the live lines after it, so a hook event appended
   * meanwhile is known before the record it announces). Live lines are handed
   * over as one read however many steps the tail took, because what arrived
   * together is one write batch (a record and its result in one batch is the
   * `with_result` shape).
   */
  read(handle: ReadHandler<T>): Promise<void> {
    const next = this.queue.then(async () => {
      if (this.closed) return;
      const historyOnly = this.inHistory;
      let live: TailRead<T> | undefined;
      let caughtUp = false;
      for (let turns = 0; turns < MAX_READS_PER_TURN && !this.closed; turns++) {
        const read = await this.tail.read(historyOnly ? this.historyEndsAt : Number.POSITIVE_INFINITY);
        if (read.changes.length > 0) {
          // Truncated, replaced, re-created: the new generation was written after we looked.
          this.historyEndsAt = 0;
          await this.hand(live, false, handle);
          live = undefined;
        }
        const [history, rest] = splitRead(read, this.historyEndsAt);
        if (history) {
          await this.hand(live, false, handle);
          live = undefined;
          await this.hand(history, true, handle);
        }
        live = live ? mergeReads(live, rest) : rest;
        if (!read.more) caughtUp = true;
        if (!read.more || (historyOnly && !this.inHistory)) break;
      }
      await this.hand(live, false, handle);
      // Read to the end and still short of it: the file shrank unnoticed before we opened it; what comes next is new.
      if (caughtUp) this.historyEndsAt = Math.min(this.historyEndsAt, this.tail.offset);
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Awaits only a handler that is async: a sync one keeps the read in one go. */
  private hand(read: TailRead<T> | undefined, catchUp: boolean, handle: ReadHandler<T>): Promise<unknown> | undefined {
    if (!read || this.closed || (!read.batch && read.changes.length === 0)) return undefined;
    const result = handle(read, catchUp);
    return result instanceof Promise ? result : undefined;
  }

  close(): Promise<void> {
    this.closed = true;
    return this.tail.close();
  }
}

/** Two consecutive reads of one generation as one: the lines were all on disk when the first began. */
function mergeReads<T>(a: TailRead<T>, b: TailRead<T>): TailRead<T> {
  const merged: TailRead<T> = { lines: [...a.lines, ...b.lines], changes: a.changes };
  if (b.more) merged.more = true;
  if (a.batch && b.batch) merged.batch = { ...a.batch, lastLine: b.batch.lastLine, byteEnd: b.batch.byteEnd };
  else if (a.batch ?? b.batch) merged.batch = a.batch ?? b.batch;
  return merged;
}

/**
 * Splits a read at a byte offset: the lines ending at or below it (history,
 * with the read's changes), then the rest (live). A line half-written when the
 * history end was fixed ends past it: it is live.
 */
function splitRead<T>(read: TailRead<T>, atByte: number): [TailRead<T> | undefined, TailRead<T>] {
  const first = read.lines[0];
  if (!first || first.byteEnd > atByte) return [undefined, read];
  const cut = read.lines.findIndex((l) => l.byteEnd > atByte);
  if (cut === -1) return [read, { lines: [], changes: [] }];
  const part = (lines: TailRead<T>['lines'], changes: TailRead<T>['changes']): TailRead<T> => {
    const out: TailRead<T> = { lines, changes };
    const a = lines[0];
    const b = lines[lines.length - 1];
    if (read.batch && a && b) out.batch = { ...read.batch, firstLine: a.line, lastLine: b.line, byteStart: a.byteStart, byteEnd: b.byteEnd };
    return out;
  };
  const live = part(read.lines.slice(cut), []);
  if (read.more) live.more = true;
  return [part(read.lines.slice(0, cut), read.changes), live];
}
