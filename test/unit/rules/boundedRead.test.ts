import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readBounded } from '../../../src/rules/boundedRead';

describe('readBounded: files that are someone else\'s input', function () {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-bounded-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('noFollow: a symlink is not opened, though the file it names is read through it otherwise', function () {
    if (process.platform === 'win32') this.skip();
    const target = path.join(dir, 'target.json');
    fs.writeFileSync(target, 'secret');
    const link = path.join(dir, 'link.json');
    fs.symlinkSync(target, link);
    assert.equal(readBounded(link, 1024, 'whole')?.bytes.toString(), 'secret');
    assert.equal(readBounded(link, 1024, 'whole', true), undefined);
    assert.equal(readBounded(target, 1024, 'whole', true)?.bytes.toString(), 'secret');
  });

  it('whole: a file over the bound is not read; end: only its last bytes', function () {
    const file = path.join(dir, 'f');
    fs.writeFileSync(file, '0123456789');
    assert.equal(readBounded(file, 9, 'whole'), undefined);
    assert.deepEqual(readBounded(file, 4, 'end'), { bytes: Buffer.from('6789'), start: 6, size: 10 });
  });
});
