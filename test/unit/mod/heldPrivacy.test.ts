import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ModHarness, messageRows } from './modHarness';

// docs/HELD-MESSAGE.md: the held folder, held/ and the channel folder are 0700; "if it cannot make it
// private, it writes no file". The user may delete transcript-lag/ at any time (issue 30 §6).
describe('mod: the held message folder is private at every write', () => {
  let h: ModHarness;
  let umask: number;
  beforeEach(function () {
    if (process.platform === 'win32') this.skip(); // modes: POSIX
    // The default mode a folder gets is what the umask leaves: 0755 here, as on most machines.
    umask = process.umask(0o022);
  });
  afterEach(() => {
    h?.dispose();
    if (umask !== undefined) process.umask(umask);
  });

  const modes = () =>
    [h.claudePath('transcript-lag'), h.claudePath('transcript-lag', 'held'), path.dirname(h.heldFile('x'))].map((d) => (fs.statSync(d).mode & 0o777).toString(8));

  it('transcript-lag/ deleted mid-session: the next held message lands in folders made 0700 again', async () => {
    h = new ModHarness();
    await h.start();
    h.rows = messageRows('toolu_01A');
    await (await h.call('toolu_01A')).finish();
    assert.ok(fs.existsSync(h.heldFile('toolu_01A')));
    assert.deepEqual(modes(), ['700', '700', '700']);
    fs.rmSync(h.claudePath('transcript-lag'), { recursive: true });
    h.rows = [...h.rows, ...messageRows('toolu_01B', 'Second step.')];
    await h.call('toolu_01B');
    assert.deepEqual(JSON.parse(fs.readFileSync(h.heldFile('toolu_01B'), 'utf8')).text_blocks, ['Second step.']);
    assert.deepEqual(modes(), ['700', '700', '700']);
    assert.equal(fs.statSync(h.heldFile('toolu_01B')).mode & 0o777, 0o600);
  });

  it('deleted, and it cannot be made private again: no file is written, and the call goes on', async () => {
    h = new ModHarness();
    await h.start();
    h.rows = messageRows('toolu_01A');
    await (await h.call('toolu_01A')).finish();
    assert.ok(fs.existsSync(h.heldFile('toolu_01A')));
    fs.rmSync(h.claudePath('transcript-lag'), { recursive: true });
    h.runFails = (argv) => (argv[0] === 'chmod' ? 1 : undefined);
    h.rows = [...h.rows, ...messageRows('toolu_01B')];
    const call = await h.call('toolu_01B');
    assert.equal(fs.existsSync(h.heldFile('toolu_01B')), false);
    // Still reported and listed: only the message is not kept.
    assert.ok(h.listed().includes('toolu_01B'));
    await call.finish();
    assert.deepEqual(h.spooled().filter((e) => e.tool_use_id === 'toolu_01B').map((e) => e.event), ['pre', 'post']);
  });
});
