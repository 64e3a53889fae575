/**
 * What a transcript line is for one call: its record (the assistant line with the call's tool_use
 * block), its result (the user line with a tool_result for it), or neither. The one rule for "this
 * line is the call's record", read by the hook (its on-disk check, src/rules/onDiskCheck.ts, and its
 * probe's finder, src/hook/toolUseFinder.ts), the mod that watches its calls land (src/mod/looks.ts),
 * the status line, `transcript-lag message` and `complete`; test/unit/rules/recordLine.test.ts holds
 * it to JSON.parse on generated lines and those readers to it. (The engine's scanner, analyze's capture
 * and replay's index read whole lines their own way and are not yet held to it: issue 41.)
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
  const owner = ownerOf(f);
  for (const b of f.blocks) {
    if (owner === 'assistant' && b.type === 'tool_use' && b.id === id) return 'record';
    if (owner === 'user' && b.type === 'tool_result' && b.tool_use_id === id) return 'result';
  }
  return 'other';
}

/** Every call a line is the record or the result of, by the same reading as lineKindOf. */
export function callsOfLine(line: Uint8Array, complete = true): { records: string[]; results: string[] } {
  const out = { records: [] as string[], results: [] as string[] };
  const f = lineFactsOf(line, complete);
  if (!counts(f, line.length, complete)) return out;
  const owner = ownerOf(f);
  for (const b of f.blocks) {
    if (owner === 'assistant' && b.type === 'tool_use' && b.id !== undefined) out.records.push(b.id);
    if (owner === 'user' && b.type === 'tool_result' && b.tool_use_id !== undefined) out.results.push(b.tool_use_id);
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
/** Keys and kept values longer than this are none of the ones read. */
const MAX_KEPT_BYTES = 512;
const decoder = new TextDecoder();

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/**
 * The scan, fed a line's bytes in pieces (a reviewing hook reads new bytes at each poll, so a line may
 * straddle reads): state is the container stack and at most one short string, whatever the line's length.
 * Past HEAD_BYTES it reads no more.
 */
export class LineHeadScanner {
  private facts: LineFacts = { blocks: [], whole: false, broken: false };
  private stack: Frame[] = [];
  private expect = Expect.Value;
  private fed = 0;
  // Inside a string: what it is for, whether the next byte is escaped, what was kept of it.
  private str: Str | undefined;
  private escaped = false;
  private kept: number[] = [];
  private keptOver = false;
  private keptEscapes = false;
  // Inside a literal (number, true, false, null): skipped to its end.
  private literal = false;

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
    this.escaped = false;
    this.literal = false;
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
      if (this.literal) {
        if (c === 0x2c || c === 0x7d || c === 0x5d || isSpace(c)) {
          this.literal = false;
          this.expect = this.stack.length === 0 ? Expect.Done : Expect.CommaOrEnd;
          continue; // the delimiter is read as such
        }
        i++;
        continue;
      }
      i++;
      if (isSpace(c)) continue;
      this.token(c);
      if (this.expect === Expect.Done) {
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

  /** Whether a string value about to start is one the facts keep. */
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
    // A kept key given again with a value that is no string: JSON.parse keeps that one, so the earlier goes.
    if (c !== QUOTE && this.keepsValue()) this.setKept(undefined);
    if (this.stack.length === 0 && c !== 0x7b) return this.broken(); // a record is an object
    if (c === 0x7b || c === 0x5b) {
      const object = c === 0x7b;
      // A key given twice: JSON.parse keeps the last, so what the earlier one held goes.
      if (at === At.Message && object) {
        this.facts.role = undefined;
        this.facts.blocks = [];
      } else if (at === At.Content && !object) this.facts.blocks = [];
      else if (at === At.Block && object) this.facts.blocks.push({});
      else if (at === At.Message || at === At.Content) {
        // `message` not an object, `content` not an array: it holds no blocks.
        if (at === At.Message) this.facts.role = undefined;
        this.facts.blocks = [];
        this.stack.push({ at: At.Other, object });
        this.expect = object ? Expect.KeyOrEnd : Expect.Value;
        return;
      }
      this.stack.push({ at: at === At.Block && !object ? At.Other : at, object });
      this.expect = object ? Expect.KeyOrEnd : Expect.Value;
      return;
    }
    if (c === 0x5d) {
      // `[]`: an array closed where a value could start.
      const f = this.top();
      if (f !== undefined && !f.object) return this.close(false);
      return this.broken();
    }
    if (at === At.Message) this.facts.role = undefined;
    if (at === At.Message || at === At.Content) this.facts.blocks = [];
    if (c === QUOTE) return this.startString(this.keepsValue() ? Str.Kept : Str.Skipped);
    this.literal = true;
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
    this.escaped = false;
    this.kept = [];
    this.keptOver = false;
    this.keptEscapes = false;
  }

  /** Reads a string's bytes from `i`: to its closing quote (then handles it) or to `end`. Returns where it stopped. */
  private inString(bytes: Uint8Array, i: number, end: number): number {
    if (this.escaped) {
      this.keep(bytes, i, i + 1);
      this.escaped = false;
      i += 1;
      if (i >= end) return i;
    }
    let from = i;
    for (;;) {
      const q = bytes.indexOf(QUOTE, from);
      const stop = q === -1 || q >= end ? end : q;
      // The backslashes just before the quote (or the piece's end): an odd run escapes what follows.
      let run = 0;
      for (let k = stop - 1; k >= i && bytes[k] === BACKSLASH; k--) run++;
      if (stop === end) {
        this.keep(bytes, i, end);
        // A backslash ends the piece: the next piece's first byte is the one it escapes.
        if (run % 2 === 1) this.escaped = true;
        return end;
      }
      if (run % 2 === 1) {
        from = stop + 1;
        continue;
      }
      this.keep(bytes, i, stop);
      this.endString();
      return stop + 1;
    }
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

  /** The text of the string kept, JSON escapes decoded; undefined when too long or not JSON. */
  private keptText(): string | undefined {
    if (this.keptOver) return undefined;
    const raw = decoder.decode(Uint8Array.from(this.kept));
    if (!this.keptEscapes) return raw;
    try {
      return JSON.parse(`"${raw}"`) as string;
    } catch {
      return undefined;
    }
  }

  private endString(): void {
    const kind = this.str;
    this.str = undefined;
    if (kind === Str.Key) {
      const f = this.top()!;
      const name = this.keptText();
      f.key = name !== undefined && name.length <= 16 ? name : undefined;
      this.expect = Expect.Colon;
      return;
    }
    if (kind === Str.Kept) this.setKept(this.keptText());
    this.expect = this.stack.length === 0 ? Expect.Done : Expect.CommaOrEnd;
  }
}
