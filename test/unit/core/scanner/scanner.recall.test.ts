import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { scanLine } from '../../../../src/core/scanner';
import { createCaptureScanner } from '../../../../src/core/analyze/capture/captureScanner';

describe('record scanner: strings recalled from line to line', () => {
  // The reducer decodes a string that repeats (type, session id, cwd, message
  // id, tool name, block type) once and recalls it by its bytes. Values from a
  // two-letter alphabet of a few lengths collide in its table all the time:
  // one scanner over many lines must give each line what a fresh scanner gives.
  const word = fc.oneof(
    fc.array(fc.constantFrom('a', 'b', '\u00e9', '\\u0061', '\xc3\xa9'), { minLength: 0, maxLength: 6 }).map((cs) => cs.join('')),
    // Long enough for several 16-byte compares, alike but for one letter anywhere; and about the table's 128 bytes.
    fc.tuple(fc.nat(40), fc.constantFrom(15, 17, 33, 40)).map(([at, n]) => Array.from({ length: n }, (_, i) => (i === at ? 'b' : 'a')).join('')),
    fc.constantFrom('x'.repeat(128), 'x'.repeat(127) + 'y', 'x'.repeat(129)),
  );
  const value = fc.oneof({ weight: 6, arbitrary: word.map((w) => `"${w}"`) }, fc.constant('null'), fc.constant('7'));
  const line = fc
    .record({ type: value, sessionId: value, requestSessionId: value, version: value, cwd: value, agentId: value, id: value, stop: value, blockType: value, name: value, toolId: value, tool: fc.boolean() })
    .map((v) => {
      const block = v.tool ? `{"type":"tool_use","id":${v.toolId},"name":${v.name}}` : `{"type":${v.blockType},"tool_use_id":${v.toolId},"text":${v.name}}`;
      return Buffer.from(
        `{"type":${v.type},"sessionId":${v.sessionId},"requestSessionId":${v.requestSessionId},"version":${v.version},"cwd":${v.cwd},"agentId":${v.agentId},"message":{"id":${v.id},"stop_reason":${v.stop},"content":[${block}]}}`,
        'latin1',
      );
    });

  it('gives every line of a long run what a fresh scanner gives it (property)', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 20, maxLength: 200 }), (lines) => {
        const scanner = createCaptureScanner();
        for (const l of lines) {
          scanner.push(l);
          assert.deepEqual(scanner.finish(), scanLine(l), l.toString('latin1'));
        }
      }),
      { numRuns: 200 },
    );
  });
});
