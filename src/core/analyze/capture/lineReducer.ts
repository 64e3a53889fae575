import { emptyFields, ID_CAP, keepsCallContext, keepsTimestamp, NO_TOOL_RESULTS, NO_TOOL_USES, readsText, REFS_CAP, TEXT_CAP, ROOT_STRING_KEYS, type CapturedFields } from '../../scanner/fields';
import {
  booleanAt, ENTRY_BYTES, ENTRY_WORDS, F_AGENT_ID, F_AI_TITLE, F_API_BLOCK_INDEX, F_BLOCK, F_BLOCK_ID, F_BLOCK_NAME,
  F_BLOCK_TEXT, F_BLOCK_TYPE, F_CONTENT, F_CUSTOM_TITLE, F_CWD, F_IS_META, F_IS_SIDECHAIN, F_LAST_PROMPT, F_MESSAGE,
  F_MESSAGE_ID, F_SESSION_ID, F_REQUEST_SESSION_ID, F_VERSION, F_STOP_REASON, F_TIMESTAMP, F_TOOL_USE_ID, F_TYPE, F_UUID, F_GIT_BRANCH,
  LITTLE_ENDIAN, RecentStrings, type SlicingBuffer, stringAt, T_NULL, T_NUMBER, T_STRING, numberAt, typeOf
} from './captureEntries';
import { align64, sharedKernel, SCANNER_READ_PAST_END, type ScannerExports, type ScannerKernel } from '../../scanner/scannerKernel';

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
   * `base`): each field's last entry in a local, no table to reset; a string is decoded only if the type reads it.
   */
  private fieldsFromEntries(memory: SlicingBuffer, base: number, at: number, count: number, prompts: boolean): CapturedFields {
    const w = this.words;
    const recent = this.recent;
    let type = -1;
    let uuid = -1;
    let timestamp = -1;
    let sessionId = -1;
    let requestSessionId = -1;
    let version = -1;
    let cwd = -1;
    let gitBranch = -1;
    let agentId = -1;
    let isSidechain = -1;
    let isMeta = -1;
    let apiBlockIndex = -1;
    let aiTitle = -1;
    let customTitle = -1;
    let lastPrompt = -1;
    let messageId = -1;
    let stopReason = -1;
    let content = -1;
    // What the current content's blocks add (addBlockOf's fields); fresh arrays only for lines with refs (most have none).
    let toolUses = NO_TOOL_USES;
    let toolResults = NO_TOOL_RESULTS;
    let hasToolResultBlock = false;
    /** The text entry of the first text block whose text is a string: decoded at the end, and only for a user record. */
    let firstText = -1;
    let blocksAdded = false;
    let inBlock = false;
    let blockType = -1;
    let blockId = -1;
    let blockName = -1;
    let blockToolUseId = -1;
    let blockText = -1;
    for (let p = at, end = at + count * ENTRY_WORDS; p <= end; p += ENTRY_WORDS) {
      const field = p < end ? w[p]! & 0xff : -1;
      if (field >= F_BLOCK_TYPE && field <= F_BLOCK_TEXT) {
        if (field === F_BLOCK_TYPE) blockType = p;
        else if (field === F_BLOCK_ID) blockId = p;
        else if (field === F_BLOCK_NAME) blockName = p;
        else if (field === F_TOOL_USE_ID) blockToolUseId = p;
        else blockText = p;
        continue;
      }
      if (inBlock) {
        // The block is read whole (its keys, last one wins): addBlockOf's rules, each string decoded only if used.
        inBlock = false;
        blocksAdded = true;
        const blockTypeText = recent.at(memory, base, w, blockType, ID_CAP);
        if (blockTypeText === 'tool_use') {
          const id = stringAt(memory, base, w, blockId, ID_CAP);
          if (id !== undefined && toolUses.length < REFS_CAP) {
            const use = { id, name: recent.at(memory, base, w, blockName, ID_CAP) ?? '' };
            // A literal of one: the first push into [] would make room for ~16.
            if (toolUses === NO_TOOL_USES) toolUses = [use];
            else toolUses.push(use);
          }
        } else if (blockTypeText === 'tool_result') {
          hasToolResultBlock = true;
          const id = stringAt(memory, base, w, blockToolUseId, ID_CAP);
          if (id !== undefined && toolResults.length < REFS_CAP) {
            if (toolResults === NO_TOOL_RESULTS) toolResults = [id];
            else toolResults.push(id);
          }
        } else if (blockTypeText === 'text' && firstText < 0 && blockText >= 0 && typeOf(w, blockText) === T_STRING) {
          firstText = blockText;
        }
      }
      switch (field) {
        case F_BLOCK:
          inBlock = true;
          blockType = blockId = blockName = blockToolUseId = blockText = -1;
          break;
        case F_MESSAGE:
        case F_CONTENT:
          // A message (of any type) replaces the one before; so does a content within it.
          if (field === F_MESSAGE) messageId = stopReason = content = -1;
          else content = p;
          if (blocksAdded) {
            blocksAdded = false;
            toolUses = NO_TOOL_USES;
            toolResults = NO_TOOL_RESULTS;
            hasToolResultBlock = false;
            firstText = -1;
          }
          break;
        case F_TYPE: type = p; break;
        case F_UUID: uuid = p; break;
        case F_TIMESTAMP: timestamp = p; break;
        case F_SESSION_ID: sessionId = p; break;
        case F_REQUEST_SESSION_ID: requestSessionId = p; break;
        case F_VERSION: version = p; break;
        case F_CWD: cwd = p; break;
        case F_GIT_BRANCH: gitBranch = p; break;
        case F_AGENT_ID: agentId = p; break;
        case F_IS_SIDECHAIN: isSidechain = p; break;
        case F_IS_META: isMeta = p; break;
        case F_API_BLOCK_INDEX: apiBlockIndex = p; break;
        case F_AI_TITLE: aiTitle = p; break;
        case F_CUSTOM_TITLE: customTitle = p; break;
        case F_LAST_PROMPT: lastPrompt = p; break;
        case F_MESSAGE_ID: messageId = p; break;
        case F_STOP_REASON: stopReason = p; break;
      }
    }
    const typeText = recent.at(memory, base, w, type, ROOT_STRING_KEYS.type);
    const readsContent = prompts && readsText(typeText, 'content');
    const calls = keepsCallContext(toolUses);
    // Every key set, in one order: the one object, reused for each line.
    const f = this.fields;
    f.type = typeText;
    f.uuid = this.keepsIds ? stringAt(memory, base, w, uuid, ROOT_STRING_KEYS.uuid) : undefined;
    f.timestamp = keepsTimestamp(toolUses, f.uuid) ? stringAt(memory, base, w, timestamp, ROOT_STRING_KEYS.timestamp) : undefined;
    f.sessionId = recent.at(memory, base, w, sessionId, ROOT_STRING_KEYS.sessionId);
    f.requestSessionId = calls ? recent.at(memory, base, w, requestSessionId, ROOT_STRING_KEYS.requestSessionId) : undefined;
    f.version = calls ? recent.at(memory, base, w, version, ROOT_STRING_KEYS.version) : undefined;
    f.cwd = recent.at(memory, base, w, cwd, ROOT_STRING_KEYS.cwd);
    f.gitBranch = recent.at(memory, base, w, gitBranch, ROOT_STRING_KEYS.gitBranch);
    f.agentId = calls ? recent.at(memory, base, w, agentId, ROOT_STRING_KEYS.agentId) : undefined;
    f.isSidechain = booleanAt(w, isSidechain);
    f.isMeta = booleanAt(w, isMeta);
    f.apiBlockIndex = calls && apiBlockIndex >= 0 && typeOf(w, apiBlockIndex) === T_NUMBER ? numberAt(memory, base, w, apiBlockIndex) : undefined;
    f.aiTitle = readsText(typeText, 'aiTitle') ? stringAt(memory, base, w, aiTitle, ROOT_STRING_KEYS.aiTitle) : undefined;
    f.customTitle = readsText(typeText, 'customTitle') ? stringAt(memory, base, w, customTitle, ROOT_STRING_KEYS.customTitle) : undefined;
    f.lastPrompt = prompts && readsText(typeText, 'lastPrompt') ? stringAt(memory, base, w, lastPrompt, ROOT_STRING_KEYS.lastPrompt) : undefined;
    f.messageId = calls ? recent.at(memory, base, w, messageId, ID_CAP) : undefined;
    f.stopReason = !calls ? undefined : stopReason >= 0 && typeOf(w, stopReason) === T_NULL ? null : recent.at(memory, base, w, stopReason, ID_CAP);
    f.contentText = readsContent ? stringAt(memory, base, w, content, TEXT_CAP) : undefined;
    f.toolUses = toolUses;
    f.toolResults = toolResults;
    f.hasToolResultBlock = hasToolResultBlock;
    f.firstText = readsContent && firstText >= 0 ? stringAt(memory, base, w, firstText, TEXT_CAP) : undefined;
    return f;
  }
}
