import type { OpenFile } from './fileAccess';

const EMPTY = Buffer.alloc(0);

/** Bytes kept from each end of what the tail consumed. Two small reads per check, only when the file changed. */
export const CONSUMED_WINDOW_BYTES = 256;

/**
 * Remembers the first and the last bytes the tail consumed from a file, so it
 * can notice a file rewritten in place between two reads — truncated and
 * regrown past the offset — which the size alone cannot show. A rewrite that
 * leaves both windows byte-identical goes unnoticed; for files no longer than
 * two windows that means the consumed bytes are truly unchanged.
 */
export class ConsumedWindow {
  /**
   * Both windows in one small buffer, made at the first record: a process following
   * 20,000 files holds 2 × 256 bytes each, carved from Node's shared slab, not three
   * buffers of their own (the bytes to compare with are read into a fresh one per check).
   */
  private held: Buffer | undefined;
  private head: Buffer = EMPTY;
  private tail: Buffer = EMPTY;
  /** Bytes held from offset 0: min(consumed, window size). */
  private headLength = 0;
  /** Bytes held that end at the consumed offset. */
  private tailLength = 0;

  constructor(private readonly windowBytes = CONSUMED_WINDOW_BYTES) {}

  clear(): void {
    this.headLength = 0;
    this.tailLength = 0;
  }

  /** `chunk` was consumed at file position `position`; it may be a view into a reused buffer, so copy. */
  record(chunk: Buffer, position: number): void {
    const size = this.windowBytes;
    if (this.held === undefined) {
      this.held = Buffer.allocUnsafe(2 * size);
      this.head = this.held.subarray(0, size);
      this.tail = this.held.subarray(size);
    }
    if (position < size) {
      const n = Math.min(size - position, chunk.length);
      chunk.copy(this.head, position, 0, n);
      this.headLength = position + n;
    }
    if (chunk.length >= size) {
      chunk.copy(this.tail, 0, chunk.length - size);
      this.tailLength = size;
    } else {
      // Shift the kept end left (Buffer.copy handles the overlap) and append the chunk.
      const keep = Math.min(this.tailLength, size - chunk.length);
      this.tail.copy(this.tail, 0, this.tailLength - keep, this.tailLength);
      chunk.copy(this.tail, keep);
      this.tailLength = keep + chunk.length;
    }
  }

  /** True when the file still holds the remembered bytes; `offset` is the consumed length. */
  async matches(file: OpenFile, offset: number): Promise<boolean> {
    if (!(await this.fileHolds(file, this.head, this.headLength, 0))) return false;
    // The tail window lies inside the head window for short files.
    if (offset <= this.headLength) return true;
    return this.fileHolds(file, this.tail, this.tailLength, offset - this.tailLength);
  }

  private async fileHolds(file: OpenFile, expected: Buffer, length: number, position: number): Promise<boolean> {
    if (length === 0) return true;
    const scratch = Buffer.allocUnsafe(length);
    let got = 0;
    while (got < length) {
      const n = await file.read(scratch, got, length - got, position + got);
      if (n === 0) return false;
      got += n;
    }
    return scratch.equals(expected.subarray(0, length));
  }
}
