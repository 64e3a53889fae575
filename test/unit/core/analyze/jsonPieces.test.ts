import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { jsonPieces } from '../../../../src/core/analyze/jsonPieces';

describe('analyze: JSON written in pieces', () => {
  it('joins to exactly JSON.stringify, whatever the batch (property)', () => {
    const value = fc.dictionary(
      fc.string({ maxLength: 6 }),
      fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 30 }), fc.constant(undefined)),
    );
    fc.assert(
      fc.property(value, fc.integer({ min: 1, max: 8 }), (v, batch) => {
        assert.equal([...jsonPieces(v, batch)].join(''), JSON.stringify(v));
      }),
      { numRuns: 1000 },
    );
  });

  it('never yields a piece holding more than one batch of a long array', () => {
    const calls = Array.from({ length: 2000 }, (_, i) => ({ tool_use_id: `toolu_${i}`, line: i + 1, result_line: null }));
    const pieces = [...jsonPieces({ lines: 2000, calls }, 100)];
    assert.equal(pieces.join(''), JSON.stringify({ lines: 2000, calls }));
    assert.ok(pieces.length >= 20);
    const longest = Math.max(...pieces.map((p) => p.length));
    assert.ok(longest <= JSON.stringify(calls.slice(1900)).length + 1, `longest piece ${longest}`); // the last batch has the longest numbers
  });
});
