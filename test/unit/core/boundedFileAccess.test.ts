import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BoundedFileAccess, type FileLimitNotice } from '../../../src/core/boundedFileAccess';
import { FaultyFileAccess } from '../helpers/faultyFileAccess';
import { bytesTail, makeTempDir, removeTempDir, texts } from '../helpers/tailHarness';

describe('BoundedFileAccess', () => {
  let dir: string;
  beforeEach(() => {
    dir = makeTempDir();
  });
  afterEach(() => removeTempDir(dir));

  const write = (name: string, text: string) => {
    const p = path.join(dir, name);
    fs.writeFileSync(p, text);
    return p;
  };

  it('holds at most maxOpen descriptors while tails of more files read on', async () => {
    const inner = new FaultyFileAccess();
    const files = new BoundedFileAccess(inner, 3);
    const paths = Array.from({ length: 10 }, (_, i) => write(`f${i}.jsonl`, `first ${i}\n`));
    const tails = paths.map((p) => bytesTail(p, { files }).tail);
    for (const t of tails) assert.deepEqual(texts((await t.read()).lines).length, 1);
    paths.forEach((p, i) => fs.appendFileSync(p, `second ${i}\n`));
    for (const [i, t] of tails.entries()) assert.deepEqual(texts((await t.read()).lines), [`second ${i}`]);
    assert.ok(inner.openPeak <= 3, `peak ${inner.openPeak}`);
    assert.ok(files.openHandles <= 3);
    for (const t of tails) await t.close();
    assert.equal(inner.openNow, 0);
  });

  it('a file replaced while its handle was closed is reported replaced, not read as the old one', async () => {
    const files = new BoundedFileAccess(new FaultyFileAccess(), 1);
    const a = write('a.jsonl', 'a1\n');
    const b = write('b.jsonl', 'b1\n');
    const ta = bytesTail(a, { files }).tail;
    const tb = bytesTail(b, { files }).tail;
    await ta.read();
    await tb.read(); // closes a's descriptor
    // Another file, starting with the same bytes: only its identity tells it from the old one grown.
    fs.renameSync(write('a2.tmp', 'a1\nother\n'), a);
    const read = await ta.read();
    assert.deepEqual(read.changes.map((c) => c.kind), ['replaced']);
    assert.deepEqual(texts(read.lines), ['a1', 'other']);
    await ta.close();
    await tb.close();
  });

  it('a file truncated and regrown while its handle was closed is reported truncated', async () => {
    const files = new BoundedFileAccess(new FaultyFileAccess(), 1);
    const a = write('a.jsonl', '{"uuid":"a"}\n{"uuid":"b"}\n');
    const b = write('b.jsonl', 'b1\n');
    const ta = bytesTail(a, { files }).tail;
    const tb = bytesTail(b, { files }).tail;
    await ta.read();
    await tb.read();
    fs.writeFileSync(a, '{"uuid":"x"}\n{"uuid":"y"}\n{"uuid":"z"}\n');
    const read = await ta.read();
    assert.deepEqual(read.changes.map((c) => c.kind), ['truncated']);
    assert.deepEqual(texts(read.lines), ['{"uuid":"x"}', '{"uuid":"y"}', '{"uuid":"z"}']);
    await ta.close();
    await tb.close();
  });

  it('on EMFILE closes an idle handle, opens again, lowers its bound and says so', async () => {
    const inner = new FaultyFileAccess();
    inner.limitOpenHandles(2);
    const notices: FileLimitNotice[] = [];
    const files = new BoundedFileAccess(inner, 50, (n) => notices.push(n));
    const tails = [0, 1, 2, 3].map((i) => bytesTail(write(`f${i}.jsonl`, `line ${i}\n`), { files }).tail);
    for (const [i, t] of tails.entries()) assert.deepEqual(texts((await t.read()).lines), [`line ${i}`]);
    assert.deepEqual(notices.map((n) => [n.code, n.recovered, n.openHandles]), [['EMFILE', true, 2]]);
    assert.equal(files.limit, 1);
    for (const t of tails) await t.close();
  });

  it('says so, and fails the open, when there is no idle handle to close', async () => {
    const inner = new FaultyFileAccess();
    inner.limitOpenHandles(0, 'ENFILE');
    const notices: FileLimitNotice[] = [];
    const files = new BoundedFileAccess(inner, 5, (n) => notices.push(n));
    await assert.rejects(files.open(write('a.jsonl', 'x\n')), /ENFILE/);
    assert.deepEqual(notices.map((n) => [n.code, n.recovered]), [['ENFILE', false]]);
  });
});
