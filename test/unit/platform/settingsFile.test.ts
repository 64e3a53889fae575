import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { installHookEntries, uninstallHookEntries } from '../../../src/core/settings/hookEntries';
import { SETTINGS_BACKUP_SUFFIX, SettingsFileError, updateSettingsFile } from '../../../src/platform/settingsFile';
import { RENAME_RETRY_DELAYS_MS } from '../../../src/rules/renameReplacing';
import { heldOpenByAnother } from '../helpers/heldOpenRename';

const spec = { command: "'/n' '/h/transcript-lag/bin/transcript-lag-hook.js' --channel-dir '/h/transcript-lag'", timeoutSec: 5 };
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

  it('keeps bytes that are not valid UTF-8, in the file and in the backup', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'settings.json');
    // "café" in Latin-1, and a lone continuation byte in a comment.
    const old = Buffer.concat([Buffer.from('{\n  // r\x80sum\u00e9\n  "name": "caf', 'latin1'), Buffer.of(0xe9), Buffer.from('"\n}\n')]);
    fs.writeFileSync(file, old);
    const r = await updateSettingsFile(file, install);
    assert.deepEqual(fs.readFileSync(r.backupPath!), old);
    const after = fs.readFileSync(file);
    assert.ok(after.includes(Buffer.from('"name": "caf\xe9"', 'latin1')), after.toString('latin1'));
    assert.ok(after.includes(Buffer.from('// r\x80sum\xe9', 'latin1')));
    assert.ok(!after.includes(Buffer.from('\ufffd')), 'no replacement character');
    await updateSettingsFile(file, uninstallHookEntries);
    assert.deepEqual(fs.readFileSync(file), old);
  });

  it('keeps a byte order mark: the file still starts with EF BB BF, once', async () => {
    const file = path.join(tempDir(), 'settings.json');
    const old = Buffer.concat([Buffer.of(0xef, 0xbb, 0xbf), Buffer.from('{\n  "model": "opus"\n}\n')]);
    fs.writeFileSync(file, old);
    await updateSettingsFile(file, install);
    const after = fs.readFileSync(file);
    assert.deepEqual([...after.subarray(0, 4)], [0xef, 0xbb, 0xbf, 0x7b]);
    assert.equal(after.indexOf(Buffer.of(0xef, 0xbb, 0xbf), 1), -1);
    await updateSettingsFile(file, uninstallHookEntries);
    assert.deepEqual(fs.readFileSync(file), old);
  });

  it('writes through a dangling symlink to where it points, keeping the link', async function () {
    if (process.platform === 'win32') this.skip();
    const dir = tempDir();
    const real = path.join(dir, 'dotfiles', 'claude', 'settings.json');
    fs.mkdirSync(path.dirname(real), { recursive: true });
    const link = path.join(dir, 'settings.json');
    fs.symlinkSync(path.relative(dir, real), link);
    const r = await updateSettingsFile(link, install);
    assert.ok(fs.lstatSync(link).isSymbolicLink(), 'still a link');
    assert.equal(fs.readFileSync(real, 'utf8'), install(''));
    assert.equal(r.created, true);
  });

  it('follows a relative dangling link from the folder it really is in, through a linked Claude dir', async function () {
    if (process.platform === 'win32') this.skip();
    const dir = tempDir();
    // ~/.claude -> dotfiles/claude, and settings.json there -> ../common/settings.json (not there yet).
    fs.mkdirSync(path.join(dir, 'dotfiles', 'claude'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'dotfiles', 'common'));
    fs.symlinkSync(path.join(dir, 'dotfiles', 'claude'), path.join(dir, '.claude'));
    fs.symlinkSync('../common/settings.json', path.join(dir, 'dotfiles', 'claude', 'settings.json'));
    await updateSettingsFile(path.join(dir, '.claude', 'settings.json'), install);
    assert.equal(fs.readFileSync(path.join(dir, 'dotfiles', 'common', 'settings.json'), 'utf8'), install(''));
    assert.ok(!fs.existsSync(path.join(dir, 'common')), 'not resolved as if .claude were a real folder');
  });

  it('keeps a hard-linked settings.json linked: rewritten in place, old bytes in the backup', async function () {
    if (process.platform === 'win32') this.skip();
    const dir = tempDir();
    const file = path.join(dir, 'settings.json');
    const other = path.join(dir, 'dotfiles-settings.json');
    const old = '{\n  "model": "opus"\n}\n';
    fs.writeFileSync(other, old);
    fs.linkSync(other, file);
    const r = await updateSettingsFile(file, install);
    assert.equal(fs.readFileSync(other, 'utf8'), install(old), 'the other name sees the change');
    assert.equal(fs.statSync(file).ino, fs.statSync(other).ino);
    assert.equal(fs.readFileSync(r.backupPath!, 'utf8'), old);
    assert.deepEqual(fs.readdirSync(dir).sort(), ['dotfiles-settings.json', 'settings.json', 'settings.json.transcript-lag.bak']);
  });

  it('a full disk while writing the backup costs neither the previous backup nor the file', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'settings.json');
    const backup = file + SETTINGS_BACKUP_SUFFIX;
    const old = '{\n  "model": "opus"\n}\n';
    fs.writeFileSync(file, old);
    fs.writeFileSync(backup, '{"previous": "backup"}');
    // Writes half the bytes, then fails as a full disk does.
    const fullDisk = async (f: string, data: Buffer, mode: number) => {
      fs.writeFileSync(f, data.subarray(0, data.length >> 1), { mode, flag: 'wx' });
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    };
    await assert.rejects(updateSettingsFile(file, install, { writeNewFile: fullDisk }), (e: NodeJS.ErrnoException) => e.code === 'ENOSPC' && e.message.startsWith(`could not write the backup ${backup};`));
    assert.equal(fs.readFileSync(backup, 'utf8'), '{"previous": "backup"}');
    assert.equal(fs.readFileSync(file, 'utf8'), old);
    assert.deepEqual(fs.readdirSync(dir).sort(), ['settings.json', 'settings.json.transcript-lag.bak'], 'no temp file left');
  });

  for (const code of ['EPERM', 'EBUSY', 'EACCES']) {
    it(`Windows: settings.json held open by an editor or a scanner (${code} on rename) is replaced once it is let go, the backup kept`, async () => {
      const dir = tempDir();
      const file = path.join(dir, 'settings.json');
      const old = '{\n  "model": "opus"\n}\n';
      fs.writeFileSync(file, old);
      const fsWin = heldOpenByAnother(file, code, 3);
      const r = await updateSettingsFile(file, install, { renameDeps: fsWin });
      assert.equal(fs.readFileSync(file, 'utf8'), install(old));
      assert.equal(fs.readFileSync(r.backupPath!, 'utf8'), old);
      assert.deepEqual(fsWin.waits, RENAME_RETRY_DELAYS_MS.slice(0, 3));
      assert.deepEqual(fs.readdirSync(dir).sort(), ['settings.json', 'settings.json.transcript-lag.bak'], 'no temp file left');
    });
  }

  it('Windows: a file held open for good is reported after the bounded retries, left as it was, its backup written, no temp file left', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'settings.json');
    const old = '{\n  "model": "opus"\n}\n';
    fs.writeFileSync(file, old);
    const fsWin = heldOpenByAnother(file, 'EBUSY', Infinity);
    await assert.rejects(updateSettingsFile(file, install, { renameDeps: fsWin }), (e: NodeJS.ErrnoException) => e.code === 'EBUSY' && e.message.startsWith(`could not write ${file}; it is left as it was`));
    assert.equal(fs.readFileSync(file, 'utf8'), old);
    assert.equal(fs.readFileSync(file + SETTINGS_BACKUP_SUFFIX, 'utf8'), old);
    assert.equal(fsWin.waits.length, RENAME_RETRY_DELAYS_MS.length);
    assert.deepEqual(fs.readdirSync(dir).sort(), ['settings.json', 'settings.json.transcript-lag.bak']);
  });

  it('other rename errors are not retried', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'settings.json');
    fs.writeFileSync(file, '{}');
    const fsWin = heldOpenByAnother(file, 'EXDEV', 1);
    await assert.rejects(updateSettingsFile(file, install, { renameDeps: fsWin }), (e: NodeJS.ErrnoException) => e.code === 'EXDEV');
    assert.deepEqual(fsWin.waits, []);
  });

  it('refuses a FIFO or a device in place of settings.json at once, without reading it', async function () {
    if (process.platform === 'win32') this.skip();
    const dir = tempDir();
    const fifo = path.join(dir, 'settings.json');
    execFileSync('mkfifo', [fifo]);
    await assert.rejects(updateSettingsFile(fifo, install), (e: unknown) => e instanceof SettingsFileError && e.kind === 'not-a-file');
    const zero = path.join(dir, 'zero', 'settings.json');
    fs.mkdirSync(path.dirname(zero));
    fs.symlinkSync('/dev/zero', zero);
    await assert.rejects(updateSettingsFile(zero, install), (e: unknown) => e instanceof SettingsFileError && e.kind === 'not-a-file');
  });
});
