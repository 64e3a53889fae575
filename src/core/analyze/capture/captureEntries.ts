import { jsonStringHead } from '../../scanner/jsonStringHead';

/**
 * The list of kept values ./wasm/capture.c writes, as ./lineReducer.ts reads
 * it, and the decoding of the strings it points at.
 */

// The entries of ./wasm/capture.c: three words (code, start, end); the code is
// the field | type << 8 | string flags (the field codes: FIELDS of
// ../../scanner/fieldTable.ts). Keep the types and flags in step with the defines of capture.c.
export const ENTRY_WORDS = 3;
export const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
export const ENTRY_BYTES = ENTRY_WORDS * 4;
export const T_STRING = 0;
export const T_NUMBER = 1;
const T_TRUE = 2;
const T_FALSE = 3;
export const T_NULL = 4;
const HAS_ESCAPE = 1 << 16;
const HAS_NON_ASCII = 1 << 17;

/** Buffer's own decoders of a byte range (what toString(encoding, start, end) calls, without its argument checks). */
export interface SlicingBuffer extends Buffer {
  latin1Slice(start: number, end: number): string;
  utf8Slice(start: number, end: number): string;
}

export function typeOf(w: Uint32Array, p: number): number {
  return (w[p] >> 8) & 0xff;
}

export function booleanAt(w: Uint32Array, p: number): boolean | undefined {
  if (p < 0) return undefined;
  const type = typeOf(w, p);
  return type === T_TRUE ? true : type === T_FALSE ? false : undefined;
}

/** The number of the entry at p (a JSON number literal capture.c has validated). */
export function numberAt(line: SlicingBuffer, base: number, w: Uint32Array, p: number): number {
  return Number(line.latin1Slice(base + w[p + 1]!, base + w[p + 2]!));
}

/**
 * The string of the entry at p (offsets from `base` in `line`) cut to `cap`,
 * as fieldsFromParsed keeps it from JSON.parse of the line (see
 * jsonStringHead); undefined if p is no entry or its value no string. Plain
 * ASCII, the common case, is sliced as it lies.
 */
export function stringAt(line: SlicingBuffer, base: number, w: Uint32Array, p: number, cap: number): string | undefined {
  if (p < 0) return undefined;
  const code = w[p];
  if (((code >> 8) & 0xff) !== T_STRING) return undefined;
  const start = base + w[p + 1];
  const end = base + w[p + 2];
  if ((code & (HAS_ESCAPE | HAS_NON_ASCII)) === 0) return line.latin1Slice(start, Math.min(end, start + cap));
  return jsonStringHead(line, start, end, cap, (code & HAS_ESCAPE) !== 0);
}

/** Longest string RecentStrings keeps (RECALL_MAX_BYTES in ./wasm/recall.c): a longer cwd is decoded each time. */
const RECENT_MAX_BYTES = 128;

/**
 * Recently decoded strings, looked up by their bytes with the module's
 * recall() (./wasm/recall.c): most kept strings of a line repeat those of the
 * lines before, and a slot's string costs no decoding and no garbage. Only
 * plain ASCII strings (no escape) go in; the rest are decoded by stringAt.
 * The strings of the slots are the kernel's, shared like its table.
 */
export class RecentStrings {
  constructor(
    private readonly exports: { recall(bytes: number, length: number): number },
    private readonly strings: string[],
  ) {}

  /** stringAt(line, base, w, p, cap), from the table when the same bytes were decoded lately. */
  at(line: SlicingBuffer, base: number, w: Uint32Array, p: number, cap: number): string | undefined {
    if (p < 0) return undefined;
    const code = w[p];
    const start = base + w[p + 1];
    const length = base + w[p + 2] - start;
    if ((code & (0xff00 | HAS_ESCAPE | HAS_NON_ASCII)) !== T_STRING << 8 || length > RECENT_MAX_BYTES || length > cap) {
      return stringAt(line, base, w, p, cap);
    }
    const slot = this.exports.recall(start, length);
    if (slot >= 0) return this.strings[slot];
    const s = line.latin1Slice(start, start + length);
    this.strings[-1 - slot] = s;
    return s;
  }
}
