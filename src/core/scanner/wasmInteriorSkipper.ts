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

/**
 * One kernel instance (and so one wasm memory, as large as the largest chunk)
 * for the whole process, shared by every tokenizer: an engine tails many
 * sessions, and a memory per tokenizer would hold a chunk-sized copy each.
 * Sharing is safe because a tokenizer uses the kernel only inside one
 * synchronous push(): setChunk() marks the memory's copy stale, and the first
 * skipInterior() of that push copies its own chunk in.
 */
interface SharedKernel {
  readonly exports: KernelExports;
  bytes: Uint8Array;
  /** The chunk whose bytes the memory holds; undefined once a push has begun. */
  loaded: Buffer | undefined;
}

let shared: SharedKernel | null | undefined;

/** The shared kernel, made once; null where WebAssembly or its SIMD is unavailable. */
function sharedKernel(): SharedKernel | null {
  if (shared === undefined) {
    try {
      if (!wasmApi) throw new Error('no WebAssembly');
      const module = new wasmApi.Module(Buffer.from(STRING_INTERIOR_WASM_BASE64, 'base64'));
      const exports = new wasmApi.Instance(module).exports as KernelExports;
      shared = { exports, bytes: new Uint8Array(exports.memory.buffer), loaded: undefined };
    } catch {
      shared = null; // no WebAssembly, or a runtime without wasm SIMD rejects the module
    }
  }
  return shared;
}

/**
 * Skips string interiors 16 bytes at a time with the wasm SIMD kernel in
 * ./stringInterior.wat: nearly all bytes of a huge line are string interior, and
 * the JS word loop tops out near 550 MB/s. The chunk is copied into wasm memory
 * once, on the first skipInterior() of the chunk (a memcpy, far cheaper than the scan).
 */
export class WasmInteriorSkipper implements InteriorSkipper {
  private readonly kernel: SharedKernel;
  private chunk: Buffer = Buffer.alloc(0);

  private constructor(kernel: SharedKernel) {
    this.kernel = kernel;
  }

  /** A skipper, or undefined where WebAssembly SIMD is unavailable (callers use the JS one). */
  static create(): WasmInteriorSkipper | undefined {
    const kernel = sharedKernel();
    return kernel === null ? undefined : new WasmInteriorSkipper(kernel);
  }

  setChunk(chunk: Buffer): void {
    this.chunk = chunk;
    // Even the same Buffer may hold new bytes now (read buffers are reused).
    this.kernel.loaded = undefined;
  }

  skipInterior(k: number, n: number): number {
    const kernel = this.kernel;
    if (kernel.loaded !== this.chunk) this.copyChunk();
    return kernel.exports.skipInterior(CHUNK_BASE + k, CHUNK_BASE + n) - CHUNK_BASE;
  }

  private copyChunk(): void {
    const kernel = this.kernel;
    const needed = CHUNK_BASE + this.chunk.length + READ_PAST_END;
    if (needed > kernel.bytes.length) {
      kernel.exports.memory.grow(Math.ceil((needed - kernel.bytes.length) / WASM_PAGE));
      kernel.bytes = new Uint8Array(kernel.exports.memory.buffer);
    }
    kernel.bytes.set(this.chunk, CHUNK_BASE);
    kernel.loaded = this.chunk;
  }
}
