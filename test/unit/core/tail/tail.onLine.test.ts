import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { FileTail } from '../../../../src/core/tail';
import type { TailLine } from '../../../../src/core/tailTypes';
import { nodeFileAccess } from '../../../../src/platform/nodeFileAccess';
import { BytesScanner } from '../../helpers/lineScanners';
import { makeTempDir, readToEnd, removeTempDir } from '../../helpers/tailHarness';
import { ManualClock } from '../../helpers/manualClock';

/** All reads until the tail says there is no more, with their lines whether gathered or handed out. */
async function readAll(file: string, chunkSize: number, maxBytesPerRead: number, handOut: boolean) {
  const handed: TailLine<Buffer>[] = [];
  const tail = new FileTail<Buffer>({
    path: file,
    files: nodeFileAccess,
    clock: new ManualClock(),
    scanner: new BytesScanner(),
    chunkSize,
    maxBytesPerRead,
    // The TailLine handed over is reused for the next line: keep a copy.
    onLine: handOut ? (l) => handed.push({ ...l }) : undefined,
  });
  const reads = await readToEnd(tail);
  return { reads, lines: handOut ? handed : reads.flatMap((r) => r.lines), partial: tail.partialBytes };
}

describe('FileTail: onLine', () => {
  it('hands over one TailLine, refilled for each line', async () => {
    const dir = makeTempDir('tail-online-');
    try {
      const file = path.join(dir, 't.jsonl');
      fs.writeFileSync(file, 'a\nbb\nccc\n');
      const seen: Array<{ line: TailLine<Buffer>; number: number; text: string }> = [];
      const tail = new FileTail<Buffer>({ path: file, files: nodeFileAccess, clock: new ManualClock(), scanner: new BytesScanner(), onLine: (l) => seen.push({ line: l, number: l.line, text: l.scan.toString() }) });
      const read = await tail.read();
      await tail.close();
      assert.deepEqual(seen.map((s) => [s.number, s.text]), [[1, 'a'], [2, 'bb'], [3, 'ccc']]);
      assert.ok(seen.every((s) => s.line === seen[0]!.line));
      assert.deepEqual(read.batch && [read.batch.firstLine, read.batch.lastLine, read.batch.byteStart, read.batch.byteEnd], [1, 3, 0, 9]);
    } finally {
      removeTempDir(dir);
    }
  });

  it('hands out exactly the lines a read would gather, in order, with the same batches (property)', async () => {
    const lineArb = fc.array(fc.constantFrom(0x61, 0x7b, 0x22, 0x0d, 0xff), { maxLength: 40 }).map((a) => Buffer.from(a));
    await fc.assert(
      fc.asyncProperty(fc.array(lineArb, { maxLength: 20 }), lineArb, fc.integer({ min: 1, max: 32 }), fc.integer({ min: 1, max: 200 }), async (lines, partial, chunkSize, maxBytes) => {
        const dir = makeTempDir('tail-online-');
        try {
          const file = path.join(dir, 't.jsonl');
          fs.writeFileSync(file, Buffer.concat([...lines.flatMap((l) => [l, Buffer.from('\n')]), partial]));
          const gathered = await readAll(file, chunkSize, maxBytes, false);
          const handed = await readAll(file, chunkSize, maxBytes, true);
          assert.deepEqual(handed.lines, gathered.lines);
          assert.deepEqual(handed.lines.map((l) => l.scan), lines);
          assert.deepEqual(handed.reads.map((r) => r.lines), handed.reads.map(() => []));
          assert.deepEqual(handed.reads.map((r) => r.batch), gathered.reads.map((r) => r.batch));
          assert.equal(handed.partial, partial.length);
        } finally {
          removeTempDir(dir);
        }
      }),
      { numRuns: 150 },
    );
  });
});
