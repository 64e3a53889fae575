import { sharedKernel, type ScannerKernel } from './scannerKernel';

/**
 * What the streaming tokenizer needs from a string-interior skipper: the
 * contract of SpecialByteFinder.skipInterior (./wordSkip.ts). skipInterior(k, n)
 * skips plain bytes and complete, valid escapes from k and returns the index of
 * the first byte the caller must look at (the closing `"`, a control byte, or a
 * `\` whose escape is bad or cut by n), or n. An escape cut by the chunk's end
 * is finished by the tokenizer's ESC/UNI states, at most once per chunk.
 */
export interface InteriorSkipper {
  /** Call once per chunk, before skipInterior(). */
  setChunk(chunk: Buffer): void;
  skipInterior(k: number, n: number): number;
}

/**
 * Skips string interiors with the wasm SIMD kernel in ./wasm/interior.c (the
 * shared module of ./scannerKernel.ts): nearly all bytes of a huge line are
 * string interior, and the SIMD kernel scans them many times faster than the
 * JS word loop, even on escape-dense code text (figures in
 * BENCHMARKS.md). The chunk is copied into wasm memory at heapBase once, on
 * the first skipInterior() of the chunk (a memcpy, a large share of the scan's
 * time: why analyze reads straight into wasm memory). The memory is shared, so
 * `kernel.loaded` is compared with this skipper's marker, not trusted.
 */
export class WasmInteriorSkipper implements InteriorSkipper {
  private readonly kernel: ScannerKernel;
  private chunk: Buffer = Buffer.alloc(0);
  /** This skipper's mark in kernel.loaded: a fresh object per chunk, since a reused Buffer may hold new bytes. */
  private chunkMark: object = {};
  /** Where the chunk lies in the kernel's memory when it was read there, else -1. */
  private inPlace = -1;

  private constructor(kernel: ScannerKernel) {
    this.kernel = kernel;
  }

  /** A skipper on `kernel` (default: the shared one), or undefined where WebAssembly SIMD is unavailable (callers use the JS one). */
  static create(kernel: ScannerKernel | null = sharedKernel()): WasmInteriorSkipper | undefined {
    return kernel === null ? undefined : new WasmInteriorSkipper(kernel);
  }

  setChunk(chunk: Buffer): void {
    this.chunk = chunk;
    // Even the same Buffer may hold new bytes now (read buffers are reused): a new mark makes the next call copy.
    this.chunkMark = {};
    // A chunk read into the kernel's own memory (a ReadingKernel's read buffer) is scanned where it lies.
    this.inPlace = this.kernel.placeOf(chunk);
  }

  skipInterior(k: number, n: number): number {
    const kernel = this.kernel;
    if (this.inPlace >= 0) return kernel.exports.skipInterior(this.inPlace + k, this.inPlace + n) - this.inPlace;
    if (kernel.loaded !== this.chunkMark) this.copyChunk();
    const base = kernel.heapBase;
    return kernel.exports.skipInterior(base + k, base + n) - base;
  }

  private copyChunk(): void {
    const kernel = this.kernel;
    kernel.loaded = undefined;
    kernel.ensureCapacity(this.chunk.length).set(this.chunk, kernel.heapBase);
    kernel.loaded = this.chunkMark;
  }
}
