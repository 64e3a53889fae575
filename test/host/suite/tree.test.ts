// The held-calls tree: sessions named so a person can tell them apart, most recent
// first; their calls newest first in one stable order (held: outcome, live age, what
// the hook does; written: outcome, lag, shape); the badge counts held calls.
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

  it('opens as a view in its own container, showing a session and its calls', async () => {
    const api = await extensionApi();
    // A known session: one call written with its result after its hook fired, one held (hook fired, no record).
    const s = new FakeSession(claude).title('Open the tree').prompt('open');
    await sessionFollowed(api, s);
    await runHook(claude, s.preToolUse('toolu_tree_open_read', 'Read'));
    s.toolUse('toolu_tree_open_read', 'Read', { file_path: '/x' }).toolResult('toolu_tree_open_read');
    await runHook(claude, s.preToolUse('toolu_tree_open_held', 'Bash'));
    await vscode.commands.executeCommand(`${TREE_VIEW_ID}.focus`);
    const rows = await eventually(api, 'the view shown with the session, one call held and one written', () => {
      const all = api.renderedTreeItems();
      const at = all.findIndex((r) => r.id === `session/${s.sessionId}`);
      return api.treeVisible() && at >= 0 && /^held /.test(all[at + 1]?.description ?? '') && /^lag /.test(all[at + 2]?.description ?? '') && all.slice(at, at + 3);
    });
    const [sessionRow, held, written] = rows;
    // The session's row: the held count (and the written call's lag as its p50) first, its name after.
    assert.match(sessionRow.label, /^1 held(?: · p50 \S+(?: ms|s))?$/);
    assert.match(sessionRow.description, /^Open the tree · \d\d:\d\d$/);
    // Its calls, held first: the tool's name, then what the row says of it.
    assert.deepEqual([held.label, written.label], ['Bash', 'Read']);
    assert.match(held.description, /^held \d.* · hook fired$/);
    assert.match(written.description, /^lag \d.* · (with result|before result|shape unknown)$/);
    assert.equal(api.badge(), 1);
    // Its record lands: nothing of this session is held for the tests below.
    s.toolUse('toolu_tree_open_held', 'Bash');
    await eventually(api, 'nothing held', () => api.badge() === undefined);
  });

  it('lists a session with its calls newest first, outcome first, and badges the held count', async () => {
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
    // The row leads with its state; its name (title and start time, local hh:mm of its first call's record) after it.
    // Its one written call's lag is the session's p50 when the engine's read measured it (a busy machine may
    // leave only a bound, and no p50 then): the row says what the tooltip says.
    const p50 = /^2 held(?: · p50 (\S+(?: ms|s)))?$/.exec(node.label);
    assert.ok(p50, node.label);
    assert.match(node.name, /^Refactor the tail · \d\d:\d\d$/);
    assert.equal(node.description, node.name);
    // The tooltip holds what a narrow sidebar cuts: the name, the held count, the waits and the lag.
    const [name, figures] = node.tooltip.split('\n');
    assert.equal(name, node.name);
    if (p50[1] === undefined) assert.equal(figures, '2 held · waits 0 seen / 0 behind · lag: none measured');
    else assert.match(figures, new RegExp(`^2 held · waits 0 seen / 0 behind · lag p50 ${p50[1]} · p95 \\S+( ms|s)$`));
    assert.deepEqual(
      node.children.map((c) => [c.kind, c.label, c.tool_use_id]),
      [
        ['held', 'Grep', 'toolu_tree_h2'],
        ['held', 'Bash', 'toolu_tree_h1'],
        ['written', 'Read', 'toolu_tree_done'],
      ],
    );
    // Announce mode (the default install): the hook fired and returned; nothing waits.
    assert.match(node.children[0].description, /^held \d.* · hook fired$/);
    assert.match(node.children[2].description, /^lag \d.*/);
    assert.match(node.children[2].description, /with result|before result/);
    assert.equal(api.badge(), 2);
    assert.equal(api.badgeTooltip(), '2 calls held back from the transcript');
  });

  it("hands VS Code rows that lead with what a hook author scans for, and hovers that hold every figure the row may cut", async () => {
    const api = await extensionApi();
    const rows = await eventually(api, 'the session and its calls rendered', () => {
      const all = api.renderedTreeItems();
      const at = all.findIndex((r) => r.id === `session/${session.sessionId}`);
      return at >= 0 && all.slice(at, at + 4);
    });
    const [sessionRow, h2, h1, done] = rows;
    const node = api.treeItems().find((n) => n.session_id === session.sessionId)!;
    assert.deepEqual([sessionRow.label, sessionRow.description], [node.label, node.name]);
    assert.match(sessionRow.label, /^2 held( · p50 |$)/);
    assert.match(sessionRow.tooltip, /^Refactor the tail · \d\d:\d\d\n2 held · waits 0 seen \/ 0 behind · lag[ :].*\nshapes: \d+ before result · \d+ with result · \d+ unknown\n/);
    assert.deepEqual([h2.label, h1.label, done.label], ['Grep', 'Bash', 'Read']);
    // A held row's hover: its figures whole, then where its record will land.
    assert.match(h2.tooltip, /^toolu_tree_h2\nGrep: held \d.* · hook fired\nheld for .*; its record will land after line \d+/);
    // A written row's hover: lag and shape, and what the shape means.
    const [, figures, shape] = done.tooltip.split('\n');
    assert.equal(figures, `Read: ${done.description}`);
    assert.match(figures, /^Read: (lag \d|held [≤≥\d]).* · (with result|before result|shape unknown)$/);
    assert.match(shape, /^Shape: (with result|before result|unknown): /);
  });

  it('moves a call from held to written when its record lands and lowers the badge', async () => {
    const api = await extensionApi();
    const before = api.treeItems().find((n) => n.session_id === session.sessionId)!;
    const order = (n: typeof before) => n.children.map((c) => c.tool_use_id);
    session.toolUse('toolu_tree_h1', 'Bash');
    const after = await eventually(api, 'h1 written', () => {
      const n = api.treeItems().find((x) => x.session_id === session.sessionId);
      return n && n.children.find((c) => c.tool_use_id === 'toolu_tree_h1')?.kind === 'written' && n;
    });
    assert.deepEqual(after.children.filter((c) => c.kind === 'held').map((c) => c.tool_use_id), ['toolu_tree_h2']);
    // The id survives the move, so VS Code keeps selection and expansion.
    const idOf = (n: typeof before) => n.children.find((c) => c.tool_use_id === 'toolu_tree_h1')!.id;
    assert.equal(idOf(after), idOf(before));
    // Every row keeps its slot: a click aimed at a row lands on it while holds clear.
    assert.deepEqual(order(after), order(before));
    assert.equal(api.badge(), 1);
    assert.equal(api.badgeTooltip(), '1 call held back from the transcript');
    session.toolUse('toolu_tree_h2', 'Grep');
    await eventually(api, 'nothing held', () => api.badge() === undefined);
    assert.equal(api.badgeTooltip(), undefined, 'no badge, no badge hover');
  });

  it('tells apart two sessions that began with the same prompt', async () => {
    const api = await extensionApi();
    const a = new FakeSession(claude).prompt('go');
    const b = new FakeSession(claude).prompt('go');
    // A call each, so each has a start time from its records.
    a.toolUse('toolu_tree_a', 'Read');
    b.toolUse('toolu_tree_b', 'Read');
    const [na, nb] = await eventually(api, 'both sessions with a start time', () => {
      const items = api.treeItems();
      const x = items.find((n) => n.session_id === a.sessionId);
      const y = items.find((n) => n.session_id === b.sessionId);
      return x && y && /\d\d:\d\d/.test(x.name) && /\d\d:\d\d/.test(y.name) && [x, y];
    });
    assert.match(na.name, /^go · /);
    assert.match(nb.name, /^go · /);
    assert.notEqual(na.name, nb.name);
  });

  it('names two same-prompt sessions in one folder by their git branches', async () => {
    const api = await extensionApi();
    // Same prompt, same folder, same start: the branch is what tells them apart.
    const start = Date.now() - 30_000;
    const a = new FakeSession(claude).startingAt(start).onBranch('main').prompt('fix the flaky test');
    const b = new FakeSession(claude).startingAt(start).onBranch('fix/flaky').prompt('fix the flaky test');
    a.toolUse('toolu_branch_a', 'Read');
    b.toolUse('toolu_branch_b', 'Read');
    const [na, nb] = await eventually(api, 'both sessions named by their branch', () => {
      const items = api.treeItems();
      const x = items.find((n) => n.session_id === a.sessionId);
      const y = items.find((n) => n.session_id === b.sessionId);
      return x && y && x.name.endsWith(' · main') && y.name.endsWith(' · fix/flaky') && [x, y];
    });
    assert.match(na.name, /^fix the flaky test · \d\d:\d\d · main$/);
    assert.match(nb.name, /^fix the flaky test · \d\d:\d\d · fix\/flaky$/);
    assert.match(na.tooltip, /branch main/);
    assert.match(nb.tooltip, /branch fix\/flaky/);
  });

  it('says "hook waiting" only while a probe waits, "hook fired" in announce mode', async () => {
    const api = await extensionApi();
    const s = new FakeSession(claude).prompt('probe me');
    await sessionFollowed(api, s);
    const rowOf = (id: string) => api.treeItems().find((n) => n.session_id === s.sessionId)?.children.find((c) => c.tool_use_id === id);
    await runHook(claude, s.preToolUse('toolu_tree_announce', 'Bash'));
    const announced = await eventually(api, 'the announced call held', () => rowOf('toolu_tree_announce'));
    assert.match(announced.description, /^held \d.* · hook fired$/);
    assert.doesNotMatch(announced.tooltip, /probe/i);
    // A probe that looks 40 × 100 ms for a record that never lands: held and waiting meanwhile.
    const probe = runHook(claude, s.preToolUse('toolu_tree_probe', 'Bash'), ['--probe', '--polls', '40', '--poll-ms', '100']);
    const waiting = await eventually(api, 'the probe waiting', () => {
      const r = rowOf('toolu_tree_probe');
      return r && /hook waiting/.test(r.description) && r;
    });
    assert.match(waiting.description, /^held \d.* · hook waiting$/);
    assert.match(waiting.tooltip, /probe's own wait lengthens the hold/);
    assert.match(rowOf('toolu_tree_announce')!.description, /hook fired$/, 'the announced call still does not wait');
    assert.equal((await probe).code, 0);
    const reported = await eventually(api, 'the probe to report', () => {
      const r = rowOf('toolu_tree_probe');
      return r && /^behind · /.test(r.description) && r;
    });
    assert.match(reported.description, /^behind · held \d.* · \d+ polls$/);
  });
});
