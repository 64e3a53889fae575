import type { Clock } from '../clock';
import type { FileAccess } from '../fileAccess';
import { FileTail } from '../tail';
import type { LineScanner, TailRead } from '../tailTypes';

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
  ) {
    this.catchUp = catchUp;
    this.tail = new FileTail<T>({ path, files, clock, scanner });
  }

  /** Reads what the file gained and hands the read to `handle`, after every earlier read of this file. */
  read(handle: (read: TailRead<T>, catchUp: boolean) => void): Promise<void> {
    const next = this.queue.then(async () => {
      if (this.closed) return;
      const read = await this.tail.read();
      const catchUp = this.catchUp;
      this.catchUp = false;
      if (this.closed || (!read.batch && read.changes.length === 0)) return;
      handle(read, catchUp);
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  close(): Promise<void> {
    this.closed = true;
    return this.tail.close();
  }
}
