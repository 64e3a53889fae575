import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { installHookEntries } from '../../src/core/settings/hookSettings';
import { SETTINGS_BACKUP_SUFFIX, SettingsFileError, updateSettingsFile } from '../../src/platform/settingsFile';

const spec = { command: "'/n' '/h/transcript-lag-hook.js'", timeoutSec: 5 };
const install = (text: string) => installHookEntries(text, spec);

function tempDir(): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tl-settings-')));
}

describe('settings file writer', () => {
  it('creates a missing file (and its folder), 0600, without a backup', async () => {
    const dir = path.join(tempDir(), 'new-claude');
    const file = path.join(dir, 'settings.json');
    const r = await updateSettingsFile(file, install);
    assert.deepEqual([r.changed, r.created, r.backupPath], [true, true, undefined]);
    assert.equal(fs.readFileSync(file, 'utf8'), install(''));
    if (process.platform !== 'win32') assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.ok(!fs.existsSync(file + SETTINGS_BACKUP_SUFFIX));
  });

  it('backs up the old content and replaces the file keeping its mode, leaving no temp file', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'settings.json');
    const old = '{\n  // mine\n  "model": "opus"\n}\n';
    fs.writeFileSync(file, old);
    fs.chmodSync(file, 0o640);
    const inodeBefore = fs.statSync(file).ino;
    const r = await updateSettingsFile(file, install);
    assert.equal(r.changed, true);
    assert.equal(fs.readFileSync(r.backupPath!, 'utf8'), old);
    assert.equal(r.backupPath, file + '.transcript-lag.bak');
    assert.equal(fs.readFileSync(file, 'utf8'), install(old));
    if (process.platform !== 'win32') {
      assert.equal(fs.statSync(file).mode & 0o777, 0o640);
      assert.equal(fs.statSync(r.backupPath!).mode & 0o777, 0o640);
      assert.notEqual(fs.statSync(file).ino, inodeBefore, 'replaced by rename, not rewritten in place');
    }
    assert.deepEqual(fs.readdirSync(dir).sort(), ['settings.json', 'settings.json.transcript-lag.bak']);
  });

  it('writes nothing, not even a backup, when the edit changes nothing', async () => {
    const file = path.join(tempDir(), 'settings.json');
    fs.writeFileSync(file, install('{}'));
    const r = await updateSettingsFile(file, install);
    assert.equal(r.changed, false);
    assert.ok(!fs.existsSync(file + SETTINGS_BACKUP_SUFFIX));
  });

  it('refuses invalid JSON with a clear message and leaves the file untouched', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'settings.json');
    const broken = '{ "model": "opus", }';
    fs.writeFileSync(file, broken);
    const mtime = fs.statSync(file).mtimeMs;
    await assert.rejects(updateSettingsFile(file, install), (e: unknown) => {
      return e instanceof SettingsFileError && e.kind === 'invalid' && e.message.includes(file) && /not valid JSON/.test(e.message) && /untouched/.test(e.message);
    });
    assert.equal(fs.readFileSync(file, 'utf8'), broken);
    assert.equal(fs.statSync(file).mtimeMs, mtime);
    assert.deepEqual(fs.readdirSync(dir), ['settings.json']);
  });

  it('refuses a read-only file with a clear message (even as root), untouched; a no-op on it is fine', async function () {
    if (process.platform === 'win32') this.skip();
    const dir = tempDir();
    const file = path.join(dir, 'settings.json');
    fs.writeFileSync(file, '{"model":"opus"}');
    fs.chmodSync(file, 0o444);
    await assert.rejects(updateSettingsFile(file, install), (e: unknown) => e instanceof SettingsFileError && e.kind === 'read-only' && /read-only \(mode 0444\)/.test(e.message));
    assert.equal(fs.readFileSync(file, 'utf8'), '{"model":"opus"}');
    assert.deepEqual(fs.readdirSync(dir), ['settings.json']);
    assert.equal((await updateSettingsFile(file, (t) => t)).changed, false);
  });

  it('refuses a folder where the file should be', async () => {
    const file = path.join(tempDir(), 'settings.json');
    fs.mkdirSync(file);
    await assert.rejects(updateSettingsFile(file, install), (e: unknown) => e instanceof SettingsFileError && e.kind === 'not-a-file');
  });

  it('writes through a symlinked settings.json to its target, keeping the link', async function () {
    if (process.platform === 'win32') this.skip();
    const dir = tempDir();
    const real = path.join(dir, 'dotfiles-settings.json');
    fs.writeFileSync(real, '{}');
    const link = path.join(dir, 'settings.json');
    fs.symlinkSync(real, link);
    await updateSettingsFile(link, install);
    assert.ok(fs.lstatSync(link).isSymbolicLink());
    assert.equal(fs.readFileSync(real, 'utf8'), install('{}'));
  });
});
