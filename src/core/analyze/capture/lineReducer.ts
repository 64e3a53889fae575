import { emptyFields, keepsCallContext, keepsTimestamp, NO_TOOL_RESULTS, NO_TOOL_USES, readsText, REFS_CAP, type CapturedFields } from '../../scanner/fields';
import { FIELDS, type CodedLine } from '../../scanner/fieldTable';
import { NO_PER_CALL, type PerCallFields, type PerCallValue } from '../../records';
import {
  booleanAt, ENTRY_BYTES, ENTRY_WORDS, LITTLE_ENDIAN, RecentStrings, type SlicingBuffer, stringAt, T_NULL, T_NUMBER, T_STRING, numberAt, typeOf
} from './captureEntries';
import { align64, sharedKernel, SCANNER_READ_PAST_END, type ScannerExports, type ScannerKernel } from '../../scanner/scannerKernel';

// The codes of the keys fields.ts reads by name (../../scanner/fieldTable.ts gives them); per-call lines are read by the table.
const root = (key: string) => FIELDS.lineOf('root', key)!;
const L_TYPE = root('type'), L_UUID = root('uuid'), L_TIMESTAMP = root('timestamp'), L_SESSION_ID = root('sessionId');
const L_REQUEST_SESSION_ID = root('requestSessionId'), L_VERSION = root('version'), L_CWD = root('cwd'), L_GIT_BRANCH = root('gitBranch');
const L_AGENT_ID = root('agentId'), L_AI_TITLE = root('aiTitle'), L_CUSTOM_TITLE = root('customTitle'), L_LAST_PROMPT = root('lastPrompt');
const F_IS_SIDECHAIN = FIELDS.codeOf('root', 'isSidechain'), F_IS_META = FIELDS.codeOf('root', 'isMeta'), F_API_BLOCK_INDEX = FIELDS.codeOf('root', 'apiBlockIndex');
const F_MESSAGE = FIELDS.codeOf('root', 'message');
const L_MESSAGE_ID = FIELDS.lineOf('message', 'id')!, L_STOP_REASON = FIELDS.lineOf('message', 'stop_reason')!, L_CONTENT = FIELDS.lineOf('message', 'content')!;
const F_CONTENT = L_CONTENT.code;
const block = (key: string) => FIELDS.lineOf('block', key)!;
const L_BLOCK_TYPE = block('type'), L_BLOCK_ID = block('id'), L_BLOCK_NAME = block('name'), L_TOOL_USE_ID = block('tool_use_id'), L_BLOCK_TEXT = block('text');
/** Codes by level: root below MESSAGE_FIRST, the message's below BLOCK_FIRST, a block's below ELEMENT; ELEMENT: a block itself. */
const MESSAGE_FIRST = FIELDS.messageFirst, BLOCK_FIRST = FIELDS.blockFirst, ELEMENT = FIELDS.element;
const PER_CALL: readonly CodedLine[] = FIELDS.perCall;

/** The line is not JSON (the whole-line path then gives the reason). */
export const REDUCE_INVALID = -1;
/** The reducer cannot reduce this line exactly (root no object, an escaped key where keys are matched): parse it whole. */
export const REDUCE_FULL = -2;

interface ReducerExports extends ScannerExports {
  captureLine(line: number, length: number, out: number, outEntries: number, stack: number): number;
  captureLines(input: number, length: number, out: number, outWords: number, stack: number, maxLine: number): number;
  recall(bytes: number, length: number): number;
}

/**
 * Validates a line as JSON in wasm (./wasm/capture.c), which lists where the values fields.ts reads lie, and decodes
 * only those: JSON.parse's fields without building the tool results and inputs that hold most of a line's bytes.
 */
export class LineReducer {
  private readonly kernel: ScannerKernel;
  private readonly exports: ReducerExports;
  /** The wasm memory as words (the entries) and as a Buffer (the strings), views of the kernel's `bytes` in `wordsOf`. */
  private words: Uint32Array<ArrayBufferLike> = new Uint32Array(0);
  private memory = Buffer.alloc(0) as SlicingBuffer;
  private wordsOf: Uint8Array | undefined;
  /** The strings that repeat from line to line (type, session, cwd, message id, tool name…), decoded once. */
  private readonly recent: RecentStrings;
  /** What capture() returns: one object, every field set anew for each line. */
  private readonly fields: CapturedFields = emptyFields();
  /** Per field code, the word of its last entry in the line being read (-1: none). */
  private readonly last = new Int32Array(FIELDS.count);
  /** The per-call fields of the last call that had any, and how many. */
  private perCallBefore: PerCallFields = NO_PER_CALL;
  private perCallBeforeCount = 0;
  /**
   * Whether records' `uuid` is decoded (and with it the `timestamp` of records without calls). Only the live engine
   * reads them; analyze turns this off, so its plain lines decode no uuid and share their records (PlainRecords).
   */
  keepsIds = true;

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
   * The fields of `line` (no newline) by fieldsFromParsed's rules, or REDUCE_INVALID / REDUCE_FULL. One object,
   * reused by the next capture(): read it at once (buildRecord copies what it keeps).
   */
  capture(line: Buffer): CapturedFields | number {
    return this.captureRange(line, 0, line.length);
  }

  /** Points `words` and `memory` at `bytes`, anew only when the memory has grown. */
  private viewMemory(bytes: Uint8Array): void {
    if (this.wordsOf === bytes) return;
    this.words = new Uint32Array(bytes.buffer);
    this.memory = Buffer.from(bytes.buffer) as SlicingBuffer;
    this.wordsOf = bytes;
  }

  /**
   * capture() of [start, end) of `source`, copied to heapBase: the line (with the bytes kernels may read past it,
   * where captureLine puts its end mark), then the entries, then the bit stack of nesting. `prompts` false: the
   * texts a prompt comes from are not decoded (see buildRecord).
   */
  captureRange(source: Buffer, start: number, end: number, prompts = true): CapturedFields | number {
    if (!LITTLE_ENDIAN) return REDUCE_FULL; // the entries are read as host-order words; wasm memory is little-endian
    const kernel = this.kernel;
    const length = end - start;
    // A kept value takes 3 bytes of the line at least (`{},` in a content array): half the length is room enough.
    const outEntries = (length >> 1) + 16;
    const out = align64(length + SCANNER_READ_PAST_END);
    const stack = out + align64(outEntries * ENTRY_BYTES);
    // A source read into this memory (a ReadingKernel's read buffer) is detached if the memory grows: copied by place.
    const place = kernel.placeOf(source);
    kernel.loaded = undefined;
    const bytes = kernel.ensureCapacity(stack + (length >> 3) + 1);
    const base = kernel.heapBase;
    if (place >= 0) bytes.copyWithin(base, place + start, place + end);
    else bytes.set(source.subarray(start, end), base);
    const count = this.exports.captureLine(base, length, base + out, outEntries, base + stack);
    if (count < 0) return count;
    this.viewMemory(bytes);
    return this.fieldsFromEntries(this.memory, base, (base + out) >> 2, count, prompts);
  }

  /**
   * captureRange() of each whole line from `start` on, many lines to a wasm call (capture.c captureLines), for a
   * ReadingKernel's read buffer only. Calls `line` in file order (`end`: the newline) with `prompts()` asked just
   * before. Returns where it stopped: at the first line left to the caller (see capture_lines for which).
   */
  captureLines(
    source: Buffer,
    start: number,
    maxLine: number,
    prompts: () => boolean,
    line: (start: number, end: number, fields: CapturedFields, prompts: boolean) => void,
  ): number {
    if (!LITTLE_ENDIAN) return start;
    const place = this.kernel.placeOf(source);
    if (place < 0) return start;
    const kernel = this.kernel;
    // Room for a longest line's entries (see captureRange); shorter lines take only what they use. It must fit
    // the memory as is: growing it would detach `source`, a view of that memory.
    const tableWords = 2 + ENTRY_WORDS * ((maxLine >> 1) + 16);
    const stackBytes = (maxLine >> 3) + 1;
    const bytes = kernel.bytes;
    if (kernel.heapBase + tableWords * 4 + stackBytes + SCANNER_READ_PAST_END > bytes.length) return start;
    this.viewMemory(bytes);
    const w = this.words;
    const out = kernel.heapBase;
    let at = start;
    for (;;) {
      kernel.loaded = undefined;
      const lines = this.exports.captureLines(place + at, source.length - at, out, tableWords, out + tableWords * 4, maxLine);
      if (lines === 0) return at;
      let header = out >> 2;
      for (let i = 0; i < lines; i++) {
        const length = w[header]!;
        const count = w[header + 1]! | 0;
        if (count < 0) return at; // captureRange says what the line is
        const wanted = prompts();
        line(at, at + length, this.fieldsFromEntries(this.memory, place + at, header + 2, count, wanted), wanted);
        at += length + 1;
        header += 2 + ENTRY_WORDS * count;
      }
    }
  }

  /**
   * The entries at word `at` applied in document order as fieldsFromParsed reads JSON.parse's object (the line is at
   * `base`): each field's last entry by its code in `last` (a repeated key: the last one wins), then the fields; a
   * string is decoded only if the type reads it.
   */
  private fieldsFromEntries(memory: SlicingBuffer, base: number, at: number, count: number, prompts: boolean): CapturedFields {
    const w = this.words;
    const recent = this.recent;
    const last = this.last;
    for (let i = 0; i < BLOCK_FIRST; i++) last[i] = -1;
    // What the current content's blocks add (addBlockOf's fields); fresh arrays only for lines with refs (most have none).
    let toolUses = NO_TOOL_USES;
    let toolResults = NO_TOOL_RESULTS;
    let hasToolResultBlock = false;
    /** The text entry of the first text block whose text is a string: decoded at the end, and only for a user record. */
    let firstText = -1;
    let blocksAdded = false;
    let inBlock = false;
    for (let p = at, end = at + count * ENTRY_WORDS; p <= end; p += ENTRY_WORDS) {
      const field = p < end ? w[p]! & 0xff : -1;
      if (field >= BLOCK_FIRST && field < ELEMENT) {
        last[field] = p;
        continue;
      }
      if (inBlock) {
        // The block is read whole (its keys, last one wins): addBlockOf's rules, each string decoded only if used.
        inBlock = false;
        blocksAdded = true;
        const blockTypeText = recent.at(memory, base, w, last[L_BLOCK_TYPE.code]!, L_BLOCK_TYPE.cap!);
        if (blockTypeText === 'tool_use') {
          const id = stringAt(memory, base, w, last[L_BLOCK_ID.code]!, L_BLOCK_ID.cap!);
          if (id !== undefined && toolUses.length < REFS_CAP) {
            const use = { id, name: recent.at(memory, base, w, last[L_BLOCK_NAME.code]!, L_BLOCK_NAME.cap!) ?? '' };
            // A literal of one: the first push into [] would make room for ~16.
            if (toolUses === NO_TOOL_USES) toolUses = [use];
            else toolUses.push(use);
          }
        } else if (blockTypeText === 'tool_result') {
          hasToolResultBlock = true;
          const id = stringAt(memory, base, w, last[L_TOOL_USE_ID.code]!, L_TOOL_USE_ID.cap!);
          if (id !== undefined && toolResults.length < REFS_CAP) {
            if (toolResults === NO_TOOL_RESULTS) toolResults = [id];
            else toolResults.push(id);
          }
        } else if (blockTypeText === 'text' && firstText < 0) {
          const text = last[L_BLOCK_TEXT.code]!;
          if (text >= 0 && typeOf(w, text) === T_STRING) firstText = text;
        }
      }
      if (field === ELEMENT) {
        inBlock = true;
        for (let i = BLOCK_FIRST; i < ELEMENT; i++) last[i] = -1;
      } else if (field === F_MESSAGE || field === F_CONTENT) {
        // A message (of any type) replaces the one before; so does a content within it.
        if (field === F_MESSAGE) for (let i = MESSAGE_FIRST; i < BLOCK_FIRST; i++) last[i] = -1;
        else last[F_CONTENT] = p;
        if (blocksAdded) {
          blocksAdded = false;
          toolUses = NO_TOOL_USES;
          toolResults = NO_TOOL_RESULTS;
          hasToolResultBlock = false;
          firstText = -1;
        }
      } else if (field >= 0) {
        last[field] = p;
      }
    }
    const typeText = recent.at(memory, base, w, last[L_TYPE.code]!, L_TYPE.cap!);
    const readsContent = prompts && readsText(typeText, 'content');
    const calls = keepsCallContext(toolUses);
    const stopReason = last[L_STOP_REASON.code]!;
    const apiBlockIndex = last[F_API_BLOCK_INDEX]!;
    // Every key set, in one order: the one object, reused for each line.
    const f = this.fields;
    f.type = typeText;
    f.uuid = this.keepsIds ? stringAt(memory, base, w, last[L_UUID.code]!, L_UUID.cap!) : undefined;
    f.timestamp = keepsTimestamp(toolUses, f.uuid) ? stringAt(memory, base, w, last[L_TIMESTAMP.code]!, L_TIMESTAMP.cap!) : undefined;
    f.sessionId = recent.at(memory, base, w, last[L_SESSION_ID.code]!, L_SESSION_ID.cap!);
    f.requestSessionId = calls ? recent.at(memory, base, w, last[L_REQUEST_SESSION_ID.code]!, L_REQUEST_SESSION_ID.cap!) : undefined;
    f.version = calls ? recent.at(memory, base, w, last[L_VERSION.code]!, L_VERSION.cap!) : undefined;
    f.cwd = recent.at(memory, base, w, last[L_CWD.code]!, L_CWD.cap!);
    f.gitBranch = recent.at(memory, base, w, last[L_GIT_BRANCH.code]!, L_GIT_BRANCH.cap!);
    f.agentId = calls ? recent.at(memory, base, w, last[L_AGENT_ID.code]!, L_AGENT_ID.cap!) : undefined;
    f.isSidechain = booleanAt(w, last[F_IS_SIDECHAIN]!);
    f.isMeta = booleanAt(w, last[F_IS_META]!);
    f.apiBlockIndex = calls && apiBlockIndex >= 0 && typeOf(w, apiBlockIndex) === T_NUMBER ? numberAt(memory, base, w, apiBlockIndex) : undefined;
    f.aiTitle = readsText(typeText, 'aiTitle') ? stringAt(memory, base, w, last[L_AI_TITLE.code]!, L_AI_TITLE.cap!) : undefined;
    f.customTitle = readsText(typeText, 'customTitle') ? stringAt(memory, base, w, last[L_CUSTOM_TITLE.code]!, L_CUSTOM_TITLE.cap!) : undefined;
    f.lastPrompt = prompts && readsText(typeText, 'lastPrompt') ? stringAt(memory, base, w, last[L_LAST_PROMPT.code]!, L_LAST_PROMPT.cap!) : undefined;
    f.messageId = calls ? recent.at(memory, base, w, last[L_MESSAGE_ID.code]!, L_MESSAGE_ID.cap!) : undefined;
    f.stopReason = !calls ? undefined : stopReason >= 0 && typeOf(w, stopReason) === T_NULL ? null : recent.at(memory, base, w, stopReason, L_STOP_REASON.cap!);
    f.contentText = readsContent ? stringAt(memory, base, w, last[F_CONTENT]!, L_CONTENT.cap!) : undefined;
    f.toolUses = toolUses;
    f.toolResults = toolResults;
    f.hasToolResultBlock = hasToolResultBlock;
    f.firstText = readsContent && firstText >= 0 ? stringAt(memory, base, w, firstText, L_BLOCK_TEXT.cap!) : undefined;
    f.perCall = calls && PER_CALL.length > 0 ? this.perCallOf(memory, base) : NO_PER_CALL;
    return f;
  }

  /**
   * The per-call lines' values of the line whose entries are in `last` (a record with tool uses). The calls of a
   * transcript mostly repeat the values of the call before (the model), and analyze keeps every call's: the object
   * of the call before, frozen, when they are the same.
   */
  private perCallOf(memory: SlicingBuffer, base: number): PerCallFields {
    const w = this.words;
    const last = this.last;
    let fields: Record<string, PerCallValue> | undefined;
    let values = 0;
    let same = true;
    const before = this.perCallBefore;
    for (let i = 0; i < PER_CALL.length; i++) {
      const line = PER_CALL[i]!;
      const p = last[line.code]!;
      if (p < 0) continue;
      const value =
        line.as === 'string'
          ? this.recent.at(memory, base, w, p, line.cap!)
          : line.as === 'boolean'
            ? booleanAt(w, p)
            : typeOf(w, p) === T_NUMBER
              ? numberAt(memory, base, w, p)
              : undefined;
      if (value === undefined) continue;
      (fields ??= {})[line.key] = value;
      values++;
      if (before[line.key] !== value) same = false;
    }
    if (fields === undefined) return NO_PER_CALL;
    if (same && values === this.perCallBeforeCount) return before;
    this.perCallBefore = Object.freeze(fields);
    this.perCallBeforeCount = values;
    return fields;
  }
}
