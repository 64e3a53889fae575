import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { endQuietlyOnClosedPipe } from '../../../src/cli/io';
import { toolResultRecord, toolUseRecord, userPrompt } from '../helpers/engineFixture';

const epipe = () => Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });

describe('CLI: a closed output pipe', () => {
  it('stdout EPIPE (or EIO, a terminal that hung up) ends the command with exit 0; stderr EPIPE is ignored; other errors still throw', () => {
    const stdout = new EventEmitter();
    const stderr = new EventEmitter();
    const exits: number[] = [];
    endQuietlyOnClosedPipe(stdout, stderr, (code) => exits.push(code));
    stderr.emit('error', epipe());
    assert.deepEqual(exits, []);
    stdout.emit('error', epipe());
    assert.deepEqual(exits, [0]);
    stdout.emit('error', Object.assign(new Error('write EIO'), { code: 'EIO' }));
    assert.deepEqual(exits, [0, 0]);
    stderr.emit('error', Object.assign(new Error('write EIO'), { code: 'EIO' }));
    assert.throws(() => stdout.emit('error', Object.assign(new Error('ENOSPC'), { code: 'ENOSPC' })), /ENOSPC/);
    assert.throws(() => stderr.emit('error', Object.assign(new Error('ENOSPC'), { code: 'ENOSPC' })), /ENOSPC/);
  });

  it('`analyze f --json | head -c1`: no unhandled EPIPE, exit 0', function () {
    if (process.platform === 'win32') this.skip();
    this.timeout(60_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-epipe-'));
    try {
      const file = path.join(dir, 's.jsonl');
      const S = 'e0000000-0000-4000-8000-00000000000e';
      const lines = [userPrompt(S, dir)];
      // Enough calls that the JSON is far bigger than a pipe's buffer, so writes go on after head has left.
      for (let i = 0; i < 3000; i++) lines.push(toolUseRecord(S, dir, `toolu_${i}`), toolResultRecord(S, dir, `toolu_${i}`));
      fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
      const main = path.resolve(__dirname, '../../../src/cli/main.ts');
      // pipefail: the pipeline's status is the CLI's, not head's.
      const res = spawnSync('bash', ['-c', `set -o pipefail; "${process.execPath}" -r tsx/cjs "${main}" analyze "${file}" --json | head -c1 >/dev/null`], {
        encoding: 'utf8',
        cwd: path.resolve(__dirname, '../../..'),
      });
      assert.equal(res.status, 0, res.stderr);
      assert.doesNotMatch(res.stderr, /EPIPE|Unhandled|Error/, res.stderr);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
