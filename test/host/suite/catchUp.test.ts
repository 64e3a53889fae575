// Opening VS Code in the middle of a Claude Code turn: the transcript and the
// hook's channel already hold a call whose record is not on disk. The extension
// must show it as held from its first read, and clear it when the record lands.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { COMMANDS } from '../../../src/presentation/commandIds';
import { closeAllEditors, eventually, extensionApi, FakeSession, newClaudeDir, runHook, useClaudeDir } from './support';

describe('catch-up: a call already held before the extension looks', () => {
  after(closeAllEditors);

  it('shows the earlier hold at once, opens at its line, and clears it when the record lands', async () => {
    const api = await extensionApi();
    const dir = newClaudeDir('catch-up');
    const s = new FakeSession(dir).title('Mid-turn').prompt('go').toolUse('toolu_cu_0', 'Read').toolResult('toolu_cu_0');
    const hook = await runHook(dir, s.preToolUse('toolu_cu_held', 'Bash'));
    assert.equal(hook.code, 0);

    await useClaudeDir(api, dir);
    const view = await eventually(api, 'the earlier hold', () => api.statusView()?.held === 1 && api.statusView()!);
    assert.match(view.text, /^\$\(watch\) 1 held · /);
    assert.equal(api.badge(), 1);
    const node = api.treeItems().find((n) => n.session_id === s.sessionId)!;
    assert.deepEqual(node.children.map((c) => [c.kind, c.tool_use_id]), [['held', 'toolu_cu_held'], ['written', 'toolu_cu_0']]);

    await vscode.commands.executeCommand(COMMANDS.openHeldLine);
    const reveal = await eventually(api, 'the reveal', () => api.lastReveal()?.tool_use_id === 'toolu_cu_held' && api.lastReveal());
    assert.equal(reveal.line, s.lineCount());
    assert.equal(vscode.window.activeTextEditor?.selection.active.line, s.lineCount() - 1);

    s.toolUse('toolu_cu_held', 'Bash');
    await eventually(api, 'the hold to clear', () => api.statusView()?.held === 0 && api.badge() === undefined);
  });
});
