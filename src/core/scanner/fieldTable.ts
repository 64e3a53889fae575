/**
 * The one field table: which keys of a transcript record are kept, where each sits, what of its value is kept, and
 * whether it is shown per call. Every list of kept keys derives from it: the matcher of analyze's wasm capture
 * (./keyTable.ts writes it into each instance at load, so no C is compiled for a new line), its codes
 * (lineReducer.ts), the streaming tokenizer's kept tree (./keptTree.ts), the caps of ./fields.ts, and the per-call
 * fields on their way to the views (`record` of analyze's calls, of `written` events, of a call's tooltip).
 *
 * One line a key:
 * - `in`: the object it sits in: the record itself (`root`), its `message`, or a `block` (an object of
 *   `message.content`).
 * - `as`: what of the value is kept: a `string` (cut to `cap` UTF-16 code units), a `number`, a `boolean`, a
 *   `string|null`; `message` is the record's message, read into (its keys: the lines `in: 'message'`); `content`
 *   is message.content, kept as a string (cut to `cap`) or read into as an array whose objects are blocks (their
 *   keys: the lines `in: 'block'`). A value of another JSON type counts as absent.
 * - `perCall`: shown per call, under `record` (`record: {key: value}`), with nothing else to write: kept on
 *   records with tool uses only, in the root or the message (not in a block), as a string, number or boolean.
 *
 * A line without `perCall` is one ./fields.ts reads by its key, for the engine's own rules (a unit test holds the
 * two to the same keys). To show one more field of a call's record, copy the `requestedModel` line and change the
 * key.
 */

import { CALL_ID_CAP } from '../../rules/recordLine';

/** Cap of ids, types and names (UTF-16 code units). */
export const ID_CAP = CALL_ID_CAP;
/** Cap of texts: titles, prompts. */
export const TEXT_CAP = 200;

export type FieldLevel = 'root' | 'message' | 'block';
export type FieldValue = 'string' | 'number' | 'boolean' | 'string|null' | 'message' | 'content';

export interface FieldLine {
  readonly key: string;
  readonly in: FieldLevel;
  readonly as: FieldValue;
  /** Strings only: the code units kept. */
  readonly cap?: number;
  readonly perCall?: true;
}

export const FIELD_TABLE = [
  { key: 'type', in: 'root', as: 'string', cap: ID_CAP },
  { key: 'uuid', in: 'root', as: 'string', cap: 200 }, // Claude Code's are 36 characters; the mod's record events allow 200 (MAX_ID_LENGTH)
  { key: 'timestamp', in: 'root', as: 'string', cap: ID_CAP },
  { key: 'sessionId', in: 'root', as: 'string', cap: ID_CAP },
  { key: 'requestSessionId', in: 'root', as: 'string', cap: ID_CAP },
  { key: 'version', in: 'root', as: 'string', cap: ID_CAP },
  { key: 'cwd', in: 'root', as: 'string', cap: ID_CAP * 8 },
  { key: 'gitBranch', in: 'root', as: 'string', cap: ID_CAP },
  { key: 'agentId', in: 'root', as: 'string', cap: ID_CAP },
  { key: 'isSidechain', in: 'root', as: 'boolean' },
  { key: 'isMeta', in: 'root', as: 'boolean' },
  { key: 'apiBlockIndex', in: 'root', as: 'number' },
  { key: 'aiTitle', in: 'root', as: 'string', cap: TEXT_CAP },
  { key: 'customTitle', in: 'root', as: 'string', cap: TEXT_CAP },
  { key: 'lastPrompt', in: 'root', as: 'string', cap: TEXT_CAP },
  // What a replayed hook's input and the mod's held message say of the session (src/core/replay/): its mode, permission mode, prompt.
  { key: 'entrypoint', in: 'root', as: 'string', cap: ID_CAP },
  { key: 'permissionMode', in: 'root', as: 'string', cap: ID_CAP },
  { key: 'promptId', in: 'root', as: 'string', cap: ID_CAP },
  { key: 'message', in: 'root', as: 'message' },
  { key: 'id', in: 'message', as: 'string', cap: ID_CAP },
  { key: 'stop_reason', in: 'message', as: 'string|null', cap: ID_CAP },
  { key: 'role', in: 'message', as: 'string', cap: ID_CAP }, // the line's owner where it has no `type` (src/rules/recordLine.ts)
  { key: 'content', in: 'message', as: 'content', cap: TEXT_CAP },
  { key: 'type', in: 'block', as: 'string', cap: ID_CAP },
  { key: 'id', in: 'block', as: 'string', cap: ID_CAP + 1 }, // one past a call id's cap: a longer id names no call
  { key: 'name', in: 'block', as: 'string', cap: ID_CAP },
  { key: 'tool_use_id', in: 'block', as: 'string', cap: ID_CAP + 1 },
  { key: 'text', in: 'block', as: 'string', cap: TEXT_CAP },
  // Per call: the model that made the call (assistant records of Claude Code 2.1.332 carry it).
  { key: 'requestedModel', in: 'root', as: 'string', cap: ID_CAP, perCall: true },
] as const satisfies readonly FieldLine[];

/** A kept line with its code: its place in the capture's entries (root lines first, then message, then block). */
export interface CodedLine extends FieldLine {
  readonly code: number;
}

const LEVEL_ORDER: readonly FieldLevel[] = ['root', 'message', 'block'];

/** What the capture and its readers agree on for a table: each line's code, and the codes' ranges by level. */
export interface FieldCodes {
  readonly lines: readonly CodedLine[];
  /** The first code of a message line, and of a block line; codes of one level are contiguous. */
  readonly messageFirst: number;
  readonly blockFirst: number;
  /** The code of a content block itself (an object element of message.content): one past the lines. */
  readonly element: number;
  /** Codes in all, the element's included. */
  readonly count: number;
  /** The longest key (UTF-16 code units, all ASCII): a longer key matches none. */
  readonly longestKey: number;
  /** The per-call lines, in table order. */
  readonly perCall: readonly CodedLine[];
  /** The code of the line of `key` at `level`; throws for a key the table does not hold. */
  codeOf(level: FieldLevel, key: string): number;
  /** The line of `key` at `level`, or undefined. */
  lineOf(level: FieldLevel, key: string): CodedLine | undefined;
}

/** Codes at most this (the capture's entries hold a code in 8 bits; 255 is no code). */
const MAX_CODES = 255;
/** The longest key the capture's table holds (KEY_TABLE_MAX_KEY of ../analyze/capture/wasm/keyTable.h). */
export const MAX_KEY_LENGTH = 64;

/**
 * The codes of `table`, after checking it: keys of printable ASCII with no quote or backslash (the capture compares
 * raw bytes, and leaves an escaped key to JSON.parse), at most MAX_KEY_LENGTH long, one line per key and level, `message` in the root and `content` in
 * the message, per-call lines where the rule above allows them. A table that breaks a rule throws at load.
 */
export function codesOf(table: readonly FieldLine[]): FieldCodes {
  const seen = new Set<string>();
  for (const line of table) {
    const where = `field table: ${line.in} ${JSON.stringify(line.key)}`;
    if (!/^[\x20-\x7e]+$/.test(line.key) || /["\\]/.test(line.key)) throw new Error(`${where}: a key is printable ASCII, no quote or backslash`);
    if (line.key.length > MAX_KEY_LENGTH) throw new Error(`${where}: a key is at most ${MAX_KEY_LENGTH} characters`);
    if (seen.has(`${line.in}\u0000${line.key}`)) throw new Error(`${where}: listed twice`);
    seen.add(`${line.in}\u0000${line.key}`);
    if (line.as === 'message' && line.in !== 'root') throw new Error(`${where}: the message sits in the root`);
    if (line.as === 'content' && line.in !== 'message') throw new Error(`${where}: content sits in the message`);
    if ((line.as === 'string' || line.as === 'string|null' || line.as === 'content') && !(Number.isInteger(line.cap) && line.cap! > 0)) {
      throw new Error(`${where}: a string needs a cap`);
    }
    if (line.perCall && (line.in === 'block' || !(line.as === 'string' || line.as === 'number' || line.as === 'boolean'))) {
      throw new Error(`${where}: a per-call field is a string, number or boolean of the root or the message`);
    }
  }
  const lines: CodedLine[] = [];
  for (const level of LEVEL_ORDER) for (const line of table) if (line.in === level) lines.push({ ...line, code: lines.length });
  if (lines.length + 1 > MAX_CODES) throw new Error(`field table: at most ${MAX_CODES - 1} lines`);
  const firstOf = (level: FieldLevel) => {
    const at = lines.findIndex((l) => LEVEL_ORDER.indexOf(l.in) >= LEVEL_ORDER.indexOf(level));
    return at < 0 ? lines.length : at;
  };
  const byKey = new Map(lines.map((l) => [`${l.in}\u0000${l.key}`, l] as const));
  return {
    lines,
    messageFirst: firstOf('message'),
    blockFirst: firstOf('block'),
    element: lines.length,
    count: lines.length + 1,
    longestKey: Math.max(0, ...lines.map((l) => l.key.length)),
    perCall: table.filter((l) => l.perCall).map((l) => byKey.get(`${l.in}\u0000${l.key}`)!),
    codeOf(level, key) {
      const line = byKey.get(`${level}\u0000${key}`);
      if (line === undefined) throw new Error(`field table: no ${level} ${JSON.stringify(key)}`);
      return line.code;
    },
    lineOf(level, key) {
      return byKey.get(`${level}\u0000${key}`);
    },
  };
}

/** The codes of FIELD_TABLE: what every reader of kept fields uses. */
export const FIELDS: FieldCodes = codesOf(FIELD_TABLE);
