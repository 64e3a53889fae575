import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { scanLine } from '../../../../src/core/scanner';
import { createCaptureScanner } from '../../../../src/core/analyze/capture/captureScanner';
import { createReadingKernel } from '../../../../src/core/analyze/capture/readingKernel';
import { SCANNER_READ_PAST_END, sharedKernel } from '../../../../src/core/scanner/scannerKernel';

/**
 * A ReadingKernel holds a tail's read buffers in its wasm memory, and the
 * scanners read a chunk there in place (no copy in). Lines scanned in place
 * must give what the same lines give anywhere else, and leave the read buffer
 * as it was (the tail keeps its ends to notice rewrites).
 */

const SIZE = 4096;

/** Record-like lines, some longer than the stream threshold used below, some not JSON. */
const text = fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\\n', '\\"', '\\u00e9', 'é', '😀', '\\\\'), maxLength: 300 });
const line = fc.oneof(
  { weight: 6, arbitrary: fc.record({ type: fc.constantFrom('user', 'assistant', 'last-prompt'), sessionId: fc.constantFrom('s1', 's2'), id: fc.constantFrom('toolu_1', 'toolu_2'), body: text, text }).map(
    (r) =>
      `{"type":"${r.type}","sessionId":"${r.sessionId}","lastPrompt":"${r.text}","message":{"id":"m","content":[{"type":"tool_use","id":"${r.id}","name":"Bash","input":{"c":"${r.body}"}},{"type":"text","text":"${r.text}"}]}}`,
  ) },
  { weight: 1, arbitrary: fc.constantFrom('{"type":"user"', 'not json', '{}', '[1]', '{"message":{"content":"x"}}  ') },
);

/** A line of the first kind above: a whole record, which the wasm capture takes. */
const isRecord = (l: string): boolean => l.startsWith('{"type":"') && l.endsWith(']}}');

describe('ReadingKernel: read buffers in wasm memory, scanned in place', () => {
  before(function () {
    if (sharedKernel() === null) this.skip(); // no wasm SIMD here: analyze reads into its own buffers
  });

  it('gives views below heapBase with room past each, fresh after the memory grows, bytes kept', () => {
    const kernel = createReadingKernel(3, SIZE, 1024)!;
    const views = [0, 1, 2].map((i) => kernel.readBuffer(i));
    for (const [i, v] of views.entries()) {
      assert.equal(v.length, SIZE);
      assert.equal(v.buffer, kernel.bytes.buffer);
      assert.ok(v.byteOffset + SIZE + SCANNER_READ_PAST_END <= kernel.heapBase, `buffer ${i} lies below heapBase`);
      if (i > 0) assert.ok(v.byteOffset >= views[i - 1]!.byteOffset + SIZE + SCANNER_READ_PAST_END, 'room to read past each');
      v.fill(0x41 + i);
    }
    assert.equal(kernel.readBuffer(1), views[1], 'the same view while the memory stays');
    kernel.ensureCapacity(kernel.bytes.length * 2); // grows: every view of the old memory is detached
    const fresh = kernel.readBuffer(1);
    assert.notEqual(fresh, views[1]);
    assert.equal(fresh.length, SIZE);
    assert.ok(fresh.every((b) => b === 0x42));
    assert.throws(() => kernel.readBuffer(3), RangeError);
  });

  it('scans lines in a read buffer as anywhere else, and leaves the buffer as it was (property)', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 12 }), fc.nat(SIZE), fc.boolean(), (lines, offset, endAtEdge) => {
        const kernel = createReadingKernel(2, SIZE, 64 * 1024)!;
        const buffer = kernel.readBuffer(1);
        const joined = Buffer.from(lines.join('\n') + '\n', 'utf8');
        if (joined.length > SIZE) return;
        // Anywhere in the buffer, or with the last newline as its last byte (the scan reads into the room past it).
        const at = endAtEdge ? SIZE - joined.length : Math.min(offset, SIZE - joined.length);
        buffer.fill(0x7b);
        joined.copy(buffer, at);
        const before = Buffer.from(buffer);
        // A small stream threshold sends longer lines through the tokenizer, whose string skipper also reads in place.
        const scanner = createCaptureScanner({ kernel, streamThreshold: 200 });
        let pos = at;
        for (const l of lines) {
          const end = buffer.indexOf(0x0a, pos);
          assert.deepEqual(scanner.finishLine(buffer, pos, end), scanLine(l), l);
          pos = end + 1;
        }
        assert.ok(buffer.equals(before), 'the read buffer is unchanged');
      }),
      { numRuns: 300 },
    );
  });

  it('takes whole lines many at a time (finishLines) as finishLine takes them one by one (property)', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 12 }), fc.nat(SIZE), fc.boolean(), (lines, offset, partialLast) => {
        const kernel = createReadingKernel(2, SIZE, 64 * 1024)!;
        const buffer = kernel.readBuffer(1);
        // The last line without its newline, at times: it is the tail's to keep for the next read.
        const joined = Buffer.from(lines.join('\n') + (partialLast ? '' : '\n'), 'utf8');
        if (joined.length > SIZE) return;
        const at = Math.min(offset, SIZE - joined.length);
        buffer.fill(0x7b);
        joined.copy(buffer, at);
        const end = at + joined.length;
        const before = Buffer.from(buffer);
        const scanner = createCaptureScanner({ kernel, streamThreshold: 200 });
        const whole = lines.length - (partialLast ? 1 : 0);
        const taken: Array<{ start: number; end: number; scan: unknown }> = [];
        let pos = at;
        let byBatch = 0;
        // As the tail does: a batch, then a line the batch left, and so on.
        while (taken.length < whole) {
          const next = scanner.finishLines(buffer.subarray(0, end), pos, (start, stop, scan) => taken.push({ start, end: stop, scan }));
          byBatch += taken.length > 0 && next !== pos ? 1 : 0;
          if (next !== pos) {
            assert.equal(next, taken.at(-1)!.end + 1, 'it stops at the start of a line');
            pos = next;
            continue;
          }
          const stop = buffer.indexOf(0x0a, pos);
          const left = lines[taken.length]!;
          // Left to finishLine only when longer than the threshold or not taken by the wasm capture.
          if (Buffer.byteLength(left) <= 200 && isRecord(left)) assert.fail(`a record of ${Buffer.byteLength(left)} bytes was left: ${left}`);
          taken.push({ start: pos, end: stop, scan: scanner.finishLine(buffer, pos, stop) });
          pos = stop + 1;
        }
        assert.deepEqual(
          taken.map((t) => t.scan),
          lines.slice(0, whole).map((l) => scanLine(l)),
        );
        let start = at;
        for (const [i, t] of taken.entries()) {
          assert.deepEqual([t.start, t.end], [start, start + Buffer.byteLength(lines[i]!)], `bounds of line ${i}`);
          start = t.end + 1;
        }
        if (partialLast) assert.equal(scanner.finishLines(buffer.subarray(0, end), pos, () => assert.fail('no newline: nothing to take')), pos);
        assert.ok(buffer.equals(before), 'the read buffer is unchanged');
        assert.ok(whole === 0 || byBatch > 0 || lines.slice(0, whole).every((l) => Buffer.byteLength(l) > 200 || !isRecord(l)), 'batches were used');
      }),
      { numRuns: 300 },
    );
  });

  it('scans a line of a read buffer that needs the memory to grow (which detaches the buffer) as anywhere else', () => {
    // Scratch far smaller than the line: captureRange must grow the memory while the line still sits in a read buffer.
    const kernel = createReadingKernel(1, 1 << 20, 4096)!;
    const scanner = createCaptureScanner({ kernel, streamThreshold: 1 << 20 });
    const record = Buffer.from(`{"type":"user","message":{"content":"${'x'.repeat(200_000)}"}}`);
    const before = kernel.bytes.length;
    kernel.readBuffer(0).set(record, 0);
    assert.deepEqual(scanner.finishLine!(kernel.readBuffer(0), 0, record.length), scanLine(record));
    assert.ok(kernel.bytes.length > before, 'the memory grew');
  });
});
