import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { findNodeOnPath } from '../../../src/platform/nodeOnPath';
import { pickNodeRuntime } from '../../../src/vscode/nodeRuntime';

// The runtime Install Hook writes into settings.json: `node` on PATH, else the
// editor's own runtime. Real temp folders with real executable bits.
describe('vscode: node runtime for the hook', () => {
  let root: string;
  const dir = (name: string) => {
    const d = path.join(root, name);
    fs.mkdirSync(d, { recursive: true });
    return d;
  };
  const exe = (d: string, mode = 0o755) => {
    const p = path.join(d, 'node');
    fs.writeFileSync(p, '#!/bin/sh\n');
    fs.chmodSync(p, mode);
    return p;
  };

  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-noderuntime-'));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('takes the first executable node on PATH, skipping non-executables and folders', async function () {
    if (process.platform === 'win32') this.skip(); // no execute bits there: PATHEXT decides
    exe(dir('a'), 0o644);
    fs.mkdirSync(path.join(dir('b'), 'node'));
    const good = exe(dir('c'));
    exe(dir('d'));
    assert.equal(await findNodeOnPath(['a', 'b', 'c', 'd'].map((d) => path.join(root, d)).join(':'), 'linux'), good);
  });

  it('returns an absolute path for a relative PATH entry', async () => {
    const d = dir('rel');
    exe(d);
    const relative = path.relative(process.cwd(), d);
    const found = await findNodeOnPath(relative, 'linux');
    assert.ok(found && path.isAbsolute(found), String(found));
    assert.equal(found, path.join(d, 'node'));
  });

  it('finds nothing on an empty or missing PATH', async () => {
    assert.equal(await findNodeOnPath('', 'linux'), undefined);
    assert.equal(await findNodeOnPath(undefined, 'linux'), undefined);
    assert.equal(await findNodeOnPath(path.join(root, 'nowhere'), 'linux'), undefined);
  });

  it('falls back to the editor runtime, as Node through ELECTRON_RUN_AS_NODE under Electron', async () => {
    const env = { PATH: dir('empty') };
    const electron = await pickNodeRuntime(env, '/opt/code/code', true);
    assert.deepEqual(electron, { command: '/opt/code/code', env: { ELECTRON_RUN_AS_NODE: '1' }, source: 'editor' });
    const nodeHost = await pickNodeRuntime(env, '/usr/lib/code-server/lib/node', false);
    assert.deepEqual(nodeHost, { command: '/usr/lib/code-server/lib/node', env: {}, source: 'editor' });
  });

  it('prefers node on PATH over the editor runtime', async () => {
    const p = exe(dir('bin'));
    const r = await pickNodeRuntime({ PATH: path.dirname(p) }, '/opt/code/code', true);
    assert.deepEqual(r, { command: p, env: {}, source: 'path' });
  });
});
