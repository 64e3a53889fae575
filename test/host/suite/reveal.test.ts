// Open at the held line: for a held call the transcript opens with the cursor on
// the last line on disk (the call's record will land after it) and an after-line
// note names the call; once the record lands the note moves to the record's line.
// For a written call, its record's line.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { COMMANDS } from '../../../src/presentation/commandIds';
import { closeAllEditors, eventually, extensionApi, FakeSession, newClaudeDir, runHook, useClaudeDir } from './support';

function activeLine(): { path: string; line: number } | undefined {
  const ed = vscode.window.activeTextEditor;
  return ed && { path: ed.document.uri.fsPath, line: ed.selection.active.line + 1 };
}

describe('open at the held line', () => {
  let claude: string;

  before(async () => {
    claude = newClaudeDir('reveal');
    await useClaudeDir(await extensionApi(), claude);
  });
  afterEach(closeAllEditors);

  it('opens the transcript at the last line on disk for the oldest held call (the status bar click)', async () => {
    const api = await extensionApi();
    const s = new FakeSession(claude).prompt('go').toolUse('toolu_rv_0', 'Read').toolResult('toolu_rv_0').prompt('and now');
    await runHook(claude, s.preToolUse('toolu_rv_held', 'Bash'));
    await eventually(api, 'held', () => api.statusView()?.held === 1);
    const heldLine = s.lineCount();

    await vscode.commands.executeCommand(COMMANDS.openHeldLine);
    const at = await eventually(api, 'the transcript editor', () => activeLine()?.path === s.transcriptPath && activeLine());
    assert.equal(at.line, heldLine);
    const reveal = api.lastReveal()!;
    assert.equal(reveal.held, true);
    assert.equal(reveal.tool_use_id, 'toolu_rv_held');
    assert.equal(reveal.line, heldLine);
    assert.equal(reveal.decoration?.line, heldLine);
    assert.equal(reveal.decoration?.held, true);
    assert.match(reveal.decoration!.text, /Bash/);

    // The record lands two lines further down: the note follows it.
    s.prompt('interleaved').toolUse('toolu_rv_held', 'Bash');
    const recordLine = s.lineCount();
    const moved = await eventually(api, 'the note to move to the record', () => api.lastReveal()?.decoration?.held === false && api.lastReveal()!.decoration!);
    assert.equal(moved.line, recordLine);
  });

  it('opens a written call at its record line', async () => {
    const api = await extensionApi();
    const s = new FakeSession(claude).prompt('go');
    await runHook(claude, s.preToolUse('toolu_rv_w', 'Edit'));
    s.toolUse('toolu_rv_w', 'Edit', { file_path: '/a' });
    const recordLine = s.lineCount();
    s.toolResult('toolu_rv_w').prompt('next');
    const node = await eventually(api, 'the written call', () =>
      api.treeItems().flatMap((n) => n.children).find((c) => c.tool_use_id === 'toolu_rv_w' && c.kind === 'written'),
    );
    await vscode.commands.executeCommand(COMMANDS.openCall, node.target);
    const at = await eventually(api, 'the transcript editor', () => activeLine()?.path === s.transcriptPath && activeLine());
    assert.equal(at.line, recordLine);
    assert.equal(api.lastReveal()?.held, false);
  });

  it('opens a multi-MB transcript at the held line', async function () {
    this.timeout(120_000);
    const api = await extensionApi();
    const s = new FakeSession(claude).prompt('big');
    // ~6 MB of finished tool calls with bulky inputs, as long sessions have.
    const bulk = 'x'.repeat(6000);
    for (let i = 0; i < 1000; i++) s.toolUse(`toolu_big_${i}`, 'Write', { file_path: `/f${i}`, content: bulk }).toolResult(`toolu_big_${i}`);
    await runHook(claude, s.preToolUse('toolu_big_held', 'Bash'));
    await eventually(api, 'the held call', () => api.treeItems().some((n) => n.session_id === s.sessionId && n.children.some((c) => c.kind === 'held')), 60_000);
    const lines = s.lineCount();
    await vscode.commands.executeCommand(COMMANDS.openHeldLine, api.treeItems().find((n) => n.session_id === s.sessionId)!.children.find((c) => c.kind === 'held')!.target);
    const at = await eventually(api, 'the transcript editor', () => activeLine()?.path === s.transcriptPath && activeLine(), 30_000);
    assert.equal(at.line, lines);
    assert.equal(api.lastReveal()?.openedWithoutDocument, false);
  });
});
