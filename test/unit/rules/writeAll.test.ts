import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { WRITE_WAIT_ENV, WRITE_WAIT_MS, writeAll, writeDeadline } from '../../../src/rules/writeAll';

describe('writeAll: a command\'s whole output, or false', function () {
  it('the bound: WRITE_WAIT_MS unless the environment gives decimal milliseconds', function () {
    const waits = (v: string | undefined, ms: number) => {
      const before = performance.now();
      const deadline = writeDeadline(v === undefined ? {} : { [WRITE_WAIT_ENV]: v });
      return deadline >= before + ms && deadline <= performance.now() + ms;
    };
    assert.ok(waits(undefined, WRITE_WAIT_MS));
    assert.ok(waits('250', 250));
    for (const bad of ['', '-5', '1e3', '0x10', ' 42', '12345678']) assert.ok(waits(bad, WRITE_WAIT_MS), bad);
  });

  describe('on a FIFO (POSIX)', function () {
    let dir: string;
    let fifo: string;
    before(function () {
      if (process.platform === 'win32') this.skip();
    });
    beforeEach(function () {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-write-all-'));
      fifo = path.join(dir, 'p');
      execFileSync('mkfifo', [fifo]);
    });
    afterEach(function () {
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('a full non-blocking pipe nobody reads: false once the bound has passed, not before', function () {
      const r = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
      const w = fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
      try {
        const started = performance.now();
        assert.equal(writeAll(w, Buffer.alloc(1 << 20), started + 50), false);
        assert.ok(performance.now() - started >= 50);
      } finally {
        fs.closeSync(w);
        fs.closeSync(r);
      }
    });

    it('a reader that has gone (EPIPE) is not a failure: it chose to read no more', function () {
      const r = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
      const w = fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
      fs.closeSync(r);
      try {
        assert.equal(writeAll(w, 'answer\n', performance.now() + 1000), true);
      } finally {
        fs.closeSync(w);
      }
    });
  });

  it('any other failure is false at once (a closed descriptor)', function () {
    const fd = fs.openSync(os.devNull, 'w');
    fs.closeSync(fd);
    assert.equal(writeAll(fd, 'answer\n', performance.now() + 10_000), false);
  });
});
