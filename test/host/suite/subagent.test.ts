// A subagent's calls: Claude Code 2.1.332 writes them to the subagent's own file,
// `<session>/subagents/agent-<id>.jsonl`, while the hook payload names the main
// transcript and carries `agent_id`. Opening such a call must open the
// subagent's file (held: at its last line; written: at the record's line), and
// the exported row must name that file.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { COMMANDS } from '../../../src/presentation/commandIds';
import { scratchRoot } from './hostEnv';
import { closeAllEditors, eventually, extensionApi, FakeSession, newClaudeDir, runHook, sessionFollowed, useClaudeDir } from './support';

function activeLine(): { path: string; line: number } | undefined {
  const ed = vscode.window.activeTextEditor;
  return ed && { path: ed.document.uri.fsPath, line: ed.selection.active.line + 1 };
}

/** A subagent's transcript, written record by record like the session's own. */
function subagentFile(s: FakeSession, agentId: string): { file: string; append(rec: Record<string, unknown>): void; lines(): number } {
  const file = path.join(path.dirname(s.transcriptPath), s.sessionId, 'subagents', `agent-${agentId}.jsonl`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  let n = 0;
  const common = () => ({
    isSidechain: true,
    agentId,
    uuid: `sub-${agentId}-${++n}`,
    timestamp: new Date().toISOString(),
    cwd: s.cwd,
    sessionId: s.sessionId,
    version: '2.1.332',
  });
  return {
    file,
    append: (rec) => fs.appendFileSync(file, JSON.stringify({ ...common(), ...rec }) + '\n'),
    lines: () => fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.length > 0).length,
  };
}

// Waits are bounded generously: the machine running the suite may be shared and slow.
const WAIT_MS = 30_000;

describe('subagent calls', () => {
  let claude: string;

  before(async () => {
    claude = newClaudeDir('subagent');
    await useClaudeDir(await extensionApi(), claude);
  });
  afterEach(closeAllEditors);

  it('a held subagent call opens its own file at its last line, then at its record line; the export row names that file', async function () {
    this.timeout(120_000);
    const api = await extensionApi();
    // The main transcript is longer than the subagent's, so a wrong file or line shows.
    const s = new FakeSession(claude).prompt('go').toolUse('toolu_sa_agent', 'Agent').prompt('a').prompt('b').prompt('c');
    await sessionFollowed(api, s);
    const sub = subagentFile(s, 'a1b2c3');
    sub.append({ type: 'user', message: { role: 'user', content: 'look around' } });
    sub.append({ type: 'assistant', message: { id: 'msg_sa_0', role: 'assistant', content: [{ type: 'text', text: 'ok' }] } });

    await runHook(claude, { ...s.preToolUse('toolu_sa_held', 'Bash'), agent_id: 'a1b2c3', agent_type: 'general-purpose' });
    const node = await eventually(api, 'the held subagent call', () =>
      api.treeItems().flatMap((n) => n.children).find((c) => c.tool_use_id === 'toolu_sa_held' && c.kind === 'held'),
      WAIT_MS,
    );
    assert.match(node.description, /subagent/);
    const heldLine = sub.lines();
    // The subagent's file may be found a poll after the hook event (discovery lists subagents/ per tick).
    await eventually(api, 'the held line in the subagent file', () => api.engine()?.session(s.sessionId)?.held[0]?.held_line === heldLine, WAIT_MS);

    // The status bar click: the oldest held call is this one.
    await vscode.commands.executeCommand(COMMANDS.openHeldLine);
    const at = await eventually(api, 'the subagent transcript editor', () => activeLine()?.path === sub.file && activeLine(), WAIT_MS);
    assert.equal(at.line, heldLine);
    const reveal = api.lastReveal()!;
    assert.deepEqual([reveal.transcript_path, reveal.line, reveal.held, reveal.decoration?.line, reveal.decoration?.held], [sub.file, heldLine, true, heldLine, true]);

    sub.append({ type: 'assistant', message: { id: 'msg_sa_1', role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_sa_held', name: 'Bash', input: {} }], stop_reason: 'tool_use' } });
    const recordLine = sub.lines();
    sub.append({ type: 'user', message: { role: 'user', content: [{ tool_use_id: 'toolu_sa_held', type: 'tool_result', content: 'ok' }] } });
    const moved = await eventually(api, 'the note to move to the record', () => api.lastReveal()?.decoration?.held === false && api.lastReveal()!.decoration!, WAIT_MS);
    assert.equal(moved.line, recordLine);

    await closeAllEditors();
    const written = await eventually(api, 'the written subagent call', () =>
      api.treeItems().flatMap((n) => n.children).find((c) => c.tool_use_id === 'toolu_sa_held' && c.kind === 'written'),
      WAIT_MS,
    );
    await vscode.commands.executeCommand(COMMANDS.openCall, written.target);
    const again = await eventually(api, 'the subagent transcript at the record', () => activeLine()?.path === sub.file && activeLine(), WAIT_MS);
    assert.equal(again.line, recordLine);

    const target = path.join(scratchRoot(), 'subagent-samples.json');
    await vscode.commands.executeCommand(COMMANDS.exportSamples, target);
    const rows = (JSON.parse(fs.readFileSync(target, 'utf8')) as { samples: { tool_use_id: string; transcript_path: string; line: number; agent_id: string }[] }).samples;
    const row = rows.find((r) => r.tool_use_id === 'toolu_sa_held')!;
    assert.deepEqual([row.transcript_path, row.line, row.agent_id], [sub.file, recordLine, 'a1b2c3']);
  });
});
