import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import type { OpenFile } from '../../../../src/core/fileAccess';
import { readAhead, READS_AHEAD } from '../../../../src/core/tailReadAhead';
import { nodeFileAccess } from '../../../../src/platform/nodeFileAccess';

/**
 * A real file whose reads come back short on the calls listed in `short`
 * (half of what was asked, at least one byte), and which counts reads running.
 */
class ShortReads implements OpenFile {
  calls = 0;
  running = 0;
  maxRunning = 0;
  constructor(
    private readonly inner: OpenFile,
    private readonly short: Set<number>,
    private readonly failOn = -1,
  ) {}
  async read(buffer: Buffer, offset: number, length: number, position: number): Promise<number> {
    const call = this.calls++;
    this.running += 1;
    this.maxRunning = Math.max(this.maxRunning, this.running);
    try {
      if (call === this.failOn) throw Object.assign(new Error('EIO'), { code: 'EIO' });
      const asked = this.short.has(call) ? Math.max(1, length >> 1) : length;
      return await this.inner.read(buffer, offset, asked, position);
    } finally {
      this.running -= 1;
    }
  }
  stat() {
    return this.inner.stat();
  }
  close() {
    return this.inner.close();
  }
}

describe('readAhead: reads running ahead of the scan', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-read-ahead-'));
    file = path.join(dir, 'f.bin');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('hands over exactly the bytes of [from, target) in order, whatever reads come back short (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 0, maxLength: 3000 }),
        fc.integer({ min: 1, max: 257 }),
        fc.array(fc.nat({ max: 40 }), { maxLength: 8 }),
        fc.nat(),
        fc.nat(),
        async (bytes, chunk, shortCalls, a, b) => {
          fs.writeFileSync(file, bytes);
          const from = bytes.length === 0 ? 0 : a % (bytes.length + 1);
          const target = from + (bytes.length - from === 0 ? 0 : b % (bytes.length - from + 1));
          const handle = new ShortReads(await nodeFileAccess.open(file), new Set(shortCalls));
          const got: Buffer[] = [];
          const buffers: Buffer[] = [];
          try {
            const failure = await readAhead(handle, (i) => (buffers[i] ??= Buffer.alloc(chunk)), from, target, (c) => {
              got.push(Buffer.from(c));
            });
            assert.equal(failure, undefined);
          } finally {
            await handle.close();
          }
          assert.deepEqual(Buffer.concat(got), Buffer.from(bytes.subarray(from, target)));
          assert.equal(handle.running, 0, 'a read left running');
          assert.ok(handle.maxRunning <= READS_AHEAD + 1);
          assert.ok(buffers.length <= READS_AHEAD + 1, 'no more buffers than reads at once');
        },
      ),
      { numRuns: 200 },
    );
  });

  it('keeps reads running while a chunk is consumed', async () => {
    fs.writeFileSync(file, Buffer.alloc(64 * 1024, 7));
    const handle = new ShortReads(await nodeFileAccess.open(file), new Set());
    let runningWhileConsumed = 0;
    await readAhead(handle, () => Buffer.alloc(1024), 0, 64 * 1024, () => {
      runningWhileConsumed = Math.max(runningWhileConsumed, handle.running);
    });
    await handle.close();
    assert.equal(runningWhileConsumed, READS_AHEAD);
  });

  it('stops when consume says so, and returns a read error with nothing left running', async () => {
    fs.writeFileSync(file, Buffer.alloc(10_000, 1));
    const stopper = new ShortReads(await nodeFileAccess.open(file), new Set());
    let chunks = 0;
    assert.equal(await readAhead(stopper, () => Buffer.alloc(100), 0, 10_000, () => ++chunks < 3), undefined);
    assert.equal(chunks, 3);
    assert.equal(stopper.running, 0);
    await stopper.close();

    const failing = new ShortReads(await nodeFileAccess.open(file), new Set(), 4);
    let seen = 0;
    const failure = await readAhead(failing, () => Buffer.alloc(100), 0, 10_000, (c) => {
      seen += c.length;
    });
    assert.match(String(failure), /EIO/);
    assert.equal(seen, 400, 'the chunks before the failed read were handed over');
    assert.equal(failing.running, 0);
    await failing.close();
  });
});
