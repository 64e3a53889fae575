// Show Session Report opens a webview panel with the session's data: waits,
// shapes, the per-call table and the batch timeline.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { COMMANDS, REPORT_VIEW_TYPE } from '../../../src/presentation/commandIds';
import { repoRoot } from './hostEnv';
import { closeAllEditors, eventually, extensionApi, FakeSession, newClaudeDir, runHook, runShell, sessionFollowed, useClaudeDir } from './support';

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

  it("a wrapped hook's run (transcript-lag complete) reaches the call's tooltip and a row of the report", async () => {
    const api = await extensionApi();
    const dir = newClaudeDir('report-hookrun');
    await useClaudeDir(api, dir);
    const s = new FakeSession(dir).title('Hook runs').prompt('go');
    await sessionFollowed(api, s);
    const id = 'toolu_rep_hookrun';
    const payload = s.preToolUse(id, 'Bash');
    // A reviewing hook that blocks, behind the built wrapper, run as wrap-hooks writes its command.
    const guard = path.join(dir, 'guard.sh');
    fs.writeFileSync(guard, '#!/bin/sh\ncat >/dev/null\necho "no" >&2\nexit 2\n', { mode: 0o755 });
    const wrapper = path.join(repoRoot(), 'dist', 'cli-complete.js');
    const r = await runShell(`'${process.execPath}' '${wrapper}' -- sh -c '${guard} --strict'`, JSON.stringify(payload), { ...process.env, ELECTRON_RUN_AS_NODE: '1' });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr, 'no\n');
    // The run alone joins its call (no hook of ours needed): once its record is read, the row has the hook's line.
    s.toolUse(id, 'Bash').toolResult(id);
    const row = await eventually(api, "the call's row with its hook's line", () => api.treeItems().flatMap((n) => n.children).find((c) => c.tool_use_id === id && /guard\.sh/.test(c.tooltip)));
    assert.match(row.tooltip, /\n {2}guard\.sh [\d.]+ ?m?s · blocked \(exit 2\) · transcript without its call(\n|$)/);
    await vscode.commands.executeCommand(COMMANDS.showReport, s.sessionId);
    const data = await eventually(api, "the report's hook row", () => api.reportData()?.hook_runs.find((h) => h.tool_use_id === id));
    assert.deepEqual([data.hook, data.decision, data.transcript, data.stopped], ['guard.sh', 'blocked (exit 2)', 'without its call', true]);
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
