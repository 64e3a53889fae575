import { capString } from '../../scanner/fields';

/**
 * The list of kept values ./wasm/capture.c writes, as ./lineReducer.ts reads
 * it, and the decoding of the strings it points at.
 */

// The entries of ./wasm/capture.c: three words (code, start, end); the code is
// the field | type << 8 | string flags (the field codes: ./keptFieldCodes.ts,
// generated). Keep the types and flags in step with the defines of capture.c.
export const ENTRY_WORDS = 3;
export const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
export const ENTRY_BYTES = ENTRY_WORDS * 4;
export * from './keptFieldCodes';
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

/**
 * The number of the entry at p (a JSON number literal, which capture.c has
 * validated): digits alone, as apiBlockIndex always is, are read here (up to
 * 15 of them, exact in a double), anything else as Number() reads the literal.
 */
export function numberAt(line: SlicingBuffer, base: number, w: Uint32Array, p: number): number {
  const start = base + w[p + 1]!;
  const end = base + w[p + 2]!;
  if (end - start <= 15) {
    let n = 0;
    let i = start;
    for (; i < end; i++) {
      const digit = line[i]! - 0x30;
      if (digit < 0 || digit > 9) break;
      n = n * 10 + digit;
    }
    if (i === end) return n;
  }
  return Number(line.latin1Slice(start, end));
}

/**
 * The string of the entry at p (offsets from `base` in `line`) cut to `cap`, as fieldsFromParsed keeps it from
 * JSON.parse of the UTF-8 decoded line (invalid UTF-8 becomes U+FFFD, as with
 * Buffer#toString); undefined if p is no entry or its value no string. Without
 * an escape the bytes are the string: only the ones the cap can reach are
 * decoded (a UTF-16 code unit takes at most 3 bytes, and a sequence cut at the
 * end changes only what lies past the cap).
 */
export function stringAt(line: SlicingBuffer, base: number, w: Uint32Array, p: number, cap: number): string | undefined {
  if (p < 0) return undefined;
  const code = w[p];
  if (((code >> 8) & 0xff) !== T_STRING) return undefined;
  const start = base + w[p + 1];
  const end = base + w[p + 2];
  if ((code & HAS_ESCAPE) === 0) {
    if ((code & HAS_NON_ASCII) === 0) return line.latin1Slice(start, Math.min(end, start + cap));
    return capString(line.utf8Slice(start, Math.min(end, start + 3 * cap + 4)), cap);
  }
  // With escapes, JSON.parse decodes the literal, or only a head of it, cut
  // outside any escape: a cut can mangle only a UTF-8 sequence it splits (at
  // most 3 units, at the end), so a head that gives cap + 3 units gives the
  // first cap exactly. Prose takes little more than a byte a unit: a head of
  // cap + 32 bytes first, then 2 x cap + 16; one unit takes at most 6 bytes
  // (`\uXXXX`), so 6 x cap + 8 always do.
  const ascii = (code & HAS_NON_ASCII) === 0;
  for (const head of [cap + 32, 2 * cap + 16]) {
    if (end - start <= head) break;
    const short = escapedHead(line, start, cutOutsideEscape(line, start, start + head), ascii);
    if (short.length >= cap + 3) return capString(short, cap);
  }
  const stop = end - start > 6 * cap + 8 ? cutOutsideEscape(line, start, start + 6 * cap + 8) : end;
  return capString(escapedHead(line, start, stop, ascii), cap);
}

/**
 * The string whose JSON text is [start, stop) of `line` (after its opening
 * quote), which ends outside any escape. A quote is written over the byte at
 * `stop` for the slice and put back: one string to parse, not a concatenation
 * that JSON.parse would flatten into a second.
 */
function escapedHead(line: SlicingBuffer, start: number, stop: number, ascii: boolean): string {
  const after = line[stop]!;
  line[stop] = QUOTE;
  try {
    return JSON.parse(ascii ? line.latin1Slice(start - 1, stop + 1) : line.utf8Slice(start - 1, stop + 1)) as string;
  } finally {
    line[stop] = after;
  }
}

const QUOTE = 0x22;

const BACKSLASH = 0x5c;
const LETTER_U = 0x75;

/**
 * `cut`, or the start of the escape it would fall inside. The nearest
 * backslash before the cut decides: an escape that spans the cut holds no
 * backslash after its first byte, except the second of `\\`, which ends there.
 */
function cutOutsideEscape(line: Uint8Array, start: number, cut: number): number {
  for (let i = cut - 1; i >= start && i >= cut - 6; i--) {
    if (line[i] !== BACKSLASH) continue;
    let run = 1;
    while (i - run >= start && line[i - run] === BACKSLASH) run++;
    if (run % 2 === 0) return cut; // the second byte of an escaped backslash
    const length = i + 1 < cut && line[i + 1] === LETTER_U ? 6 : 2;
    return i + length > cut ? i : cut;
  }
  return cut;
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
