import type { MalformedLine, ScanResult } from '../records';
import { BitStack } from './bitStack';
import { C_SKIP, KeptTree, MAX_STRING_CAP, SL_KEY, SL_NONE, SL_TOP } from './keptTree';
import { buildRecord, isMalformed, KEY_CAP, NUMBER_TEXT_CAP, type CapturedFields } from './fields';
import { StringCapture } from './stringCapture';
import { JsInteriorSkipper, WasmInteriorSkipper, type InteriorSkipper } from './interiorSkipper';
import type { ScannerKernel } from './scannerKernel';

/**
 * A push tokenizer for one JSON line of any size: validates the full JSON syntax
 * (same grammar as JSON.parse) while keeping only the fields in ./fields.ts, with
 * capped strings. Memory is bounded whatever the line's length: the caps, the
 * blocks that count (see ./keptTree.ts), and a bit per level of nesting.
 * String interiors, where nearly all bytes of a huge line are, are skipped 64
 * bytes at a time by a wasm SIMD kernel (./interiorSkipper.ts, ./wasm/interior.c),
 * or byte by byte where that is unavailable; a kept string's text is copied
 * as it is skipped, escapes as written, and decoded once it ends.
 */

// Tokenizer states.
const VALUE = 0, ARR_FIRST = 1, OBJ_FIRST = 2, OBJ_KEY = 3, COLON = 4, AFTER_VALUE = 5;
const STR = 6, ESC = 7, UNI = 8, NUM = 9, LIT = 10, END = 11, ERROR = 12;

// JSON's number grammar as a table: NUMBER_NEXT[state][class of the byte] is the next state, -1 the end.
// States: start, after '-', '0', integer digits, '.', fraction digits, 'e', exponent sign, exponent digits.
const N_START = 0;
// Byte classes: '0', '1'-'9', '-', '+', '.', 'e' or 'E', anything else.
const NUMBER_CLASS = new Uint8Array(256).fill(6);
for (let c = 0x31; c <= 0x39; c++) NUMBER_CLASS[c] = 1;
[[0x30, 0], [0x2d, 2], [0x2b, 3], [0x2e, 4], [0x65, 5], [0x45, 5]].forEach(([c, k]) => (NUMBER_CLASS[c!] = k!));
const NUMBER_NEXT = [
  [2, 3, 1, -1, -1, -1, -1],
  [2, 3, -1, -1, -1, -1, -1],
  [-1, -1, -1, -1, 4, 6, -1],
  [3, 3, -1, -1, 4, 6, -1],
  [5, 5, -1, -1, -1, -1, -1],
  [5, 5, -1, -1, -1, 6, -1],
  [8, 8, 7, 7, -1, -1, -1],
  [8, 8, -1, -1, -1, -1, -1],
  [8, 8, -1, -1, -1, -1, -1],
];
/** The states a number may end in: after '0', integer, fraction or exponent digits. */
const NUM_TERMINAL = [false, false, true, true, false, true, false, false, true];

const MAX_CTX_DEPTH = 4;

const LITERALS: Record<number, number[]> = {
  0x74: [0x74, 0x72, 0x75, 0x65], // true
  0x66: [0x66, 0x61, 0x6c, 0x73, 0x65], // false
  0x6e: [0x6e, 0x75, 0x6c, 0x6c], // null
};
/** The escapes `\"` `\\` `\/` `\b` `\f` `\n` `\r` `\t`, by the byte after the backslash. */
const SIMPLE_ESCAPE = new Uint8Array(256);
for (const c of Buffer.from('"\\/bfnrt')) SIMPLE_ESCAPE[c] = 1;
const HEX = new Uint8Array(256);
for (const c of Buffer.from('0123456789abcdefABCDEF')) HEX[c] = 1;

function isWs(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

export class StreamingRecordParser {
  private state = VALUE;
  private readonly stack = new BitStack();
  private readonly ctxAt = new Uint8Array(MAX_CTX_DEPTH + 1);
  private sawAny = false;
  private topIsObject = false;
  private readonly sink = new KeptTree();
  /** Slot of the value the next VALUE state reads. */
  private pending = SL_TOP;
  // Current string.
  private strSlot = SL_NONE;
  private inKey = false;
  private capturing = false;
  private readonly capture = new StringCapture(MAX_STRING_CAP);
  /** Skips string interiors: the wasm SIMD kernel where it runs, else a JS byte loop. */
  private readonly interiors: InteriorSkipper;
  private uniCount = 0;
  // Current number / literal.
  private numState = N_START;
  private numSlot = SL_NONE;
  private numWanted = false;
  private numText = '';
  private lit: number[] = LITERALS[0x6e];
  private litIdx = 0;
  private litSlot = SL_NONE;

  constructor(opts: { wasm?: boolean; kernel?: ScannerKernel } = {}) {
    this.interiors = (opts.wasm !== false ? WasmInteriorSkipper.create(opts.kernel) : undefined) ?? new JsInteriorSkipper();
  }

  reset(): void {
    this.state = VALUE;
    this.stack.clear();
    this.sawAny = false;
    this.topIsObject = false;
    this.sink.reset();
    this.pending = SL_TOP;
    this.inKey = false;
    this.numText = '';
  }

  push(chunk: Buffer): void {
    const n = chunk.length;
    this.interiors.setChunk(chunk);
    let i = 0;
    while (i < n) {
      switch (this.state) {
        case STR:
          i = this.scanString(chunk, i);
          break;
        case ERROR:
          return;
        default:
          i = this.step(chunk[i], i);
      }
    }
  }

  /** The line ended: its result (`prompts`: see buildRecord); then reset for the next line. */
  finish(prompts = true): ScanResult {
    const fields = this.finishFields();
    return isMalformed(fields) ? fields : buildRecord(fields, prompts);
  }

  /** The kept fields of what was read of the line so far (a head, as the record-line rule reads it); undefined where that is no beginning of a JSON object. */
  headFields(): CapturedFields | undefined {
    return this.state === ERROR || !this.topIsObject ? undefined : this.sink.headFields();
  }

  /** The line ended: its kept fields, as fieldsFromParsed reads them (or why it is no object); then reset for the next line. */
  finishFields(): CapturedFields | MalformedLine {
    let result: CapturedFields | MalformedLine;
    if (this.state === NUM && this.stack.depth === 0 && NUM_TERMINAL[this.numState]) this.state = END;
    if (this.state === END) {
      result = this.topIsObject ? this.sink.fields() : { kind: 'malformed', reason: 'not an object' };
    } else if (this.state === ERROR) {
      result = { kind: 'malformed', reason: 'not JSON' };
    } else if (!this.sawAny) {
      result = { kind: 'malformed', reason: 'empty' };
    } else {
      result = { kind: 'malformed', reason: 'truncated' };
    }
    this.reset();
    return result;
  }

  /** One byte outside a string interior; returns the next index (the same one to re-read a byte). */
  private step(c: number, i: number): number {
    switch (this.state) {
      case VALUE:
        if (isWs(c)) return i + 1;
        this.sawAny = true;
        return this.beginValue(c, i);
      case ARR_FIRST:
        if (isWs(c)) return i + 1;
        if (c === 0x5d) return this.close(i);
        this.pending = this.elemSlot();
        this.state = VALUE;
        return i;
      case OBJ_FIRST:
      case OBJ_KEY:
        if (isWs(c)) return i + 1;
        if (c === 0x7d && this.state === OBJ_FIRST) return this.close(i);
        if (c !== 0x22) return this.fail();
        this.beginString(this.sink.capturesKeys(this.currentCtx()) ? SL_KEY : SL_NONE);
        this.inKey = true;
        return i + 1;
      case COLON:
        if (isWs(c)) return i + 1;
        if (c !== 0x3a) return this.fail();
        this.state = VALUE;
        return i + 1;
      case AFTER_VALUE:
        if (isWs(c)) return i + 1;
        if (c === 0x2c) {
          if (this.stack.topIsObject()) {
            this.state = OBJ_KEY;
          } else {
            this.pending = this.elemSlot();
            this.state = VALUE;
          }
          return i + 1;
        }
        if (c === (this.stack.topIsObject() ? 0x7d : 0x5d)) return this.close(i);
        return this.fail();
      case END:
        return isWs(c) ? i + 1 : this.fail();
      case ESC:
        return this.stepEscape(c, i);
      case UNI:
        if (HEX[c] !== 1) return this.fail();
        if (this.capturing) this.capture.addByte(c);
        if (++this.uniCount === 4) this.state = STR;
        return i + 1;
      case NUM:
        return this.stepNumber(c, i);
      case LIT:
        if (c !== this.lit[this.litIdx]) return this.fail();
        if (++this.litIdx === this.lit.length) {
          this.sink.storeLiteral(this.litSlot, this.lit[0]);
          this.valueDone();
        }
        return i + 1;
      default:
        return this.fail();
    }
  }

  private beginValue(c: number, i: number): number {
    const slot = this.pending;
    this.pending = SL_NONE;
    if (c === 0x7b || c === 0x5b) {
      this.open(c === 0x7b, slot);
      return i + 1;
    }
    if (c === 0x22) {
      this.beginString(slot);
      return i + 1;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      this.state = NUM;
      this.numSlot = slot;
      this.numWanted = this.sink.wantsNumberText(slot);
      this.numText = '';
      this.numState = N_START;
      return this.stepNumber(c, i);
    }
    const lit = LITERALS[c];
    if (lit === undefined) return this.fail();
    this.state = LIT;
    this.lit = lit;
    this.litIdx = 1;
    this.litSlot = slot;
    return i + 1;
  }

  private open(isObject: boolean, slot: number): void {
    if (slot === SL_TOP) this.topIsObject = isObject;
    const ctx = this.sink.openContainer(isObject, slot);
    this.stack.push(isObject);
    if (this.stack.depth <= MAX_CTX_DEPTH) this.ctxAt[this.stack.depth] = ctx;
    this.state = isObject ? OBJ_FIRST : ARR_FIRST;
  }

  private close(i: number): number {
    this.sink.closeContainer(this.currentCtx());
    this.stack.pop();
    this.valueDone();
    return i + 1;
  }

  private currentCtx(): number {
    const d = this.stack.depth;
    return d <= MAX_CTX_DEPTH ? this.ctxAt[d] : C_SKIP;
  }

  private elemSlot(): number {
    return this.sink.elementSlot(this.currentCtx());
  }

  private valueDone(): void {
    this.state = this.stack.depth === 0 ? END : AFTER_VALUE;
  }

  private fail(): number {
    this.state = ERROR;
    return Number.MAX_SAFE_INTEGER;
  }

  private beginString(slot: number): void {
    this.state = STR;
    this.strSlot = slot;
    const cap = this.sink.stringCap(slot);
    this.capturing = cap > 0;
    if (this.capturing) this.capture.begin(cap);
  }

  /**
   * Runs through a string interior, copying a kept string's text as it goes.
   * Escapes the skipper stops at are checked in place; one cut by the chunk's
   * end (or bad) goes through ESC/UNI.
   */
  private scanString(chunk: Buffer, i: number): number {
    const n = chunk.length;
    let k = i;
    for (;;) {
      k = this.interiors.skipInterior(k, n);
      if (k >= n) break;
      const c = chunk[k]!;
      if (c === 0x22) {
        if (this.capturing) this.capture.add(chunk, i, k);
        this.endString();
        return k + 1;
      }
      if (c !== 0x5c) return this.fail(); // a raw control character
      const e = k + 1 < n ? chunk[k + 1]! : -1;
      if (SIMPLE_ESCAPE[e] === 1) {
        k += 2;
      } else if (e === 0x75 && k + 5 < n) {
        if (HEX[chunk[k + 2]!]! + HEX[chunk[k + 3]!]! + HEX[chunk[k + 4]!]! + HEX[chunk[k + 5]!]! !== 4) return this.fail();
        k += 6;
      } else {
        if (this.capturing) this.capture.add(chunk, i, k + 1);
        this.state = ESC; // cut by the chunk's end, or a bad escape: ESC decides
        return k + 1;
      }
    }
    if (this.capturing) this.capture.add(chunk, i, n);
    return n;
  }

  private stepEscape(c: number, i: number): number {
    if (c === 0x75) {
      this.state = UNI;
      this.uniCount = 0;
    } else if (SIMPLE_ESCAPE[c] === 1) {
      this.state = STR;
    } else {
      return this.fail();
    }
    if (this.capturing) this.capture.addByte(c);
    return i + 1;
  }

  private endString(): void {
    const slot = this.strSlot;
    if (this.inKey) {
      this.inKey = false;
      this.pending = SL_NONE;
      if (slot === SL_KEY) {
        // Keys are kept to one unit past the longest kept key: a longer one matches none.
        const key = this.capture.end();
        if (key.length <= KEY_CAP) this.pending = this.sink.keySlot(this.currentCtx(), key);
      }
      this.state = COLON;
      return;
    }
    if (this.capturing) this.sink.storeString(slot, this.capture.end());
    this.valueDone();
  }

  private stepNumber(c: number, i: number): number {
    const next = NUMBER_NEXT[this.numState]![NUMBER_CLASS[c]!]!;
    if (next >= 0) {
      this.numState = next;
      if (this.numWanted && this.numText.length <= NUMBER_TEXT_CAP) this.numText += String.fromCharCode(c);
      return i + 1;
    }
    if (!NUM_TERMINAL[this.numState]) return this.fail();
    if (this.numWanted) this.sink.storeNumber(this.numSlot, this.numText);
    this.valueDone();
    return i; // the byte after the number is read again in AFTER_VALUE / END
  }
}
