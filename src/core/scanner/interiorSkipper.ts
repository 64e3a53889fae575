import { sharedKernel, type ScannerKernel } from './scannerKernel';

/**
 * What the streaming tokenizer needs from a string-interior skipper.
 * skipInterior(k, n) skips plain bytes from k, and may skip complete valid
 * escapes, and returns the index of the first byte the caller must look at
 * (the closing `"`, a control byte, or a `\` it did not skip), or n.
 */
export interface InteriorSkipper {
  /** Call once per chunk, before skipInterior(). */
  setChunk(chunk: Buffer): void;
  skipInterior(k: number, n: number): number;
}

/** Where WebAssembly SIMD is unavailable: byte by byte, stopping at every backslash (the tokenizer checks escapes). */
export class JsInteriorSkipper implements InteriorSkipper {
  private chunk: Buffer = Buffer.alloc(0);

  setChunk(chunk: Buffer): void {
    this.chunk = chunk;
  }

  skipInterior(k: number, n: number): number {
    const chunk = this.chunk;
    for (; k < n; k++) {
      const c = chunk[k]!;
      if (c < 0x20 || c === 0x22 || c === 0x5c) return k;
    }
    return n;
  }
}

/**
 * Skips string interiors with the wasm SIMD kernel in ./wasm/interior.c (the
 * shared module of ./scannerKernel.ts): nearly all bytes of a huge line are
 * string interior, and the SIMD kernel scans them many times faster than a
 * JS loop, even on escape-dense code text (figures in
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
