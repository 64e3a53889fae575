import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { SpecialByteFinder, STRING_SPECIAL } from '../../../../src/core/scanner/wordSkip';

/** The plain definition the word-at-a-time finder must match. */
function firstSpecialByByte(bytes: Buffer, k: number, n: number): number {
  for (let i = k; i < n; i++) if (bytes[i]! < 0x20 || bytes[i] === 0x22 || bytes[i] === 0x5c) return i;
  return n;
}

/** The plain definition of skipInterior: past plain bytes and complete valid escapes. */
function skipInteriorByByte(bytes: Buffer, k: number, n: number): number {
  const hex = (c: number | undefined) => c !== undefined && /[0-9a-fA-F]/.test(String.fromCharCode(c));
  for (;;) {
    k = firstSpecialByByte(bytes, k, n);
    if (k >= n || bytes[k] !== 0x5c || k + 1 >= n) return k;
    const e = bytes[k + 1]!;
    if ('"\\/bfnrt'.includes(String.fromCharCode(e))) k += 2;
    else if (e === 0x75 && k + 5 < n && [2, 3, 4, 5].every((d) => hex(bytes[k + d]))) k += 6;
    else return k;
  }
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

  it('skips plain bytes and complete valid escapes, stopping at anything else, at any alignment', () => {
    const piece = fc.oneof(
      fc.constantFrom('a', 'ab', 'abcdefgh', '\\n', '\\"', '\\\\', '\\u00e9', '\\u12', '\\uzzzz', '\\x', '\\', '"', '\x01', '\x7f', '#', ']'),
      fc.constant('abcdefghijklmnop'),
    );
    const finder = new SpecialByteFinder();
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), fc.nat(7), fc.nat(), fc.nat(), (pieces, before, a, b) => {
        const body = Buffer.from(pieces.join(''), 'latin1');
        const memory = Buffer.alloc(before + body.length + 8, 0x5c);
        body.copy(memory, before);
        const chunk = memory.subarray(before, before + body.length);
        const k = body.length === 0 ? 0 : a % (body.length + 1);
        const n = k + (b % (body.length - k + 1));
        finder.setChunk(chunk);
        assert.equal(finder.skipInterior(k, n), skipInteriorByByte(chunk, k, n));
      }),
      { numRuns: 3000 },
    );
  });
});
