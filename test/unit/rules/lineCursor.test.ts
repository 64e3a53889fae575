import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { LineCursor, type LineCursorOptions, type LinePieces } from '../../../src/rules/lineCursor';

interface Got {
  text: string;
  cut: boolean;
  start: number;
  end: number;
}

/** A file the test grows and rewrites; reads of it go through the cursor as a caller's would. */
class FakeFile {
  bytes: Buffer = Buffer.alloc(0);
  identity = 'ino-1';
  append(s: string | Buffer): void {
    this.bytes = Buffer.concat([this.bytes, typeof s === 'string' ? Buffer.from(s, 'utf8') : s]);
  }
}

/** One look: stat, then reads of at most `chunk` bytes until the cursor says the look is done. */
function look(cursor: LineCursor, file: FakeFile, chunk = 1 << 20, withIdentity = true): { got: Got[]; result: ReturnType<LineCursor['look']>; reads: number } {
  const got: Got[] = [];
  const result = cursor.look(file.bytes.length, withIdentity ? file.identity : undefined);
  let reads = 0;
  for (let r = cursor.nextRead(chunk); r !== undefined; r = cursor.nextRead(chunk)) {
    reads += 1;
    const bytes = file.bytes.subarray(r.offset, r.offset + r.length);
    cursor.takeLines(bytes, (b, cut, start, end) => got.push({ text: Buffer.from(b).toString('utf8'), cut, start, end }));
    if (bytes.length === 0) break;
  }
  return { got, result, reads };
}

const texts = (got: Got[]) => got.map((g) => g.text);

describe('LineCursor (src/rules/lineCursor.ts)', () => {
  it('hands each complete line once, with its byte range, whatever the writes and reads are split at (property)', () => {
    const line = fc.string({ unit: fc.constantFrom('a', 'é', '✓', '日', '😀', '"', '{'), maxLength: 12 });
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 8 }), fc.integer({ min: 1, max: 9 }), (lines, cuts, chunk) => {
        const whole = Buffer.from(lines.map((l) => `${l}\n`).join(''), 'utf8');
        const points = [...new Set(cuts.map((c) => c % (whole.length + 1)))].sort((a, b) => a - b);
        const file = new FakeFile();
        const cursor = new LineCursor();
        const got: Got[] = [];
        let from = 0;
        for (const at of [...points, whole.length]) {
          // Writes cut anywhere, a UTF-8 character's bytes included.
          file.append(whole.subarray(from, at));
          from = at;
          got.push(...look(cursor, file, chunk).got);
        }
        assert.deepEqual(texts(got), lines);
        let at = 0;
        for (const g of got) {
          assert.equal(g.start, at);
          at = g.end;
          assert.equal(whole.subarray(g.start, g.end).toString('utf8'), `${g.text}\n`);
        }
        assert.equal(cursor.offset, whole.length);
        assert.equal(cursor.partialBytes, 0);
      }),
      { numRuns: 300 },
    );
  });

  it('carries a line cut inside a UTF-8 character across reads and hands it whole', () => {
    const file = new FakeFile();
    const cursor = new LineCursor();
    const text = Buffer.from('héllo ✓ 日本\n', 'utf8');
    const inside = text.indexOf(Buffer.from('✓')) + 1;
    file.append(text.subarray(0, inside));
    assert.deepEqual(look(cursor, file).got, []);
    assert.equal(cursor.partialBytes, inside);
    file.append(text.subarray(inside));
    assert.deepEqual(look(cursor, file).got, [{ text: 'héllo ✓ 日本', cut: false, start: 0, end: text.length }]);
  });

  it('in pieces: every byte of a line once, views of the chunks read, its range with its last piece', () => {
    const whole = Buffer.from('first line\nsecond, a longer one\n\nfourth\npartial', 'utf8');
    for (let chunk = 1; chunk <= whole.length; chunk++) {
      const cursor = new LineCursor();
      cursor.look(whole.length);
      const lines: string[] = [];
      const ranges: string[] = [];
      let current = '';
      const sink: LinePieces<Buffer> = {
        part: (c, f, t) => void (current += c.toString('utf8', f, t)),
        line: (c, f, t, start, end) => {
          lines.push(current + c.toString('utf8', f, t));
          ranges.push(`${start}-${end}`);
          current = '';
        },
      };
      for (let r = cursor.nextRead(chunk); r; r = cursor.nextRead(chunk)) cursor.take(whole.subarray(r.offset, r.offset + r.length), sink);
      assert.deepEqual(lines, ['first line', 'second, a longer one', '', 'fourth'], `chunk ${chunk}`);
      assert.deepEqual(ranges, ['0-11', '11-32', '32-33', '33-40']);
      assert.equal(current, 'partial');
      assert.equal(cursor.partialBytes, 'partial'.length);
    }
  });

  it('lets a sink take many whole lines at once, at line starts only', () => {
    const whole = Buffer.from('aa\nbb\ncc\nbx\ndd', 'utf8');
    const cursor = new LineCursor();
    cursor.look(whole.length);
    const seen: string[] = [];
    const sink: LinePieces<Buffer> = {
      part: (c, f, t) => seen.push(`part ${c.toString('utf8', f, t)}`),
      line: (c, f, t, start, end) => seen.push(`line ${c.toString('utf8', f, t)} ${start}-${end}`),
      // Takes one line when it starts with "b" and its newline is in the chunk, else none.
      lines: (c, f, base) => {
        if (c[f] !== 0x62 || c.indexOf(0x0a, f) === -1) return f;
        seen.push(`lines at ${base + f}`);
        return c.indexOf(0x0a, f) + 1;
      },
    };
    cursor.take(whole.subarray(0, 5), sink);
    cursor.take(whole.subarray(5), sink);
    assert.deepEqual(seen, ['line aa 0-3', 'part bb', 'line  3-6', 'line cc 6-9', 'lines at 9', 'part dd']);
  });

  it('a file smaller than the offset was truncated: it starts over at byte 0 and drops the line in progress', () => {
    const file = new FakeFile();
    const cursor = new LineCursor();
    file.append('one\ntwo\nthr');
    assert.deepEqual(texts(look(cursor, file).got), ['one', 'two']);
    file.bytes = Buffer.from('new\n');
    const { got, result } = look(cursor, file);
    assert.deepEqual(result, { restarted: 'truncated', skipped: 0 });
    assert.deepEqual(got, [{ text: 'new', cut: false, start: 0, end: 4 }]);
    // Not noticed without the identity when the new file is no smaller: only the size tells.
    file.bytes = Buffer.from('new\nmore\n');
    assert.deepEqual(look(cursor, file, 1 << 20, false).result, { skipped: 0 });
  });

  it('another identity is a replacement, even a larger file: it starts over at byte 0', () => {
    const file = new FakeFile();
    const cursor = new LineCursor();
    file.append('one\npart');
    look(cursor, file);
    file.bytes = Buffer.from('a longer file\nwith lines\n');
    file.identity = 'ino-2';
    const { got, result } = look(cursor, file);
    assert.deepEqual(result, { restarted: 'replaced', skipped: 0 });
    assert.deepEqual(texts(got), ['a longer file', 'with lines']);
    assert.equal(got[0]!.start, 0);
    // A look without an identity keeps the one known.
    file.append('x\n');
    assert.deepEqual(look(cursor, file, 1 << 20, false).result, { skipped: 0 });
    file.append('y\n');
    assert.deepEqual(look(cursor, file).result, { skipped: 0 });
  });

  it('restart(): back to byte 0 at a line start, whatever was carried', () => {
    const file = new FakeFile();
    const cursor = new LineCursor({ from: 3, lineStart: false });
    file.append('ab\ncd\nef');
    look(cursor, file);
    cursor.restart();
    assert.equal(cursor.offset, 0);
    // The look under way goes on from byte 0, within the size it saw.
    assert.deepEqual(cursor.nextRead(1 << 20), { offset: 0, length: file.bytes.length });
    assert.deepEqual(texts(look(cursor, file).got), ['ab', 'cd']);
  });

  it('read limit, later: a look reads at most the limit, and the next look goes on', () => {
    const file = new FakeFile();
    file.append('aaaa\nbbbb\ncccc\n');
    const cursor = new LineCursor({ readLimit: 7 });
    const first = look(cursor, file, 3);
    assert.deepEqual(texts(first.got), ['aaaa']);
    assert.equal(first.reads, 3);
    assert.equal(cursor.offset, 7);
    assert.ok(cursor.offset < file.bytes.length);
    assert.deepEqual(texts(look(cursor, file).got), ['bbbb']);
    assert.deepEqual(texts(look(cursor, file).got), ['cccc']);
    assert.equal(cursor.offset, file.bytes.length);
  });

  it('read limit, skip: a look with more new bytes reads only the last of them; the line cut by the jump is dropped', () => {
    const file = new FakeFile();
    const cursor = new LineCursor({ readLimit: 10, overLimit: 'skip' });
    file.append('held\npart');
    assert.deepEqual(texts(look(cursor, file).got), ['held']);
    file.append('ial, a long line\nlast\n');
    const { got, result } = look(cursor, file);
    assert.deepEqual(result, { skipped: file.bytes.length - 10 - 'held\npart'.length });
    assert.deepEqual(got, [{ text: 'last', cut: false, start: file.bytes.length - 5, end: file.bytes.length }]);
    assert.equal(cursor.offset, file.bytes.length);
  });

  it('read limit, skip: a jump into a long line skips it through its newline, however many looks that takes', () => {
    const file = new FakeFile();
    const cursor = new LineCursor({ readLimit: 4, overLimit: 'skip' });
    file.append('x'.repeat(20));
    assert.deepEqual(look(cursor, file).result, { skipped: 16 });
    file.append('yy');
    assert.deepEqual(look(cursor, file).got, []);
    file.append('\nok\n');
    assert.deepEqual(texts(look(cursor, file).got), ['ok']);
  });

  it('carry bound: a line longer than maxLineBytes is handed as its head, cut, however the reads fall', () => {
    const long = 'é'.repeat(40); // 80 bytes, two per character
    const whole = Buffer.from(`short\n${long}\nafter\n`, 'utf8');
    for (let chunk = 1; chunk <= whole.length; chunk += 7) {
      const file = new FakeFile();
      file.append(whole);
      const cursor = new LineCursor({ maxLineBytes: 9 });
      const { got } = look(cursor, file, chunk);
      assert.deepEqual(
        got.map((g) => [g.text, g.cut, g.start, g.end]),
        [
          ['short', false, 0, 6],
          // Cut inside a character: the head's last byte is half of one.
          [Buffer.from(long, 'utf8').subarray(0, 9).toString('utf8'), true, 6, 87],
          ['after', false, 87, 93],
        ],
        `chunk ${chunk}`,
      );
    }
  });

  it('a start mid-file that is not a line start skips to the first newline; one that is does not', () => {
    const file = new FakeFile();
    file.append('first\nsecond\nthird\n');
    assert.deepEqual(texts(look(new LineCursor({ from: 6 }), file).got), ['third']);
    assert.deepEqual(texts(look(new LineCursor({ from: 6, lineStart: true }), file).got), ['second', 'third']);
    assert.deepEqual(texts(look(new LineCursor({ from: 0 }), file).got), ['first', 'second', 'third']);
  });

  it('a UTF-8 byte order mark at byte 0 is no part of the first line', () => {
    const file = new FakeFile();
    file.append(Buffer.from([0xef, 0xbb, 0xbf]));
    file.append('{"a":1}\n');
    assert.deepEqual(look(new LineCursor(), file).got, [{ text: '{"a":1}', cut: false, start: 3, end: 11 }]);
  });

  it('a read that comes back empty (the file ended early) ends the look; the next look reads on', () => {
    const file = new FakeFile();
    file.append('abc\ndef\n');
    const cursor = new LineCursor();
    cursor.look(file.bytes.length + 100);
    const got: string[] = [];
    cursor.takeLines(file.bytes, (b) => got.push(Buffer.from(b).toString()));
    assert.deepEqual(cursor.nextRead(1024), { offset: 8, length: 100 });
    cursor.takeLines(Buffer.alloc(0), () => assert.fail('no line'));
    assert.equal(cursor.nextRead(1024), undefined);
    assert.deepEqual(got, ['abc', 'def']);
    file.append('ghi\n');
    assert.deepEqual(texts(look(cursor, file).got), ['ghi']);
  });

  it('readEnd: the size seen, the read limit past the offset, and upTo, whichever is first (never behind the offset)', () => {
    const cursor = new LineCursor({ readLimit: 100 });
    cursor.look(1000);
    assert.equal(cursor.readEnd(), 100);
    assert.equal(cursor.readEnd(40), 40);
    cursor.take(Buffer.alloc(50, 0x61), { part: () => undefined, line: () => undefined });
    assert.equal(cursor.readEnd(40), 50);
    cursor.look(60);
    assert.equal(cursor.readEnd(), 60);
  });

  it('refuses a start that is no byte offset and a read limit below one byte', () => {
    const bad: LineCursorOptions[] = [{ from: -1 }, { from: 1.5 }, { readLimit: 0 }];
    for (const opts of bad) assert.throws(() => new LineCursor(opts), RangeError);
  });
});
