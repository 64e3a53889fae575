import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { createRecordScanner, scanLine } from '../../../../src/core/scanner';
import { ID_CAP } from '../../../../src/core/scanner/fields';
import { StreamingRecordParser } from '../../../../src/core/scanner/streamingParser';
import { scanInChunks } from '../../helpers/lineScanners';

/**
 * Kept strings as the streaming tokenizer keeps them (their text copied
 * escapes and all, up to what the cap can reach, then decoded) against
 * JSON.parse of the whole line: raw multibyte and invalid UTF-8 next to
 * escapes, `\u` escapes and surrogates, strings far past their cap, cut into
 * chunks anywhere (inside an escape or a UTF-8 sequence too).
 */
const piece = fc.oneof(
  fc.constantFrom('a', 'é', '€', '😀', '→', '\\n', '\\t', '\\"', '\\\\', '\\/', '\\u00e9', '\\u20AC', '\\ud83d\\ude00', '\\ud83d', '\\u0000').map((s) => Buffer.from(s)),
  fc.constantFrom([0xff], [0xe2, 0x82], [0xc3], [0xa9], [0xf0, 0x9f, 0x98], [0xed, 0xa0, 0x80], [0xc0, 0xaf]).map((b) => Buffer.from(b)),
);
/** last-prompt keeps lastPrompt, user the first text block's text: both cut at TEXT_CAP. */
const type = fc.constantFrom('last-prompt', 'user');
const text = (maxLength: number) => fc.array(piece, { maxLength }).map((ps) => Buffer.concat(ps));

function lineOf(type: string, key: string, a: Buffer, b: Buffer, c: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`{"type":"${type}","${key}":"`),
    a,
    Buffer.from('","message":{"id":"'),
    c,
    Buffer.from('","content":[{"type":"text","text":"'),
    b,
    Buffer.from('"},{"type":"tool_use","id":"'),
    c,
    Buffer.from('","name":"n"}]}}'),
  ]);
}

/** The line in chunks cut at `cuts`, through the tokenizer: on the wasm kernel, or (`js`) skipping strings in JS. */
function streamed(line: Buffer, cuts: number[], js = false): ReturnType<typeof scanLine> {
  return scanInChunks(js ? new StreamingRecordParser({ wasm: false }) : createRecordScanner({ streamThreshold: 0 }), line, cuts);
}

describe('record scanner: kept strings (properties)', () => {
  it('match JSON.parse for raw multibyte and invalid bytes next to escapes, in any chunks', () => {
    fc.assert(
      fc.property(type, fc.constantFrom('sessionId', 'lastPrompt', 'cwd', 'x\xe9'), text(300), text(300), text(300), fc.array(fc.nat(), { maxLength: 6 }), (t, key, a, b, c, cuts) => {
        const line = lineOf(t, key, a, b, c);
        const parsed = scanLine(line, { streamThreshold: Number.MAX_SAFE_INTEGER });
        assert.equal(parsed.kind, 'record');
        assert.deepEqual(streamed(line, cuts), parsed, `line: ${JSON.stringify(line.toString('latin1'))}`);
        assert.deepEqual(streamed(line, cuts, true), parsed);
      }),
      { numRuns: 1500 },
    );
  });

  it('are cut at their caps as JSON.parse strings are, however long and however escaped', () => {
    // Long runs of one piece put the cap (and the head the capture keeps) inside an escape or a sequence.
    const long = fc.tuple(piece, fc.integer({ min: ID_CAP - 8, max: 8 * ID_CAP }), text(20)).map(([p, n, tail]) => Buffer.concat([Buffer.concat(Array(n).fill(p)), tail]));
    fc.assert(
      fc.property(type, fc.constantFrom('lastPrompt', 'cwd'), long, long, long, fc.array(fc.nat(), { maxLength: 6 }), (t, key, a, b, c, cuts) => {
        const line = lineOf(t, key, a, b, c);
        const parsed = scanLine(line, { streamThreshold: Number.MAX_SAFE_INTEGER });
        assert.equal(parsed.kind, 'record');
        assert.deepEqual(streamed(line, cuts), parsed);
        assert.deepEqual(streamed(line, cuts, true), parsed);
      }),
      { numRuns: 300 },
    );
  });
});
