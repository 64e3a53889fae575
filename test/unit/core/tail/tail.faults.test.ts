import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FaultyFileAccess } from '../../helpers/faultyFileAccess';
import { bytesTail, makeTempDir, removeTempDir, texts } from '../../helpers/tailHarness';

describe('FileTail: faults', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = makeTempDir();
    file = path.join(dir, 'session.jsonl');
  });
  afterEach(() => removeTempDir(dir));

  it('re-anchors when the file is truncated in place below the offset', async () => {
    fs.writeFileSync(file, 'one\ntwo\nthree\n');
    const { tail, scanner, clock } = bytesTail(file);
    await tail.read();
    fs.truncateSync(file, 0);
    fs.appendFileSync(file, 'new\n');
    clock.advance(5);
    const read = await tail.read();
    assert.deepEqual(read.changes.map((c) => [c.kind, c.generation, c.at]), [['truncated', 2, clock.now()]]);
    assert.deepEqual(texts(read.lines), ['new']);
    assert.deepEqual(read.batch, { observedAt: clock.now(), generation: 2, firstLine: 1, lastLine: 1, byteStart: 0, byteEnd: 4 });
    assert.equal(tail.generation, 2);
    assert.equal(scanner.resets, 1);
    await tail.close();
  });

  it('drops a partial line cut by a truncation and never reports it', async () => {
    fs.writeFileSync(file, 'keep\nhalf-writ');
    const { tail, scanner } = bytesTail(file);
    await tail.read();
    fs.truncateSync(file, 7); // inside the partial line: size 7 < offset 14
    const read = await tail.read();
    assert.deepEqual(read.changes.map((c) => c.kind), ['truncated']);
    // Generation 2 starts at byte 0: the surviving complete line is reported again in it, once.
    assert.deepEqual(texts(read.lines), ['keep']);
    assert.equal(scanner.pending().toString(), 'ha');
    fs.appendFileSync(file, 'lf\n');
    assert.deepEqual(texts((await tail.read()).lines), ['half']);
    await tail.close();
  });

  it('notices a truncate-and-regrow between two reads even when the file grew past the offset', async () => {
    fs.writeFileSync(file, '{"uuid":"a"}\n{"uuid":"b"}\n');
    const { tail } = bytesTail(file);
    await tail.read();
    fs.truncateSync(file, 0);
    fs.appendFileSync(file, '{"uuid":"c"}\n{"uuid":"d"}\n{"uuid":"e"}\n');
    const read = await tail.read();
    assert.deepEqual(read.changes.map((c) => [c.kind, c.generation]), [['truncated', 2]]);
    assert.deepEqual(texts(read.lines), ['{"uuid":"c"}', '{"uuid":"d"}', '{"uuid":"e"}']);
    assert.equal(read.batch?.firstLine, 1);
    await tail.close();
  });

  it('notices a rewrite of only the end of a large file (head unchanged, size grown)', async () => {
    const head = Array.from({ length: 50 }, (_, i) => `{"line":${i},"pad":"${'p'.repeat(40)}"}`).join('\n') + '\n';
    fs.writeFileSync(file, head + '{"uuid":"old-last"}\n');
    const { tail } = bytesTail(file);
    await tail.read();
    fs.truncateSync(file, Buffer.byteLength(head));
    fs.appendFileSync(file, '{"uuid":"NEW-last-and-longer"}\n');
    const read = await tail.read();
    assert.deepEqual(read.changes.map((c) => c.kind), ['truncated']);
    assert.equal(read.lines.length, 51);
    assert.equal(read.lines[50]!.scan.toString(), '{"uuid":"NEW-last-and-longer"}');
    await tail.close();
  });

  it('does not re-anchor on plain appends, nor when nothing changed', async () => {
    fs.writeFileSync(file, 'a\n');
    const { tail, scanner } = bytesTail(file);
    await tail.read();
    assert.deepEqual((await tail.read()).changes, []);
    fs.appendFileSync(file, 'b\n');
    const read = await tail.read();
    assert.deepEqual(read.changes, []);
    assert.deepEqual(texts(read.lines), ['b']);
    assert.equal(scanner.resets, 0);
    await tail.close();
  });

  it('follows a rename-replace into a new generation, after delivering what the old file gained', async () => {
    fs.writeFileSync(file, 'old-1\n');
    const { tail } = bytesTail(file);
    await tail.read();
    fs.appendFileSync(file, 'old-2\n');
    const temp = path.join(dir, 'session.jsonl.tmp');
    fs.writeFileSync(temp, 'new-1\nnew-2\n');
    fs.renameSync(temp, file);

    const drained = await tail.read();
    assert.deepEqual(drained.changes, []);
    assert.deepEqual(texts(drained.lines), ['old-2']);
    assert.equal(drained.batch?.generation, 1);

    const switched = await tail.read();
    assert.deepEqual(switched.changes.map((c) => [c.kind, c.generation]), [['replaced', 2]]);
    assert.deepEqual(texts(switched.lines), ['new-1', 'new-2']);
    assert.deepEqual(switched.lines.map((l) => l.line), [1, 2]);
    assert.equal(switched.batch?.generation, 2);
    await tail.close();
  });

  it('reports a deletion once, keeps waiting, and reads the re-created file in the next generation', async () => {
    fs.writeFileSync(file, 'a\nb\n');
    const { tail } = bytesTail(file);
    await tail.read();
    fs.unlinkSync(file);
    const gone = await tail.read();
    assert.deepEqual(gone.changes.map((c) => [c.kind, c.generation]), [['deleted', 2]]);
    assert.equal(tail.size, 0);
    assert.equal(tail.offset, 0);
    assert.deepEqual(await tail.read(), { lines: [], changes: [] });

    fs.writeFileSync(file, 'a\n');
    const back = await tail.read();
    // One generation per incarnation: the deletion opened generation 2, the re-created file fills it.
    assert.deepEqual(back.changes.map((c) => [c.kind, c.generation]), [['recreated', 2]]);
    assert.deepEqual(texts(back.lines), ['a']);
    assert.equal(back.batch?.generation, 2);
    await tail.close();
  });

  it('delivers lines appended just before a deletion, then reports the deletion', async () => {
    fs.writeFileSync(file, 'a\n');
    const { tail } = bytesTail(file);
    await tail.read();
    fs.appendFileSync(file, 'last words\n');
    fs.unlinkSync(file);
    assert.deepEqual(texts((await tail.read()).lines), ['last words']);
    assert.deepEqual((await tail.read()).changes.map((c) => c.kind), ['deleted']);
    await tail.close();
  });

  it('reports the path turning into a folder as unreadable, once, without crashing, and recovers', async () => {
    fs.writeFileSync(file, 'a\n');
    const { tail } = bytesTail(file);
    await tail.read();
    fs.unlinkSync(file);
    fs.mkdirSync(file);
    const folder = await tail.read();
    assert.deepEqual(folder.changes.map((c) => [c.kind, c.generation, c.detail]), [['unreadable', 2, 'is a directory']]);
    assert.deepEqual(await tail.read(), { lines: [], changes: [] });

    fs.rmdirSync(file);
    fs.writeFileSync(file, 'b\n');
    const back = await tail.read();
    assert.deepEqual(back.changes.map((c) => [c.kind, c.generation]), [['recreated', 2]]);
    assert.deepEqual(texts(back.lines), ['b']);
    await tail.close();
  });

  it('reports a path that is a folder from the start as unreadable', async () => {
    fs.mkdirSync(file);
    const { tail } = bytesTail(file);
    const read = await tail.read();
    assert.deepEqual(read.changes.map((c) => [c.kind, c.generation]), [['unreadable', 1]]);
    assert.deepEqual(await tail.read(), { lines: [], changes: [] });
    await tail.close();
  });

  it('reports permission denied on open as unreadable and retries on the next read', async () => {
    fs.writeFileSync(file, 'a\nb\n');
    const files = new FaultyFileAccess();
    files.fail('open', 'EACCES');
    const { tail } = bytesTail(file, { files });
    const denied = await tail.read();
    assert.deepEqual(denied.changes.map((c) => [c.kind, c.detail]), [['unreadable', 'EACCES']]);
    assert.deepEqual(await tail.read(), { lines: [], changes: [] });
    files.heal();
    const back = await tail.read();
    assert.deepEqual(back.changes.map((c) => c.kind), ['recreated']);
    assert.deepEqual(texts(back.lines), ['a', 'b']);
    await tail.close();
  });

  it('gives up an open file whose reads fail, in a new generation, and re-reads it from 0 when it heals', async () => {
    fs.writeFileSync(file, 'a\n');
    const files = new FaultyFileAccess();
    const { tail } = bytesTail(file, { files });
    await tail.read();
    fs.appendFileSync(file, 'b\n');
    files.fail('read', 'EIO');
    const failed = await tail.read();
    assert.deepEqual(failed.changes.map((c) => [c.kind, c.generation, c.detail]), [['unreadable', 2, 'EIO']]);
    assert.deepEqual(failed.lines, []);
    files.heal();
    const back = await tail.read();
    assert.deepEqual(back.changes.map((c) => [c.kind, c.generation]), [['recreated', 2]]);
    assert.deepEqual(texts(back.lines), ['a', 'b']);
    await tail.close();
  });

  it('reports a path it may not stat as unreadable and recovers', async () => {
    fs.writeFileSync(file, 'a\n');
    const files = new FaultyFileAccess();
    const { tail } = bytesTail(file, { files });
    await tail.read();
    files.fail('stat', 'EACCES');
    assert.deepEqual((await tail.read()).changes.map((c) => c.kind), ['unreadable']);
    files.heal();
    fs.appendFileSync(file, 'b\n');
    const back = await tail.read();
    assert.deepEqual(back.changes.map((c) => c.kind), ['recreated']);
    assert.deepEqual(texts(back.lines), ['a', 'b']);
    await tail.close();
  });

  it('reports a replacement it cannot open as replaced then unreadable, and drops the pushed partial', async () => {
    fs.writeFileSync(file, 'a\npart');
    const files = new FaultyFileAccess();
    const { tail, scanner } = bytesTail(file, { files });
    await tail.read();
    assert.equal(scanner.pending().toString(), 'part');
    fs.writeFileSync(file + '.tmp', 'z\n');
    fs.renameSync(file + '.tmp', file);
    files.fail('open', 'EACCES');
    const read = await tail.read();
    assert.deepEqual(read.changes.map((c) => [c.kind, c.generation]), [['replaced', 2], ['unreadable', 2]]);
    assert.equal(scanner.pending().length, 0);
    files.heal();
    const back = await tail.read();
    assert.deepEqual(back.changes.map((c) => [c.kind, c.generation]), [['recreated', 2]]);
    assert.deepEqual(texts(back.lines), ['z']);
    await tail.close();
  });

  it('keeps its open handle between reads', async () => {
    fs.writeFileSync(file, 'a\n');
    const files = new FaultyFileAccess();
    const { tail } = bytesTail(file, { files });
    for (let i = 0; i < 5; i++) {
      fs.appendFileSync(file, `${i}\n`);
      await tail.read();
    }
    assert.equal(files.opens, 1);
    await tail.close();
  });
});
