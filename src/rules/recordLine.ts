/**
 * What a transcript line is for one call: its record (the assistant line with the call's tool_use
 * block), its result (the user line with a tool_result for it), or neither. The one rule for "this
 * line is the call's record", read by the hook (its on-disk check, src/rules/onDiskCheck.ts, and its
 * probe's finder, src/hook/toolUseFinder.ts), the mod that watches its calls land (src/mod/looks.ts),
 * the status line, `transcript-lag message` and `complete`; the engine's scanner, analyze's capture and
 * replay's index give the same answers from the fields they read (src/core/scanner/fields.ts `ownCalls`,
 * the head of a long line by StreamingRecordParser.headFields). test/unit/rules/recordLine.test.ts holds
 * it to JSON.parse on generated lines and every one of those readers to it.
 *
 * The rule, on a line JSON.parse reads: the line is the record of each `tool_use` block's `id` of
 * `message.content` when its owner is `assistant`, the result of each `tool_result` block's `tool_use_id`
 * when its owner is `user`; the owner is the top-level `type` where it is a string, else `message.role`.
 * An id that is empty or longer than CALL_ID_CAP names no call; a line names at most MAX_CALLS_A_LINE of
 * each. A line JSON.parse refuses names none.
 *
 * One reading for every line, short or long, whole or in part: a scan of the line's bytes that follows
 * the JSON structure, so keys count in any order, over at most the line's first HEAD_BYTES. Lines can
 * be megabytes (a tool result's output inline); past HEAD_BYTES a line is judged by what its head
 * showed, the same way by every reader. Bytes only (the mod has no Buffer): structural characters are
 * ASCII, so a UTF-8 line is scanned as it is.
 */

export type LineKind = 'record' | 'result' | 'other';

/** A line is judged by at most this many of its first bytes, whole or read in part. */
export const HEAD_BYTES = 1024 * 1024;
/** A call's id is at most this many UTF-16 code units long: a longer one (no real id is) names no call. */
export const CALL_ID_CAP = 512;
/** A line is the record (or result) of at most this many calls, its first: real records carry one. */
export const MAX_CALLS_A_LINE = 1000;

/** One block of `message.content`, as far as the scan read it: each value only when read whole. */
export interface BlockFacts {
  type?: string;
  id?: string;
  tool_use_id?: string;
}

/** What the scan of a line's head found. */
export interface LineFacts {
  /** The top-level `type`, when its value was read. */
  type?: string;
  /** `message.role`, when read. */
  role?: string;
  blocks: BlockFacts[];
  /** The scan read the line to its end and it is one JSON object, closed there. */
  whole: boolean;
  /** Something that is not JSON was met (or the line is not an object): nothing in it counts. */
  broken: boolean;
}

/** Who wrote the line: its top-level `type`, or, where the head does not reach it (Claude Code writes it after `message`), `message.role`. */
function ownerOf(f: LineFacts): string | undefined {
  return f.type ?? f.role;
}

/** The line's kind for the call `id`. `complete`: the bytes given are the whole line (else its head, the rest not read). */
export function lineKindOf(line: Uint8Array, id: string, complete = true): LineKind {
  return kindOfFacts(lineFactsOf(line, complete), id, line.length, complete);
}

/** The kind, from a scan's facts: for a reader that fed the scanner itself. `length`: the line's bytes, all of it. */
export function kindOfFacts(f: LineFacts, id: string, length: number, complete: boolean): LineKind {
  if (!counts(f, length, complete)) return 'other';
  const calls = callsOfFacts(f);
  return calls.records.includes(id) ? 'record' : calls.results.includes(id) ? 'result' : 'other';
}

/** Every call a line is the record or the result of, by the same reading as lineKindOf. */
export function callsOfLine(line: Uint8Array, complete = true): { records: string[]; results: string[] } {
  const f = lineFactsOf(line, complete);
  return counts(f, line.length, complete) ? callsOfFacts(f) : { records: [], results: [] };
}

function callsOfFacts(f: LineFacts): { records: string[]; results: string[] } {
  const out = { records: [] as string[], results: [] as string[] };
  const owner = ownerOf(f);
  for (const b of f.blocks) {
    if (owner === 'assistant' && b.type === 'tool_use' && b.id && out.records.length < MAX_CALLS_A_LINE) out.records.push(b.id);
    if (owner === 'user' && b.type === 'tool_result' && b.tool_use_id && out.results.length < MAX_CALLS_A_LINE) out.results.push(b.tool_use_id);
  }
  return out;
}

/** Whether a scan's facts may be used: never a broken line; a whole line read whole must have closed. */
function counts(f: LineFacts, length: number, complete: boolean): boolean {
  if (f.broken) return false;
  return !complete || length > HEAD_BYTES || f.whole;
}

/** The facts of one line (or its head), in one go. */
export function lineFactsOf(line: Uint8Array, complete = true): LineFacts {
  const s = new LineHeadScanner();
  s.feed(line);
  return s.end(complete);
}

// Where in the record a container or a value sits: only these paths are read.
const enum At {
  Other,
  Top,
  Message,
  Content,
  Block,
}

// What the scanner expects next.
const enum Expect {
  Value,
  /** A value or, right after `[`, the array's end. */
  ValueOrEnd,
  KeyOrEnd,
  Key,
  Colon,
  CommaOrEnd,
  Done,
}

/** What a string being read is for: a key, a value kept (type, role, id…), or one skipped. */
const enum Str {
  Key,
  Kept,
  Skipped,
}

interface Frame {
  at: At;
  object: boolean;
  /** The current key's name, where short enough to matter. */
  key?: string;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** Raw bytes of a kept string at most: CALL_ID_CAP code units take at most 6 bytes each (`\uXXXX`). */
const MAX_KEPT_BYTES = 6 * CALL_ID_CAP;
/** A kept type or role longer than CALL_ID_CAP: a string, so the owner is known, that matches no name the rule reads. */
const LONG = '';
const decoder = new TextDecoder();

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);
}

/** After a backslash: `" \ / b f n r t` (and `u`, read apart). */
function isEscaped(c: number): boolean {
  return c === QUOTE || c === BACKSLASH || c === 0x2f || c === 0x62 || c === 0x66 || c === 0x6e || c === 0x72 || c === 0x74;
}

// JSON's number, as states: after `-`, a leading 0, integer digits, `.`, fraction digits, `e`, the exponent's sign, its digits.
const N_MINUS = 0, N_ZERO = 1, N_INT = 2, N_DOT = 3, N_FRAC = 4, N_E = 5, N_ESIGN = 6, N_EXP = 7;
/** The states a number may end in. */
const N_ENDS = [false, true, true, false, true, false, false, true];

/** The number's next state on `c`, or -1: the number ended before `c` (or `c` breaks it). */
function numberNext(state: number, c: number): number {
  const digit = c >= 0x30 && c <= 0x39;
  switch (state) {
    case N_MINUS:
      return c === 0x30 ? N_ZERO : digit ? N_INT : -1;
    case N_ZERO:
    case N_INT:
      if (digit) return state === N_INT ? N_INT : -1;
      return c === 0x2e ? N_DOT : (c | 0x20) === 0x65 ? N_E : -1;
    case N_DOT:
      return digit ? N_FRAC : -1;
    case N_FRAC:
      return digit ? N_FRAC : (c | 0x20) === 0x65 ? N_E : -1;
    case N_E:
      return digit ? N_EXP : c === 0x2b || c === 0x2d ? N_ESIGN : -1;
    default:
      return digit ? N_EXP : -1;
  }
}

const WORDS: Record<number, string> = { 0x74: 'true', 0x66: 'false', 0x6e: 'null' };

/**
 * The scan, fed a line's bytes in pieces (a reviewing hook reads new bytes at each poll, so a line may
 * straddle reads): state is the container stack and at most one short string, whatever the line's length.
 * Past HEAD_BYTES it reads no more. It follows JSON's grammar byte by byte, so a head is broken as soon
 * as it is no beginning of any JSON text (what JSON.parse would refuse, once it is read whole).
 */
export class LineHeadScanner {
  private facts: LineFacts = { blocks: [], whole: false, broken: false };
  private stack: Frame[] = [];
  private expect = Expect.Value;
  private fed = 0;
  // Inside a string: what it is for, the escape being read (0 none, 1 after `\`, 2–5 the hex digits of `\u`), what was kept of it.
  private str: Str | undefined;
  private escape = 0;
  private kept: number[] = [];
  private keptOver = false;
  private keptEscapes = false;
  // Inside a literal: a word (its letters, how many read) or a number (its state).
  private word: string | undefined;
  private wordAt = 0;
  private number = -1;

  /** Bytes read so far (at most HEAD_BYTES). */
  get bytesRead(): number {
    return this.fed;
  }

  reset(): void {
    this.facts = { blocks: [], whole: false, broken: false };
    this.stack = [];
    this.expect = Expect.Value;
    this.fed = 0;
    this.str = undefined;
    this.escape = 0;
    this.word = undefined;
    this.number = -1;
    this.kept = [];
  }

  feed(bytes: Uint8Array, from = 0, to = bytes.length): void {
    if (this.facts.broken || this.expect === Expect.Done) {
      this.fed = Math.min(HEAD_BYTES, this.fed + (to - from));
      if (this.expect === Expect.Done) this.trailing(bytes, from, Math.min(to, from + HEAD_BYTES));
      return;
    }
    const end = Math.min(to, from + (HEAD_BYTES - this.fed));
    if (end <= from) return;
    this.fed += end - from;
    let i = from;
    while (i < end && !this.facts.broken) {
      if (this.str !== undefined) {
        i = this.inString(bytes, i, end);
        continue;
      }
      const c = bytes[i];
      if (this.word !== undefined) {
        if (this.wordAt < this.word.length) {
          if (c !== this.word.charCodeAt(this.wordAt)) return this.broken();
          this.wordAt++;
          i++;
          continue;
        }
        this.word = undefined;
        if (!this.literalEnds(c)) return;
        continue; // the delimiter is read as such
      }
      if (this.number >= 0) {
        const next = numberNext(this.number, c);
        if (next >= 0) {
          this.number = next;
          i++;
          continue;
        }
        const ended = N_ENDS[this.number];
        this.number = -1;
        if (!ended) return this.broken();
        if (!this.literalEnds(c)) return;
        continue;
      }
      i++;
      if (isSpace(c)) continue;
      this.token(c);
      if ((this.expect as Expect) === Expect.Done) {
        this.facts.whole = true;
        this.trailing(bytes, i, end);
        return;
      }
    }
  }

  /** The facts once the line's bytes are in; `complete`: its end was reached (its newline read). */
  end(complete = true): LineFacts {
    const f = this.facts;
    if (!complete || this.expect !== Expect.Done) f.whole = false;
    // A block read only in part still says what it showed.
    return { ...f, blocks: f.blocks.map((b) => ({ ...b })) };
  }

  /** A literal (inside a container: the top is an object) ends only where a delimiter follows; false when `c` breaks it. */
  private literalEnds(c: number): boolean {
    if (c === 0x2c || c === 0x7d || c === 0x5d || isSpace(c)) {
      this.expect = Expect.CommaOrEnd;
      return true;
    }
    this.broken();
    return false;
  }

  /** After the top-level value only white space may follow, or the line is no JSON. */
  private trailing(bytes: Uint8Array, from: number, to: number): void {
    for (let i = from; i < to; i++) {
      if (!isSpace(bytes[i])) {
        this.facts.broken = true;
        this.facts.whole = false;
        return;
      }
    }
  }

  private top(): Frame | undefined {
    return this.stack[this.stack.length - 1];
  }

  /** Where a value about to start sits. */
  private valueAt(): At {
    const f = this.top();
    if (f === undefined) return At.Top;
    if (f.object) {
      if (f.at === At.Top && f.key === 'message') return At.Message;
      if (f.at === At.Message && f.key === 'content') return At.Content;
      return At.Other;
    }
    return f.at === At.Content ? At.Block : At.Other;
  }

  /** Whether the value of the current key is one the facts keep. */
  private keepsValue(): boolean {
    const f = this.top();
    if (f === undefined || !f.object) return false;
    if (f.at === At.Top) return f.key === 'type';
    if (f.at === At.Message) return f.key === 'role';
    if (f.at === At.Block) return f.key === 'type' || f.key === 'id' || f.key === 'tool_use_id';
    return false;
  }

  private token(c: number): void {
    switch (this.expect) {
      case Expect.Value:
        return this.startValue(c);
      case Expect.ValueOrEnd:
        if (c === 0x5d) return this.close(false);
        return this.startValue(c);
      case Expect.KeyOrEnd:
        if (c === 0x7d) return this.close(true);
        if (c === QUOTE) return this.startString(Str.Key);
        return this.broken();
      case Expect.Key:
        if (c === QUOTE) return this.startString(Str.Key);
        return this.broken();
      case Expect.Colon:
        if (c === 0x3a) {
          this.expect = Expect.Value;
          return;
        }
        return this.broken();
      case Expect.CommaOrEnd: {
        const f = this.top()!;
        if (c === 0x2c) {
          this.expect = f.object ? Expect.Key : Expect.Value;
          return;
        }
        if ((c === 0x7d && f.object) || (c === 0x5d && !f.object)) return this.close(f.object);
        return this.broken();
      }
      default:
        return this.broken();
    }
  }

  private startValue(c: number): void {
    const at = this.valueAt();
    if (this.stack.length === 0 && c !== 0x7b) return this.broken(); // a record is an object
    if (c === 0x7b || c === 0x5b) {
      const object = c === 0x7b;
      if (at === At.Block && object) this.facts.blocks.push({});
      // `message` not an object, `content` not an array: it holds no blocks (the key cleared them).
      const into = (at === At.Message && !object) || (at === At.Content && object) || (at === At.Block && !object) ? At.Other : at;
      this.stack.push({ at: into, object });
      this.expect = object ? Expect.KeyOrEnd : Expect.ValueOrEnd;
      return;
    }
    if (c === QUOTE) return this.startString(this.keepsValue() ? Str.Kept : Str.Skipped);
    const word = WORDS[c];
    if (word !== undefined) {
      this.word = word;
      this.wordAt = 1;
      return;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      this.number = c === 0x2d ? N_MINUS : c === 0x30 ? N_ZERO : N_INT;
      return;
    }
    this.broken();
  }

  /**
   * A key was read: what the facts held under it goes (JSON.parse keeps a key's last value), so a head cut
   * after a key given again knows only what its new value showed, as the engine's tokenizer does.
   */
  private keyRead(): void {
    const f = this.top()!;
    if (f.at === At.Top && f.key === 'message') {
      this.facts.role = undefined;
      this.facts.blocks = [];
    } else if (f.at === At.Message && f.key === 'content') this.facts.blocks = [];
    else if (this.keepsValue()) this.setKept(undefined);
  }

  /** The value of the kept key now being read (top-level type, message.role, a block's type, id or tool_use_id). */
  private setKept(value: string | undefined): void {
    const f = this.top()!;
    if (f.at === At.Top) this.facts.type = value;
    else if (f.at === At.Message) this.facts.role = value;
    else if (f.at === At.Block) {
      const b = this.facts.blocks[this.facts.blocks.length - 1];
      if (b !== undefined && (f.key === 'type' || f.key === 'id' || f.key === 'tool_use_id')) b[f.key] = value;
    }
  }

  private close(object: boolean): void {
    const f = this.stack.pop();
    if (f === undefined || f.object !== object) return this.broken();
    this.expect = this.stack.length === 0 ? Expect.Done : Expect.CommaOrEnd;
  }

  private broken(): void {
    this.facts.broken = true;
  }

  private startString(kind: Str): void {
    this.str = kind;
    this.escape = 0;
    this.kept = [];
    this.keptOver = false;
    this.keptEscapes = false;
  }

  /** Reads a string's bytes from `i`: to its closing quote (then handles it) or to `end`. Returns where it stopped. */
  private inString(bytes: Uint8Array, i: number, end: number): number {
    const from = i;
    for (; i < end; i++) {
      const c = bytes[i];
      if (this.escape === 0) {
        if (c === QUOTE) {
          this.keep(bytes, from, i);
          this.endString();
          return i + 1;
        }
        if (c === BACKSLASH) this.escape = 1;
        else if (c < 0x20) break; // a raw control character: JSON.parse refuses it
        continue;
      }
      if (this.escape === 1) {
        if (c === 0x75) this.escape = 2;
        else if (isEscaped(c)) this.escape = 0;
        else break;
      } else if (isHex(c)) this.escape = this.escape === 5 ? 0 : this.escape + 1;
      else break;
    }
    if (i < end) {
      this.broken();
      return end;
    }
    this.keep(bytes, from, end);
    return end;
  }

  private keep(bytes: Uint8Array, from: number, to: number): void {
    if (this.str === Str.Skipped || this.keptOver) return;
    if (this.kept.length + (to - from) > MAX_KEPT_BYTES) {
      this.keptOver = true;
      this.kept = [];
      return;
    }
    for (let k = from; k < to; k++) {
      if (bytes[k] === BACKSLASH) this.keptEscapes = true;
      this.kept.push(bytes[k]);
    }
  }

  /** The text of the string kept, JSON escapes decoded; undefined when longer than CALL_ID_CAP. */
  private keptText(): string | undefined {
    if (this.keptOver) return undefined;
    const raw = decoder.decode(Uint8Array.from(this.kept));
    const text = this.keptEscapes ? (JSON.parse(`"${raw}"`) as string) : raw;
    return text.length <= CALL_ID_CAP ? text : undefined;
  }

  private endString(): void {
    const kind = this.str;
    this.str = undefined;
    if (kind === Str.Key) {
      const f = this.top()!;
      const name = this.keptText();
      f.key = name !== undefined && name.length <= 16 ? name : undefined;
      this.expect = Expect.Colon;
      this.keyRead();
      return;
    }
    if (kind === Str.Kept) {
      const f = this.top()!;
      const text = this.keptText();
      // An id too long names no call; a type or role too long is still a string, one the rule matches to nothing.
      this.setKept(text === undefined && f.key !== 'id' && f.key !== 'tool_use_id' ? LONG : text);
    }
    this.expect = this.stack.length === 0 ? Expect.Done : Expect.CommaOrEnd;
  }
}
