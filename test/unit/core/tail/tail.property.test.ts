import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import type { TailLine, TailRead } from '../../../../src/core/tailTypes';
import { bytesTail, makeTempDir, removeTempDir, texts } from '../../helpers/tailHarness';

/**
 * Model-based property: random writers' operations against a real temp file,
 * with reads in between. After every read the tail's claim is checked against
 * the bytes on disk: the lines it delivered in the current generation, plus the
 * partial line it pushed, are exactly the file's content. With contiguous line
 * numbers and byte ranges that means every complete line is delivered exactly
 * once per generation, in order, with its exact bytes — and none is lost.
 * Files stay under two consumed-window lengths, so every rewrite that changes
 * consumed bytes is detectable and must be detected.
 */

const NL = Buffer.from('\n');
const byteArb = fc.constantFrom(0x61, 0x62, 0x7b, 0x0a, 0x0a, 0x0d, 0xff, 0xc3);
const bytesArb = (min: number, max: number) => fc.array(byteArb, { minLength: min, maxLength: max }).map((a) => Buffer.from(a));

type Op =
  | { kind: 'append'; bytes: Buffer }
  | { kind: 'truncate'; keepPercent: number }
  | { kind: 'replace'; bytes: Buffer }
  | { kind: 'delete' }
  | { kind: 'folder' }
  | { kind: 'read'; advanceMs: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: bytesArb(1, 12).map((bytes): Op => ({ kind: 'append', bytes })) },
  { weight: 5, arbitrary: fc.nat(1000).map((advanceMs): Op => ({ kind: 'read', advanceMs })) },
  { weight: 2, arbitrary: fc.nat(100).map((keepPercent): Op => ({ kind: 'truncate', keepPercent })) },
  { weight: 1, arbitrary: bytesArb(0, 20).map((bytes): Op => ({ kind: 'replace', bytes })) },
  { weight: 1, arbitrary: fc.constant<Op>({ kind: 'delete' }) },
  { weight: 1, arbitrary: fc.constant<Op>({ kind: 'folder' }) },
);

/** One file at the path, as the model knows it; a replaced or deleted one keeps its last content. */
interface Incarnation {
  content: Buffer;
}

async function runScenario(chunkSize: number, ops: Op[]): Promise<void> {
  const dir = makeTempDir('tail-prop-');
  const file = path.join(dir, 't.jsonl');
  const { tail, clock, scanner } = bytesTail(file, { chunkSize });
  let current: Incarnation | undefined;
  let isFolder = false;
  /** The incarnation the tail's consumed bytes matched at the last read. */
  let followed: Incarnation | undefined;
  /** Since the last read, the followed file only grew by appends: no change may be reported. */
  let pristine = false;
  let partialSeenAt = 0;
  const deliveredByGeneration = new Map<number, TailLine<Buffer>[]>();

  const checkRead = (read: TailRead<Buffer>, generationBefore: number, partialBefore: number) => {
    const now = clock.now();
    const generation = tail.generation;
    assert.ok(generation >= generationBefore, 'generation never goes back');
    if (generation !== generationBefore) assert.ok(read.changes.length > 0, 'a new generation is always reported');
    for (const change of read.changes) assert.equal(change.at, now);
    if (read.changes.length > 0) {
      assert.equal(read.changes[read.changes.length - 1]!.generation, generation);
      assert.equal((deliveredByGeneration.get(generation) ?? []).length, 0, 'a change starts from an empty generation');
    }
    if (pristine) assert.deepEqual(read.changes, [], 'appends alone never re-anchor');

    const delivered = deliveredByGeneration.get(generation) ?? [];
    deliveredByGeneration.set(generation, delivered);
    const continuesPartial = read.changes.length === 0 && partialBefore > 0;
    read.lines.forEach((line, i) => {
      const previousEnd = delivered.length ? delivered[delivered.length - 1]!.byteEnd : 0;
      assert.equal(line.line, delivered.length + 1, 'line numbers contiguous from 1');
      assert.equal(line.byteStart, previousEnd, 'byte ranges contiguous from 0');
      assert.equal(line.byteEnd, line.byteStart + line.scan.length + 1);
      assert.equal(line.partialDwellMs, i === 0 && continuesPartial ? now - partialSeenAt : 0);
      delivered.push(line);
    });
    if (read.lines.length > 0) {
      assert.deepEqual(read.batch, {
        observedAt: now,
        generation,
        firstLine: read.lines[0]!.line,
        lastLine: read.lines[read.lines.length - 1]!.line,
        byteStart: read.lines[0]!.byteStart,
        byteEnd: read.lines[read.lines.length - 1]!.byteEnd,
      });
    } else {
      assert.equal(read.batch, undefined);
    }

    const consumed = Buffer.concat([...delivered.flatMap((l) => [l.scan, NL]), scanner.pending()]);
    assert.equal(tail.offset, consumed.length);
    assert.equal(tail.lineCount, delivered.length);
    assert.equal(tail.partialBytes, scanner.pending().length);
    let matched: Incarnation | undefined;
    if (current && current.content.equals(consumed)) {
      matched = current;
    } else if (followed && followed !== current && read.changes.length === 0 && followed.content.equals(consumed)) {
      matched = followed; // lines the leaving file gained before it went, delivered before the switch
    } else {
      assert.equal(current, undefined, `consumed ${JSON.stringify(consumed.toString('latin1'))} but the file holds ${JSON.stringify(current?.content.toString('latin1'))}`);
      assert.equal(consumed.length, 0, 'nothing consumed while there is no file');
    }
    pristine = matched !== undefined && matched === current;
    followed = matched;
    if (tail.partialBytes > 0 && !(continuesPartial && read.lines.length === 0)) partialSeenAt = now;
  };

  try {
    for (const op of ops) {
      switch (op.kind) {
        case 'append':
          if (isFolder) break;
          if (current) {
            fs.appendFileSync(file, op.bytes);
            current.content = Buffer.concat([current.content, op.bytes]);
          } else {
            fs.writeFileSync(file, op.bytes);
            current = { content: Buffer.from(op.bytes) };
            pristine = false;
          }
          break;
        case 'truncate': {
          if (!current) break;
          const keep = Math.floor((current.content.length * op.keepPercent) / 100);
          fs.truncateSync(file, keep);
          current.content = Buffer.from(current.content.subarray(0, keep));
          pristine = false;
          break;
        }
        case 'replace':
          if (isFolder) fs.rmdirSync(file);
          isFolder = false;
          fs.writeFileSync(file + '.tmp', op.bytes);
          fs.renameSync(file + '.tmp', file);
          current = { content: Buffer.from(op.bytes) };
          pristine = false;
          break;
        case 'delete':
          if (isFolder) fs.rmdirSync(file);
          else if (current) fs.unlinkSync(file);
          isFolder = false;
          current = undefined;
          pristine = false;
          break;
        case 'folder':
          if (current) fs.unlinkSync(file);
          if (!isFolder) fs.mkdirSync(file);
          isFolder = true;
          current = undefined;
          pristine = false;
          break;
        case 'read': {
          clock.advance(op.advanceMs);
          const generationBefore = tail.generation;
          const partialBefore = tail.partialBytes;
          checkRead(await tail.read(), generationBefore, partialBefore);
          break;
        }
      }
    }
    // A final pair of reads settles any pending switch: the tail then holds exactly the file.
    for (let i = 0; i < 2; i++) {
      const generationBefore = tail.generation;
      const partialBefore = tail.partialBytes;
      checkRead(await tail.read(), generationBefore, partialBefore);
    }
    if (current) assert.ok(followed === current, 'after settling, the tail follows the file at the path');
  } finally {
    await tail.close();
    removeTempDir(dir);
  }
}

describe('FileTail: properties', () => {
  it('delivers every complete line once per generation, in order, with exact bytes, under any mix of faults', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 16 }), fc.array(opArb, { maxLength: 30 }), (chunkSize, ops) => runScenario(chunkSize, ops)),
      { numRuns: 150 },
    );
  });

  it('reports the same records whatever the write split and the chunk size (appends only)', async () => {
    const recordArb = fc.array(fc.string({ unit: 'binary', maxLength: 40 }), { minLength: 1, maxLength: 8 }).map((strings) =>
      strings.map((s) => JSON.stringify({ type: 'assistant', text: s })),
    );
    await fc.assert(
      fc.asyncProperty(recordArb, fc.array(fc.nat(), { maxLength: 6 }), fc.integer({ min: 1, max: 64 }), async (records, cuts, chunkSize) => {
        const whole = Buffer.from(records.map((r) => r + '\n').join(''), 'utf8');
        const points = [...new Set(cuts.map((c) => c % (whole.length + 1)))].sort((a, b) => a - b);
        const dir = makeTempDir('tail-split-');
        const file = path.join(dir, 's.jsonl');
        fs.writeFileSync(file, '');
        const { tail } = bytesTail(file, { chunkSize });
        const lines: TailLine<Buffer>[] = [];
        try {
          let from = 0;
          for (const to of [...points, whole.length]) {
            fs.appendFileSync(file, whole.subarray(from, to));
            from = to;
            const read = await tail.read();
            assert.deepEqual(read.changes, []);
            lines.push(...read.lines);
          }
          assert.deepEqual(texts(lines), records);
          assert.deepEqual(lines.map((l) => l.line), records.map((_, i) => i + 1));
        } finally {
          await tail.close();
          removeTempDir(dir);
        }
      }),
      { numRuns: 100 },
    );
  });
});
