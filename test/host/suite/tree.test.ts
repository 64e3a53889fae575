// The held-calls tree: sessions, held calls first (tool, live age, hook outcome),
// then recent written calls (tool, lag, shape); the badge counts held calls.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { TREE_VIEW_ID } from '../../../src/presentation/commandIds';
import { eventually, extensionApi, FakeSession, newClaudeDir, runHook, useClaudeDir, sessionFollowed } from './support';

describe('held-calls tree', () => {
  let claude: string;
  let session: FakeSession;

  before(async () => {
    claude = newClaudeDir('tree');
    await useClaudeDir(await extensionApi(), claude);
  });

  it('opens as a view in its own container', async () => {
    await vscode.commands.executeCommand(`${TREE_VIEW_ID}.focus`);
  });

  it('lists a session with its held calls first, then written calls, and badges the held count', async () => {
    const api = await extensionApi();
    const s = (session = new FakeSession(claude).title('Refactor the tail').prompt('refactor'));
    await sessionFollowed(api, s);
    // One call written with its result, hook fired before it.
    await runHook(claude, s.preToolUse('toolu_tree_done', 'Read'));
    s.toolUse('toolu_tree_done', 'Read', { file_path: '/x' }).toolResult('toolu_tree_done');
    // Two calls held: hooks fired, records not on disk.
    await runHook(claude, s.preToolUse('toolu_tree_h1', 'Bash'));
    await runHook(claude, s.preToolUse('toolu_tree_h2', 'Grep'));

    const node = await eventually(api, 'two held and one written', () => {
      const n = api.treeItems().find((x) => x.session_id === s.sessionId);
      return n && n.children.filter((c) => c.kind === 'held').length === 2 && n.children.some((c) => c.kind === 'written') && n;
    });
    assert.equal(node.kind, 'session');
    assert.equal(node.label, 'Refactor the tail');
    assert.match(node.description, /^2 held/);
    assert.deepEqual(
      node.children.map((c) => [c.kind, c.label, c.tool_use_id]),
      [
        ['held', 'Bash', 'toolu_tree_h1'],
        ['held', 'Grep', 'toolu_tree_h2'],
        ['written', 'Read', 'toolu_tree_done'],
      ],
    );
    assert.match(node.children[0].description, /^held \d.* · hook waiting$/);
    assert.match(node.children[2].description, /^lag \d.*/);
    assert.match(node.children[2].description, /with result|before result/);
    assert.equal(api.badge(), 2);
  });

  it('moves a call from held to written when its record lands and lowers the badge', async () => {
    const api = await extensionApi();
    const before = api.treeItems().find((n) => n.session_id === session.sessionId)!;
    session.toolUse('toolu_tree_h1', 'Bash');
    const after = await eventually(api, 'h1 written', () => {
      const n = api.treeItems().find((x) => x.session_id === session.sessionId);
      return n && n.children.find((c) => c.tool_use_id === 'toolu_tree_h1')?.kind === 'written' && n;
    });
    assert.deepEqual(after.children.filter((c) => c.kind === 'held').map((c) => c.tool_use_id), ['toolu_tree_h2']);
    // The id survives the move, so VS Code keeps selection and expansion.
    const idOf = (n: typeof before) => n.children.find((c) => c.tool_use_id === 'toolu_tree_h1')!.id;
    assert.equal(idOf(after), idOf(before));
    assert.equal(api.badge(), 1);
  });
});
