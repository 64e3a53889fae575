import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { scanLine } from '../../../../src/core/scanner';

/**
 * A small line parsed as Latin-1 whose kept strings hold bytes >= 0x80 and no
 * `\u` escape has its kept strings re-decoded as UTF-8 rather than the line
 * parsed again. Raw invalid UTF-8 next to simple escapes (an escape ends a
 * pending sequence), multibyte characters cut by a cap, and keys with raw bytes
 * must all come out as the streaming tokenizer (which decodes the raw bytes of
 * each string) says.
 */
describe('record scanner: kept strings of a Latin-1 parse decoded as UTF-8 (properties)', () => {
  it('match the streaming tokenizer for raw multibyte and invalid bytes next to simple escapes', () => {
    const piece = fc.oneof(
      fc.constantFrom('a', 'é', '€', '😀', '→', '\\n', '\\t', '\\"', '\\\\', '\\/').map((s) => Buffer.from(s)),
      fc.constantFrom([0xff], [0xe2, 0x82], [0xc3], [0xa9], [0xf0, 0x9f, 0x98], [0xed, 0xa0, 0x80], [0xc0, 0xaf]).map((b) => Buffer.from(b)),
    );
    const text = fc.array(piece, { maxLength: 300 }).map((ps) => Buffer.concat(ps));
    fc.assert(
      fc.property(fc.constantFrom('sessionId', 'lastPrompt', 'cwd', 'x\xe9'), text, text, text, (key, a, b, c) => {
        const line = Buffer.concat([
          Buffer.from(`{"type":"last-prompt","${key}":"`),
          a,
          Buffer.from('","message":{"id":"'),
          c,
          Buffer.from('","content":[{"type":"text","text":"'),
          b,
          Buffer.from('"},{"type":"tool_use","id":"'),
          c,
          Buffer.from('","name":"n"}]}}'),
        ]);
        const parsed = scanLine(line, { streamThreshold: Number.MAX_SAFE_INTEGER });
        assert.equal(parsed.kind, 'record');
        assert.deepEqual(parsed, scanLine(line, { streamThreshold: 0 }), `line: ${JSON.stringify(line.toString('latin1'))}`);
      }),
      { numRuns: 1500 },
    );
  });
});
