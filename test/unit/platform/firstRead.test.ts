import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FirstReadWatch, readsShowIn } from '../../../src/platform/firstRead';

describe("replay: a hook's first read of its copy, by the copy's access time", () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-first-read-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a read shows; a stat, a size asked of the shell, the copy grown by us do not; the mtime kept', function () {
    if (!readsShowIn(dir)) this.skip(); // a file system that keeps no access time
    const copy = path.join(dir, 'copy.jsonl');
    fs.writeFileSync(copy, '{"type":"user"}\n');
    const mtime = fs.statSync(copy).mtimeMs;
    const watch = new FirstReadWatch(copy);
    assert.ok(Math.abs(fs.statSync(copy).mtimeMs - mtime) < 1, 'only the atime is set back');
    fs.statSync(copy);
    if (process.platform !== 'win32') execFileSync('sh', ['-c', `wc -c < '${copy}' >/dev/null`]);
    fs.appendFileSync(copy, '{"type":"assistant"}\n');
    assert.equal(watch.readSince(), false);
    fs.readFileSync(copy);
    assert.equal(watch.readSince(), true);
  });

  it('leaves no probe file behind, and a folder that is not there shows nothing', () => {
    readsShowIn(dir);
    assert.deepEqual(fs.readdirSync(dir), []);
    assert.equal(readsShowIn(path.join(dir, 'gone')), false);
  });
});
