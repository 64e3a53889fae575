/**
 * Takes the small top-level string fields of the hook's JSON input without
 * building anything else. tool_input and tool_response (tens of MB, any shape)
 * are stepped over byte by byte, with a depth counter rather than recursion:
 * JSON.parse of a deeply nested value takes seconds, and while it runs no timer
 * fires, the hook's watchdog included. The scan is linear in the bytes and
 * allocates only for the fields it keeps.
 *
 * The scan validates as strictly as JSON.parse (escapes, numbers, literals,
 * nesting, trailing bytes), so an input JSON.parse would reject gives nothing.
 */

/** A field's value: its string, or null when the key is there with a value we cannot use (not a string, or too long to be valid). */
export type FieldValues = Map<string, string | null>;

/**
 * Strings longer than this are not decoded: none of the kept fields may be
 * longer than MAX_PATH_LENGTH (4096) characters, and a character takes at most
 * 6 bytes in JSON (`\uXXXX`). Readers reject an over-long field anyway.
 */
const MAX_KEPT_STRING_BYTES = 6 * 4096 + 2;
/** Longer keys are not among the wanted ones: no need to decode them. */
const MAX_KEY_BYTES = 64;

/** The bytes ended before the scan could tell (a truncated head or tail). */
const END = -2;
/** Not JSON. */
const FAIL = -1;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const isDigit = (c: number) => c >= ZERO && c <= NINE;
const isHex = (c: number) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

function skipSpace(b: Uint8Array, i: number): number {
  while (i < b.length && isSpace(b[i])) i++;
  return i;
}

function skipSpaceBack(b: Uint8Array, i: number): number {
  while (i >= 0 && isSpace(b[i])) i--;
  return i;
}

/** `b[i]` is a quote: the index after the string's closing quote. */
function scanString(b: Uint8Array, i: number): number {
  const n = b.length;
  let j = i + 1;
  for (;;) {
    if (j >= n) return END;
    const c = b[j];
    if (c === QUOTE) return j + 1;
    if (c === BACKSLASH) {
      if (j + 1 >= n) return END;
      const e = b[j + 1];
      if (e === 0x75 /* u */) {
        if (j + 6 > n) return END;
        if (!isHex(b[j + 2]) || !isHex(b[j + 3]) || !isHex(b[j + 4]) || !isHex(b[j + 5])) return FAIL;
        j += 6;
      } else if (e === QUOTE || e === BACKSLASH || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
        j += 2;
      } else return FAIL;
    } else if (c < 0x20) return FAIL;
    else j++;
  }
}

function scanDigits(b: Uint8Array, i: number): number {
  while (i < b.length && isDigit(b[i])) i++;
  return i;
}

/** A number, `true`, `false` or `null` at `i`: the index after it. */
function scanScalar(b: Uint8Array, i: number): number {
  const n = b.length;
  const c = b[i];
  if (c === MINUS || isDigit(c)) {
    let j = c === MINUS ? i + 1 : i;
    if (j >= n) return END;
    if (b[j] === ZERO) j++;
    else if (isDigit(b[j])) j = scanDigits(b, j);
    else return FAIL;
    if (j < n && b[j] === DOT) {
      const k = scanDigits(b, j + 1);
      if (k === j + 1) return k >= n ? END : FAIL;
      j = k;
    }
    if (j < n && (b[j] === 0x65 || b[j] === 0x45)) {
      j++;
      if (j < n && (b[j] === PLUS || b[j] === MINUS)) j++;
      const k = scanDigits(b, j);
      if (k === j) return k >= n ? END : FAIL;
      j = k;
    }
    // A number cut by the end of the bytes may go on after them.
    return j >= n ? END : j;
  }
  const word = c === 0x74 ? 'true' : c === 0x66 ? 'false' : c === 0x6e ? 'null' : undefined;
  if (word === undefined) return FAIL;
  for (let k = 0; k < word.length; k++) {
    if (i + k >= n) return END;
    if (b[i + k] !== word.charCodeAt(k)) return FAIL;
  }
  return i + word.length;
}

/** At `i` (spaces allowed) an object member's key and its colon: the index after the colon. */
function scanKeyColon(b: Uint8Array, i: number): number {
  i = skipSpace(b, i);
  if (i >= b.length) return END;
  if (b[i] !== QUOTE) return FAIL;
  i = scanString(b, i);
  if (i < 0) return i;
  i = skipSpace(b, i);
  if (i >= b.length) return END;
  return b[i] === COLON ? i + 1 : FAIL;
}

/** Steps over one JSON value starting at `i` (spaces allowed): the index after it. Nesting costs one byte per level. */
function skipValue(b: Uint8Array, i: number): number {
  // The closer each open container expects.
  let closers = new Uint8Array(64);
  let depth = 0;
  for (;;) {
    // A value is expected here.
    i = skipSpace(b, i);
    if (i >= b.length) return END;
    const c = b[i];
    if (c === QUOTE) i = scanString(b, i);
    else if (c === LBRACE || c === LBRACKET) {
      const closer = c === LBRACE ? RBRACE : RBRACKET;
      i = skipSpace(b, i + 1);
      if (i >= b.length) return END;
      if (b[i] === closer) i++;
      else {
        if (depth === closers.length) {
          const grown = new Uint8Array(depth * 2);
          grown.set(closers);
          closers = grown;
        }
        closers[depth++] = closer;
        if (c === LBRACE) {
          i = scanKeyColon(b, i);
          if (i < 0) return i;
        }
        continue;
      }
    } else i = scanScalar(b, i);
    if (i < 0) return i;
    // After a value: close what ends here, up to the next comma.
    for (;;) {
      if (depth === 0) return i;
      i = skipSpace(b, i);
      if (i >= b.length) return END;
      const d = b[i];
      if (d === closers[depth - 1]) {
        depth--;
        i++;
        continue;
      }
      if (d !== COMMA) return FAIL;
      i++;
      if (closers[depth - 1] === RBRACE) {
        i = scanKeyColon(b, i);
        if (i < 0) return i;
      }
      break;
    }
  }
}

function decodeString(b: Uint8Array, start: number, end: number): string | null {
  if (end - start > MAX_KEPT_STRING_BYTES) return null;
  // Validated by scanString: JSON.parse of the quoted bytes cannot fail.
  return JSON.parse(Buffer.from(b.buffer, b.byteOffset + start, end - start).toString('utf8')) as string;
}

function decodeKey(b: Uint8Array, start: number, end: number): string | undefined {
  return end - start > MAX_KEY_BYTES ? undefined : (decodeString(b, start, end) ?? undefined);
}

/**
 * The wanted fields of a JSON object, as JSON.parse would give them (of
 * duplicate keys, the last). `truncated`: the bytes are the first ones of a
 * longer payload; the members that end within them are taken. Undefined when
 * the bytes are not (the start of) a JSON object.
 */
export function topLevelFields(b: Uint8Array, wanted: ReadonlySet<string>, truncated = false, spans?: Map<string, [number, number]>): FieldValues | undefined {
  const out: FieldValues = new Map();
  const cut = (r: number) => (r === END && truncated ? out : undefined);
  let i = skipSpace(b, 0);
  if (i >= b.length) return cut(END);
  if (b[i] !== LBRACE) return undefined;
  i = skipSpace(b, i + 1);
  if (i >= b.length) return cut(END);
  if (b[i] === RBRACE) i++;
  else {
    for (;;) {
      if (b[i] !== QUOTE) return undefined;
      const keyEnd = scanString(b, i);
      if (keyEnd < 0) return cut(keyEnd);
      const key = decodeKey(b, i, keyEnd);
      i = skipSpace(b, keyEnd);
      if (i >= b.length) return cut(END);
      if (b[i] !== COLON) return undefined;
      const valueStart = skipSpace(b, i + 1);
      if (valueStart >= b.length) return cut(END);
      const keep = key !== undefined && wanted.has(key);
      const isString = b[valueStart] === QUOTE;
      const valueEnd = isString ? scanString(b, valueStart) : skipValue(b, valueStart);
      if (valueEnd < 0) return cut(valueEnd);
      if (keep) {
        out.set(key, isString ? decodeString(b, valueStart, valueEnd) : null);
        // Where the value's bytes lie: `complete` replaces one value and keeps every other byte.
        spans?.set(key, [valueStart, valueEnd]);
      }
      i = skipSpace(b, valueEnd);
      if (i >= b.length) return cut(END);
      if (b[i] === RBRACE) {
        i++;
        break;
      }
      if (b[i] !== COMMA) return undefined;
      i = skipSpace(b, i + 1);
      if (i >= b.length) return cut(END);
    }
  }
  // A complete object followed by more than spaces is not JSON.
  return skipSpace(b, i) === b.length ? out : undefined;
}

/**
 * `b[i]` is the closing quote of a string: the index of its opening quote.
 * Inside a JSON string every quote is escaped, that is preceded by an odd run
 * of backslashes; the opening one by none. END when the run reaches the start
 * of the bytes, where it may go on.
 */
function stringStartBack(b: Uint8Array, i: number): number {
  let k = i - 1;
  for (;;) {
    // lastIndexOf counts a negative start from the end: stop before it.
    if (k < 0) return END;
    k = b.lastIndexOf(QUOTE, k);
    if (k < 0) return END;
    let slashes = 0;
    while (k - slashes - 1 >= 0 && b[k - slashes - 1] === BACKSLASH) slashes++;
    // The quote or its backslashes start the bytes: what came before them decides.
    if (k - slashes === 0) return END;
    if (slashes % 2 === 0) return k;
    k--;
  }
}

/** `b[i]` is the last byte of a value: the index of its first byte. The value is then validated forwards. */
function valueStartBack(b: Uint8Array, i: number): number {
  const last = b[i];
  let start: number;
  if (last === QUOTE) {
    start = stringStartBack(b, i);
    if (start < 0) return start;
    return scanString(b, start) === i + 1 ? start : FAIL;
  }
  if (last === RBRACE || last === RBRACKET) {
    let depth = 0;
    let k = i;
    for (;;) {
      if (k < 0) return END;
      const c = b[k];
      if (c === QUOTE) {
        k = stringStartBack(b, k);
        if (k < 0) return k;
      } else if (c === RBRACE || c === RBRACKET) depth++;
      else if (c === LBRACE || c === LBRACKET) {
        depth--;
        if (depth === 0) break;
      }
      k--;
    }
    start = k;
  } else {
    let k = i;
    while (k >= 0 && (isDigit(b[k]) || (b[k] >= 0x61 && b[k] <= 0x7a) || b[k] === 0x45 || b[k] === MINUS || b[k] === PLUS || b[k] === DOT)) k--;
    if (k < 0) return END;
    start = k + 1;
    if (start > i) return FAIL;
  }
  // Forwards, as strictly as a whole payload; within the bytes that remain after the value (at least the top-level closer).
  return skipValue(b, start) === i + 1 ? start : FAIL;
}

/**
 * The wanted fields among the last members of a JSON object, from its last
 * bytes (the tail of a payload too large to keep whole): read backwards from
 * the closing brace, member by member, until the bytes run out inside a value
 * (the huge tool_input or tool_response). Of duplicate keys, the last.
 * Undefined when the bytes cannot be the end of a JSON object.
 */
export function topLevelFieldsFromEnd(b: Uint8Array, wanted: ReadonlySet<string>): FieldValues | undefined {
  const out: FieldValues = new Map();
  let i = skipSpaceBack(b, b.length - 1);
  if (i < 0) return out;
  if (b[i] !== RBRACE) return undefined;
  i = skipSpaceBack(b, i - 1);
  if (i < 0 || b[i] === LBRACE) return out;
  for (;;) {
    const valueStart = valueStartBack(b, i);
    if (valueStart === END) return out;
    if (valueStart < 0) return undefined;
    let k = skipSpaceBack(b, valueStart - 1);
    if (k < 0) return out;
    if (b[k] !== COLON) return undefined;
    k = skipSpaceBack(b, k - 1);
    if (k < 0) return out;
    if (b[k] !== QUOTE) return undefined;
    const keyStart = stringStartBack(b, k);
    if (keyStart === END) return out;
    if (keyStart < 0 || scanString(b, keyStart) !== k + 1) return undefined;
    const key = decodeKey(b, keyStart, k + 1);
    // Read backwards, the first of a key met is the last in the document: the one JSON.parse keeps.
    if (key !== undefined && wanted.has(key) && !out.has(key)) {
      out.set(key, b[valueStart] === QUOTE ? decodeString(b, valueStart, i + 1) : null);
    }
    k = skipSpaceBack(b, keyStart - 1);
    if (k < 0) return out;
    if (b[k] === LBRACE) return skipSpaceBack(b, k - 1) < 0 ? out : undefined;
    if (b[k] !== COMMA) return undefined;
    i = skipSpaceBack(b, k - 1);
    if (i < 0) return out;
  }
}
