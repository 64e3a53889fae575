const EMPTY = new Int32Array(0);

/** Non-zero when some byte of the word is below 0x20, `"` or `\`: exact as a yes/no, whatever the byte order. */
function mayEndPlainRun(x: number): number {
  const q = x ^ 0x22222222;
  const b = x ^ 0x5c5c5c5c;
  return (((x - 0x20202020) & ~x) | ((q - 0x01010101) & ~q) | ((b - 0x01010101) & ~b)) & 0x80808080;
}

/**
 * A 4-byte word view of a chunk's aligned middle, to skip plain string bytes
 * (no control byte, `"` or `\`) four at a time with the classic SWAR tests:
 * the byte-at-a-time loop is what a 64 MB tool result costs, and this makes it
 * several times cheaper without leaving JavaScript.
 */
export class WordSkipper {
  private words: Int32Array = EMPTY;
  /** Chunk index of words[0]. */
  base = 0;

  /** Views `chunk` (no copy); short chunks get no view, the byte loop is as fast there. */
  setChunk(chunk: Buffer): void {
    const first = (4 - (chunk.byteOffset & 3)) & 3;
    const count = chunk.length > first ? (chunk.length - first) >> 2 : 0;
    if (count < 8) {
      this.words = EMPTY;
      this.base = 0;
      return;
    }
    this.words = new Int32Array(chunk.buffer, chunk.byteOffset + first, count);
    this.base = first;
  }

  /** Call at a chunk index k with (k - base) % 4 === 0: the index of the first word that may end the run, or of the words' end. */
  skip(k: number): number {
    const words = this.words;
    const m = words.length;
    let w = (k - this.base) >> 2;
    if (w < 0) return k;
    while (w + 1 < m && (mayEndPlainRun(words[w]!) | mayEndPlainRun(words[w + 1]!)) === 0) w += 2;
    if (w < m && mayEndPlainRun(words[w]!) === 0) w += 1;
    return Math.max(k, this.base + (w << 2));
  }
}
