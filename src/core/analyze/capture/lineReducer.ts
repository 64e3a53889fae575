import { callIdOf, emptyFields, keepsCallContext, ownCalls, keepsTimestamp, NO_TOOL_RESULTS, NO_TOOL_USES, readsText, REFS_CAP, type CapturedFields } from '../../scanner/fields';
import { FIELDS, type CodedLine, type FieldLevel } from '../../scanner/fieldTable';
import { NO_PER_CALL, type PerCallFields, type PerCallValue } from '../../records';
import {
  booleanAt, ENTRY_BYTES, ENTRY_WORDS, LITTLE_ENDIAN, RecentStrings, type SlicingBuffer, stringAt, T_NULL, T_NUMBER, T_STRING, numberAt, typeOf
} from './captureEntries';
import { align64, sharedKernel, SCANNER_READ_PAST_END, type ScannerExports, type ScannerKernel } from '../../scanner/scannerKernel';

/*
 * Where fieldsFromEntries keeps the last entry of each field it reads by name: a local per slot, chosen by a switch over
 * these literal slots (a jump table, no table to reset per line). SLOT_OF maps each code of the field table
 * (../../scanner/fieldTable.ts) to its slot: the keys fields.ts reads by name, a block itself, and every per-call line,
 * whose entries go to `perCallAt` by PER_CALL_AT. A code with no slot is not read.
 */
const S_NONE = 0, S_TYPE = 1, S_UUID = 2, S_TIMESTAMP = 3, S_SESSION_ID = 4, S_REQUEST_SESSION_ID = 5, S_VERSION = 6, S_CWD = 7;
const S_GIT_BRANCH = 8, S_AGENT_ID = 9, S_IS_SIDECHAIN = 10, S_IS_META = 11, S_API_BLOCK_INDEX = 12, S_AI_TITLE = 13, S_CUSTOM_TITLE = 14;
const S_LAST_PROMPT = 15, S_MESSAGE = 16, S_MESSAGE_ID = 17, S_STOP_REASON = 18, S_CONTENT = 19, S_BLOCK = 20, S_BLOCK_TYPE = 21;
const S_BLOCK_ID = 22, S_BLOCK_NAME = 23, S_TOOL_USE_ID = 24, S_BLOCK_TEXT = 25, S_PER_CALL = 26, S_ROLE = 27;
const NAMED: Array<[FieldLevel, string, number]> = [
  ['root', 'type', S_TYPE], ['root', 'uuid', S_UUID], ['root', 'timestamp', S_TIMESTAMP], ['root', 'sessionId', S_SESSION_ID],
  ['root', 'requestSessionId', S_REQUEST_SESSION_ID], ['root', 'version', S_VERSION], ['root', 'cwd', S_CWD], ['root', 'gitBranch', S_GIT_BRANCH],
  ['root', 'agentId', S_AGENT_ID], ['root', 'isSidechain', S_IS_SIDECHAIN], ['root', 'isMeta', S_IS_META], ['root', 'apiBlockIndex', S_API_BLOCK_INDEX],
  ['root', 'aiTitle', S_AI_TITLE], ['root', 'customTitle', S_CUSTOM_TITLE], ['root', 'lastPrompt', S_LAST_PROMPT], ['root', 'message', S_MESSAGE],
  ['message', 'id', S_MESSAGE_ID], ['message', 'role', S_ROLE], ['message', 'stop_reason', S_STOP_REASON], ['message', 'content', S_CONTENT],
  ['block', 'type', S_BLOCK_TYPE], ['block', 'id', S_BLOCK_ID], ['block', 'name', S_BLOCK_NAME], ['block', 'tool_use_id', S_TOOL_USE_ID], ['block', 'text', S_BLOCK_TEXT],
];
const SLOT_OF = new Uint8Array(256);
/** Caps by slot, from the table. */
const CAP: number[] = [];
for (const [level, key, slot] of NAMED) {
  SLOT_OF[FIELDS.codeOf(level, key)] = slot;
  CAP[slot] = FIELDS.lineOf(level, key)!.cap ?? 0;
}
SLOT_OF[FIELDS.element] = S_BLOCK;
const CAP_TYPE = CAP[S_TYPE]!, CAP_UUID = CAP[S_UUID]!, CAP_TIMESTAMP = CAP[S_TIMESTAMP]!, CAP_SESSION_ID = CAP[S_SESSION_ID]!;
const CAP_REQUEST_SESSION_ID = CAP[S_REQUEST_SESSION_ID]!, CAP_VERSION = CAP[S_VERSION]!, CAP_CWD = CAP[S_CWD]!, CAP_GIT_BRANCH = CAP[S_GIT_BRANCH]!;
const CAP_AGENT_ID = CAP[S_AGENT_ID]!, CAP_AI_TITLE = CAP[S_AI_TITLE]!, CAP_CUSTOM_TITLE = CAP[S_CUSTOM_TITLE]!, CAP_LAST_PROMPT = CAP[S_LAST_PROMPT]!;
const CAP_MESSAGE_ID = CAP[S_MESSAGE_ID]!, CAP_STOP_REASON = CAP[S_STOP_REASON]!, CAP_CONTENT = CAP[S_CONTENT]!, CAP_BLOCK_TYPE = CAP[S_BLOCK_TYPE]!;
const CAP_ROLE = CAP[S_ROLE]!;
const CAP_BLOCK_ID = CAP[S_BLOCK_ID]!, CAP_BLOCK_NAME = CAP[S_BLOCK_NAME]!, CAP_TOOL_USE_ID = CAP[S_TOOL_USE_ID]!, CAP_BLOCK_TEXT = CAP[S_BLOCK_TEXT]!;
/** The per-call lines, each code's place among them, and the places of those in the message (a new message drops them). */
const PER_CALL: readonly CodedLine[] = FIELDS.perCall;
const PER_CALL_AT = new Uint8Array(256);
PER_CALL.forEach((line, i) => {
  SLOT_OF[line.code] = S_PER_CALL;
  PER_CALL_AT[line.code] = i;
});
const PER_CALL_IN_MESSAGE = PER_CALL.flatMap((line, i) => (line.in === 'message' ? [i] : []));

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
  /** Per per-call line, the word of its last entry in the line being read (-1: none). */
  private readonly perCallAt = new Int32Array(PER_CALL.length);
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
   * `base`): each field's last entry in a local (a repeated key: the last one wins), no table to reset but the
   * per-call lines'; a string is decoded only if the type reads it.
   */
  private fieldsFromEntries(memory: SlicingBuffer, base: number, at: number, count: number, prompts: boolean): CapturedFields {
    const w = this.words;
    const recent = this.recent;
    const perCallAt = this.perCallAt;
    for (let i = 0; i < perCallAt.length; i++) perCallAt[i] = -1;
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
    let role = -1;
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
      const slot = field < 0 ? S_NONE : SLOT_OF[field]!;
      if (slot >= S_BLOCK_TYPE && slot <= S_BLOCK_TEXT) {
        if (slot === S_BLOCK_TYPE) blockType = p;
        else if (slot === S_BLOCK_ID) blockId = p;
        else if (slot === S_BLOCK_NAME) blockName = p;
        else if (slot === S_TOOL_USE_ID) blockToolUseId = p;
        else blockText = p;
        continue;
      }
      if (inBlock) {
        // The block is read whole (its keys, last one wins): addBlockOf's rules, each string decoded only if used.
        inBlock = false;
        blocksAdded = true;
        const blockTypeText = recent.at(memory, base, w, blockType, CAP_BLOCK_TYPE);
        if (blockTypeText === 'tool_use') {
          const id = callIdOf(stringAt(memory, base, w, blockId, CAP_BLOCK_ID));
          if (id !== undefined && toolUses.length < REFS_CAP) {
            const use = { id, name: recent.at(memory, base, w, blockName, CAP_BLOCK_NAME) ?? '' };
            // A literal of one: the first push into [] would make room for ~16.
            if (toolUses === NO_TOOL_USES) toolUses = [use];
            else toolUses.push(use);
          }
        } else if (blockTypeText === 'tool_result') {
          hasToolResultBlock = true;
          const id = callIdOf(stringAt(memory, base, w, blockToolUseId, CAP_TOOL_USE_ID));
          if (id !== undefined && toolResults.length < REFS_CAP) {
            if (toolResults === NO_TOOL_RESULTS) toolResults = [id];
            else toolResults.push(id);
          }
        } else if (blockTypeText === 'text' && firstText < 0 && blockText >= 0 && typeOf(w, blockText) === T_STRING) {
          firstText = blockText;
        }
      }
      switch (slot) {
        case S_BLOCK:
          inBlock = true;
          blockType = blockId = blockName = blockToolUseId = blockText = -1;
          break;
        case S_MESSAGE:
        case S_CONTENT:
          // A message (of any type) replaces the one before; so does a content within it.
          if (slot === S_MESSAGE) {
            messageId = role = stopReason = content = -1;
            for (let i = 0; i < PER_CALL_IN_MESSAGE.length; i++) perCallAt[PER_CALL_IN_MESSAGE[i]!] = -1;
          } else {
            content = p;
          }
          if (blocksAdded) {
            blocksAdded = false;
            toolUses = NO_TOOL_USES;
            toolResults = NO_TOOL_RESULTS;
            hasToolResultBlock = false;
            firstText = -1;
          }
          break;
        case S_TYPE: type = p; break;
        case S_UUID: uuid = p; break;
        case S_TIMESTAMP: timestamp = p; break;
        case S_SESSION_ID: sessionId = p; break;
        case S_REQUEST_SESSION_ID: requestSessionId = p; break;
        case S_VERSION: version = p; break;
        case S_CWD: cwd = p; break;
        case S_GIT_BRANCH: gitBranch = p; break;
        case S_AGENT_ID: agentId = p; break;
        case S_IS_SIDECHAIN: isSidechain = p; break;
        case S_IS_META: isMeta = p; break;
        case S_API_BLOCK_INDEX: apiBlockIndex = p; break;
        case S_AI_TITLE: aiTitle = p; break;
        case S_CUSTOM_TITLE: customTitle = p; break;
        case S_LAST_PROMPT: lastPrompt = p; break;
        case S_MESSAGE_ID: messageId = p; break;
        case S_ROLE: role = p; break;
        case S_STOP_REASON: stopReason = p; break;
        case S_PER_CALL: perCallAt[PER_CALL_AT[field]!] = p; break;
      }
    }
    const typeText = recent.at(memory, base, w, type, CAP_TYPE);
    const readsContent = prompts && readsText(typeText, 'content');
    // Every key set, in one order: the one object, reused for each line.
    const f = this.fields;
    f.type = typeText;
    f.role = typeText === undefined ? recent.at(memory, base, w, role, CAP_ROLE) : undefined;
    f.toolUses = toolUses;
    f.toolResults = toolResults;
    ownCalls(f);
    toolUses = f.toolUses;
    const calls = keepsCallContext(toolUses);
    f.uuid = this.keepsIds ? stringAt(memory, base, w, uuid, CAP_UUID) : undefined;
    f.timestamp = keepsTimestamp(toolUses, f.uuid) ? stringAt(memory, base, w, timestamp, CAP_TIMESTAMP) : undefined;
    f.sessionId = recent.at(memory, base, w, sessionId, CAP_SESSION_ID);
    f.requestSessionId = calls ? recent.at(memory, base, w, requestSessionId, CAP_REQUEST_SESSION_ID) : undefined;
    f.version = calls ? recent.at(memory, base, w, version, CAP_VERSION) : undefined;
    f.cwd = recent.at(memory, base, w, cwd, CAP_CWD);
    f.gitBranch = recent.at(memory, base, w, gitBranch, CAP_GIT_BRANCH);
    f.agentId = calls ? recent.at(memory, base, w, agentId, CAP_AGENT_ID) : undefined;
    f.isSidechain = booleanAt(w, isSidechain);
    f.isMeta = booleanAt(w, isMeta);
    f.apiBlockIndex = calls && apiBlockIndex >= 0 && typeOf(w, apiBlockIndex) === T_NUMBER ? numberAt(memory, base, w, apiBlockIndex) : undefined;
    f.aiTitle = readsText(typeText, 'aiTitle') ? stringAt(memory, base, w, aiTitle, CAP_AI_TITLE) : undefined;
    f.customTitle = readsText(typeText, 'customTitle') ? stringAt(memory, base, w, customTitle, CAP_CUSTOM_TITLE) : undefined;
    f.lastPrompt = prompts && readsText(typeText, 'lastPrompt') ? stringAt(memory, base, w, lastPrompt, CAP_LAST_PROMPT) : undefined;
    f.messageId = calls ? recent.at(memory, base, w, messageId, CAP_MESSAGE_ID) : undefined;
    f.stopReason = !calls ? undefined : stopReason >= 0 && typeOf(w, stopReason) === T_NULL ? null : recent.at(memory, base, w, stopReason, CAP_STOP_REASON);
    f.contentText = readsContent ? stringAt(memory, base, w, content, CAP_CONTENT) : undefined;
    f.hasToolResultBlock = hasToolResultBlock;
    f.firstText = readsContent && firstText >= 0 ? stringAt(memory, base, w, firstText, CAP_BLOCK_TEXT) : undefined;
    // Read by replay alone, which scans with the record scanner (fields.ts); so are entrypoint, permissionMode and promptId, never set here.
    f.hasText = false;
    f.perCall = calls && PER_CALL.length > 0 ? this.perCallOf(memory, base) : NO_PER_CALL;
    return f;
  }

  /**
   * The per-call lines' values of the line whose entries are in `perCallAt` (a record with tool uses). The calls of a
   * transcript mostly repeat the values of the call before (the model), and analyze keeps every call's: the object
   * of the call before, frozen, when they are the same.
   */
  private perCallOf(memory: SlicingBuffer, base: number): PerCallFields {
    const w = this.words;
    const perCallAt = this.perCallAt;
    let fields: Record<string, PerCallValue> | undefined;
    let values = 0;
    let same = true;
    const before = this.perCallBefore;
    for (let i = 0; i < PER_CALL.length; i++) {
      const line = PER_CALL[i]!;
      const p = perCallAt[i]!;
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
