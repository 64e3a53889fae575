import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FileTail } from '../../../../src/core/tail';
import { nodeFileAccess } from '../../../../src/platform/nodeFileAccess';
import type { TailLine } from '../../../../src/core/tailTypes';
import { BytesScanner } from '../../helpers/lineScanners';
import { ManualClock } from '../../helpers/manualClock';
import { bytesTail, makeTempDir, removeTempDir, texts } from '../../helpers/tailHarness';

const RECORDS = [
  '{"type":"user","uuid":"u1","message":{"content":"héllo ✓"}}',
  '{"type":"assistant","uuid":"a1","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"Bash"}]}}',
  '{"type":"last-prompt","lastPrompt":"日本語"}',
];

describe('FileTail: lines', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = makeTempDir();
    file = path.join(dir, 'session.jsonl');
  });
  afterEach(() => removeTempDir(dir));

  it('reads nothing from an empty file', async () => {
    fs.writeFileSync(file, '');
    const { tail } = bytesTail(file);
    const read = await tail.read();
    assert.deepEqual(read, { lines: [], changes: [] });
    assert.equal(tail.offset, 0);
    assert.equal(tail.generation, 1);
    await tail.close();
  });

  it('waits quietly for a file that does not exist yet, then reads it without a change', async () => {
    const { tail } = bytesTail(file);
    assert.deepEqual(await tail.read(), { lines: [], changes: [] });
    assert.deepEqual(await tail.read(), { lines: [], changes: [] });
    fs.writeFileSync(file, 'first\nsecond\n');
    const read = await tail.read();
    assert.deepEqual(texts(read.lines), ['first', 'second']);
    assert.deepEqual(read.changes, []);
    assert.equal(read.batch?.generation, 1);
    await tail.close();
  });

  it('reports each record once whatever byte the writer splits it at', async () => {
    const whole = Buffer.from(RECORDS.map((r) => r + '\n').join(''), 'utf8');
    for (let split = 0; split <= whole.length; split++) {
      fs.writeFileSync(file, whole.subarray(0, split));
      const { tail } = bytesTail(file, { chunkSize: 16 });
      const first = await tail.read();
      fs.appendFileSync(file, whole.subarray(split));
      const second = await tail.read();
      const lines = [...first.lines, ...second.lines];
      assert.deepEqual(texts(lines), RECORDS, `split at ${split}`);
      assert.deepEqual(lines.map((l) => l.line), [1, 2, 3]);
      assert.equal(tail.offset, whole.length);
      assert.equal(tail.partialBytes, 0);
      await tail.close();
    }
  });

  it('reports each record once when the writer writes one byte at a time', async () => {
    const whole = Buffer.from(RECORDS.map((r) => r + '\n').join(''), 'utf8');
    fs.writeFileSync(file, '');
    const { tail } = bytesTail(file, { chunkSize: 7 });
    const lines = [];
    for (let i = 0; i < whole.length; i++) {
      fs.appendFileSync(file, whole.subarray(i, i + 1));
      const read = await tail.read();
      lines.push(...read.lines);
      assert.equal(tail.offset, i + 1);
    }
    assert.deepEqual(texts(lines), RECORDS);
    let start = 0;
    for (const line of lines) {
      assert.equal(line.byteStart, start);
      start = line.byteEnd;
    }
    await tail.close();
  });

  it('holds a partial line until its newline and reports how long it dwelt', async () => {
    fs.writeFileSync(file, '{"type":"assistant",');
    const { tail, clock } = bytesTail(file);
    const t0 = clock.now();
    let read = await tail.read();
    assert.equal(read.lines.length, 0);
    assert.equal(read.batch, undefined);
    assert.equal(tail.partialBytes, 20);
    assert.equal(tail.offset, 20);

    clock.advance(250);
    fs.appendFileSync(file, '"uuid":"a1"');
    read = await tail.read();
    assert.equal(read.lines.length, 0);
    assert.equal(tail.partialBytes, 31);

    clock.advance(500);
    fs.appendFileSync(file, '}\n{"type":"user"}\n{"tail');
    read = await tail.read();
    assert.deepEqual(texts(read.lines), ['{"type":"assistant","uuid":"a1"}', '{"type":"user"}']);
    assert.deepEqual(read.lines.map((l) => l.partialDwellMs), [750, 0]);
    assert.deepEqual(read.batch, {
      observedAt: t0 + 750,
      generation: 1,
      firstLine: 1,
      lastLine: 2,
      byteStart: 0,
      byteEnd: 49,
    });
    assert.equal(tail.partialBytes, 6);
    assert.equal(tail.lineCount, 2);
    await tail.close();
  });

  it('strips only the newline: CRLF lines keep their \\r for the scanner', async () => {
    fs.writeFileSync(file, 'a\r\n\r\nb\r\n');
    const { tail } = bytesTail(file);
    const read = await tail.read();
    assert.deepEqual(texts(read.lines), ['a\r', '\r', 'b\r']);
    assert.deepEqual(read.lines.map((l) => [l.byteStart, l.byteEnd]), [[0, 3], [3, 5], [5, 8]]);
    await tail.close();
  });

  it('reports empty lines as lines', async () => {
    fs.writeFileSync(file, '\n\nx\n');
    const { tail } = bytesTail(file);
    const read = await tail.read();
    assert.deepEqual(texts(read.lines), ['', '', 'x']);
    await tail.close();
  });

  it('passes invalid UTF-8 through byte for byte, also when a read splits a sequence', async () => {
    const line1 = Buffer.from([0xff, 0xfe, 0x00, 0xc3, 0x28, 0x7b]);
    const euro = Buffer.from('€', 'utf8'); // three bytes, split across two reads below
    fs.writeFileSync(file, Buffer.concat([line1, Buffer.from('\n'), euro.subarray(0, 2)]));
    const { tail } = bytesTail(file, { chunkSize: 4 });
    const first = await tail.read();
    fs.appendFileSync(file, Buffer.concat([euro.subarray(2), Buffer.from([0x80, 0x0a])]));
    const second = await tail.read();
    assert.ok(first.lines[0]!.scan.equals(line1));
    assert.ok(second.lines[0]!.scan.equals(Buffer.concat([euro, Buffer.from([0x80])])));
    await tail.close();
  });

  it('passes garbage and half-written JSON through as lines, never merging or splitting them', async () => {
    const garbage = ['not json at all', '{"type":"assistant","message":{"id":"m', '}}}}', '\u0000\u0001\u0002', '[1,2'];
    fs.writeFileSync(file, garbage.map((g) => g + '\n').join('') + '{"type":"user","uuid":"u2"');
    const { tail } = bytesTail(file);
    const read = await tail.read();
    assert.deepEqual(texts(read.lines), garbage);
    // The half-written record at the end is not a line until its newline is written.
    fs.appendFileSync(file, ',"cwd":"/w"}\n');
    const rest = await tail.read();
    assert.deepEqual(texts(rest.lines), ['{"type":"user","uuid":"u2","cwd":"/w"}']);
    assert.equal(rest.lines[0]!.line, garbage.length + 1);
    assert.deepEqual(JSON.parse(rest.lines[0]!.scan.toString()), { type: 'user', uuid: 'u2', cwd: '/w' });
    await tail.close();
  });

  it('reports a 2000-record burst as one batch with every record once, across chunk boundaries', async () => {
    const records = Array.from({ length: 2000 }, (_, i) => JSON.stringify({ type: 'assistant', uuid: `u${i}`, pad: 'x'.repeat(i % 97) }));
    fs.writeFileSync(file, '{"type":"user"}\n');
    const { tail, clock } = bytesTail(file, { chunkSize: 4096 });
    await tail.read();
    clock.advance(10);
    const burst = records.map((r) => r + '\n').join('');
    fs.appendFileSync(file, burst);
    const read = await tail.read();
    assert.deepEqual(texts(read.lines), records);
    const size = fs.statSync(file).size;
    assert.deepEqual(read.batch, {
      observedAt: clock.now(),
      generation: 1,
      firstLine: 2,
      lastLine: 2001,
      byteStart: 16,
      byteEnd: size,
    });
    assert.ok(read.lines.every((l) => l.partialDwellMs === 0));
    await tail.close();
  });

  it('serializes concurrent reads: no line twice, none lost, in order', async () => {
    fs.writeFileSync(file, 'a\nb\n');
    const { tail } = bytesTail(file, { chunkSize: 3 });
    const first = tail.read();
    fs.appendFileSync(file, 'c\n');
    const second = tail.read();
    const third = tail.read();
    const reads = await Promise.all([first, second, third]);
    const lines = reads.flatMap((r) => r.lines);
    assert.deepEqual(texts(lines), ['a', 'b', 'c']);
    assert.deepEqual(lines.map((l) => l.line), [1, 2, 3]);
    await tail.close();
  });

  it('reads nothing after close', async () => {
    fs.writeFileSync(file, 'a\n');
    const { tail } = bytesTail(file);
    await tail.read();
    await tail.close();
    fs.appendFileSync(file, 'b\n');
    assert.deepEqual(await tail.read(), { lines: [], changes: [] });
  });

  it('pushes no chunk larger than chunkSize and only what follows the offset', async () => {
    fs.writeFileSync(file, 'x'.repeat(100) + '\n' + 'y'.repeat(37));
    const clock = new ManualClock();
    const scanner = new BytesScanner();
    const tail = new FileTail<Buffer>({ path: file, files: nodeFileAccess, clock, scanner, chunkSize: 8 });
    const read = await tail.read();
    assert.equal(read.lines[0]!.scan.length, 100);
    assert.equal(scanner.largestChunk, 8);
    assert.equal(scanner.pending().toString(), 'y'.repeat(37));
    await tail.close();
  });

  it('bounds one read with maxBytesPerRead and says more, losing and repeating nothing', async () => {
    const records = Array.from({ length: 300 }, (_, i) => `{"n":${i},"pad":"${'p'.repeat(i % 13)}"}`);
    fs.writeFileSync(file, records.map((r) => r + '\n').join(''));
    const clock = new ManualClock();
    const tail = new FileTail<Buffer>({ path: file, files: nodeFileAccess, clock, scanner: new BytesScanner(), chunkSize: 64, maxBytesPerRead: 500 });
    const seen: TailLine<Buffer>[] = [];
    let reads = 0;
    for (;;) {
      const read = await tail.read();
      reads += 1;
      seen.push(...read.lines);
      if (read.batch) assert.ok(read.batch.byteEnd - read.batch.byteStart <= 500 + 64, 'a read takes at most its bound and the line it ends in');
      if (!read.more) break;
    }
    assert.deepEqual(texts(seen), records);
    assert.deepEqual(seen.map((l) => l.line), records.map((_, i) => i + 1));
    assert.ok(reads > 10, `expected many bounded reads, got ${reads}`);
    assert.equal(tail.offset, fs.statSync(file).size);
    await tail.close();
  });

  it('rejects a chunk size that is not a positive integer, and empty read buffers', () => {
    const make = (chunkSize: number) => () =>
      new FileTail({ path: 'x', files: nodeFileAccess, clock: new ManualClock(), scanner: new BytesScanner(), chunkSize });
    assert.throws(make(0), RangeError);
    assert.throws(make(1.5), RangeError);
    // Read buffers given instead (analyze's LineBatches) must not be empty either.
    const given = (size: number) => () =>
      new FileTail({ path: 'x', files: nodeFileAccess, clock: new ManualClock(), scanner: new BytesScanner() }, { readBuffer: () => Buffer.alloc(size), finishLines: (_chunk, start) => start });
    assert.throws(given(0), RangeError);
    assert.doesNotThrow(given(1));
  });
});
