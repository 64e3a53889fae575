import * as assert from 'node:assert/strict';
import { parse } from 'jsonc-parser';
import {
  buildStatusLineCommand,
  installStatusLine,
  installedStatusLineCommand,
  isOurStatusLineCommand,
  uninstallStatusLine,
  wrapOf,
} from '../../../../src/core/settings/statusLineSettings';
import { wrappedStatusLineCommand } from '../../../../src/core/settings/wrappedStatusLine';

const spec = { nodePath: '/usr/bin/node', scriptPath: '/h/.claude/transcript-lag/bin/transcript-lag-statusline.js', channelDir: '/h/.claude/transcript-lag' };
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

describe('settings: which statusLine is ours', () => {
  it('exactly the forms install-statusline writes: plain, and with --wrap', () => {
    assert.ok(isOurStatusLineCommand(buildStatusLineCommand(spec)));
    assert.ok(isOurStatusLineCommand(buildStatusLineCommand({ ...spec, nodePath: "/o'dd path/node" }, b64('{"command":"x"}'))));
    assert.equal(wrapOf(buildStatusLineCommand(spec, 'abc_-9')), 'abc_-9');
    assert.equal(wrapOf(buildStatusLineCommand(spec)), undefined);
  });

  it('a command that merely mentions our script is the user\'s', () => {
    const ours = buildStatusLineCommand(spec);
    for (const theirs of [
      'node ~/bin/transcript-lag-statusline.js',
      `~/bin/my-line.sh; ${ours}`,
      `${ours} | tr a-z A-Z`,
      `${ours} --wrap abc extra`,
      `${ours} --wrap 'abc'`,
      `${ours} --other`,
      `echo transcript-lag-statusline.js`,
      `FOO='1' ${ours}`,
      `'/usr/bin/node' 'transcript-lag-statusline.js' --channel-dir '/h'`,
      `'/usr/bin/node' '/x/transcript-lag-statusline.js.bak' --channel-dir '/h'`,
    ]) {
      assert.equal(isOurStatusLineCommand(theirs), false, theirs);
    }
  });

  it('install wraps such a line and uninstall gives it back, byte for byte', () => {
    const theirs = `{"type": "command", "command": "~/bin/wrap.sh transcript-lag-statusline.js"}`;
    const before = `{\n  "statusLine": ${theirs}\n}\n`;
    const after = installStatusLine(before, spec);
    const command = installedStatusLineCommand(after)!;
    assert.ok(isOurStatusLineCommand(command));
    assert.equal(wrappedStatusLineCommand(wrapOf(command)), '~/bin/wrap.sh transcript-lag-statusline.js');
    assert.equal(uninstallStatusLine(after), before);
    // Uninstall of a file with only their line leaves it alone.
    assert.equal(uninstallStatusLine(before), before);
  });

  it('a comment inside the user\'s statusLine: its command is still found, and restored exactly', () => {
    const theirs = '{\n    // my prompt\n    "type": "command", /* fast */ "command": "echo mine"\n  }';
    const before = `{\n  "statusLine": ${theirs}\n}\n`;
    const after = installStatusLine(before, spec);
    assert.equal(wrappedStatusLineCommand(wrapOf(installedStatusLineCommand(after)!)), 'echo mine');
    assert.equal(uninstallStatusLine(after), before);
  });

  it('keeps the user\'s refreshInterval; sets 1 only where they had none', () => {
    const withFive = installStatusLine('{"statusLine": {"type": "command", "command": "echo a", "refreshInterval": 5}}', spec);
    assert.equal(parse(withFive).statusLine.refreshInterval, 5);
    assert.equal(parse(installStatusLine(withFive, { ...spec, nodePath: '/opt/node' })).statusLine.refreshInterval, 5, 'and on re-install');
    assert.equal(parse(installStatusLine('{"statusLine": {"type": "command", "command": "echo a"}}', spec)).statusLine.refreshInterval, 1);
    assert.equal(parse(installStatusLine('{}', spec)).statusLine.refreshInterval, 1);
    // Ours, set to 3 by hand: a re-install keeps it.
    const ours = installStatusLine('{}', spec).replace('"refreshInterval": 1', '"refreshInterval": 3');
    assert.equal(parse(installStatusLine(ours, { ...spec, nodePath: '/opt/node' })).statusLine.refreshInterval, 3);
  });
});
