import { align64, ownKernel, SCANNER_READ_PAST_END, type ScannerKernel } from '../../scanner/scannerKernel';

/** A kernel of its own whose memory also holds the read buffers of one tail. */
export interface ReadingKernel extends ScannerKernel {
  /**
   * Read buffer i (0 … count - 1): `size` bytes of the memory below heapBase, SCANNER_READ_PAST_END to spare after it.
   * A fresh view once the memory has grown (which detaches every view); the bytes stay.
   */
  readBuffer(index: number): Buffer;
}

/**
 * A kernel with `count` read buffers of `size` bytes in its memory, for the tail's LineBatches: a chunk is scanned where
 * it was read, one copy less per byte (the largest saving of a cold index, BENCHMARKS.md). The memory starts with room for
 * `scratchBytes` at heapBase, so reads in flight never see it grow (growing detaches views); untouched pages cost nothing.
 * Null where the module cannot run.
 */
export function createReadingKernel(count: number, size: number, scratchBytes: number): ReadingKernel | null {
  const stride = align64(size + SCANNER_READ_PAST_END);
  const own = ownKernel(count * stride);
  if (own === null) return null;
  const kernel = own as typeof own & ReadingKernel;
  const first = own.reservedFrom;
  kernel.ensureCapacity(scratchBytes);
  let viewsOf: ArrayBufferLike | undefined;
  const views: Buffer[] = [];
  kernel.readBuffer = (index: number): Buffer => {
    if (!(index >= 0 && index < count)) throw new RangeError(`read buffer ${index} of ${count}`);
    const memory = kernel.exports.memory.buffer;
    if (viewsOf !== memory) {
      views.length = 0;
      viewsOf = memory;
    }
    return (views[index] ??= Buffer.from(memory, first + index * stride, size));
  };
  return kernel;
}
