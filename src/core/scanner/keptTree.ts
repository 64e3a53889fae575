import { addBlockOf, emptyFields, fieldsFromParsed, KEY_CAP, NUMBER_TEXT_CAP, type CapturedFields } from './fields';
import { FIELDS, type FieldLevel } from './fieldTable';

/**
 * Where the streaming tokenizer's values go: a tree of the kept keys alone,
 * shaped as JSON.parse would give them (root, message, content blocks), which
 * fieldsFromParsed then reads under the same rules as on the JSON.parse path.
 * A value the rules ignore (an object under `type`, a string under `isMeta`)
 * stands as OPAQUE, so a repeated key still replaces what came before it.
 */

// What the container at a depth is.
export const C_SKIP = 0, C_ROOT = 1, C_MESSAGE = 2, C_CONTENT = 3, C_BLOCK = 4;
// What the value about to be read is: the root, a key, a content element, or the value of a kept key in a container of that context.
export const SL_NONE = 0, SL_TOP = 1, SL_KEY = 2, SL_ELEM = 3;
const SL_KEPT = 10; // + the container's context

type Node = Record<string, unknown>;
const OPAQUE: Node = Object.freeze({});

/** The kept keys of each context (the field table's lines there), with the cap of a string there (0: a string is not kept, only noted). */
const KEPT: ReadonlyMap<string, number>[] = [];
KEPT[C_ROOT] = keysIn('root');
KEPT[C_MESSAGE] = keysIn('message');
KEPT[C_BLOCK] = keysIn('block');

function keysIn(level: FieldLevel): Map<string, number> {
  return new Map(FIELDS.lines.filter((l) => l.in === level).map((l) => [l.key, l.cap ?? 0]));
}

export const MAX_STRING_CAP = Math.max(KEY_CAP + 1, ...KEPT.flatMap((keys) => [...keys.values()]));

export class KeptTree {
  root: Node = {};
  private message: Node = OPAQUE;
  private block: Node = OPAQUE;
  /** A block of the content array is open (headFields counts it with what it showed). */
  private blockOpen = false;
  /** The blocks of the open content array that change what fieldsFromParsed reads, and what they give so far. */
  private blocks: Node[] = [];
  private blocksGive: CapturedFields = emptyFields();
  /** Where a kept key's value goes. */
  private target: Node = OPAQUE;
  private key = '';
  private cap = 0;

  reset(): void {
    this.root = {};
    this.blockOpen = false;
  }

  /** The fields, by fieldsFromParsed. */
  fields(): CapturedFields {
    return fieldsFromParsed(this.root);
  }

  /** The fields of what was read so far, a block still open counted with what it showed: a line's head, as the record-line rule reads it. */
  headFields(): CapturedFields {
    if (!this.blockOpen) return this.fields();
    this.blocks.push(this.block);
    const f = this.fields();
    this.blocks.pop();
    return f;
  }

  /** Context of a container opened in `slot`. */
  openContainer(isObject: boolean, slot: number): number {
    if (slot === SL_TOP) return isObject ? C_ROOT : C_SKIP;
    if (slot === SL_ELEM) {
      if (!isObject) return C_SKIP;
      this.block = {};
      this.blockOpen = true;
      return C_BLOCK;
    }
    if (slot === SL_KEPT + C_ROOT && isObject && this.key === 'message') {
      this.root.message = this.message = {};
      return C_MESSAGE;
    }
    if (slot === SL_KEPT + C_MESSAGE && !isObject && this.key === 'content') {
      this.message.content = this.blocks = [];
      this.blocksGive = emptyFields();
      return C_CONTENT;
    }
    return C_SKIP;
  }

  closeContainer(ctx: number): void {
    if (ctx !== C_BLOCK) return;
    this.blockOpen = false;
    // A block that adds nothing to what the blocks before it give is dropped: a huge content array costs no memory.
    const before = blockYield(this.blocksGive);
    addBlockOf(this.blocksGive, this.block);
    if (blockYield(this.blocksGive) > before) this.blocks.push(this.block);
  }

  /** Keys are worth decoding only where a kept key may sit. */
  capturesKeys(ctx: number): boolean {
    return KEPT[ctx] !== undefined;
  }

  elementSlot(ctx: number): number {
    return ctx === C_CONTENT ? SL_ELEM : SL_NONE;
  }

  /** Which slot a key's value fills; a kept key's earlier value is replaced at once (the last one wins). */
  keySlot(ctx: number, key: string): number {
    const cap = KEPT[ctx]?.get(key);
    if (cap === undefined) return SL_NONE;
    this.target = ctx === C_ROOT ? this.root : ctx === C_MESSAGE ? this.message : this.block;
    this.target[key] = OPAQUE;
    this.key = key;
    this.cap = cap;
    return SL_KEPT + ctx;
  }

  /** Code units of a string in `slot` worth decoding; 0: skip it undecoded. */
  stringCap(slot: number): number {
    if (slot === SL_KEY) return KEY_CAP + 1; // one past the longest kept key: a longer key comes out longer, and matches none
    return slot >= SL_KEPT ? this.cap : 0;
  }

  storeString(slot: number, value: string): void {
    if (slot >= SL_KEPT) this.target[this.key] = value;
  }

  /** `true`, `false` or `null` (by its first byte) read in `slot`. */
  storeLiteral(slot: number, first: number): void {
    if (slot >= SL_KEPT) this.target[this.key] = first === 0x6e ? null : first === 0x74;
  }

  wantsNumberText(slot: number): boolean {
    return slot >= SL_KEPT;
  }

  /** A number literal read in a slot that wants it; an over-long one counts as absent (see fields.ts). */
  storeNumber(slot: number, text: string): void {
    if (slot >= SL_KEPT && text.length <= NUMBER_TEXT_CAP) this.target[this.key] = Number(text);
  }
}

/** What content blocks have given so far, as one count: each block that gives anything raises it. */
function blockYield(f: CapturedFields): number {
  return f.toolUses.length + f.toolResults.length + Number(f.hasToolResultBlock) + Number(f.firstText !== undefined) + Number(f.hasText);
}
