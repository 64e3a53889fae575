import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PrefixCopy, SourceFile } from '../../../src/platform/prefixCopy';
import { FirstReadWatch } from '../../../src/platform/firstRead';

describe("replay's copies: the first N bytes of the session's file", () => {
  let dir: string;
  let source: SourceFile;
  let src: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-prefix-copy-'));
    src = path.join(dir, 'source.jsonl');
    fs.writeFileSync(src, 'aaaa\nbbbb\ncccc\n');
    source = new SourceFile(src);
  });
  afterEach(() => {
    fs.closeSync(source.fd);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  // The source's first line is changed in place after the first copy: a copy grown by appending keeps
  // the old bytes, one made again from 0 has the new ones. How each case is told apart, from outside.
  const changeSourceHead = () => {
    const fd = fs.openSync(src, 'r+');
    fs.writeSync(fd, 'AAAA', 0);
    fs.closeSync(fd);
  };

  it('grows by appending what was added, and is made again when something else changed it', () => {
    const copy = new PrefixCopy(source, path.join(dir, 'copy', 'c.jsonl'));
    copy.setLength(5);
    changeSourceHead();
    copy.setLength(10);
    assert.equal(fs.readFileSync(copy.dest, 'utf8'), 'aaaa\nbbbb\n', 'appended');
    fs.utimesSync(copy.dest, new Date(0), new Date(0));
    copy.setLength(15);
    assert.equal(fs.readFileSync(copy.dest, 'utf8'), 'AAAA\nbbbb\ncccc\n', 'made again');
  });

  it('times set back for a first-read watch, said by timesSetByUs, leave it intact', () => {
    const copy = new PrefixCopy(source, path.join(dir, 'copy', 'c.jsonl'));
    copy.setLength(5);
    changeSourceHead();
    new FirstReadWatch(copy.dest);
    copy.timesSetByUs();
    copy.setLength(10);
    assert.equal(fs.readFileSync(copy.dest, 'utf8'), 'aaaa\nbbbb\n');
  });
});
