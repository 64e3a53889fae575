import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { nodeFileAccess } from '../../src/platform/nodeFileAccess';

describe('nodeFileAccess: the real file system', () => {
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
    assert.equal((await nodeFileAccess.readFile(file)).toString(), 'hello\nworld\n');
    await assert.rejects(nodeFileAccess.readFile(path.join(tmp, 'none')), { code: 'ENOENT' });
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
});
