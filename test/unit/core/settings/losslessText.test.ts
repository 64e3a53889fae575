import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { decodeLossless, encodeLossless } from '../../../../src/core/settings/losslessText';

describe('lossless text of settings.json bytes', () => {
  it('any bytes decode and encode back to themselves (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        assert.deepEqual(encodeLossless(decodeLossless(bytes)), Buffer.from(bytes));
      }),
      { numRuns: 2000 },
    );
  });

  it('valid UTF-8 decodes as usual, U+FFFD and astral characters included', () => {
    const text = '{"a": "café \ufffd 😀"}';
    assert.equal(decodeLossless(Buffer.from(text)), text);
    assert.deepEqual(encodeLossless(text), Buffer.from(text));
  });

  it('a Latin-1 byte stays that byte, next to text added as UTF-8', () => {
    const bytes = Buffer.from([...Buffer.from('{"x": "caf'), 0xe9, ...Buffer.from('"}')]);
    const text = decodeLossless(bytes);
    assert.ok(!text.includes('\ufffd'));
    const edited = text.replace('}', ', "y": "é"}');
    assert.deepEqual(encodeLossless(edited), Buffer.concat([Buffer.from('{"x": "caf'), Buffer.of(0xe9), Buffer.from('", "y": "é"}')]));
  });
});
