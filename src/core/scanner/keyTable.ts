import { FIELDS, MAX_KEY_LENGTH, type FieldCodes } from './fieldTable';

/**
 * Writes the field table's keys into an instance of the scanner module, where analyze's capture matches them
 * (../analyze/capture/wasm/keyTable.h; keep the layout in step): the table is read at load, not compiled in, so a new
 * line of ./fieldTable.ts needs no C toolchain.
 */

/** The longest key the C table holds (KEY_TABLE_MAX_KEY), the entries it has room for, and their layout. */
const KEY_TABLE_MAX_KEY = MAX_KEY_LENGTH;
const ENTRIES = 255;
const ENTRY_BYTES = KEY_TABLE_MAX_KEY + 16;
const RANGES_AT = ENTRIES * ENTRY_BYTES;
const LEVELS = ['root', 'message', 'block'] as const;
// The word of an entry: code | descend << 8 | level read into << 10 | element code << 16.
const DESCEND_OBJECT = 1;
const DESCEND_ARRAY = 2;

interface KeyTableExports {
  memory: { readonly buffer: ArrayBuffer };
  keyTable(): number;
}

export function writeKeyTable(exports: KeyTableExports, codes: FieldCodes = FIELDS): void {
  const lines = [...codes.lines].sort((a, b) => LEVELS.indexOf(a.in) - LEVELS.indexOf(b.in) || a.key.length - b.key.length || a.code - b.code);
  if (lines.length > ENTRIES) throw new Error(`field table: the capture holds at most ${ENTRIES} keys`);
  const at = exports.keyTable();
  const memory = exports.memory.buffer;
  const bytes = new Uint8Array(memory, at, RANGES_AT + LEVELS.length * (KEY_TABLE_MAX_KEY + 1) * 2);
  const view = new DataView(memory, at);
  bytes.fill(0);
  lines.forEach((line, i) => {
    const entry = i * ENTRY_BYTES;
    bytes.set(Buffer.from(line.key, 'latin1'), entry);
    const descend = line.as === 'message' ? DESCEND_OBJECT | (LEVELS.indexOf('message') << 2) : line.as === 'content' ? DESCEND_ARRAY | (LEVELS.indexOf('block') << 2) : 0;
    const element = line.as === 'content' ? codes.element : 0;
    view.setUint32(entry + KEY_TABLE_MAX_KEY, (line.code | (descend << 8) | (element << 16)) >>> 0, true);
    const range = RANGES_AT + (LEVELS.indexOf(line.in) * (KEY_TABLE_MAX_KEY + 1) + line.key.length) * 2;
    const known = view.getUint16(range, true);
    // The first entry of this level and length (low byte) and how many (high byte): lines are sorted so.
    view.setUint16(range, known === 0 ? i | (1 << 8) : known + (1 << 8), true);
  });
}
