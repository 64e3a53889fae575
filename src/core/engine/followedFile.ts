import type { Clock } from '../clock';
import type { FileAccess } from '../fileAccess';
import { FileTail } from '../tail';
import type { LineScanner, TailRead } from '../tailTypes';

/** Bytes one tail read takes: a multi-GB transcript is indexed in steps, never held as one read's lines. */
export const MAX_BYTES_PER_READ = 8 * 1024 * 1024;
/** A writer faster than us must not keep one read going for ever; the next tick goes on. */
const MAX_READS_PER_TURN = 1000;

/**
 * One followed file: its tail and a queue so that reads of the file, and the
 * handling of each read, happen one after the other whoever asks (a tick, a
 * change notification). Different files are read independently.
 */
export class FollowedFile<T> {
  readonly tail: FileTail<T>;
  private queue: Promise<void> = Promise.resolve();
  closed = false;
  /**
   * The next read catches up on what the file held before we followed it
   * (history at start, a revived old session): its lines were not seen arriving.
   */
  catchUp: boolean;

  constructor(
    readonly path: string,
    files: FileAccess,
    clock: Clock,
    scanner: LineScanner<T>,
    catchUp: boolean,
    maxBytesPerRead = MAX_BYTES_PER_READ,
  ) {
    this.catchUp = catchUp;
    this.tail = new FileTail<T>({ path, files, clock, scanner, maxBytesPerRead });
  }

  /**
   * Reads what the file gained and hands it to `handle`, after every earlier
   * read of this file. History is handed over in bounded steps; live lines are
   * handed over as one read however many steps the tail took, because what
   * arrived together is one write batch (a record and its result in one
   * batch is the `with_result` shape).
   */
  read(handle: (read: TailRead<T>, catchUp: boolean) => void): Promise<void> {
    const next = this.queue.then(async () => {
      if (this.closed) return;
      const catchUp = this.catchUp;
      let read = await this.tail.read();
      this.catchUp = false;
      for (let turns = 1; read.more && turns < MAX_READS_PER_TURN && !this.closed; turns++) {
        const more = await this.tail.read();
        if (catchUp || more.changes.length > 0) {
          this.hand(read, catchUp, handle);
          read = more;
        } else read = mergeReads(read, more);
      }
      this.hand(read, catchUp, handle);
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  private hand(read: TailRead<T>, catchUp: boolean, handle: (read: TailRead<T>, catchUp: boolean) => void): void {
    if (this.closed || (!read.batch && read.changes.length === 0)) return;
    handle(read, catchUp);
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
