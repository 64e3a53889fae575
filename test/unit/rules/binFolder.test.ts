import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ownBinFolder, requireOwnBinFolder, STALE_BIN_TEMP_MS } from '../../../src/rules/binFolder';

const posix = process.platform !== 'win32';
const asRoot = process.getuid?.() === 0;

function tempChannel(): { root: string; channelDir: string; bin: string } {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tl-bin-')));
  const channelDir = path.join(root, '.claude', 'transcript-lag');
  return { root, channelDir, bin: path.join(channelDir, 'bin') };
}

/** A pid no process has now: one that ran and was reaped. */
function goneProcessPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

const modeOf = (p: string) => fs.statSync(p).mode & 0o7777;

describe('bin/, where the programs Claude Code runs for us are copied (src/rules/binFolder.ts)', () => {
  it('made 0700 when it is not there (the channel folder with it)', function () {
    const t = tempChannel();
    const got = ownBinFolder(t.channelDir);
    assert.deepEqual(got, { dir: t.bin, fixed: [], swept: [] });
    if (posix) {
      assert.equal(modeOf(t.bin), 0o700);
      assert.equal(modeOf(t.channelDir), 0o700);
    }
  });

  it('a symlink as bin/ is refused, even to a folder of ours; nothing is made where it points', function () {
    if (!posix) this.skip(); // symlinks need privileges on Windows
    const t = tempChannel();
    const elsewhere = path.join(t.root, 'elsewhere');
    fs.mkdirSync(elsewhere, { mode: 0o700 });
    fs.mkdirSync(t.channelDir, { recursive: true });
    fs.symlinkSync(elsewhere, t.bin);
    const got = ownBinFolder(t.channelDir);
    assert.ok('refused' in got && /is a symbolic link/.test(got.refused), JSON.stringify(got));
    assert.throws(() => requireOwnBinFolder(t.channelDir), /is a symbolic link: Claude Code would run what is copied there, so nothing was/);
    assert.deepEqual(fs.readdirSync(elsewhere), []);
  });

  it('a file as bin/ is refused and left as it is', () => {
    const t = tempChannel();
    fs.mkdirSync(t.channelDir, { recursive: true });
    fs.writeFileSync(t.bin, 'not a folder');
    const got = ownBinFolder(t.channelDir);
    assert.ok('refused' in got && /is not a folder/.test(got.refused), JSON.stringify(got));
    assert.equal(fs.readFileSync(t.bin, 'utf8'), 'not a folder');
  });

  it('ours but writable by group or others (bin/ or the channel folder): those bits taken away, the rest kept', function () {
    if (!posix) this.skip();
    const t = tempChannel();
    fs.mkdirSync(t.bin, { recursive: true });
    fs.chmodSync(t.channelDir, 0o770);
    fs.chmodSync(t.bin, 0o777);
    const got = ownBinFolder(t.channelDir);
    assert.deepEqual(got, { dir: t.bin, fixed: [t.channelDir, t.bin], swept: [] });
    assert.equal(modeOf(t.channelDir), 0o750);
    assert.equal(modeOf(t.bin), 0o755);
  });

  it("another user's bin/ or channel folder is refused, its mode left alone (root alone can make one)", function () {
    if (!posix || !asRoot) this.skip();
    for (const which of ['bin', 'channel'] as const) {
      const t = tempChannel();
      fs.mkdirSync(t.bin, { recursive: true, mode: 0o777 });
      fs.chmodSync(t.bin, 0o777);
      fs.chownSync(which === 'bin' ? t.bin : t.channelDir, 65534, 65534);
      const got = ownBinFolder(t.channelDir);
      assert.ok('refused' in got && /another user's \(uid 65534\)/.test(got.refused), JSON.stringify(got));
      assert.equal(modeOf(t.bin), 0o777, which);
    }
  });

  it("removes our copies' temp files whose process is gone, or that are stale; keeps a copy in progress and every other file", () => {
    const t = tempChannel();
    fs.mkdirSync(t.bin, { recursive: true });
    const gone = goneProcessPid();
    const names = {
      cutShort: `transcript-lag-message.js.${gone}.0a1b2c3d.tmp`,
      hookCutShort: `transcript-lag-hook.js.${gone}.deadbeef.tmp`,
      inProgress: `transcript-lag-statusline.js.${process.pid}.0a1b2c3d.tmp`,
      notOurs: `notes.js.${gone}.0a1b2c3d.tmp`,
      otherShape: `transcript-lag-message.js.${gone}.tmp`,
      tool: 'transcript-lag-message.js',
    };
    for (const n of Object.values(names)) fs.writeFileSync(path.join(t.bin, n), 'x');
    const now = Date.now();
    const got = ownBinFolder(t.channelDir, now);
    assert.ok(!('refused' in got));
    assert.deepEqual(got.swept.sort(), [path.join(t.bin, names.cutShort), path.join(t.bin, names.hookCutShort)].sort());
    assert.deepEqual(fs.readdirSync(t.bin).sort(), [names.inProgress, names.notOurs, names.otherShape, names.tool].sort());
    // The one in progress is stale too once a copy could not still be making it (its pid may be another process's by then).
    const later = ownBinFolder(t.channelDir, now + STALE_BIN_TEMP_MS + 1000);
    assert.ok(!('refused' in later));
    assert.deepEqual(later.swept, [path.join(t.bin, names.inProgress)]);
  });
});
