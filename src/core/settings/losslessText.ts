// settings.json is the user's file: bytes we do not edit must come back as
// they were, even when they are not valid UTF-8 (a Latin-1 "caf\xe9" written
// by some other tool). Decoding with replacement would turn each such byte
// into U+FFFD for good. Instead, like Python's "surrogateescape", a byte that
// is not part of a valid UTF-8 sequence becomes the lone low surrogate
// U+DC80 + (byte - 0x80), which valid UTF-8 can never produce, and encoding
// turns it back into that byte. The JSON edits see ordinary text.

const ESCAPE_BASE = 0xdc00;

/** Length of the valid UTF-8 sequence starting at `i`, or 0 when the byte there starts none. */
function sequenceLength(bytes: Uint8Array, i: number): number {
  const b0 = bytes[i];
  if (b0 < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf) => i + k < bytes.length && bytes[i + k] >= lo && bytes[i + k] <= hi;
  if (b0 >= 0xc2 && b0 <= 0xdf) return cont(1) ? 2 : 0;
  if (b0 === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if ((b0 >= 0xe1 && b0 <= 0xec) || b0 === 0xee || b0 === 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (b0 === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0; // not a UTF-16 surrogate
  if (b0 === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (b0 >= 0xf1 && b0 <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (b0 === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

/** The bytes as text: valid UTF-8 decoded, every other byte escaped so that encodeLossless gives it back. */
export function decodeLossless(bytes: Uint8Array): string {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const plain = buffer.toString('utf8');
  // The decoder writes U+FFFD only for bytes it could not decode (or for a U+FFFD in the file, handled below).
  if (!plain.includes('\ufffd')) return plain;
  const parts: string[] = [];
  let runStart = 0;
  let i = 0;
  while (i < buffer.length) {
    const n = sequenceLength(buffer, i);
    if (n > 0) {
      i += n;
      continue;
    }
    if (runStart < i) parts.push(buffer.toString('utf8', runStart, i));
    parts.push(String.fromCharCode(ESCAPE_BASE + buffer[i]));
    i += 1;
    runStart = i;
  }
  if (runStart < buffer.length) parts.push(buffer.toString('utf8', runStart));
  return parts.join('');
}

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;

/** The text as bytes: UTF-8, with each escaped byte of decodeLossless written back as itself. */
export function encodeLossless(text: string): Buffer {
  const chunks: Buffer[] = [];
  let runStart = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // Only a lone low surrogate in U+DC80..U+DCFF is an escaped byte; one after a high surrogate is half a character.
    if (c >= ESCAPE_BASE + 0x80 && c <= ESCAPE_BASE + 0xff && !(i > 0 && isHigh(text.charCodeAt(i - 1)))) {
      if (runStart < i) chunks.push(Buffer.from(text.slice(runStart, i), 'utf8'));
      chunks.push(Buffer.of(c - ESCAPE_BASE));
      runStart = i + 1;
    }
  }
  if (runStart === 0) return Buffer.from(text, 'utf8');
  if (runStart < text.length) chunks.push(Buffer.from(text.slice(runStart), 'utf8'));
  return Buffer.concat(chunks);
}
