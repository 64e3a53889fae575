import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { NotASmallFileError, readSmallFile, type FileAccess } from '../../../src/rules/fileAccess';
import { nodeFileAccess as asyncAccess, nodeFileAccessSync } from '../../../src/rules/nodeFileAccess';
import { BoundedFileAccess } from '../../../src/core/boundedFileAccess';

// The two answer alike: through the thread pool (the engine), and through the synchronous calls (the plugin's SessionStart fold).
for (const [accessName, nodeFileAccess] of [['nodeFileAccess', asyncAccess], ['nodeFileAccessSync', nodeFileAccessSync]] as [string, FileAccess][]) describe(`${accessName}: the real file system`, () => {
  let tmp: string;
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-files-'));
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('stats, lists, reads and opens; a missing path is undefined or empty, other errors throw', async () => {
    const file = path.join(tmp, 'a.jsonl');
    fs.writeFileSync(file, 'hello\nworld\n');
    const id = await nodeFileAccess.stat(file);
    assert.deepEqual({ size: id?.size, isFile: id?.isFile, isDirectory: id?.isDirectory }, { size: 12, isFile: true, isDirectory: false });
    assert.equal(id?.ino, fs.statSync(file).ino);
    assert.equal(await nodeFileAccess.stat(path.join(tmp, 'none')), undefined);
    assert.equal(await nodeFileAccess.stat(path.join(file, 'below-a-file')), undefined, 'ENOTDIR counts as missing');
    assert.deepEqual(await nodeFileAccess.readdir(tmp), ['a.jsonl']);
    assert.deepEqual(await nodeFileAccess.readdir(path.join(tmp, 'none')), []);
    assert.equal((await readSmallFile(nodeFileAccess, file, 12)).toString(), 'hello\nworld\n');
    await assert.rejects(readSmallFile(nodeFileAccess, path.join(tmp, 'none'), 12), { code: 'ENOENT' });
    await assert.rejects(nodeFileAccess.open(path.join(tmp, 'none')), { code: 'ENOENT' });

    const handle = await nodeFileAccess.open(file);
    const buffer = Buffer.alloc(8);
    assert.equal(await handle.read(buffer, 2, 5, 6), 5);
    assert.equal(buffer.subarray(2, 7).toString(), 'world');
    assert.equal(await handle.read(buffer, 0, 8, 100), 0, 'past the end');
    assert.equal((await handle.stat()).ino, id?.ino);
    await handle.close();
    await assert.rejects(handle.read(buffer, 0, 1, 0), { code: 'EBADF' });
  });

  it('readdir with `each` hands every name over once as it reads them and returns none; without it, all of them sorted', async () => {
    // More names than one read into the thread pool takes (1024), and a few more.
    const names = Array.from({ length: 2500 }, (_, i) => `n${String(i).padStart(5, '0')}.json`);
    for (const n of names) fs.writeFileSync(path.join(tmp, n), '');
    const handed: string[] = [];
    assert.deepEqual(await nodeFileAccess.readdir(tmp, (n) => handed.push(n)), []);
    assert.deepEqual(handed.sort(), names);
    assert.deepEqual(await nodeFileAccess.readdir(tmp), names);
    assert.deepEqual(await new BoundedFileAccess(nodeFileAccess, 4).readdir(tmp, (n) => handed.push(n)), [], 'the bounded access passes `each` on');
    assert.equal(handed.length, 2 * names.length);
    let none = 0;
    assert.deepEqual(await nodeFileAccess.readdir(path.join(tmp, 'none'), () => none++), []);
    assert.equal(none, 0);
    assert.deepEqual(await nodeFileAccess.readdir(path.join(tmp, names[0]), () => none++), [], 'ENOTDIR counts as missing, as without `each`');
    assert.equal(none, 0);
  });

  it('closes once: a second close() does not close the file that took over the descriptor number', async () => {
    const a = path.join(tmp, 'a');
    const b = path.join(tmp, 'b');
    fs.writeFileSync(a, 'A');
    fs.writeFileSync(b, 'B');
    const first = await nodeFileAccess.open(a);
    await first.close();
    const second = await nodeFileAccess.open(b); // the lowest free descriptor: most likely the one just closed
    await first.close();
    const buffer = Buffer.alloc(1);
    assert.equal(await second.read(buffer, 0, 1, 0), 1);
    assert.equal(buffer.toString(), 'B');
    await second.close();
  });

  it('readSmallFile reads regular files only, of bounded size: a FIFO, /dev/zero, a directory or a big file is refused at once', async function () {
    if (process.platform === 'win32') this.skip();
    const fifo = path.join(tmp, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const zero = path.join(tmp, 'zero');
    fs.symlinkSync('/dev/zero', zero);
    const big = path.join(tmp, 'big');
    fs.writeFileSync(big, 'x'.repeat(13));
    const notRegular = { name: 'NotASmallFileError', reason: 'not a regular file' };
    await assert.rejects(readSmallFile(nodeFileAccess, fifo, 4096), notRegular);
    await assert.rejects(readSmallFile(nodeFileAccess, zero, 4096), notRegular);
    await assert.rejects(readSmallFile(nodeFileAccess, tmp, 4096), (err: unknown) => err instanceof NotASmallFileError || (err as NodeJS.ErrnoException).code === 'EISDIR');
    await assert.rejects(readSmallFile(nodeFileAccess, big, 12), { name: 'NotASmallFileError', reason: 'too large' });
    assert.equal((await readSmallFile(nodeFileAccess, big, 13)).length, 13);
  });

  it('readSmallFile stops at its bound when the file grows after its fstat', async () => {
    const file = path.join(tmp, 'growing');
    fs.writeFileSync(file, 'abc');
    // A file that says 3 bytes and then reads like /dev/zero, as one written to between fstat and read would.
    const growing = {
      ...nodeFileAccess,
      open: async (p: string) => {
        const inner = await nodeFileAccess.open(p);
        return { ...inner, read: async (b: Buffer, o: number, l: number) => (b.fill(0x61, o, o + l), l) };
      },
    };
    await assert.rejects(readSmallFile(growing, file, 100), { reason: 'too large' });
  });
});

