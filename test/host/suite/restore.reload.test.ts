// A reload keeps what was measured (issue 43): a call whose record the window read live says the
// same lag and shape after the window reloads, and the report and replay tabs that were open come
// back, the report drawn again from the engine and the replay's table as that replay said it. The
// window is really reloaded (./reloadPhase.ts): the first part runs before, the second after.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { COMMANDS, REPLAY_VIEW_TYPE, REPORT_VIEW_TYPE } from '../../../src/presentation/commandIds';
import type { ReplayTableData } from '../../../src/presentation/replayTable';
import { afterReload, reloadState, requestReload } from './reloadPhase';
import { eventually, extensionApi, FakeSession, newClaudeDir, note, runHook, sessionFollowed, useClaudeDir } from './support';

interface Kept {
  claudeDir: string;
  sessionId: string;
  toolUseId: string;
  /** The call's row as the window said it while it watched the record land. */
  description: string;
  /** Its row in the report then: lag, shape, hook fired, on disk. */
  reportRow: string[];
  replay: ReplayTableData;
}

/**
 * Runs the bundled hook's PreToolUse until its `pre` is in the channel. On a loaded machine the hook
 * can reach its watchdog (850 ms from its start, src/hook/main.ts) before it writes, and exits 0 with
 * nothing written, as it must (it never holds Claude Code up); that is no part of what this file tests.
 */
async function hookReported(dir: string, s: FakeSession, id: string): Promise<void> {
  const channel = path.join(dir, 'transcript-lag', `${s.sessionId}.jsonl`);
  for (let attempt = 1; attempt <= 5; attempt++) {
    assert.equal((await runHook(dir, s.preToolUse(id, 'Bash'))).code, 0);
    if (fs.existsSync(channel) && fs.readFileSync(channel, 'utf8').includes(`"event":"pre"`)) return;
    note(`the hook wrote nothing (its watchdog, a loaded machine): attempt ${attempt}`);
  }
  throw new Error('the hook wrote no pre event in 5 runs');
}

function tabsOf(viewType: string): vscode.Tab[] {
  return vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith(viewType));
}

// Only code-server's workbench runs the suite again after a reload (the same payload URL).
const web = vscode.env.uiKind === vscode.UIKind.Web;

if (!afterReload()) {
  describe('reload: before it, a lag measured live and the report and replay tabs open', () => {
    (web ? it : it.skip)('measures a call live, opens the report and a replay, and asks for the reload', async () => {
      const api = await extensionApi();
      const dir = newClaudeDir('reload-keeps');
      await useClaudeDir(api, dir);
      const s = new FakeSession(dir).title('Kept across a reload').prompt('go');
      await sessionFollowed(api, s);
      const id = 'toolu_reload_kept';
      await hookReported(dir, s, id);
      await eventually(api, 'the call held', () => api.treeItems().find((n) => n.session_id === s.sessionId)?.children.some((c) => c.tool_use_id === id && c.kind === 'held'));
      s.toolUse(id, 'Bash');
      const row = await eventually(api, 'the call written, its lag measured', () =>
        api.treeItems().find((n) => n.session_id === s.sessionId)?.children.find((c) => c.tool_use_id === id && c.kind === 'written'),
      );
      s.toolResult(id);
      assert.match(row.description, /^lag [\d.]+ ?m?s · before result$/);
      assert.doesNotMatch(row.tooltip, /read back/, 'measured by this window');
      note(`measured live: ${row.description}`);

      await vscode.commands.executeCommand(COMMANDS.showReport, s.sessionId);
      await eventually(api, 'the report keeping its session for a reload', () => api.reportKept() === s.sessionId);
      const reportRow = await eventually(api, "the call's lag in the report", () => {
        const r = api.reportData()?.rows.find((x) => x.tool_use_id === id);
        return r && r.lag_ms !== null && [r.lag, r.shape, r.fired_at, r.on_disk];
      });

      const replay = await vscode.commands.executeCommand<ReplayTableData>(COMMANDS.replayHook, { session_id: s.sessionId, command: 'cat >/dev/null' });
      assert.equal(replay.state, 'done');
      assert.equal(replay.rows.length, 1);
      await eventually(api, 'the replay tab keeping its table for a reload', () => api.replayView()?.kept && api.replayView()?.data.state === 'done');
      assert.equal(tabsOf(REPORT_VIEW_TYPE).length, 1);
      assert.equal(tabsOf(REPLAY_VIEW_TYPE).length, 1);
      requestReload({ claudeDir: dir, sessionId: s.sessionId, toolUseId: id, description: row.description, reportRow, replay: api.replayView()!.data } satisfies Kept);
    });
  });
} else {
  describe('reload: after it, the measured lag and the tabs are back', () => {
    it('the tree says the lag and shape measured before the reload, read back', async () => {
      const kept = reloadState<Kept>();
      const api = await extensionApi();
      assert.equal(api.claudeDir(), kept.claudeDir);
      const row = await eventually(api, 'the call in the tree', () =>
        api.treeItems().find((n) => n.session_id === kept.sessionId)?.children.find((c) => c.tool_use_id === kept.toolUseId),
      );
      note(`after the reload: ${row.description}`);
      assert.equal(row.description, kept.description);
      assert.match(row.tooltip, /read back/);
      const sample = api.samples().find((x) => x.tool_use_id === kept.toolUseId);
      assert.ok(sample && sample.lag_ms !== null && sample.shape === 'before_result', 'the report and export have its lag too');
    });

    it('the report tab is restored and drawn again from the engine', async () => {
      const kept = reloadState<Kept>();
      const api = await extensionApi();
      const [tab] = tabsOf(REPORT_VIEW_TYPE);
      assert.ok(tab, 'the report tab is back');
      // VS Code brings a tab's page back when the tab is shown: the replay's was opened after it, in front.
      if (!tab.isActive) await vscode.commands.executeCommand(`workbench.action.openEditorAtIndex${tab.group.tabs.indexOf(tab) + 1}`);
      const data = await eventually(api, 'the restored report drawn', () => api.reportData()?.session_id === kept.sessionId && api.reportData());
      assert.equal(tabsOf(REPORT_VIEW_TYPE).length, 1);
      const r = data.rows.find((x) => x.tool_use_id === kept.toolUseId);
      assert.ok(r, 'its per-call table holds the call');
      assert.deepEqual([r.lag, r.shape, r.fired_at, r.on_disk], kept.reportRow, 'with the lag, shape and times measured before the reload');
    });

    it('the replay tab is restored with what that replay said', async () => {
      const kept = reloadState<Kept>();
      const api = await extensionApi();
      const view = await eventually(api, 'the restored replay table', () => api.replayView());
      assert.equal(tabsOf(REPLAY_VIEW_TYPE).length, 1);
      assert.deepEqual(view.data, kept.replay);
      assert.match(view.html, new RegExp(kept.toolUseId));
    });
  });
}
