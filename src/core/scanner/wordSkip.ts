const EMPTY = new Int32Array(0);

/** 1 for the bytes that end a run of plain string bytes: controls, `"` and `\`. */
export const STRING_SPECIAL = new Uint8Array(256);
for (let c = 0; c < 0x20; c++) STRING_SPECIAL[c] = 1;
STRING_SPECIAL[0x22] = 1;
STRING_SPECIAL[0x5c] = 1;

/**
 * The word test below takes the lowest flagged bit as the first byte in memory,
 * which holds on little-endian machines only; elsewhere the byte loop does it all.
 */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * Non-zero when some byte of the word is below 0x20, `"` or `\`. The lowest set
 * bit marks the first such byte exactly; bits above it may be false alarms (a
 * borrow from that byte), which the caller checks against STRING_SPECIAL.
 */
function mayEndPlainRun(x: number): number {
  const q = x ^ 0x22222222;
  const b = x ^ 0x5c5c5c5c;
  return (((x - 0x20202020) & ~x) | ((q - 0x01010101) & ~q) | ((b - 0x01010101) & ~b)) & 0x80808080;
}

/**
 * Finds the next control byte, `"` or `\` in a string interior four bytes at a
 * time with the classic SWAR tests, jumping straight to it (count trailing
 * zeros of the word's flags) instead of stepping byte by byte: string interiors
 * are nearly all the bytes of a huge line, and escape-dense text (code, logs)
 * has a special byte every ten or so. Reads whole aligned words of the chunk's
 * underlying memory (one view per ArrayBuffer, so no allocation per chunk);
 * bytes outside [k, n) are masked off or ignored.
 */
export class SpecialByteFinder {
  private memory: ArrayBufferLike | undefined;
  private words: Int32Array = EMPTY;
  private chunk: Buffer = Buffer.alloc(0);
  /** The chunk's byteOffset in its memory (read once per chunk: the getters are not free). */
  private offset = 0;

  /** Call once per chunk, before find(). */
  setChunk(chunk: Buffer): void {
    this.chunk = chunk;
    this.offset = chunk.byteOffset;
    if (chunk.buffer !== this.memory) {
      this.memory = chunk.buffer;
      this.words = new Int32Array(chunk.buffer, 0, chunk.buffer.byteLength >> 2);
    }
  }

  /**
   * Skips a string interior whose text is not kept: plain bytes and complete,
   * valid escapes. Returns the index of the first byte the caller must look at
   * (the closing `"`, a control byte, or a `\` starting an escape that is bad
   * or cut by n), or n. One loop, so the escapes of code and logs (one every
   * ten bytes or so) cost no call each.
   */
  skipInterior(k: number, n: number): number {
    const chunk = this.chunk;
    if (!LITTLE_ENDIAN) {
      for (;;) {
        k = findByByte(chunk, k, n);
        const skip = escapeLength(chunk, k, n);
        if (skip === 0) return k;
        k += skip;
      }
    }
    // find() and the escape step in one loop, on positions in the chunk's memory.
    const words = this.words;
    const offset = this.offset;
    const end = offset + n;
    const lastWord = Math.min(words.length, (end + 3) >> 2);
    let at = offset + k;
    for (;;) {
      let w = at >> 2;
      if (w >= lastWord) {
        k = findByByte(chunk, at - offset, n);
      } else {
        let flags = mayEndPlainRun(words[w]!) & (-1 << ((at & 3) << 3));
        while (flags === 0 && ++w < lastWord) flags = mayEndPlainRun(words[w]!);
        if (flags === 0) {
          k = w * 4 >= end ? n : findByByte(chunk, w * 4 - offset, n);
        } else {
          const found = w * 4 + ((31 - Math.clz32(flags & -flags)) >> 3);
          if (found >= end) return n;
          k = found - offset;
          if (STRING_SPECIAL[chunk[k]!] === 0) {
            at = found + 1; // a false alarm: go on after it
            continue;
          }
        }
      }
      const skip = escapeLength(chunk, k, n);
      if (skip === 0) return k;
      at = offset + k + skip;
    }
  }

  /** Index in the chunk of the first special byte in [k, n); n when there is none. */
  find(k: number, n: number): number {
    const chunk = this.chunk;
    if (!LITTLE_ENDIAN) return findByByte(chunk, k, n);
    const words = this.words;
    const offset = this.offset;
    const end = offset + n;
    // Words wholly inside the view; a last partial word (odd-sized memory) is done by bytes.
    const lastWord = Math.min(words.length, (end + 3) >> 2);
    let at = offset + k;
    while (at < end) {
      let w = at >> 2;
      if (w >= lastWord) return findByByte(chunk, at - offset, n);
      let flags = mayEndPlainRun(words[w]!) & (-1 << ((at & 3) << 3));
      while (flags === 0) {
        if (++w >= lastWord) return w * 4 >= end ? n : findByByte(chunk, w * 4 - offset, n);
        flags = mayEndPlainRun(words[w]!);
      }
      const found = w * 4 + ((31 - Math.clz32(flags & -flags)) >> 3);
      if (found >= end) return n;
      if (STRING_SPECIAL[chunk[found - offset]!] === 1) return found - offset;
      at = found + 1; // a false alarm: go on after it
    }
    return n;
  }
}

/** The escapes `\"` `\\` `\/` `\b` `\f` `\n` `\r` `\t` (by the byte after the backslash). */
const SIMPLE_ESCAPE = new Uint8Array(256);
for (const c of Buffer.from('"\\/bfnrt')) SIMPLE_ESCAPE[c] = 1;
const HEX = new Uint8Array(256);
for (const c of Buffer.from('0123456789abcdefABCDEF')) HEX[c] = 1;

/** Length of the complete, valid escape at k (a `\` with all its bytes before n), or 0. */
function escapeLength(chunk: Buffer, k: number, n: number): number {
  if (k + 1 >= n || chunk[k] !== 0x5c) return 0;
  const e = chunk[k + 1]!;
  if (SIMPLE_ESCAPE[e] === 1) return 2;
  if (e === 0x75 && k + 5 < n && HEX[chunk[k + 2]!]! + HEX[chunk[k + 3]!]! + HEX[chunk[k + 4]!]! + HEX[chunk[k + 5]!]! === 4) return 6;
  return 0;
}

function findByByte(chunk: Buffer, k: number, n: number): number {
  while (k < n && STRING_SPECIAL[chunk[k]!] === 0) k++;
  return k;
}
