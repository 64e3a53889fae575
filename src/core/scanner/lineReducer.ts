import type { ToolUseRef } from '../records';
import { capString, emptyFields, ID_CAP, keepsCallContext, readsText, REFS_CAP, TEXT_CAP, ROOT_STRING_KEYS, type CapturedFields } from './fields';
import { sharedKernel, SCANNER_READ_PAST_END, type ScannerExports, type ScannerKernel } from './scannerKernel';

/** The line is not JSON (the whole-line path then gives the reason). */
export const REDUCE_INVALID = -1;
/** The reducer cannot reduce this line exactly (root no object, an escaped key where keys are matched): parse it whole. */
export const REDUCE_FULL = -2;

interface ReducerExports extends ScannerExports {
  reduceLine(line: number, length: number, out: number, outCapacity: number, stack: number): number;
  reducedHasNonAscii(): number;
  captureLine(line: number, length: number, out: number, outEntries: number, stack: number): number;
  recall(bytes: number, length: number): number;
}

/** Output and stack regions start on 64-byte edges, like the line. */
function align64(n: number): number {
  return Math.ceil(n / 64) * 64;
}

/** Where the output starts, from heapBase, after a line of `length` bytes (see LineReducer#place). */
function outOffset(length: number): number {
  return align64(length + SCANNER_READ_PAST_END);
}

/** Where the bit stack starts, from heapBase, after the line and `outBytes` of output. */
function stackOffset(length: number, outBytes: number): number {
  return outOffset(length) + align64(outBytes);
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
  /** A view of the wasm memory as words, for capture()'s entries; made again when the memory grows. */
  private words: Uint32Array<ArrayBufferLike> = new Uint32Array(0);
  /** The wasm memory as a Buffer, to decode kept strings from; made again with `words`. */
  private memory = Buffer.alloc(0) as SlicingBuffer;
  /** The kernel's `bytes` that `words` and `memory` view. */
  private wordsOf: Uint8Array | undefined;
  /** The strings that repeat from line to line (type, session, cwd, message id, tool name…), decoded once. */
  private readonly recent: RecentStrings;
  /** The last source captureRange() saw, and whether it is a view of the kernel's memory (asked once per read buffer, not per line). */
  private lastSource: Buffer | undefined;
  private lastInKernel = false;
  private lastBytes: Uint8Array | undefined;
  /** What capture() returns: one object, every field set anew for each line. */
  private readonly fields: CapturedFields = emptyFields();
  /** Per field: the word offset of its last entry, or -1 (capture()'s scratch; last one wins). */
  private readonly last = new Int32Array(KEPT_FIELDS);

  private constructor(kernel: ScannerKernel) {
    this.kernel = kernel;
    this.exports = kernel.exports as ReducerExports;
    this.recent = new RecentStrings(this.exports, kernel.recalled);
  }

  /** The reducer, or undefined where WebAssembly SIMD is unavailable (callers parse whole lines). */
  static create(kernel: ScannerKernel | null = sharedKernel()): LineReducer | undefined {
    return kernel === null ? undefined : new LineReducer(kernel);
  }

  /**
   * The reduced text of `line` (its newline excluded), or REDUCE_INVALID /
   * REDUCE_FULL. The returned Buffer is a view of wasm memory, valid only until
   * the next use of the shared kernel: read it at once.
   */
  reduce(line: Buffer): Buffer | number {
    const outCapacity = line.length + 64;
    const bytes = this.place(line, 0, line.length, outCapacity);
    const base = this.kernel.heapBase;
    const out = base + outOffset(line.length);
    const result = this.exports.reduceLine(base, line.length, out, outCapacity, base + stackOffset(line.length, outCapacity));
    if (result < 0) return result;
    return Buffer.from(bytes.buffer, bytes.byteOffset + out, result);
  }

  /**
   * Copies [start, end) of `source` into the shared memory and returns the
   * memory (a fresh view if it grew). Layout from heapBase: the line (+ the
   * bytes the kernels may read past it, where they put an end mark),
   * `outBytes` of output (outOffset), the bit stack of nesting (stackOffset).
   */
  private place(source: Buffer, start: number, end: number, outBytes: number): Uint8Array {
    const kernel = this.kernel;
    const length = end - start;
    kernel.loaded = undefined;
    const bytes = kernel.ensureCapacity(stackOffset(length, outBytes) + (length >> 3) + 1);
    bytes.set(start === 0 && end === source.length ? source : source.subarray(start, end), kernel.heapBase);
    return bytes;
  }

  /**
   * The captured fields of `line` (its newline excluded) with the rules of
   * fieldsFromParsed, read from the list of kept values ./wasm/capture.c
   * writes, or REDUCE_INVALID / REDUCE_FULL. The fields are one object, reused
   * by the next capture(): read them at once (buildRecord copies what it keeps).
   */
  capture(line: Buffer): CapturedFields | number {
    return this.captureRange(line, 0, line.length);
  }

  private inKernel(source: Buffer): boolean {
    const bytes = this.kernel.bytes;
    if (source !== this.lastSource || bytes !== this.lastBytes) {
      this.lastSource = source;
      this.lastBytes = bytes;
      this.lastInKernel = source.buffer === bytes.buffer;
    }
    return this.lastInKernel;
  }

  /**
   * capture() of the line [start, end) of `source`; the strings are decoded
   * from the line in wasm memory: a copy at heapBase, or where it lies when
   * `source` was read into the kernel's memory (a ReadingKernel's read buffer).
   */
  captureRange(source: Buffer, start: number, end: number): CapturedFields | number {
    if (!LITTLE_ENDIAN) return REDUCE_FULL; // the entries are read as host-order words; wasm memory is little-endian
    const kernel = this.kernel;
    const length = end - start;
    // A kept value takes 3 bytes of the line at least (`{},` in a content array): half the length is room enough.
    const outEntries = (length >> 1) + 16;
    const outBytes = outEntries * ENTRY_BYTES;
    let bytes: Uint8Array;
    let base: number;
    let out: number;
    let count: number;
    if (this.inKernel(source) && source.byteOffset + end + SCANNER_READ_PAST_END <= kernel.heapBase) {
      // In place: the output and the bit stack go to heapBase, and the end mark
      // captureLine writes after the line (over its newline) is put back.
      kernel.loaded = undefined;
      bytes = kernel.ensureCapacity(align64(outBytes) + (length >> 3) + 1);
      base = source.byteOffset + start;
      out = kernel.heapBase;
      const after = bytes[base + length];
      count = this.exports.captureLine(base, length, out, outEntries, out + align64(outBytes));
      bytes[base + length] = after;
    } else {
      bytes = this.place(source, start, end, outBytes);
      base = kernel.heapBase;
      out = base + outOffset(length);
      count = this.exports.captureLine(base, length, out, outEntries, base + stackOffset(length, outBytes));
    }
    if (count < 0) return count;
    if (this.wordsOf !== bytes) {
      this.words = new Uint32Array(bytes.buffer);
      this.memory = Buffer.from(bytes.buffer) as SlicingBuffer;
      this.wordsOf = bytes;
    }
    return this.fieldsFromEntries(this.memory, base, out >> 2, count);
  }

  /**
   * The kept values of the entries at word `at` applied in document order, as
   * fieldsFromParsed reads JSON.parse's object; the line is in `memory` from `base` on.
   */
  private fieldsFromEntries(memory: SlicingBuffer, base: number, at: number, count: number): CapturedFields {
    const w = this.words;
    const last = this.last;
    for (let i = 0; i < KEPT_FIELDS; i++) last[i] = -1; // a loop: fill() is a builtin call, dearer for 21 slots
    // The record's type, found before the walk: it says which text fields buildRecord reads (readsText).
    let typeEntry = -1;
    for (let p = at, end = at + count * ENTRY_WORDS; p < end; p += ENTRY_WORDS) if ((w[p] & 0xff) === F_TYPE) typeEntry = p;
    const type = this.recent.at(memory, base, w, typeEntry, ROOT_STRING_KEYS.type);
    const readsContent = readsText(type, 'content');
    // What the blocks of the current content add (addBlock's fields of CapturedFields).
    // Fresh arrays only for lines that have refs: most have none.
    let toolUses = NO_TOOL_USES;
    let toolResults = NO_TOOL_RESULTS;
    let hasToolResultBlock = false;
    let firstText: string | undefined;
    let blocksAdded = false;
    let inBlock = false;
    let blockType = -1;
    let blockId = -1;
    let blockName = -1;
    let blockToolUseId = -1;
    let blockText = -1;
    for (let p = at, end = at + count * ENTRY_WORDS; p <= end; p += ENTRY_WORDS) {
      const field = p < end ? w[p] & 0xff : -1;
      if (field >= F_BLOCK_TYPE && field <= F_BLOCK_TEXT) {
        if (field === F_BLOCK_TYPE) blockType = p;
        else if (field === F_BLOCK_ID) blockId = p;
        else if (field === F_BLOCK_NAME) blockName = p;
        else if (field === F_TOOL_USE_ID) blockToolUseId = p;
        else blockText = p;
        continue;
      }
      if (inBlock) {
        // The block is read whole (its keys, last one wins): addBlock's rules, each string decoded only if used.
        inBlock = false;
        blocksAdded = true;
        const blockTypeText = this.recent.at(memory, base, w, blockType, ID_CAP);
        if (blockTypeText === 'tool_use') {
          const id = stringAt(memory, base, w, blockId, ID_CAP);
          if (id !== undefined && toolUses.length < REFS_CAP) {
            if (toolUses === NO_TOOL_USES) toolUses = [];
            toolUses.push({ id, name: this.recent.at(memory, base, w, blockName, ID_CAP) ?? '' });
          }
        } else if (blockTypeText === 'tool_result') {
          hasToolResultBlock = true;
          const id = stringAt(memory, base, w, blockToolUseId, ID_CAP);
          if (id !== undefined && toolResults.length < REFS_CAP) {
            if (toolResults === NO_TOOL_RESULTS) toolResults = [];
            toolResults.push(id);
          }
        } else if (blockTypeText === 'text' && firstText === undefined && readsContent) {
          firstText = stringAt(memory, base, w, blockText, TEXT_CAP);
        }
      }
      if (field === F_BLOCK) {
        inBlock = true;
        blockType = blockId = blockName = blockToolUseId = blockText = -1;
      } else if (field === F_MESSAGE || field === F_CONTENT) {
        // A message (of any type) replaces the one before; so does a content within it.
        if (field === F_MESSAGE) last[F_MESSAGE_ID] = last[F_STOP_REASON] = last[F_CONTENT] = -1;
        else last[F_CONTENT] = p;
        if (blocksAdded) {
          blocksAdded = false;
          toolUses = NO_TOOL_USES;
          toolResults = NO_TOOL_RESULTS;
          hasToolResultBlock = false;
          firstText = undefined;
        }
      } else if (field >= 0) {
        last[field] = p;
      }
    }
    const index = last[F_API_BLOCK_INDEX];
    const stop = last[F_STOP_REASON];
    const calls = keepsCallContext({ toolUses });
    const recent = this.recent;
    // Every key set, in one order: the one object, reused for each line.
    const f = this.fields;
    f.type = type;
    f.timestamp = calls ? stringAt(memory, base, w, last[F_TIMESTAMP], ROOT_STRING_KEYS.timestamp) : undefined;
    f.sessionId = recent.at(memory, base, w, last[F_SESSION_ID], ROOT_STRING_KEYS.sessionId);
    f.cwd = recent.at(memory, base, w, last[F_CWD], ROOT_STRING_KEYS.cwd);
    f.agentId = calls ? recent.at(memory, base, w, last[F_AGENT_ID], ROOT_STRING_KEYS.agentId) : undefined;
    f.isSidechain = booleanAt(w, last[F_IS_SIDECHAIN]);
    f.isMeta = booleanAt(w, last[F_IS_META]);
    f.apiBlockIndex = calls && index >= 0 && typeOf(w, index) === T_NUMBER ? Number(memory.latin1Slice(base + w[index + 1], base + w[index + 2])) : undefined;
    f.aiTitle = readsText(type, 'aiTitle') ? stringAt(memory, base, w, last[F_AI_TITLE], ROOT_STRING_KEYS.aiTitle) : undefined;
    f.customTitle = readsText(type, 'customTitle') ? stringAt(memory, base, w, last[F_CUSTOM_TITLE], ROOT_STRING_KEYS.customTitle) : undefined;
    f.lastPrompt = readsText(type, 'lastPrompt') ? stringAt(memory, base, w, last[F_LAST_PROMPT], ROOT_STRING_KEYS.lastPrompt) : undefined;
    f.messageId = calls ? recent.at(memory, base, w, last[F_MESSAGE_ID], ID_CAP) : undefined;
    f.stopReason = !calls ? undefined : stop >= 0 && typeOf(w, stop) === T_NULL ? null : recent.at(memory, base, w, stop, ID_CAP);
    f.contentText = readsContent ? stringAt(memory, base, w, last[F_CONTENT], TEXT_CAP) : undefined;
    f.toolUses = toolUses;
    f.toolResults = toolResults;
    f.hasToolResultBlock = hasToolResultBlock;
    f.firstText = firstText;
    return f;
  }

  /** Whether the last reduced text holds a byte >= 0x80; if not, decoding it as Latin-1 or as UTF-8 gives one text. */
  reducedHasNonAscii(): boolean {
    return this.exports.reducedHasNonAscii() !== 0;
  }
}

/**
 * The refs of a line without tool uses / results: one shared, frozen empty
 * array each, as most lines have none (frozen: a push into a record's refs
 * throws instead of reaching every other record).
 */
const NO_TOOL_USES = Object.freeze([]) as unknown as ToolUseRef[];
const NO_TOOL_RESULTS = Object.freeze([]) as unknown as string[];

// The entries of ./wasm/capture.c: three words (code, start, end); the code is
// the field | type << 8 | string flags. Keep these in step with enum Field in
// ./wasm/jsonSkip.h and the defines of capture.c.
const ENTRY_WORDS = 3;
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
const ENTRY_BYTES = ENTRY_WORDS * 4;
const F_TYPE = 0;
const F_TIMESTAMP = 1;
const F_SESSION_ID = 2;
const F_CWD = 3;
const F_AGENT_ID = 4;
const F_IS_SIDECHAIN = 5;
const F_IS_META = 6;
const F_API_BLOCK_INDEX = 7;
const F_AI_TITLE = 8;
const F_CUSTOM_TITLE = 9;
const F_LAST_PROMPT = 10;
const F_MESSAGE = 11;
const F_MESSAGE_ID = 12;
const F_STOP_REASON = 13;
const F_CONTENT = 14;
const F_BLOCK_TYPE = 15;
const F_BLOCK_ID = 16;
const F_BLOCK_NAME = 17;
const F_TOOL_USE_ID = 18;
const F_BLOCK_TEXT = 19;
const F_BLOCK = 20;
const KEPT_FIELDS = 21;
const T_STRING = 0;
const T_NUMBER = 1;
const T_TRUE = 2;
const T_FALSE = 3;
const T_NULL = 4;
const HAS_ESCAPE = 1 << 16;
const HAS_NON_ASCII = 1 << 17;

/** Buffer's own decoders of a byte range (what toString(encoding, start, end) calls, without its argument checks). */
interface SlicingBuffer extends Buffer {
  latin1Slice(start: number, end: number): string;
  utf8Slice(start: number, end: number): string;
}

function typeOf(w: Uint32Array, p: number): number {
  return (w[p] >> 8) & 0xff;
}

function booleanAt(w: Uint32Array, p: number): boolean | undefined {
  if (p < 0) return undefined;
  const type = typeOf(w, p);
  return type === T_TRUE ? true : type === T_FALSE ? false : undefined;
}

/**
 * The string of the entry at p (offsets from `base` in `line`) cut to `cap`, as fieldsFromParsed keeps it from
 * JSON.parse of the UTF-8 decoded line (invalid UTF-8 becomes U+FFFD, as with
 * Buffer#toString); undefined if p is no entry or its value no string. Without
 * an escape the bytes are the string: only the ones the cap can reach are
 * decoded (a UTF-16 code unit takes at most 3 bytes, and a sequence cut at the
 * end changes only what lies past the cap).
 */
function stringAt(line: SlicingBuffer, base: number, w: Uint32Array, p: number, cap: number): string | undefined {
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
class RecentStrings {
  constructor(
    private readonly exports: ReducerExports,
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
