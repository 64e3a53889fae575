import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import type { ScanResult } from '../../../../src/core/records';
import { createCaptureScanner, type CaptureLineScanner } from '../../../../src/core/analyze/capture/captureScanner';
import { createReadingKernel } from '../../../../src/core/analyze/capture/readingKernel';
import { sharedKernel } from '../../../../src/core/scanner/scannerKernel';
import { FileTail } from '../../../../src/core/tail';
import { READS_AHEAD } from '../../../../src/core/tailReadAhead';
import type { LineScanner, TailLine } from '../../../../src/core/tailTypes';
import { nodeFileAccess } from '../../../../src/platform/nodeFileAccess';
import { ManualClock } from '../../helpers/manualClock';
import { makeTempDir, readToEnd, removeTempDir } from '../../helpers/tailHarness';

/**
 * A scanner's finishLines takes many whole lines at once (analyze's record
 * scanner does, on a ReadingKernel's read buffers); the tail must then report
 * exactly what it reports when it splits every line itself: the same line
 * numbers, byte ranges, values, dwell and batches.
 */

const THRESHOLD = 200;

const text = fc.string({ unit: fc.constantFrom('a', ' ', '\\n', '\\"', 'é', '😀'), maxLength: 120 });
const line = fc.oneof(
  { weight: 6, arbitrary: fc.record({ type: fc.constantFrom('user', 'assistant', 'mode'), id: fc.constantFrom('toolu_1', 'toolu_2'), body: text }).map(
    (r) => `{"type":"${r.type}","sessionId":"s","message":{"id":"m","content":[{"type":"tool_use","id":"${r.id}","name":"Bash","input":{"c":"${r.body}"}}]}}`,
  ) },
  { weight: 1, arbitrary: fc.constantFrom('', 'not json', '{"type":"user"', '[1]', '{}\r', `{"type":"attachment","content":"${'x'.repeat(THRESHOLD)}"}`) },
);

/** The scanner alone: the tail splits every line itself. */
function lineByLine(scanner: CaptureLineScanner): LineScanner<ScanResult> {
  return {
    push: (chunk) => scanner.push(chunk),
    finish: () => scanner.finish(),
    finishLine: (chunk, start, end) => scanner.finishLine(chunk, start, end),
    reset: () => scanner.reset(),
  };
}

async function readAll(file: string, chunkSize: number, batched: boolean, handOut: boolean) {
  const kernel = createReadingKernel(READS_AHEAD + 1, chunkSize, Math.max(8 * THRESHOLD, chunkSize) + 64 * 1024)!;
  const scanner = createCaptureScanner({ kernel, streamThreshold: THRESHOLD });
  const handed: TailLine[] = [];
  const tail = new FileTail<ScanResult>({
    path: file,
    files: nodeFileAccess,
    clock: new ManualClock(),
    scanner: batched ? scanner : lineByLine(scanner),
    chunkSize,
    onLine: handOut ? (l) => handed.push({ ...l }) : undefined,
  }, { readBuffer: (i) => kernel.readBuffer(i), finishLines: batched ? (chunk, start, take) => scanner.finishLines(chunk, start, take) : (_chunk, start) => start });
  const reads = await readToEnd(tail);
  return { lines: handOut ? handed : reads.flatMap((r) => r.lines), batches: reads.map((r) => r.batch), partial: tail.partialBytes };
}

describe('FileTail with a scanner that takes lines in batches (finishLines)', () => {
  before(function () {
    if (sharedKernel() === null) this.skip(); // no wasm SIMD here: no batches
  });

  it('reports what it reports splitting every line itself (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 30 }), fc.string({ maxLength: 30 }), fc.integer({ min: 16, max: 4096 }), fc.boolean(), async (lines, partial, chunkSize, handOut) => {
        const dir = makeTempDir('tail-batches-');
        try {
          const file = path.join(dir, 't.jsonl');
          fs.writeFileSync(file, lines.map((l) => `${l}\n`).join('') + partial.replace(/\n/g, ''));
          const batched = await readAll(file, chunkSize, true, handOut);
          const single = await readAll(file, chunkSize, false, handOut);
          assert.deepEqual(batched, single);
          assert.equal(batched.lines.length, lines.length);
          let byte = 0;
          for (const [i, l] of batched.lines.entries()) {
            const end = byte + Buffer.byteLength(lines[i]!) + 1;
            assert.deepEqual([l.line, l.byteStart, l.byteEnd], [i + 1, byte, end]);
            byte = end;
          }
        } finally {
          removeTempDir(dir);
        }
      }),
      { numRuns: 150 },
    );
  });
});
