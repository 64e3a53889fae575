// Show Session Report opens a webview panel with the session's data: waits,
// shapes, the per-call table and the batch timeline.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { COMMANDS, REPORT_VIEW_TYPE } from '../../../src/presentation/commandIds';
import { closeAllEditors, eventually, extensionApi, FakeSession, newClaudeDir, runHook, sessionFollowed, useClaudeDir } from './support';

function reportTabs(): vscode.Tab[] {
  return vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith(REPORT_VIEW_TYPE));
}

describe('session report', () => {
  after(closeAllEditors);

  it('opens as a webview with the session\'s calls', async () => {
    const api = await extensionApi();
    const dir = newClaudeDir('report');
    await useClaudeDir(api, dir);
    const s = new FakeSession(dir).title('Report me').prompt('go');
    await sessionFollowed(api, s);
    for (const id of ['toolu_rep_1', 'toolu_rep_2']) {
      await runHook(dir, s.preToolUse(id, 'Bash'));
      s.toolUse(id, 'Bash').toolResult(id);
    }
    await eventually(api, 'two written calls', () => api.samples().filter((x) => x.session_id === s.sessionId).length === 2);

    const shown = await vscode.commands.executeCommand<string>(COMMANDS.showReport, s.sessionId);
    assert.equal(shown, s.sessionId);
    const tab = await eventually(api, 'the report tab', () => reportTabs()[0]);
    assert.match(tab.label, /Report me|Transcript Lag/);
    const data = await eventually(api, 'report data', () => api.reportData());
    // The name the tree gives the session: its title and start time.
    assert.equal(data.title, api.treeItems().find((n) => n.session_id === s.sessionId)?.name);
    assert.match(data.title, /^Report me · \d\d:\d\d$/);
    const json = JSON.stringify(data);
    assert.ok(json.includes('toolu_rep_1') && json.includes('toolu_rep_2'), 'both calls in the per-call table');
    // The calls in the tree's order; the time it was made as HH:MM:SS, as the table's times; a dash where nothing timed the hooks.
    const tree = api.treeItems().find((n) => n.session_id === s.sessionId)!;
    assert.deepEqual(data.rows.map((r) => r.tool_use_id), tree.children.map((c) => c.tool_use_id));
    assert.deepEqual(data.rows.map((r) => r.tool_use_id), ['toolu_rep_2', 'toolu_rep_1']);
    assert.match(data.generated_at, /^\d\d:\d\d:\d\d UTC$/);
    assert.deepEqual(data.rows.map((r) => r.hooks), ['—', '—']);
  });

  it('re-uses its panel when shown again', async () => {
    const api = await extensionApi();
    const sessionId = api.treeItems()[0]?.session_id;
    assert.ok(sessionId);
    await vscode.commands.executeCommand(COMMANDS.showReport, sessionId);
    await eventually(api, 'the report tab', () => reportTabs().length > 0);
    assert.equal(reportTabs().length, 1);
  });
});
