import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { SpecialByteFinder, STRING_SPECIAL } from '../../src/core/scanner/wordSkip';

/** The plain definition the word-at-a-time finder must match. */
function firstSpecialByByte(bytes: Buffer, k: number, n: number): number {
  for (let i = k; i < n; i++) if (bytes[i]! < 0x20 || bytes[i] === 0x22 || bytes[i] === 0x5c) return i;
  return n;
}

describe('record scanner: special byte finder (properties)', () => {
  it('STRING_SPECIAL holds exactly the control bytes, the quote and the backslash', () => {
    for (let c = 0; c < 256; c++) assert.equal(STRING_SPECIAL[c], c < 0x20 || c === 0x22 || c === 0x5c ? 1 : 0, `byte ${c}`);
  });

  it('finds the first control byte, quote or backslash in [k, n) at any alignment, in any memory', () => {
    // Bytes next to the special ones (0x1f/0x20, 0x21/0x23, 0x5b/0x5d) are the SWAR tests' false alarms.
    const byte = fc.oneof(fc.constantFrom(0x00, 0x01, 0x1f, 0x20, 0x21, 0x22, 0x23, 0x5b, 0x5c, 0x5d, 0x7f, 0x80, 0xff), fc.constant(0x61));
    const finder = new SpecialByteFinder();
    fc.assert(
      fc.property(fc.array(byte, { maxLength: 200 }), fc.nat(7), fc.nat(7), fc.nat(), fc.nat(), (arr, before, after, a, b) => {
        // A view into a larger memory: bytes outside the view are specials, and must be ignored.
        const memory = Buffer.alloc(before + arr.length + after, 0x22);
        Buffer.from(arr).copy(memory, before);
        const chunk = memory.subarray(before, before + arr.length);
        const k = arr.length === 0 ? 0 : a % (arr.length + 1);
        const n = k + (b % (arr.length - k + 1));
        finder.setChunk(chunk);
        assert.equal(finder.find(k, n), firstSpecialByByte(chunk, k, n));
      }),
      { numRuns: 3000 },
    );
  });
});
