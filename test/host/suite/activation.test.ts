// Activation: the extension starts on its own (onStartupFinished), registers its
// commands, resolves the Claude dir the way Claude Code does, and stays out of
// sight (no status bar item) while no session of this workspace is active.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { COMMANDS } from '../../../src/presentation/commandIds';
import { claudeDir, EXTENSION_ID } from './hostEnv';
import { eventually, extensionApi, setSetting } from './support';

describe('activation', () => {
  it('activates at startup without being asked', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
    // onStartupFinished: give the host a moment, but never call activate() here.
    for (let i = 0; i < 200 && !ext.isActive; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(ext.isActive, true);
    assert.equal(typeof ext.exports?.refresh, 'function', 'activate() returns the test API');
  });

  it('registers every command it contributes', async () => {
    const registered = new Set(await vscode.commands.getCommands(true));
    const contributed: { command: string }[] = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON.contributes?.commands ?? [];
    assert.ok(contributed.length >= 7, `package.json contributes ${contributed.length} commands`);
    for (const { command } of contributed) assert.ok(registered.has(command), `${command} is contributed but not registered`);
    for (const id of [COMMANDS.installHook, COMMANDS.uninstallHook, COMMANDS.openHeldLine, COMMANDS.showReport, COMMANDS.exportSamples, COMMANDS.showLog]) {
      assert.ok(registered.has(id), `${id} not registered`);
    }
  });

  it('uses $CLAUDE_CONFIG_DIR when the setting is empty', async () => {
    const api = await extensionApi();
    await setSetting('claudeDir', undefined);
    const dir = await eventually(api, 'the env Claude dir', () => api.claudeDir() === claudeDir() && api.claudeDir());
    assert.equal(dir, claudeDir());
  });

  it('shows no status bar item and no badge while no session is active', async () => {
    const api = await extensionApi();
    await api.refresh();
    assert.equal(api.statusBarText(), undefined);
    assert.equal(api.badge(), undefined);
    assert.deepEqual(api.treeItems(), []);
  });
});
