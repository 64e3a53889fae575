import { SCANNER_WASM_BASE64 } from './scannerWasm';
import { writeKeyTable } from './keyTable';

/** Bytes past the input that the module's kernels may load (SCANNER_READ_PAST_END in ./wasm/interior.h). */
export const SCANNER_READ_PAST_END = 64;
const WASM_PAGE = 64 * 1024;

/** The scanner module's exports (its C sources are ./wasm/*.c and ../analyze/capture/wasm/*.c; scripts/gen-scanner-wasm.mjs builds it). */
export interface ScannerExports {
  memory: { readonly buffer: ArrayBuffer; grow(pages: number): number };
  /** The first byte no C data or stack uses. */
  heapBase(): number;
  skipInterior(p: number, end: number): number;
  /** Other C files of the module add their own exports; their users narrow this. */
  readonly [name: string]: unknown;
}

/** The little of the WebAssembly API used here (the project's TS libs do not declare it). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { readonly exports: unknown };
}
const wasmApi = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;

/**
 * An instance of the scanner's wasm module. One is shared by every tokenizer of the process (an engine tails many
 * sessions; a memory each would hold a chunk-sized copy each); users put their input at `heapBase`.
 * Sharing is safe because every use is synchronous and `loaded` says whose bytes the memory holds: a user that writes
 * the memory MUST first set `loaded = undefined` (its own marker once written), and copy its input in again whenever
 * `loaded` is not its marker.
 */
export interface ScannerKernel {
  readonly exports: ScannerExports;
  /** The whole memory; replaced by ensureCapacity() when the memory grows (a grown memory detaches the old view). */
  bytes: Uint8Array;
  /** The first free byte: inputs go here. */
  readonly heapBase: number;
  /** Grows the memory so that heapBase + bytes + SCANNER_READ_PAST_END fits; returns the (fresh) `bytes`. */
  ensureCapacity(bytes: number): Uint8Array;
  /** Where `view` starts, if it lies in the memory below heapBase with SCANNER_READ_PAST_END to spare (a ReadingKernel's read buffer, scanned in place); else -1. */
  placeOf(view: Uint8Array): number;
  /** Which input the memory holds from heapBase on (a marker object of its user); undefined once anyone writes it. */
  loaded: object | undefined;
  /** The string of each slot of the module's recall() table (src/core/analyze/capture/wasm/recall.c): one array, as there is one table. */
  readonly recalled: string[];
}

let shared: ScannerKernel | null | undefined;
let compiled: object | null | undefined;

function makeKernel(exports: ScannerExports, reservedBytes = 0): ScannerKernel {
  // Inputs start on a 64-byte edge: aligned SIMD loads, and the same alignment in every run.
  const heapBase = align64(exports.heapBase()) + reservedBytes;
  const kernel: ScannerKernel = {
    exports,
    bytes: new Uint8Array(exports.memory.buffer),
    heapBase,
    loaded: undefined,
    recalled: [],
    placeOf(view: Uint8Array): number {
      const inMemory = view.buffer === kernel.bytes.buffer && view.byteOffset + view.length + SCANNER_READ_PAST_END <= heapBase;
      return inMemory ? view.byteOffset : -1;
    },
    ensureCapacity(bytes: number): Uint8Array {
      const needed = heapBase + bytes + SCANNER_READ_PAST_END;
      if (needed > kernel.bytes.length) {
        exports.memory.grow(Math.ceil((needed - kernel.bytes.length) / WASM_PAGE));
        kernel.bytes = new Uint8Array(exports.memory.buffer);
      }
      return kernel.bytes;
    },
  };
  return kernel;
}

export function align64(n: number): number {
  return Math.ceil(n / 64) * 64;
}

/** A fresh instance of the module (compiled once), or null where WebAssembly or its SIMD is unavailable. */
function instantiate(): ScannerExports | null {
  let exports: ScannerExports;
  try {
    if (!wasmApi) throw new Error('no WebAssembly');
    compiled ??= new wasmApi.Module(Buffer.from(SCANNER_WASM_BASE64, 'base64'));
    exports = new wasmApi.Instance(compiled).exports as ScannerExports;
  } catch {
    compiled = null; // no WebAssembly, or a runtime without wasm SIMD rejects the module
    return null;
  }
  // The capture's kept keys: the field table, read at load (./keyTable.ts).
  writeKeyTable(exports as ScannerExports & { keyTable(): number });
  return exports;
}

/** The shared kernel, made once; null where WebAssembly or its SIMD is unavailable (callers use their JS paths). */
export function sharedKernel(): ScannerKernel | null {
  if (shared === undefined) {
    const exports = compiled === null ? null : instantiate();
    shared = exports === null ? null : makeKernel(exports);
  }
  return shared;
}

/**
 * A kernel not shared, whose first `reservedBytes` past the module's data (from `reservedFrom`) are its owner's, never
 * input (analyze's read buffers, ../analyze/capture/readingKernel.ts); null where the module cannot run.
 */
export function ownKernel(reservedBytes: number): (ScannerKernel & { readonly reservedFrom: number }) | null {
  const exports = compiled === null ? null : instantiate();
  if (exports === null) return null;
  return Object.assign(makeKernel(exports, reservedBytes), { reservedFrom: align64(exports.heapBase()) });
}
