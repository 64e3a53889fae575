import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { ModHarness, SESSION, messageRows } from './modHarness';

// On Windows the mod removes a held message with cmd's `del` (there is no rm), only for a path cmd
// takes as one argument as it is (issue 30 §3): `del /f /q C:\Users\bob\.claude,work\…` also deletes
// every file directly in C:\Users\bob\.claude. Such a path is emptied instead, never handed to cmd.
describe('mod: removing a held message on Windows', () => {
  let h: ModHarness;
  afterEach(() => h?.dispose());

  /** A call whose record lands: its held message is then removed. What ran, and what is left of the file. */
  async function landOne(claudeDir: string): Promise<{ cmd: string[][]; left: string | undefined; file: string }> {
    h = new ModHarness({ claudeDir });
    await h.start();
    h.rows = messageRows('toolu_01A');
    const call = await h.call('toolu_01A');
    assert.ok(fs.existsSync(h.heldFile('toolu_01A')), 'the held message was written');
    await call.finish();
    h.appendRecord('toolu_01A');
    await h.tick(200);
    const file = h.heldFile('toolu_01A');
    const left = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
    return { cmd: h.runs.filter((argv) => argv[0] === 'cmd.exe'), left, file: h.claudePath('transcript-lag', 'held', SESSION, 'toolu_01A.json') };
  }

  it('a path cmd takes as it is: `cmd.exe /d /c del /f /q <path>`', async () => {
    for (const dir of ['C:\\Users\\bob\\.claude', "C:\\Users\\Ann O'Brien\\José\\.claude", 'C:\\Users\\RUNNER~1\\.claude']) {
      const { cmd, file } = await landOne(dir);
      assert.deepEqual(cmd, [['cmd.exe', '/d', '/c', 'del', '/f', '/q', file]], dir);
      h.dispose();
    }
  });

  it('a path holding a character cmd splits at or acts on: no cmd at all, the file emptied', async () => {
    for (const dir of ['C:\\Users\\bob\\.claude,work', 'C:\\Users\\bob\\.claude;work', 'C:\\Users\\bob\\a=b', 'C:\\R&D\\.claude', 'C:\\100%\\.claude', 'C:\\a!b\\.claude', 'C:\\a^b\\.claude', 'C:\\x (y)\\.claude', 'C:\\a\tb\\.claude', 'C:\\a\u00ffb\\.claude']) {
      const { cmd, left } = await landOne(dir);
      assert.deepEqual(cmd, [], JSON.stringify(dir));
      assert.equal(left, '', `${JSON.stringify(dir)}: emptied, the text gone`);
      h.dispose();
    }
  });
});
