import { CALL_ID_CAP, MAX_CALLS_A_LINE } from '../../rules/recordLine';
import { METADATA_TYPES, NO_PER_CALL, type MalformedLine, type PerCallFields, type PerCallValue, type ScannedRecord, type ToolUseRef } from '../records';
import { FIELDS, type CodedLine, type FIELD_TABLE } from './fieldTable';

export { ID_CAP, TEXT_CAP } from './fieldTable';

/**
 * The fields of a transcript line the engine keeps, as captured by either scan
 * path (JSON.parse for ordinary lines, the streaming tokenizer for huge ones).
 * Both paths fill this same shape under the same rules, and one function turns
 * it into a ScannedRecord, so they cannot drift apart:
 *
 * - Only the keys of the field table (./fieldTable.ts) are read: the root's
 *   scalars by their line (a string cut to its cap, a boolean, a number),
 *   `message.id`, `message.stop_reason` (string or null), `message.content`
 *   (string, or an array of block objects: `type id name tool_use_id text`),
 *   and the per-call lines into `perCall`, on records with tool uses.
 * - A value of another JSON type counts as absent. A repeated key: the last one
 *   wins, as with JSON.parse.
 * - Strings are cut to a cap (in UTF-16 code units, `String#slice`), so a
 *   megabyte "sessionId" in a garbage line costs no memory.
 * - Invalid UTF-8 inside a string is not malformed: both paths decode it like
 *   `Buffer#toString('utf8')` does, each bad sequence becoming U+FFFD. (Outside
 *   strings any non-ASCII byte is a syntax error on both paths.)
 * - A path may leave out the text fields buildRecord does not read for the
 *   record's type (readsText), the texts a prompt comes from when buildRecord
 *   is told no prompt is wanted, and the call context of a record without tool
 *   uses (keepsCallContext): the records, not the fields, are what must agree.
 *   analyze's capture may also leave out `uuid` (LineReducer.keepsIds), which
 *   only the live engine reads, and the fields only replay reads (its call
 *   context: `entrypoint`, `permissionMode`, `promptId`; `hasText`), which it
 *   takes from this scanner's two paths (src/core/replay/transcriptIndex.ts).
 */
/** Tool use / result refs kept per line (the record-line rule's); real records carry one. */
export const REFS_CAP = MAX_CALLS_A_LINE;
/** The longest key of the field table: a longer key never matches. */
export const KEY_CAP = FIELDS.longestKey;
/** apiBlockIndex literals longer than this are ignored by the streaming path (no real record has one). */
export const NUMBER_TEXT_CAP = 64;

type TableLine = (typeof FIELD_TABLE)[number];
type ValueOf<As> = As extends 'string' ? string : As extends 'number' ? number : As extends 'boolean' ? boolean : never;
/** The root's scalars buildRecord reads by key: every root line but the message and the per-call lines. */
type RootScalarLine = Exclude<Extract<TableLine, { in: 'root' }>, { perCall: true } | { as: 'message' }>;
/** `type`, `uuid`, `timestamp`, `sessionId`, `cwd`, …: one property per line, named by its key (the table says which). */
export type RootFields = { [L in RootScalarLine as L['key']]?: ValueOf<L['as']> };

export interface CapturedFields extends RootFields {
  messageId?: string;
  /** `message.role`: whose line it is where it has no `type` (ownCalls). */
  role?: string;
  stopReason?: string | null;
  /** `message.content` when it is a string (a typed prompt). */
  contentText?: string;
  toolUses: ToolUseRef[];
  toolResults: string[];
  /** Any block of type tool_result, whatever its tool_use_id. */
  hasToolResultBlock: boolean;
  /** `text` of the first text block. */
  firstText?: string;
  /** A text block's `text` is a non-empty string (what a reviewing hook reads as a call's reason, src/core/replay/). */
  hasText: boolean;
  /** The per-call lines' values (NO_PER_CALL: none, or a record without tool uses, where a path may leave them out). */
  perCall: PerCallFields;
}

/** The root lines read into RootFields, in table order. */
const ROOT_SCALARS: readonly CodedLine[] = FIELDS.lines.filter((l) => l.in === 'root' && !l.perCall && l.as !== 'message');

/** Root keys that hold a string, and the cap each gets. */
export const ROOT_STRING_KEYS: Readonly<Record<string, number>> = Object.fromEntries(ROOT_SCALARS.filter((l) => l.as === 'string').map((l) => [l.key, l.cap!]));

/** The caps of the message's and a block's strings, by key. */
const MESSAGE_CAP = capsIn('message');
const BLOCK_CAP = capsIn('block');

function capsIn(level: 'message' | 'block'): Readonly<Record<string, number>> {
  return Object.fromEntries(FIELDS.lines.filter((l) => l.in === level && l.cap !== undefined).map((l) => [l.key, l.cap!]));
}

/**
 * The refs of a line without tool uses / results, on every scan path: one
 * shared, frozen empty array each, as most lines have none (frozen: a push
 * into a record's refs throws instead of reaching every other record). A
 * fresh array only once a ref is added: the records' ref arrays are then of
 * two kinds only, which keeps their readers' optimized code from being thrown
 * away when a line from another path first shows up (an empty array that was
 * never pushed to is a third).
 */
export const NO_TOOL_USES = Object.freeze([]) as unknown as ToolUseRef[];
export const NO_TOOL_RESULTS = Object.freeze([]) as unknown as string[];

/** Every key of CapturedFields, empty, in one order: the root's by the table, then the rest. Never handed out: copied. */
const EMPTY_FIELDS: CapturedFields = {
  ...(Object.fromEntries(ROOT_SCALARS.map((l) => [l.key, undefined])) as RootFields),
  messageId: undefined,
  role: undefined,
  stopReason: undefined,
  contentText: undefined,
  toolUses: NO_TOOL_USES,
  toolResults: NO_TOOL_RESULTS,
  hasToolResultBlock: false,
  firstText: undefined,
  hasText: false,
  perCall: NO_PER_CALL,
};

/**
 * Every key present, in one order, on every path: one hidden class for all
 * CapturedFields (copies of one object), so buildRecord, which reads them all,
 * is not deoptimized when a second scan path first hands it one.
 */
export function emptyFields(): CapturedFields {
  return { ...EMPTY_FIELDS };
}

/** What a content block (an object of message.content) adds to `f`, after the blocks before it. */
export function addBlockOf(f: CapturedFields, block: Record<string, unknown>): void {
  const type = block.type;
  if (type === 'tool_use') {
    const id = callIdOf(block.id);
    if (id !== undefined && f.toolUses.length < REFS_CAP) {
      const use = { id, name: str(block.name, BLOCK_CAP.name!) ?? '' };
      if (f.toolUses === NO_TOOL_USES) f.toolUses = [use];
      else f.toolUses.push(use);
    }
  } else if (type === 'tool_result') {
    f.hasToolResultBlock = true;
    const id = callIdOf(block.tool_use_id);
    if (id !== undefined && f.toolResults.length < REFS_CAP) {
      if (f.toolResults === NO_TOOL_RESULTS) f.toolResults = [id];
      else f.toolResults.push(id);
    }
  } else if (type === 'text') {
    if (f.firstText === undefined) f.firstText = str(block.text, BLOCK_CAP.text!);
    if (typeof block.text === 'string' && block.text !== '') f.hasText = true;
  }
}

/** A call's id, by the record-line rule (src/rules/recordLine.ts): a string neither empty nor over CALL_ID_CAP. */
export function callIdOf(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' && v.length <= CALL_ID_CAP ? v : undefined;
}

/**
 * Which calls a line is the record or the result of, by the record-line rule (src/rules/recordLine.ts): tool uses on a
 * line whose owner (its `type` where a string, else `message.role`) is `assistant`, results on a `user`'s. Run once the
 * blocks are read, as the owner may come after them (Claude Code writes `type` last).
 */
export function ownCalls(f: CapturedFields): void {
  const owner = f.type ?? f.role;
  if (owner !== 'assistant') f.toolUses = NO_TOOL_USES;
  if (owner !== 'user') f.toolResults = NO_TOOL_RESULTS;
}

/**
 * The first `cap` code units of `s`. A cut string is copied: V8 makes a long
 * slice a view that keeps its whole parent alive, and the parent may be a
 * megabyte of tool output. Appending a character and slicing it off again
 * copies: the slice of a concatenation flattens it into a fresh string of
 * cap + 1 units (cheaper than split/join, which made an array of one-character strings).
 */
export function capString(s: string, cap: number): string {
  return s.length > cap ? (s.slice(0, cap) + ' ').slice(0, cap) : s;
}

function str(v: unknown, cap: number): string | undefined {
  return typeof v === 'string' ? capString(v, cap) : undefined;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The JSON.parse path: read the same fields from a parsed root object. */
export function fieldsFromParsed(root: Record<string, unknown>): CapturedFields {
  const f = emptyFields();
  const scalars = f as unknown as Record<string, unknown>;
  for (const line of ROOT_SCALARS) {
    const v = root[line.key];
    scalars[line.key] = line.as === 'string' ? str(v, line.cap!) : typeof v === line.as ? v : undefined;
  }
  const message = root.message;
  if (!isPlainObject(message)) return f;
  f.messageId = str(message.id, MESSAGE_CAP.id!);
  f.role = str(message.role, MESSAGE_CAP.role!);
  if (message.stop_reason === null) f.stopReason = null;
  else f.stopReason = str(message.stop_reason, MESSAGE_CAP.stop_reason!);
  const content = message.content;
  if (typeof content === 'string') {
    f.contentText = str(content, MESSAGE_CAP.content!);
  } else if (Array.isArray(content)) {
    for (const block of content) if (isPlainObject(block)) addBlockOf(f, block);
  }
  ownCalls(f);
  if (keepsCallContext(f.toolUses)) f.perCall = perCallOf(root, message);
  return f;
}

/** A scan path's answer for a line that is no JSON object, told from the fields of one that is. */
export function isMalformed(v: CapturedFields | MalformedLine): v is MalformedLine {
  return (v as Partial<MalformedLine>).kind === 'malformed';
}

/** The per-call lines' values of a parsed record (`message`: its message object). */
function perCallOf(root: Record<string, unknown>, message: Record<string, unknown>): PerCallFields {
  let fields: Record<string, PerCallValue> | undefined;
  for (const line of FIELDS.perCall) {
    const v = (line.in === 'root' ? root : message)[line.key];
    const value = line.as === 'string' ? str(v, line.cap!) : typeof v === line.as ? (v as PerCallValue) : undefined;
    if (value !== undefined) (fields ??= {})[line.key] = value;
  }
  return fields === undefined ? NO_PER_CALL : fields;
}

/**
 * The one place a ScannedRecord is made. `prompts` false: no `prompt` (the
 * scanner's owner does not want it for this line; see RecordScannerOptions.prompts).
 */
export function buildRecord(f: CapturedFields, prompts = true): ScannedRecord {
  const rec: ScannedRecord = {
    kind: 'record',
    toolUses: f.toolUses,
    toolResults: f.toolResults,
    isMetadata: f.type !== undefined && METADATA_TYPES.has(f.type),
  };
  if (f.type !== undefined) rec.type = f.type;
  if (f.uuid !== undefined) rec.uuid = f.uuid;
  if (f.sessionId !== undefined) rec.sessionId = f.sessionId;
  if (f.cwd !== undefined) rec.cwd = f.cwd;
  if (f.gitBranch !== undefined) rec.gitBranch = f.gitBranch;
  if (keepsTimestamp(f.toolUses, f.uuid) && f.timestamp !== undefined) rec.timestamp = f.timestamp;
  if (keepsCallContext(f.toolUses)) {
    if (f.requestSessionId !== undefined) rec.requestSessionId = f.requestSessionId;
    if (f.version !== undefined) rec.version = f.version;
    if (f.isSidechain !== undefined) rec.isSidechain = f.isSidechain;
    if (f.agentId !== undefined) rec.agentId = f.agentId;
    if (f.messageId !== undefined) rec.messageId = f.messageId;
    if (f.apiBlockIndex !== undefined) rec.apiBlockIndex = f.apiBlockIndex;
    if (f.stopReason !== undefined) rec.stopReason = f.stopReason;
    if (f.perCall !== NO_PER_CALL) rec.perCall = f.perCall;
  }
  if (readsText(f.type, 'aiTitle') && f.aiTitle !== undefined) rec.title = f.aiTitle;
  if (readsText(f.type, 'customTitle') && f.customTitle !== undefined) rec.title = f.customTitle;
  const prompt = prompts ? promptOf(f) : undefined;
  if (prompt !== undefined) rec.prompt = prompt;
  return rec;
}

/**
 * buildRecord, with the records of plain lines shared: a line without tool
 * uses or results, title or prompt gives a record of its type, session,
 * cwd and branch alone, and most lines (metadata, text blocks, attachments, results'
 * siblings) are such lines, of a few types in one session. One frozen record
 * per type, made again when its session, cwd or branch changes, instead of one per
 * line: analyze's scan allocated more for these records than for anything
 * else it keeps or drops.
 */
export class PlainRecords {
  private readonly byType = new Map<string | undefined, ScannedRecord>();

  recordOf(f: CapturedFields, prompts: boolean): ScannedRecord {
    // A record with a uuid is its own (analyze's capture leaves uuids out: LineReducer.keepsIds).
    if (f.uuid !== undefined || f.toolUses !== NO_TOOL_USES || f.toolResults !== NO_TOOL_RESULTS || readsText(f.type, 'aiTitle') || readsText(f.type, 'customTitle')) {
      return buildRecord(f, prompts);
    }
    if (prompts && promptOf(f) !== undefined) return buildRecord(f, prompts);
    const shared = this.byType.get(f.type);
    if (shared !== undefined && shared.sessionId === f.sessionId && shared.cwd === f.cwd && shared.gitBranch === f.gitBranch) return shared;
    const record = Object.freeze(buildRecord(f, false));
    if (this.byType.size < 64 || this.byType.has(f.type)) this.byType.set(f.type, record);
    return record;
  }
}

/**
 * `lastPrompt` of a last-prompt record; for a user record that is not meta
 * (command caveats, injected context) and carries no tool result, the typed text.
 */
function promptOf(f: CapturedFields): string | undefined {
  if (readsText(f.type, 'lastPrompt')) return f.lastPrompt;
  if (!readsText(f.type, 'content') || f.isMeta === true || f.hasToolResultBlock) return undefined;
  return f.contentText ?? f.firstText;
}

/**
 * Whether buildRecord keeps a record's `timestamp` (its creation time): on a
 * call's record, and on any record with a `uuid`, whose birth the live engine
 * takes from it when the mod did not report one (the `record` EngineEvent).
 */
export function keepsTimestamp(toolUses: readonly ToolUseRef[], uuid: string | undefined): boolean {
  return uuid !== undefined || keepsCallContext(toolUses);
}

/**
 * Whether buildRecord keeps the context of a call: `timestamp` (see keepsTimestamp), `messageId`,
 * `apiBlockIndex`, `stopReason`, `isSidechain`, `agentId`, `requestSessionId`, `version`. Only on a record
 * with tool uses: the correlator and analyze read them there alone, and most
 * lines (tool results, text and thinking blocks, metadata) then cost no
 * timestamp or message id decoded. A scan path may leave them unread elsewhere.
 */
export function keepsCallContext(toolUses: readonly ToolUseRef[]): boolean {
  return toolUses.length > 0;
}

/**
 * Whether buildRecord reads a text field of a record of this type: `aiTitle`
 * only of ai-title records, `customTitle` of custom-title, `lastPrompt` of
 * last-prompt, `content` (contentText, firstText) of user records. A scan path
 * may leave the others unread: most lines are assistant blocks and tool
 * results, and decoding 200 characters of each text block no record keeps
 * costs time and garbage.
 */
export function readsText(type: string | undefined, field: keyof typeof TEXT_READ_IN): boolean {
  return type === TEXT_READ_IN[field];
}

const TEXT_READ_IN = { aiTitle: 'ai-title', customTitle: 'custom-title', lastPrompt: 'last-prompt', content: 'user' } as const;
