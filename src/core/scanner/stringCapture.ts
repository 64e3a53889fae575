import { headBytes, jsonStringHead } from './jsonStringHead';

/**
 * Keeps the text of a JSON string whose bytes arrive in pieces (split by
 * chunk boundaries), escapes as written, up to what its first `cap` code
 * units can take, whatever the string's length; end() decodes it with
 * jsonStringHead, as analyze's capture decodes a kept string.
 */
export class StringCapture {
  private readonly raw: Buffer;
  private rawLen = 0;
  private limit = 0;
  private cap = 0;

  constructor(maxCap: number) {
    // Past the head by more than an escape: a string cut here is longer than headBytes (see jsonStringHead).
    this.raw = Buffer.allocUnsafe(headBytes(maxCap) + 6);
  }

  begin(cap: number): void {
    this.rawLen = 0;
    this.cap = cap;
    this.limit = Math.min(this.raw.length, headBytes(cap) + 6);
  }

  /** Bytes [start, end) of `chunk`, the string's next text. */
  add(chunk: Buffer, start: number, end: number): void {
    const n = Math.min(this.limit - this.rawLen, end - start);
    if (n <= 0) return;
    chunk.copy(this.raw, this.rawLen, start, start + n);
    this.rawLen += n;
  }

  addByte(byte: number): void {
    if (this.rawLen < this.limit) this.raw[this.rawLen++] = byte;
  }

  /** The string's first `cap` code units (a longer string is cut there). */
  end(): string {
    const escaped = this.raw.subarray(0, this.rawLen).includes(0x5c);
    return jsonStringHead(this.raw, 0, this.rawLen, this.cap, escaped);
  }
}
