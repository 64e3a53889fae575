import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { httpConfigPathOf, loadHttpHookConfig, writeHttpHookConfig } from '../../../src/platform/httpConfigFile';

const SECRET = 'c'.repeat(43);

describe('http.json (httpHookConfig)', () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-http-config-'));
    file = await writeHttpHookConfig(dir, { port: 41877, secret: SECRET });
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is written 0600 and read back', async () => {
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(await loadHttpHookConfig(dir), { state: 'found', config: { port: 41877, secret: SECRET } });
    assert.deepEqual(await loadHttpHookConfig(path.join(dir, 'none')), { state: 'none' });
  });

  it('one readable by others is used, made 0600, and said', async function () {
    if (process.platform === 'win32') this.skip();
    fs.chmodSync(file, 0o644);
    const read = await loadHttpHookConfig(dir);
    assert.equal(read.state, 'found');
    assert.match(read.state === 'found' ? (read.warning ?? '') : '', /readable by others \(mode 0644\).*made it 0600/);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  });

  it('a symlink, a folder, one others may write, or one not ours in shape is refused', async function () {
    if (process.platform === 'win32') this.skip();
    fs.chmodSync(file, 0o664);
    assert.equal((await loadHttpHookConfig(dir)).state, 'refused');
    fs.chmodSync(file, 0o600);
    const real = path.join(dir, 'real.json');
    fs.renameSync(file, real);
    fs.symlinkSync(real, file);
    assert.deepEqual(await loadHttpHookConfig(dir), { state: 'refused', reason: `${httpConfigPathOf(dir)} is a symbolic link; not used` });
    fs.rmSync(file);
    fs.mkdirSync(file);
    assert.equal((await loadHttpHookConfig(dir)).state, 'refused');
    fs.rmdirSync(file);
    fs.writeFileSync(file, '{"port":"80","secret":"x"}', { mode: 0o600 });
    assert.equal((await loadHttpHookConfig(dir)).state, 'refused');
  });
});
