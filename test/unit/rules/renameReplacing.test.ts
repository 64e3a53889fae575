import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { replaceCopyByStub, UNINSTALLED_HOOK_STUB } from '../../../src/platform/hookInstaller';
import { copyAtomically } from '../../../src/rules/renameReplacing';
import { httpConfigPathOf, loadHttpHookConfig, writeHttpHookConfig } from '../../../src/platform/httpConfigFile';
import { RENAME_RETRY_DELAYS_MS } from '../../../src/rules/renameReplacing';
import { spoolFoldingOn } from '../../../src/rules/nodeSpoolFolding';
import { heldOpenByAnother } from '../helpers/heldOpenRename';

// Every replace-by-rename besides settings.json's (settingsFile.test.ts): on Windows a rename from
// or over a file another process holds open is refused (EPERM, EBUSY, EACCES) until it lets go.

const CODES = ['EPERM', 'EBUSY', 'EACCES'];
const FIRST_THREE_WAITS = RENAME_RETRY_DELAYS_MS.slice(0, 3);

function tempDir(): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tl-rename-')));
}

describe('replace by rename on Windows: a file held open elsewhere', () => {
  describe('the hook and status line copies (copyAtomically)', () => {
    for (const code of CODES) {
      it(`a copy held open by a scanner (${code} on rename) is replaced once it is let go, 0600, no temp file left`, async () => {
        const dir = tempDir();
        const source = path.join(dir, 'hook.js');
        const dest = path.join(dir, 'bin', 'transcript-lag-hook.js');
        fs.mkdirSync(path.dirname(dest));
        fs.writeFileSync(source, '// new hook\n');
        fs.writeFileSync(dest, '// old hook\n');
        const fsWin = heldOpenByAnother(dest, code, 3);
        await copyAtomically(source, dest, fsWin);
        assert.equal(fs.readFileSync(dest, 'utf8'), '// new hook\n');
        if (process.platform !== 'win32') assert.equal(fs.statSync(dest).mode & 0o777, 0o600);
        assert.deepEqual(fsWin.waits, FIRST_THREE_WAITS);
        assert.deepEqual(fs.readdirSync(path.dirname(dest)), ['transcript-lag-hook.js']);
      });
    }

    it('a copy held open for good: the error after the bounded retries, the old copy whole, no temp file left', async () => {
      const dir = tempDir();
      const source = path.join(dir, 'hook.js');
      const dest = path.join(dir, 'bin', 'transcript-lag-hook.js');
      fs.mkdirSync(path.dirname(dest));
      fs.writeFileSync(source, '// new hook\n');
      fs.writeFileSync(dest, '// old hook\n');
      const fsWin = heldOpenByAnother(dest, 'EBUSY', Infinity);
      await assert.rejects(copyAtomically(source, dest, fsWin), (e: NodeJS.ErrnoException) => e.code === 'EBUSY');
      assert.equal(fs.readFileSync(dest, 'utf8'), '// old hook\n');
      assert.deepEqual(fsWin.waits, [...RENAME_RETRY_DELAYS_MS]);
      assert.equal(fsWin.refused, RENAME_RETRY_DELAYS_MS.length + 1);
      assert.deepEqual(fs.readdirSync(path.dirname(dest)), ['transcript-lag-hook.js']);
    });

    it('under Windows Node (the Windows lane, Wine): a copy this process holds open is replaced once the handle closes', async function () {
      // Only Windows refuses such a rename: elsewhere this could not fail, so it runs in the Windows lane only.
      if (process.platform !== 'win32') this.skip();
      // Wine refuses (EPERM) a rename over a file any handle holds open, as Windows does for an editor's or a
      // scanner's; on Linux and macOS the rename succeeds at once. The real file system and clock: no injection.
      const dir = tempDir();
      const source = path.join(dir, 'hook.js');
      const dest = path.join(dir, 'transcript-lag-hook.js');
      fs.writeFileSync(source, '// new hook\n');
      fs.writeFileSync(dest, '// old hook\n');
      const held = fs.openSync(dest, 'r');
      const letGo = setTimeout(() => fs.closeSync(held), 30);
      try {
        await copyAtomically(source, dest);
      } finally {
        clearTimeout(letGo);
        try {
          fs.closeSync(held);
        } catch {
          // closed by the timer already
        }
      }
      assert.equal(fs.readFileSync(dest, 'utf8'), '// new hook\n');
      assert.deepEqual(fs.readdirSync(dir).sort(), ['hook.js', 'transcript-lag-hook.js']);
    });
  });

  describe('the uninstall stub over a copy (replaceCopyByStub)', () => {
    it('a copy held open (EBUSY on rename) becomes the stub once it is let go', async () => {
      const dir = tempDir();
      const copy = path.join(dir, 'transcript-lag-hook.js');
      fs.writeFileSync(copy, '// the hook\n');
      const fsWin = heldOpenByAnother(copy, 'EBUSY', 3);
      assert.equal(await replaceCopyByStub(copy, UNINSTALLED_HOOK_STUB, fsWin), true);
      assert.equal(fs.readFileSync(copy, 'utf8'), UNINSTALLED_HOOK_STUB);
      assert.deepEqual(fsWin.waits, FIRST_THREE_WAITS);
      assert.deepEqual(fs.readdirSync(dir), ['transcript-lag-hook.js']);
    });

    it('a copy held open for good: not replaced after the bounded retries, left whole, no temp file left', async () => {
      const dir = tempDir();
      const copy = path.join(dir, 'transcript-lag-hook.js');
      fs.writeFileSync(copy, '// the hook\n');
      const fsWin = heldOpenByAnother(copy, 'EPERM', Infinity);
      assert.equal(await replaceCopyByStub(copy, UNINSTALLED_HOOK_STUB, fsWin), false);
      assert.equal(fs.readFileSync(copy, 'utf8'), '// the hook\n');
      assert.deepEqual(fsWin.waits, [...RENAME_RETRY_DELAYS_MS]);
      assert.deepEqual(fs.readdirSync(dir), ['transcript-lag-hook.js']);
    });
  });

  describe('http.json (writeHttpHookConfig)', () => {
    const before = { port: 41877, secret: 'a'.repeat(43) };
    const after = { port: 41900, secret: 'b'.repeat(43) };

    for (const code of CODES) {
      it(`http.json held open (${code} on rename) is replaced once it is let go, 0600, no temp file left`, async () => {
        const claudeDir = tempDir();
        const file = await writeHttpHookConfig(claudeDir, before);
        const fsWin = heldOpenByAnother(httpConfigPathOf(claudeDir), code, 3);
        assert.equal(await writeHttpHookConfig(claudeDir, after, fsWin), file);
        assert.deepEqual(await loadHttpHookConfig(claudeDir), { state: 'found', config: after });
        if (process.platform !== 'win32') assert.equal(fs.statSync(file).mode & 0o777, 0o600);
        assert.deepEqual(fsWin.waits, FIRST_THREE_WAITS);
        assert.deepEqual(fs.readdirSync(path.dirname(file)), [path.basename(file)]);
      });
    }

    it('http.json held open for good: the error after the bounded retries, the old config whole, no temp file left', async () => {
      const claudeDir = tempDir();
      const file = await writeHttpHookConfig(claudeDir, before);
      const fsWin = heldOpenByAnother(file, 'EACCES', Infinity);
      await assert.rejects(writeHttpHookConfig(claudeDir, after, fsWin), (e: NodeJS.ErrnoException) => e.code === 'EACCES');
      assert.deepEqual(await loadHttpHookConfig(claudeDir), { state: 'found', config: before });
      assert.deepEqual(fsWin.waits, [...RENAME_RETRY_DELAYS_MS]);
      assert.deepEqual(fs.readdirSync(path.dirname(file)), [path.basename(file)]);
    });
  });

  describe('the spool claim and its undoing (spoolFoldingOn)', () => {
    function spoolFile(): { dir: string; file: string } {
      const dir = tempDir();
      const file = path.join(dir, 'sess-1.0a1b2c3d.00000001.json');
      fs.writeFileSync(file, '{}');
      return { dir, file };
    }

    for (const code of CODES) {
      it(`a claim of a file held open (${code}) is tried once: it throws, no wait, the file stays for the next fold`, async () => {
        const { dir, file } = spoolFile();
        // One refusal only: a claim that retried would have taken the file.
        const fsWin = heldOpenByAnother(file, code, 1);
        await assert.rejects(spoolFoldingOn(fsWin).claim(file, 1_700_000_000_000), (e: NodeJS.ErrnoException) => e.code === code);
        assert.deepEqual(fsWin.waits, []);
        assert.deepEqual(fs.readdirSync(dir), [path.basename(file)]);
        // The next fold's claim takes it.
        const claimed = await spoolFoldingOn(fsWin).claim(file, 1_700_000_000_001);
        assert.deepEqual(fs.readdirSync(dir), [path.basename(claimed!)]);
      });
    }

    it('a claim of a file already gone (another folder took it) is undefined', async () => {
      const { dir, file } = spoolFile();
      fs.rmSync(file);
      const fsWin = heldOpenByAnother(file, 'EPERM', 0);
      assert.equal(await spoolFoldingOn(fsWin).claim(file, 1), undefined);
      assert.deepEqual(fs.readdirSync(dir), []);
    });

    it('undoing a claim while the file is held open (EBUSY) renames it back once it is let go', async () => {
      const { dir, file } = spoolFile();
      const ops = spoolFoldingOn(heldOpenByAnother(file, 'EBUSY', 0));
      const claimed = (await ops.claim(file, 1_700_000_000_000))!;
      const fsWin = heldOpenByAnother(claimed, 'EBUSY', 3);
      await spoolFoldingOn(fsWin).unclaim(claimed, file);
      assert.deepEqual(fs.readdirSync(dir), [path.basename(file)]);
      assert.deepEqual(fsWin.waits, FIRST_THREE_WAITS);
    });

    it('undoing a claim held open for good: the error after the bounded retries', async () => {
      const { dir, file } = spoolFile();
      const claimed = (await spoolFoldingOn(heldOpenByAnother(file, 'EBUSY', 0)).claim(file, 1_700_000_000_000))!;
      const fsWin = heldOpenByAnother(claimed, 'EPERM', Infinity);
      await assert.rejects(spoolFoldingOn(fsWin).unclaim(claimed, file), (e: NodeJS.ErrnoException) => e.code === 'EPERM');
      assert.deepEqual(fsWin.waits, [...RENAME_RETRY_DELAYS_MS]);
      assert.deepEqual(fs.readdirSync(dir), [path.basename(claimed)]);
    });
  });
});
