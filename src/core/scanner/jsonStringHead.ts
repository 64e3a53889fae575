import { capString } from './fields';

/**
 * The first `cap` UTF-16 code units of the JSON string whose text lies in
 * [start, end) of `bytes` (between its quotes, escapes as written, valid),
 * as JSON.parse of the UTF-8 decoded line gives them (a bad UTF-8 sequence
 * becomes U+FFFD), decoding no more than the cap can reach. The text may be
 * a head cut anywhere, as long as it is longer than headBytes(cap): the cut
 * made here then falls before the one it has. Used where a line is not
 * JSON.parse'd: the streaming tokenizer (./stringCapture.ts) and analyze's
 * capture (its plain ASCII strings are sliced as they lie).
 *
 * Without an escape the bytes are the string: a unit takes at most 3 bytes
 * and a cut sequence at the end changes only what lies past the cap, so
 * 3 × cap + 4 bytes always do. With escapes, a unit takes at most 6 bytes
 * (`\uXXXX`), so a head of headBytes(cap), cut outside any escape, does.
 */
export function jsonStringHead(bytes: Buffer, start: number, end: number, cap: number, escaped: boolean): string {
  if (!escaped) return capString(bytes.toString('utf8', start, Math.min(end, start + 3 * cap + 4)), cap);
  const stop = end - start > headBytes(cap) ? cutOutsideEscape(bytes, start, start + headBytes(cap)) : end;
  return capString(JSON.parse(`"${bytes.toString('utf8', start, stop)}"`) as string, cap);
}

/** Bytes of escaped string text that always hold the first `cap` units, cut outside an escape. */
export function headBytes(cap: number): number {
  return 6 * cap + 8;
}

const BACKSLASH = 0x5c;
const LETTER_U = 0x75;

/**
 * `cut`, or the start of the escape it would fall inside. The nearest
 * backslash before the cut decides: an escape that spans the cut holds no
 * backslash after its first byte, except the second of `\\`, which ends there.
 */
function cutOutsideEscape(bytes: Uint8Array, start: number, cut: number): number {
  for (let i = cut - 1; i >= start && i >= cut - 6; i--) {
    if (bytes[i] !== BACKSLASH) continue;
    let run = 1;
    while (i - run >= start && bytes[i - run] === BACKSLASH) run++;
    if (run % 2 === 0) return cut; // the second byte of an escaped backslash
    const length = i + 1 < cut && bytes[i + 1] === LETTER_U ? 6 : 2;
    return i + length > cut ? i : cut;
  }
  return cut;
}
