import { strict as assert } from 'node:assert';
import { appendFileSync, closeSync, fstatSync, mkdtempSync, openSync, readSync, renameSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LineCursor, type LineCursorOptions } from '../../../src/rules/lineCursor';
import { readNewLines, type ChunkSource, type NewLinesOptions } from '../../../src/rules/newLines';

/** The hook's way in: a file descriptor per look, fstat with dev:ino, synchronous reads; every read's length kept. */
function fdSource(fd: number, reads: number[]): ChunkSource<Buffer> {
  return {
    stat: () => {
      const st = fstatSync(fd);
      return { size: st.size, identity: `${st.dev}:${st.ino}` };
    },
    read: (offset, length) => {
      reads.push(length);
      const buf = Buffer.alloc(length);
      return buf.subarray(0, readSync(fd, buf, 0, length, offset));
    },
  };
}

describe('readNewLines (src/rules/newLines.ts): one stat-and-read look through a LineCursor', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tl-newlines-'));
    file = join(dir, 't.jsonl');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** One look at the file as it is now: its complete lines' text and what the driver said. */
  async function look(cursor: LineCursor, opts: Partial<NewLinesOptions> = {}, reads: number[] = []) {
    const lines: string[] = [];
    const fd = openSync(file, 'r');
    try {
      const result = await readNewLines(cursor, fdSource(fd, reads), (b, cut) => lines.push(Buffer.from(b).toString('utf8') + (cut ? '…' : '')), { readBytes: 1 << 20, ...opts });
      return { lines, result, reads };
    } finally {
      closeSync(fd);
    }
  }
  const cursorOf = (opts?: LineCursorOptions) => new LineCursor(opts);

  it('hands complete lines; a partial last line waits for its newline and comes out whole at a later look', async () => {
    writeFileSync(file, 'one\ntw');
    const cursor = cursorOf();
    const first = await look(cursor);
    assert.deepEqual(first.lines, ['one']);
    assert.equal(first.result.done, true);
    assert.equal(first.result.size, 6);
    assert.equal(cursor.offset, 6);
    assert.equal(cursor.partialBytes, 2);
    appendFileSync(file, 'o\nthree\n');
    const second = await look(cursor);
    assert.deepEqual(second.lines, ['two', 'three']);
    assert.equal(second.result.restarted, undefined);
  });

  it('a file truncated in place is read again from byte 0, and says so', async () => {
    writeFileSync(file, 'aaaa\nbbbb\n');
    const cursor = cursorOf();
    await look(cursor);
    truncateSync(file, 0);
    appendFileSync(file, 'c\n');
    const again = await look(cursor);
    assert.equal(again.result.restarted, 'truncated');
    assert.deepEqual(again.lines, ['c']);
    assert.equal(cursor.offset, 2);
  });

  it('a file replaced by a larger one (another inode) is read from its start, not from the old offset', async () => {
    writeFileSync(file, 'old\n');
    const cursor = cursorOf();
    await look(cursor);
    const other = join(dir, 'other.jsonl');
    writeFileSync(other, 'new one\nnew two\n');
    renameSync(other, file);
    const again = await look(cursor);
    assert.equal(again.result.restarted, 'replaced');
    assert.deepEqual(again.lines, ['new one', 'new two']);
  });

  it('reads of at most readBytes each, and at most the cursor read limit a look (the rest at the next look)', async () => {
    writeFileSync(file, '0123456789\nabcdefghij\nKLMNOPQRST\n');
    const cursor = cursorOf({ readLimit: 22 });
    const first = await look(cursor, { readBytes: 5 }, []);
    assert.deepEqual(first.reads, [5, 5, 5, 5, 2]);
    assert.deepEqual(first.lines, ['0123456789', 'abcdefghij']);
    assert.equal(first.result.done, true);
    const second = await look(cursor, { readBytes: 8 }, []);
    assert.deepEqual(second.reads, [8, 3]);
    assert.deepEqual(second.lines, ['KLMNOPQRST']);
  });

  it('past the read limit with overLimit skip: says what it jumped over and reads only the last bytes', async () => {
    writeFileSync(file, 'first line\nsecond\nthird\n');
    const cursor = cursorOf({ readLimit: 10, overLimit: 'skip' });
    const got = await look(cursor);
    assert.equal(got.result.skipped, 14);
    assert.deepEqual(got.lines, ['third']);
  });

  it('a read shorter than the stat said (the file cut after the stat) takes what came and ends the look there', async () => {
    writeFileSync(file, 'a\nbb\n');
    const cursor = cursorOf();
    const reads: number[] = [];
    const fd = openSync(file, 'r');
    const lines: string[] = [];
    try {
      // The stat says 40 bytes; the file holds 5.
      const source = { ...fdSource(fd, reads), stat: () => ({ size: 40 }) };
      const result = await readNewLines(cursor, source, (b) => lines.push(Buffer.from(b).toString('utf8')), { readBytes: 3 });
      assert.deepEqual(lines, ['a', 'bb']);
      // 3 bytes, the 2 left, then an empty read: no more reads asked for after it.
      assert.deepEqual(reads, [3, 3, 3]);
      assert.equal(result.done, true, 'an empty read ends the look as read through');
      assert.equal(cursor.offset, 5);
    } finally {
      closeSync(fd);
    }
  });

  it('stop() is asked before each read: true ends the look there, not done; the next look goes on from there', async () => {
    writeFileSync(file, 'x1\nx2\nx3\n');
    const cursor = cursorOf();
    const lines: string[] = [];
    const fd = openSync(file, 'r');
    try {
      const source = fdSource(fd, []);
      const result = await readNewLines(cursor, source, (b) => lines.push(Buffer.from(b).toString('utf8')), { readBytes: 3, stop: () => lines.includes('x2') });
      assert.deepEqual(lines, ['x1', 'x2']);
      assert.equal(result.done, false);
      await readNewLines(cursor, source, (b) => lines.push(Buffer.from(b).toString('utf8')), { readBytes: 3 });
      assert.deepEqual(lines, ['x1', 'x2', 'x3']);
    } finally {
      closeSync(fd);
    }
  });

  it('onLook returning false ends the look unread', async () => {
    writeFileSync(file, 'never\n');
    const cursor = cursorOf();
    const got = await look(cursor, { onLook: () => false });
    assert.deepEqual(got.lines, []);
    assert.deepEqual(got.reads, []);
    assert.equal(got.result.done, false);
    assert.equal(cursor.offset, 0);
  });

  it('not past upTo; a span source is asked for [offset, end) once and its read error given back', async () => {
    writeFileSync(file, 'l1\nl2\nl3\n');
    const cursor = cursorOf();
    const spans: [number, number][] = [];
    const failure = new Error('EIO');
    const bytes = Buffer.from('l1\nl2\nl3\n');
    const result = await readNewLines(
      cursor,
      {
        stat: () => ({ size: statSync(file).size }),
        readSpan: async (from, to, chunk) => {
          spans.push([from, to]);
          chunk(bytes.subarray(from, to));
          return failure;
        },
      },
      (b) => assert.equal(Buffer.from(b).toString('utf8'), 'l1'),
      { readBytes: 1, upTo: 3 },
    );
    assert.deepEqual(spans, [[0, 3]]);
    assert.equal(result.failure, failure);
    assert.equal(cursor.offset, 3);
  });

  describe("sizeFrom 'read' (the mod: its $.fs.stat can be ~100 ms older than its $.fs.read)", () => {
    /** The mod's way in: reads as `$.fs.read` gives them (none past the end), a stat that may be stale. */
    function modSource(staleSize: () => number | undefined, calls: string[]): ChunkSource<Uint8Array> {
      return {
        read: async (offset, length) => {
          calls.push(`read ${offset}`);
          const fd = openSync(file, 'r');
          try {
            const buf = Buffer.alloc(length);
            return new Uint8Array(buf.subarray(0, readSync(fd, buf, 0, length, offset)));
          } finally {
            closeSync(fd);
          }
        },
        stat: async () => {
          calls.push('stat');
          return { size: staleSize() ?? statSync(file).size };
        },
      };
    }
    const lines: string[] = [];
    const sink = (b: Uint8Array) => lines.push(Buffer.from(b).toString('utf8'));
    beforeEach(() => (lines.length = 0));

    it('the bytes a read gives are read, whatever size the stat gives, and the stat is not asked', async () => {
      writeFileSync(file, 'rec 1\n');
      const cursor = cursorOf({ readLimit: 64 });
      const calls: string[] = [];
      // The stat still says the file is empty.
      const result = await readNewLines(cursor, modSource(() => 0, calls), sink, { sizeFrom: 'read', readBytes: 64 });
      assert.deepEqual(lines, ['rec 1']);
      assert.deepEqual(calls, ['read 0']);
      assert.equal(result.size, 6);
    });

    it('one read a look: more than readBytes new waits for the next look', async () => {
      writeFileSync(file, 'aaaaaaa\nbbbbbbb\n');
      const cursor = cursorOf({ readLimit: 8 });
      const calls: string[] = [];
      await readNewLines(cursor, modSource(() => undefined, calls), sink, { sizeFrom: 'read', readBytes: 8 });
      assert.deepEqual(lines, ['aaaaaaa']);
      await readNewLines(cursor, modSource(() => undefined, calls), sink, { sizeFrom: 'read', readBytes: 8 });
      assert.deepEqual(lines, ['aaaaaaa', 'bbbbbbb']);
      assert.deepEqual(calls, ['read 0', 'read 8']);
    });

    it('a read past the end asks the stat: a file truncated under the cursor is read again from 0 in the same look', async () => {
      writeFileSync(file, 'long line one\nlong line two\n');
      const cursor = cursorOf({ readLimit: 64 });
      const calls: string[] = [];
      await readNewLines(cursor, modSource(() => undefined, calls), sink, { sizeFrom: 'read', readBytes: 64 });
      writeFileSync(file, 'short\n');
      const result = await readNewLines(cursor, modSource(() => undefined, calls), sink, { sizeFrom: 'read', readBytes: 64 });
      assert.equal(result.restarted, 'truncated');
      assert.deepEqual(lines, ['long line one', 'long line two', 'short']);
      assert.deepEqual(calls, ['read 0', 'read 28', 'stat', 'read 0']);
    });

    it('nothing new: one read, one stat, the cursor where it was', async () => {
      writeFileSync(file, 'same\n');
      const cursor = cursorOf({ readLimit: 64 });
      const calls: string[] = [];
      await readNewLines(cursor, modSource(() => undefined, calls), sink, { sizeFrom: 'read', readBytes: 64 });
      const result = await readNewLines(cursor, modSource(() => undefined, calls), sink, { sizeFrom: 'read', readBytes: 64 });
      assert.equal(result.restarted, undefined);
      assert.deepEqual(calls, ['read 0', 'read 5', 'stat']);
      assert.equal(cursor.offset, 5);
    });

    it('refuses a span source (a look there is one read, which a span source does not make)', async () => {
      await assert.rejects(readNewLines(cursorOf(), { stat: () => ({ size: 0 }), readSpan: async () => undefined }, sink, { sizeFrom: 'read', readBytes: 1 }), TypeError);
    });
  });
});
