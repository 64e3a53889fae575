import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FileAccess } from '../../../../src/core/fileAccess';
import { FileTail } from '../../../../src/core/tail';
import { READS_AHEAD } from '../../../../src/core/tailReadAhead';
import { nodeFileAccess } from '../../../../src/platform/nodeFileAccess';
import { BytesScanner } from '../../helpers/lineScanners';
import { ManualClock } from '../../helpers/manualClock';
import { makeTempDir, removeTempDir } from '../../helpers/tailHarness';

/**
 * Issue 24 §4: a process following 20,000 transcripts held up to three 1 MiB
 * read buffers per tail (711 MB at 4,000 files). The tails' reads are seen
 * here through the FileAccess: which memory each read is made into.
 */
describe('FileTail: read buffers are lent per read, not held per tail', () => {
  let dir: string;
  beforeEach(() => {
    dir = makeTempDir();
  });
  afterEach(() => removeTempDir(dir));

  /** nodeFileAccess, noting the memory (ArrayBuffer) every read goes into. */
  function notingReads(): { files: FileAccess; memories: Set<ArrayBufferLike> } {
    const memories = new Set<ArrayBufferLike>();
    const files: FileAccess = {
      ...nodeFileAccess,
      async open(p) {
        const f = await nodeFileAccess.open(p);
        return {
          read: (buffer, offset, length, position) => {
            memories.add(buffer.buffer);
            return f.read(buffer, offset, length, position);
          },
          stat: () => f.stat(),
          close: () => f.close(),
        };
      },
    };
    return { files, memories };
  }

  const bytesOf = (memories: Set<ArrayBufferLike>) => [...memories].reduce((n, m) => n + m.byteLength, 0);

  it('200 tails of small files read into memory sized to what they read, not a chunk each', async () => {
    const { files, memories } = notingReads();
    const clock = new ManualClock(0);
    const tails: FileTail<Buffer>[] = [];
    for (let i = 0; i < 200; i++) {
      const file = path.join(dir, `s${i}.jsonl`);
      fs.writeFileSync(file, `{"line":1,"i":${i}}\n{"line":2}\n`);
      tails.push(new FileTail<Buffer>({ path: file, files, clock, scanner: new BytesScanner(), chunkSize: 1024 * 1024 }));
    }
    for (const t of tails) assert.equal((await t.read()).lines.length, 2);
    // Then a live append to each: read into memory of its own size too.
    for (let i = 0; i < 200; i++) fs.appendFileSync(path.join(dir, `s${i}.jsonl`), '{"line":3}\n');
    for (const t of tails) assert.equal((await t.read()).lines.length, 1);
    // Small reads share Node's pool slabs (8 KiB each); a chunk per tail was 200 MiB.
    assert.ok(bytesOf(memories) <= 256 * 1024, `reads went into ${memories.size} memories of ${bytesOf(memories)} bytes`);
    for (const t of tails) await t.close();
  });

  it('tails reading whole chunks, one after the other, reuse the same few buffers', async () => {
    const { files, memories } = notingReads();
    const clock = new ManualClock(0);
    const chunkSize = 1024;
    const line = `${'x'.repeat(99)}\n`;
    for (let round = 0; round < 3; round++) {
      const tails: FileTail<Buffer>[] = [];
      for (let i = 0; i < 10; i++) {
        const file = path.join(dir, `big${round}-${i}.jsonl`);
        fs.writeFileSync(file, line.repeat(60)); // 6 KB: six chunks
        tails.push(new FileTail<Buffer>({ path: file, files, clock, scanner: new BytesScanner(), chunkSize }));
      }
      for (const t of tails) assert.equal((await t.read()).lines.length, 60);
      for (const t of tails) await t.close();
    }
    // READS_AHEAD + 1 buffers serve one read; every later tail takes them back from the free list.
    const chunkMemories = [...memories].filter((m) => m.byteLength === chunkSize);
    assert.ok(chunkMemories.length <= READS_AHEAD + 1, `${chunkMemories.length} chunk buffers for 30 tails`);
  });
});
