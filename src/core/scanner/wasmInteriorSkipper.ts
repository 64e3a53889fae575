import { STRING_INTERIOR_WASM_BASE64 } from './stringInteriorWasm';

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

/** Where the chunk starts in wasm memory: bytes 0-255 hold the kernel's escape table. */
const CHUNK_BASE = 256;
/** The kernel loads whole 16-byte blocks, so up to 15 bytes past the chunk must be memory. */
const READ_PAST_END = 16;
const WASM_PAGE = 64 * 1024;

interface KernelExports {
  memory: { readonly buffer: ArrayBuffer; grow(pages: number): number };
  skipInterior(p: number, end: number): number;
}

/** The little of the WebAssembly API used here (the project's TS libs do not declare it). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { readonly exports: unknown };
}
const wasmApi = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;

let compiled: object | null | undefined;

/** The kernel's module, compiled once; null where WebAssembly or its SIMD is unavailable. */
function kernelModule(): object | null {
  if (compiled === undefined) {
    try {
      compiled = wasmApi ? new wasmApi.Module(Buffer.from(STRING_INTERIOR_WASM_BASE64, 'base64')) : null;
    } catch {
      compiled = null; // a runtime without wasm SIMD rejects the module
    }
  }
  return compiled;
}

/**
 * Skips string interiors 16 bytes at a time with the wasm SIMD kernel in
 * ./stringInterior.wat: nearly all bytes of a huge line are string interior, and
 * the JS word loop tops out near 550 MB/s. The chunk is copied into wasm memory
 * once, on the first skipInterior() of the chunk (a memcpy, far cheaper than the scan).
 */
export class WasmInteriorSkipper implements InteriorSkipper {
  private readonly kernel: KernelExports;
  private bytes: Uint8Array;
  private chunk: Buffer = Buffer.alloc(0);
  private copied = true;

  private constructor(kernel: KernelExports) {
    this.kernel = kernel;
    this.bytes = new Uint8Array(kernel.memory.buffer);
  }

  /** A skipper, or undefined where WebAssembly SIMD is unavailable (callers use the JS one). */
  static create(): WasmInteriorSkipper | undefined {
    const mod = kernelModule();
    if (mod === null || !wasmApi) return undefined;
    try {
      return new WasmInteriorSkipper(new wasmApi.Instance(mod).exports as KernelExports);
    } catch {
      return undefined;
    }
  }

  setChunk(chunk: Buffer): void {
    this.chunk = chunk;
    this.copied = false;
  }

  skipInterior(k: number, n: number): number {
    if (!this.copied) this.copyChunk();
    return this.kernel.skipInterior(CHUNK_BASE + k, CHUNK_BASE + n) - CHUNK_BASE;
  }

  private copyChunk(): void {
    const needed = CHUNK_BASE + this.chunk.length + READ_PAST_END;
    if (needed > this.bytes.length) {
      this.kernel.memory.grow(Math.ceil((needed - this.bytes.length) / WASM_PAGE));
      this.bytes = new Uint8Array(this.kernel.memory.buffer);
    }
    this.bytes.set(this.chunk, CHUNK_BASE);
    this.copied = true;
  }
}
