import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { numberAt, type SlicingBuffer } from '../../../../../src/core/analyze/capture/captureEntries';

/** numberAt reads the literal that an entry (code, start, end) points at, `base` bytes into the line. */
function read(literal: string, base = 3): number {
  const line = Buffer.from(`${' '.repeat(base)}${literal},`, 'latin1') as SlicingBuffer;
  const entry = new Uint32Array([0, 0, literal.length]);
  return numberAt(line, base, entry, 0);
}

describe('numberAt: a JSON number literal of a kept value', () => {
  it('reads what Number() reads, for digits alone and for every other literal', () => {
    for (const literal of ['0', '7', '12', '999999999999999', '1000000000000000', '12345678901234567890', '-0', '-3', '1.5', '1e2', '-0.5e1', '2E-3', '0.0']) {
      assert.ok(Object.is(read(literal), Number(literal)), literal);
    }
  });

  it('agrees with Number() on any JSON number text', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.nat().map(String),
          fc.bigInt({ min: 0n, max: 10n ** 25n }).map(String),
          fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
        ),
        (literal) => Object.is(read(literal), Number(literal)),
      ),
    );
  });
});
