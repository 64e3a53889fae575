// Install Hook / Uninstall Hook on a temp Claude settings.json: our entries are
// merged next to the user's own keys and hooks, idempotently; the command they
// hold really runs the hook; uninstall removes only ours; an invalid file is
// refused and left byte for byte as it was.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { COMMANDS } from '../../../src/presentation/commandIds';
import type { HookInstallOutcome } from '../../../src/vscode/hookCommands';
import { closeAllEditors, eventually, extensionApi, FakeSession, newClaudeDir, runShell, useClaudeDir } from './support';

interface HookEntry {
  matcher?: string;
  hooks: { type: string; command: string }[];
}
interface ClaudeSettings {
  model?: string;
  hooks?: Record<string, HookEntry[]>;
}

const USER_SETTINGS: ClaudeSettings = {
  model: 'opus',
  hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo users-own-hook' }] }] },
};

function commandsOf(settings: ClaudeSettings, event: string): string[] {
  return (settings.hooks?.[event] ?? []).flatMap((e) => e.hooks.map((h) => h.command));
}

describe('install / uninstall hook', () => {
  let claude: string;
  let settingsFile: string;
  const read = (): ClaudeSettings => JSON.parse(fs.readFileSync(settingsFile, 'utf8'));
  const ours = (cmds: string[]) => cmds.filter((c) => c !== 'echo users-own-hook');

  before(async () => {
    claude = newClaudeDir('hook');
    settingsFile = path.join(claude, 'settings.json');
    fs.writeFileSync(settingsFile, JSON.stringify(USER_SETTINGS, null, 2));
    await useClaudeDir(await extensionApi(), claude);
  });
  after(closeAllEditors);

  it('merges one PreToolUse and one PostToolUse entry and keeps everything else', async () => {
    const outcome = await vscode.commands.executeCommand<HookInstallOutcome>(COMMANDS.installHook);
    assert.ok(outcome, 'install reported an outcome');
    assert.equal(outcome.changed, true);
    assert.equal(fs.realpathSync(outcome.settingsPath), fs.realpathSync(settingsFile));
    const s = read();
    assert.equal(s.model, 'opus');
    assert.ok(commandsOf(s, 'PreToolUse').includes('echo users-own-hook'));
    assert.equal(ours(commandsOf(s, 'PreToolUse')).length, 1);
    assert.equal(ours(commandsOf(s, 'PostToolUse')).length, 1);
    assert.doesNotMatch(ours(commandsOf(s, 'PreToolUse'))[0], /--probe/);
  });

  it('is idempotent', async () => {
    const before = fs.readFileSync(settingsFile, 'utf8');
    const outcome = await vscode.commands.executeCommand<HookInstallOutcome>(COMMANDS.installHook);
    assert.equal(outcome?.changed, false);
    assert.equal(fs.readFileSync(settingsFile, 'utf8'), before);
  });

  it('writes a command that runs the hook, which the extension then sees', async () => {
    const api = await extensionApi();
    const command = ours(commandsOf(read(), 'PreToolUse'))[0];
    const session = new FakeSession(claude).prompt('go');
    // Claude Code runs hook commands through a shell; it does not pass our env.
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ELECTRON_RUN_AS_NODE: '1' };
    const r = await runShell(command, JSON.stringify(session.preToolUse('toolu_hook_cmd', 'Bash')), env);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '');
    await eventually(api, 'the held call', () => api.treeItems().some((n) => n.children.some((c) => c.tool_use_id === 'toolu_hook_cmd' && c.kind === 'held')));
    session.toolUse('toolu_hook_cmd', 'Bash');
  });

  it('installs in probe mode with the probe settings', async () => {
    const outcome = await vscode.commands.executeCommand<HookInstallOutcome>(COMMANDS.installHookProbe);
    assert.equal(outcome?.changed, true);
    const pre = ours(commandsOf(read(), 'PreToolUse'));
    assert.equal(pre.length, 1, 'probe mode replaces the announce entry');
    assert.match(pre[0], /--probe/);
  });

  it('uninstalls only its own entries', async () => {
    const outcome = await vscode.commands.executeCommand<HookInstallOutcome>(COMMANDS.uninstallHook);
    assert.equal(outcome?.changed, true);
    const s = read();
    assert.equal(s.model, 'opus');
    assert.deepEqual(commandsOf(s, 'PreToolUse'), ['echo users-own-hook']);
    assert.deepEqual(ours(commandsOf(s, 'PostToolUse')), []);
  });

  it('refuses an invalid settings.json and leaves it untouched', async () => {
    const broken = '{ "model": "opus", "hooks": { ';
    fs.writeFileSync(settingsFile, broken);
    const outcome = await vscode.commands.executeCommand<HookInstallOutcome | undefined>(COMMANDS.installHook);
    assert.equal(outcome, undefined);
    assert.equal(fs.readFileSync(settingsFile, 'utf8'), broken);
  });
});
