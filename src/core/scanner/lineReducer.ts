import { sharedKernel, SCANNER_READ_PAST_END, type ScannerExports, type ScannerKernel } from './scannerKernel';

/** The line is not JSON (the whole-line path then gives the reason). */
export const REDUCE_INVALID = -1;
/** The reducer cannot reduce this line exactly (root no object, an escaped key where keys are matched): parse it whole. */
export const REDUCE_FULL = -2;

interface ReducerExports extends ScannerExports {
  reduceLine(line: number, length: number, out: number, outCapacity: number, stack: number): number;
  reducedHasNonAscii(): number;
}

/** Output and stack regions start on 64-byte edges, like the line. */
function align64(n: number): number {
  return Math.ceil(n / 64) * 64;
}

/**
 * Validates one whole line as JSON in wasm (./wasm/reduce.c) and gives back a
 * reduced JSON text: the root object with only the keys ./fields.ts reads, its
 * `message` reduced to `id stop_reason content`, and content blocks to
 * `type id name tool_use_id text` (other kept values copied verbatim, kept
 * containers the engine does not look into as `{}` / `[]`). JSON.parse of it
 * yields the same captured fields as JSON.parse of the whole line, without
 * building the tool results, inputs and attachments that hold most of an
 * ordinary line's bytes.
 */
export class LineReducer {
  private readonly kernel: ScannerKernel;
  private readonly exports: ReducerExports;

  private constructor(kernel: ScannerKernel) {
    this.kernel = kernel;
    this.exports = kernel.exports as ReducerExports;
  }

  /** The reducer, or undefined where WebAssembly SIMD is unavailable (callers parse whole lines). */
  static create(): LineReducer | undefined {
    const kernel = sharedKernel();
    return kernel === null ? undefined : new LineReducer(kernel);
  }

  /**
   * The reduced text of `line` (its newline excluded), or REDUCE_INVALID /
   * REDUCE_FULL. The returned Buffer is a view of wasm memory, valid only until
   * the next use of the shared kernel: read it at once.
   */
  reduce(line: Buffer): Buffer | number {
    const kernel = this.kernel;
    const length = line.length;
    // Layout from heapBase: the line (+ the bytes the kernels may read past
    // it, where the reducer puts its end mark), the output, the bit stack.
    const outOffset = align64(length + SCANNER_READ_PAST_END);
    const outCapacity = length + 64;
    const stackOffset = outOffset + align64(outCapacity);
    kernel.loaded = undefined;
    const bytes = kernel.ensureCapacity(stackOffset + (length >> 3) + 1);
    const base = kernel.heapBase;
    bytes.set(line, base);
    const result = this.exports.reduceLine(base, length, base + outOffset, outCapacity, base + stackOffset);
    if (result < 0) return result;
    return Buffer.from(bytes.buffer, bytes.byteOffset + base + outOffset, result);
  }

  /** Whether the last reduced text holds a byte >= 0x80; if not, decoding it as Latin-1 or as UTF-8 gives one text. */
  reducedHasNonAscii(): boolean {
    return this.exports.reducedHasNonAscii() !== 0;
  }
}
