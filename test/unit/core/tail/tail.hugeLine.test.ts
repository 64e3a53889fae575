import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_TAIL_CHUNK_SIZE, FileTail } from '../../../../src/core/tail';
import { nodeFileAccess } from '../../../../src/platform/nodeFileAccess';
import { DigestScanner } from '../../helpers/lineScanners';
import { ManualClock } from '../../helpers/manualClock';
import { makeTempDir, removeTempDir } from '../../helpers/tailHarness';

const MiB = 1024 * 1024;

describe('FileTail: a 64 MB line', () => {
  let dir: string;
  beforeEach(() => {
    dir = makeTempDir();
  });
  afterEach(() => removeTempDir(dir));

  it('streams it through the scanner in chunks no larger than chunkSize, every byte once, memory flat', async () => {
    const file = path.join(dir, 'huge.jsonl');
    const expected = createHash('sha256');
    // One reused write buffer; each MiB gets different bytes so a dropped or repeated chunk changes the hash.
    const block = Buffer.alloc(MiB);
    const fd = fs.openSync(file, 'w');
    const writeMiB = (i: number) => {
      block.fill(0x61 + (i % 26));
      block.writeUInt32BE(0x41414141 + i, (i * 7919) % (MiB - 4)); // no 0x0a byte
      expected.update(block);
      fs.writeSync(fd, block);
    };
    fs.writeSync(fd, Buffer.from('{"small":1}\n'));
    for (let i = 0; i < 40; i++) writeMiB(i);

    const clock = new ManualClock();
    const scanner = new DigestScanner();
    const tail = new FileTail({ path: file, files: nodeFileAccess, clock, scanner });
    const first = await tail.read();
    assert.equal(first.lines.length, 1);
    assert.equal(tail.partialBytes, 40 * MiB);

    for (let i = 40; i < 64; i++) writeMiB(i);
    fs.writeSync(fd, Buffer.from('\n{"after":true}\n'));
    fs.closeSync(fd);
    clock.advance(1500);

    const externalBefore = process.memoryUsage().arrayBuffers;
    const second = await tail.read();
    const externalGrowth = process.memoryUsage().arrayBuffers - externalBefore;

    assert.equal(second.lines.length, 2);
    const huge = second.lines[0]!;
    assert.equal(huge.line, 2);
    assert.equal(huge.scan.bytes, 64 * MiB);
    assert.equal(huge.scan.sha256, expected.digest('hex'));
    assert.equal(huge.partialDwellMs, 1500);
    assert.equal(huge.byteStart, 12);
    assert.equal(huge.byteEnd, 12 + 64 * MiB + 1);
    assert.equal(second.lines[1]!.scan.sha256, createHash('sha256').update('{"after":true}').digest('hex'));
    assert.ok(scanner.largestChunk <= DEFAULT_TAIL_CHUNK_SIZE, `largest chunk ${scanner.largestChunk}`);
    assert.equal(scanner.totalPushed, 11 + 64 * MiB + 14);
    // Reading 24 MiB must not have held them: only the fixed read buffer is ever allocated.
    assert.ok(externalGrowth < 8 * MiB, `external memory grew by ${externalGrowth}`);
    await tail.close();
  });
});
