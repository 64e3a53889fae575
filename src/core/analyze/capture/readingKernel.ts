import { align64, ownKernel, SCANNER_READ_PAST_END, type ScannerKernel } from '../../scanner/scannerKernel';

/** A kernel of its own whose memory also holds the read buffers of one tail. */
export interface ReadingKernel extends ScannerKernel {
  /**
   * Read buffer i (0 … count - 1): a view of `size` bytes of the memory, with
   * SCANNER_READ_PAST_END to spare after it, below heapBase. A fresh view when
   * the memory has grown (which replaces every view of it); the bytes stay.
   */
  readBuffer(index: number): Buffer;
}

/**
 * A kernel for one reader, with `count` read buffers of `size` bytes inside
 * its wasm memory, for the tail's LineBatches: a chunk is read where the
 * kernels scan it, and not copied in: every byte is copied once less, the
 * largest single saving of a cold index (BENCHMARKS.md). Its memory starts large enough for
 * `scratchBytes` of input at heapBase, so that reads in flight never see it
 * grow (a wasm memory grows in place on 64-bit V8, but replaces its views);
 * pages never touched cost no memory. Null where the module cannot run.
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
