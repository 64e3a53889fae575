import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { channelEventSchema } from '../../src/core/channel/schema';
import { installHook } from '../../src/platform/hookInstaller';

// The Windows launcher (transcript-lag-hook.cmd), run by a real cmd.exe: the Windows lane only
// (scripts/test-windows.mjs runs this under node.exe in Wine; Linux has no cmd.exe). Git Bash and
// PowerShell both hand a `.cmd` to cmd.exe with its path quoted; here as Node's shell: true does,
// `cmd.exe /d /s /c ""<path>""` (/s takes the outer pair off, the inner one keeps `&` and spaces).

const repoRoot = path.resolve(__dirname, '../..');

function runAsShellsRunACmd(file: string, input: string) {
  return spawnSync(process.env.ComSpec ?? 'cmd.exe', ['/d', '/s', '/c', `""${file}""`], { input, windowsVerbatimArguments: true, timeout: 60_000, windowsHide: true });
}

describe('Windows launcher under cmd.exe (a runtime that needs an environment, as VS Code\'s Electron)', function () {
  this.timeout(120_000);
  before(function () {
    assert.equal(process.platform, 'win32', 'the Windows lane runs this spec under node.exe');
  });

  // A claude dir whose path has a space, `&` (a command separator to cmd outside quotes) and `%` (expanded even inside).
  const tempClaudeDir = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tl A&B 100% ')), '.claude');

  it('gives the runtime its environment and every argument intact', async () => {
    const claudeDir = tempClaudeDir();
    // The "hook" here records what it was given, so the test sees exactly what cmd passed on.
    const recorder = path.join(path.dirname(claudeDir), 'record-argv.js');
    const recorded = path.join(path.dirname(claudeDir), 'recorded.json');
    fs.writeFileSync(recorder, `require('fs').writeFileSync(${JSON.stringify(recorded)}, JSON.stringify({ env: process.env.ELECTRON_RUN_AS_NODE, argv: process.argv.slice(2) }));\n`);
    const r = await installHook({ claudeDir, hookSourcePath: recorder, nodePath: process.execPath, nodeEnv: { ELECTRON_RUN_AS_NODE: '1' }, probe: true, polls: 3, pollMs: 100, form: 'exec' });
    assert.ok(r.launcherPath, 'a launcher was written');
    assert.equal(r.execForm, false);
    const run = runAsShellsRunACmd(r.launcherPath, '{}');
    assert.equal(run.status, 0, String(run.stderr));
    const seen = JSON.parse(fs.readFileSync(recorded, 'utf8')) as { env?: string; argv: string[] };
    assert.deepEqual(seen, { env: '1', argv: ['--channel-dir', r.channelDir, '--probe', '--polls', '3', '--poll-ms', '100', '--timeout-ms', String(r.timeoutSec * 1000)] });
  });

  it('the installed hook reports a PreToolUse through it, and prints nothing', async () => {
    const claudeDir = tempClaudeDir();
    const r = await installHook({ claudeDir, hookSourcePath: path.join(repoRoot, 'dist', 'hook.js'), nodePath: process.execPath, nodeEnv: { ELECTRON_RUN_AS_NODE: '1' }, probe: false, form: 'shell' });
    const settings = JSON.parse(fs.readFileSync(r.settingsPath, 'utf8')) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
    // The entry names the launcher alone, forward slashes, quoted only if it must be.
    assert.equal(settings.hooks.PreToolUse[0].hooks[0].command.replace(/^'|'$/g, ''), r.launcherPath!.replace(/\\/g, '/'));
    const input = JSON.stringify({ session_id: 'launcher-1', transcript_path: path.join(claudeDir, 'projects', 'x', 'launcher-1.jsonl'), cwd: os.tmpdir(), hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: {}, tool_use_id: 'toolu_launcher_1' });
    const run = runAsShellsRunACmd(r.launcherPath!, input);
    assert.equal(run.status, 0, String(run.stderr));
    assert.equal(String(run.stdout), '');
    const lines = fs.readFileSync(path.join(r.channelDir, 'launcher-1.jsonl'), 'utf8').trim().split('\n').map((l) => channelEventSchema.parse(JSON.parse(l)));
    assert.deepEqual(lines.map((e) => [e.event, 'tool_use_id' in e ? e.tool_use_id : undefined]), [['pre', 'toolu_launcher_1']]);
  });

  it('exits 0 when the runtime is gone: a launcher must never block a tool call (exit 2 would)', async () => {
    const claudeDir = tempClaudeDir();
    const r = await installHook({ claudeDir, hookSourcePath: path.join(repoRoot, 'dist', 'hook.js'), nodePath: path.join(path.dirname(claudeDir), 'gone', 'Code.exe'), nodeEnv: { ELECTRON_RUN_AS_NODE: '1' }, probe: false, form: 'shell' });
    const run = runAsShellsRunACmd(r.launcherPath!, '{}');
    assert.equal(run.status, 0, String(run.stderr));
  });
});
