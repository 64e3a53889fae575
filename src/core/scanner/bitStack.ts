/** Object-or-array flags of open JSON containers, one bit each: a garbage line of 64 MB of `[` is legal to start and must not cost 64 MB to track. */
export class BitStack {
  private bits = new Uint8Array(64);
  depth = 0;

  push(isObject: boolean): void {
    const byte = this.depth >> 3;
    if (byte >= this.bits.length) {
      const grown = new Uint8Array(this.bits.length * 2);
      grown.set(this.bits);
      this.bits = grown;
    }
    const mask = 1 << (this.depth & 7);
    if (isObject) this.bits[byte] |= mask;
    else this.bits[byte] &= ~mask;
    this.depth += 1;
  }

  pop(): void {
    this.depth -= 1;
  }

  /** Whether the innermost open container is an object (false when none is open). */
  topIsObject(): boolean {
    if (this.depth === 0) return false;
    const d = this.depth - 1;
    return (this.bits[d >> 3] & (1 << (d & 7))) !== 0;
  }

  clear(): void {
    this.depth = 0;
    if (this.bits.length > 4096) this.bits = new Uint8Array(64);
  }
}
