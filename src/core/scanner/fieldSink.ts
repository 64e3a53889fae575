import {
  addBlock,
  clearContent,
  clearMessage,
  emptyFields,
  ID_CAP,
  KEY_CAP,
  NUMBER_TEXT_CAP,
  ROOT_STRING_KEYS,
  TEXT_CAP,
  type BlockFields,
  type CapturedFields,
  type RootStringKey,
} from './fields';

/**
 * Where the streaming tokenizer's values go: maps the JSON path of a value (a
 * container context plus the key or element that holds it) to a "slot", and
 * stores what lands in a slot into CapturedFields under the rules of ./fields.ts.
 */

// What the container at a depth is.
export const C_SKIP = 0, C_ROOT = 1, C_MESSAGE = 2, C_CONTENT = 3, C_BLOCK = 4;

// What the value about to be read is.
export const SL_NONE = 0, SL_TOP = 1, SL_KEY = 2, SL_ELEM = 3;
const SL_ROOT_STR = 10, SL_SIDECHAIN = 11, SL_ISMETA = 12, SL_API_INDEX = 13, SL_MESSAGE = 14;
const SL_MSG_ID = 20, SL_MSG_STOP = 21, SL_MSG_CONTENT = 22;
const SL_B_TYPE = 30, SL_B_ID = 31, SL_B_NAME = 32, SL_B_TOOL_USE_ID = 33, SL_B_TEXT = 34;

const ROOT_STRING_CAPS = new Map<string, number>(Object.entries(ROOT_STRING_KEYS));
export const MAX_STRING_CAP = Math.max(KEY_CAP + 1, TEXT_CAP, ...ROOT_STRING_CAPS.values());

export class FieldSink {
  fields: CapturedFields = emptyFields();
  private block: BlockFields = {};
  private rootKey: RootStringKey | undefined;

  reset(): void {
    this.fields = emptyFields();
    this.block = {};
    this.rootKey = undefined;
  }

  /** Context of a container opened in `slot`. */
  openContainer(isObject: boolean, slot: number): number {
    if (isObject) {
      if (slot === SL_TOP) return C_ROOT;
      if (slot === SL_MESSAGE) return C_MESSAGE;
      if (slot === SL_ELEM) {
        this.block = {};
        return C_BLOCK;
      }
      return C_SKIP;
    }
    return slot === SL_MSG_CONTENT ? C_CONTENT : C_SKIP;
  }

  closeContainer(ctx: number): void {
    if (ctx === C_BLOCK) addBlock(this.fields, this.block);
  }

  /** Keys are worth decoding only where a captured field may sit. */
  capturesKeys(ctx: number): boolean {
    return ctx === C_ROOT || ctx === C_MESSAGE || ctx === C_BLOCK;
  }

  elementSlot(ctx: number): number {
    return ctx === C_CONTENT ? SL_ELEM : SL_NONE;
  }

  /** Which slot a key's value fills; a repeated key first clears what the earlier one left (last wins). */
  keySlot(ctx: number, key: string): number {
    const f = this.fields;
    switch (ctx) {
      case C_ROOT:
        if (ROOT_STRING_CAPS.has(key)) {
          this.rootKey = key as RootStringKey;
          f[this.rootKey] = undefined;
          return SL_ROOT_STR;
        }
        if (key === 'isSidechain') return (f.isSidechain = undefined), SL_SIDECHAIN;
        if (key === 'isMeta') return (f.isMeta = undefined), SL_ISMETA;
        if (key === 'apiBlockIndex') return (f.apiBlockIndex = undefined), SL_API_INDEX;
        if (key === 'message') return clearMessage(f), SL_MESSAGE;
        return SL_NONE;
      case C_MESSAGE:
        if (key === 'id') return (f.messageId = undefined), SL_MSG_ID;
        if (key === 'stop_reason') return (f.stopReason = undefined), SL_MSG_STOP;
        if (key === 'content') return clearContent(f), SL_MSG_CONTENT;
        return SL_NONE;
      case C_BLOCK: {
        const b = this.block;
        if (key === 'type') return (b.type = undefined), SL_B_TYPE;
        if (key === 'id') return (b.id = undefined), SL_B_ID;
        if (key === 'name') return (b.name = undefined), SL_B_NAME;
        if (key === 'tool_use_id') return (b.toolUseId = undefined), SL_B_TOOL_USE_ID;
        if (key === 'text') return (b.text = undefined), SL_B_TEXT;
        return SL_NONE;
      }
      default:
        return SL_NONE;
    }
  }

  /** Code units of a string in `slot` worth decoding; 0: skip it undecoded. */
  stringCap(slot: number): number {
    switch (slot) {
      case SL_KEY:
        return KEY_CAP + 1; // one past the longest kept key: a longer key comes out longer, and matches none
      case SL_ROOT_STR:
        return this.rootKey === undefined ? 0 : ROOT_STRING_CAPS.get(this.rootKey) ?? 0;
      case SL_MSG_ID:
      case SL_MSG_STOP:
      case SL_B_TYPE:
      case SL_B_ID:
      case SL_B_NAME:
      case SL_B_TOOL_USE_ID:
        return ID_CAP;
      case SL_MSG_CONTENT:
      case SL_B_TEXT:
        return TEXT_CAP;
      default:
        return 0;
    }
  }

  storeString(slot: number, value: string): void {
    const f = this.fields;
    const b = this.block;
    switch (slot) {
      case SL_ROOT_STR:
        if (this.rootKey !== undefined) f[this.rootKey] = value;
        break;
      case SL_MSG_ID:
        f.messageId = value;
        break;
      case SL_MSG_STOP:
        f.stopReason = value;
        break;
      case SL_MSG_CONTENT:
        f.contentText = value;
        break;
      case SL_B_TYPE:
        b.type = value;
        break;
      case SL_B_ID:
        b.id = value;
        break;
      case SL_B_NAME:
        b.name = value;
        break;
      case SL_B_TOOL_USE_ID:
        b.toolUseId = value;
        break;
      case SL_B_TEXT:
        b.text = value;
        break;
    }
  }

  /** `true`, `false` or `null` (by its first byte) read in `slot`. */
  storeLiteral(slot: number, first: number): void {
    if (slot === SL_SIDECHAIN && first !== 0x6e) this.fields.isSidechain = first === 0x74;
    else if (slot === SL_ISMETA && first !== 0x6e) this.fields.isMeta = first === 0x74;
    else if (slot === SL_MSG_STOP && first === 0x6e) this.fields.stopReason = null;
  }

  wantsNumberText(slot: number): boolean {
    return slot === SL_API_INDEX;
  }

  /** A number literal read in a slot that wants it; over-long literals are ignored (see fields.ts). */
  storeNumber(slot: number, text: string): void {
    if (slot === SL_API_INDEX && text.length <= NUMBER_TEXT_CAP) this.fields.apiBlockIndex = Number(text);
  }
}
