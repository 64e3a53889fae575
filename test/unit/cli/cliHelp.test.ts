import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { commandNames } from '../../../src/cli/main';

// The built command, as `npm install -g` runs it: every subcommand in main.ts's table answers
// --help with its usage on stdout and exit 0, at once, without reading stdin (statusline and
// message do read it otherwise: stdin is left open here, so waiting for it would time out).
const root = path.resolve(__dirname, '../../..');
const cli = path.join(root, 'dist/cli.js');
const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };

function runCli(args: string[]) {
  assert.ok(fs.existsSync(cli), 'dist/cli.js is missing: npm run build');
  // stdio 'pipe' with no input written: a command that reads stdin would wait until the timeout.
  return spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: 5000, stdio: ['pipe', 'pipe', 'pipe'] });
}

describe('CLI: --help on every subcommand, --version (dist/cli.js)', () => {
  it('main.ts lists the subcommands', () => {
    assert.ok(commandNames.length >= 8, commandNames.join(', '));
    for (const name of ['analyze', 'watch', 'install-hook', 'uninstall-hook', 'statusline', 'install-statusline', 'uninstall-statusline', 'message']) {
      assert.ok(commandNames.includes(name), name);
    }
  });

  for (const name of commandNames) {
    it(`${name} --help: usage on stdout, exit 0, no wait for stdin`, () => {
      const res = runCli([name, '--help']);
      assert.equal(res.error, undefined, `${name} --help: ${String(res.error)}`);
      assert.equal(res.status, 0, res.stderr);
      assert.match(res.stdout, new RegExp(`^Usage: transcript-lag ${name}\\b`));
      assert.equal(res.stderr, '');
    });
  }

  it("--version prints package.json's version", () => {
    const res = runCli(['--version']);
    assert.equal(res.status, 0, res.stderr);
    assert.equal(res.stdout, `${version}\n`);
  });

  it('the top-level usage lists every subcommand', () => {
    const res = runCli(['--help']);
    assert.equal(res.status, 0);
    for (const name of commandNames) assert.match(res.stdout, new RegExp(`^  ${name}\\b`, 'm'), name);
  });
});
