import { capString } from './fields';

/**
 * Decodes the first `cap` UTF-16 code units of a JSON string whose bytes arrive
 * in pieces (raw runs split by chunk boundaries, and escapes), keeping at most
 * about 3 × cap raw bytes whatever the string's length.
 *
 * Raw bytes are decoded with Buffer#toString('utf8') one whole run at a time
 * (a run ends only at an escape or the closing quote, both ASCII), which gives
 * exactly what decoding the whole line does: UTF-8 decoding is local, a bad
 * sequence becomes U+FFFD, and no ASCII byte is ever swallowed by one.
 */
export class StringCapture {
  private parts: string[] = [];
  private units = 0;
  private raw: Buffer;
  private rawLen = 0;
  private cap = 0;
  /** Enough bytes that the decoded prefix has more than `cap` units, even if its last sequence was cut. */
  private rawLimit = 0;
  /** The cap was reached (or raw bytes were dropped past it): ignore the rest. */
  private full = false;
  /** More than `cap` code units were seen. */
  private over = false;

  constructor(maxCap: number) {
    this.raw = Buffer.allocUnsafe(maxCap * 3 + 8);
  }

  begin(cap: number): void {
    this.parts.length = 0;
    this.units = 0;
    this.rawLen = 0;
    this.cap = cap;
    this.rawLimit = Math.min(this.raw.length, cap * 3 + 8);
    this.full = false;
    this.over = false;
  }

  addRaw(chunk: Buffer, start: number, end: number): void {
    if (this.full || start >= end) return;
    const room = this.rawLimit - this.rawLen;
    const n = Math.min(room, end - start);
    chunk.copy(this.raw, this.rawLen, start, start + n);
    this.rawLen += n;
    if (n < end - start) {
      this.flushRaw();
      this.full = true;
      this.over = true;
    }
  }

  addUnit(code: number): void {
    if (this.full) return;
    this.flushRaw();
    if (this.full) return;
    this.parts.push(String.fromCharCode(code));
    this.units += 1;
    this.checkFull();
  }

  /** The decoded value, cut to the cap; `truncated` when the string was longer. */
  end(): { value: string; truncated: boolean } {
    this.flushRaw();
    const joined = this.parts.length === 1 ? this.parts[0] : this.parts.join('');
    this.parts.length = 0;
    return { value: capString(joined, this.cap), truncated: this.over || joined.length > this.cap };
  }

  private flushRaw(): void {
    if (this.rawLen === 0) return;
    const s = this.raw.toString('utf8', 0, this.rawLen);
    this.rawLen = 0;
    this.parts.push(s);
    this.units += s.length;
    this.checkFull();
  }

  private checkFull(): void {
    if (this.units > this.cap) {
      this.full = true;
      this.over = true;
    }
  }
}
