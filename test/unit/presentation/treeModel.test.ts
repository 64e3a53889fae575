import { strict as assert } from 'node:assert';
import { callNodeId, heldBadge, treeModel } from '../../../src/presentation/treeModel';
import { heldCall, session, writtenCall } from '../helpers/presentationSnapshots';

const NOW = 1_750_000_000_000;

describe('presentation: tree', () => {
  it("says who reported a call in its tooltip: the mod, an http hook or a command hook; nothing without a hook", () => {
    const s = session({
      held: [heldCall('h1', NOW - 100, { transport: 'mod' })],
      recent: [writtenCall('w1', 30, NOW - 10, { transport: 'http' }), writtenCall('w2', 20, NOW - 20, { transport: 'command' }), writtenCall('w3', 10, NOW - 30, { fired_at: undefined })],
    });
    const tips = Object.fromEntries(treeModel([s], NOW)[0].children.map((c) => [c.tool_use_id, c.tooltip]));
    assert.match(tips.h1, /Reported by the mod, inside Claude Code/);
    assert.match(tips.w1, /Reported by an http hook/);
    assert.match(tips.w2, /Reported by a command hook/);
    assert.doesNotMatch(tips.w3, /Reported by/);
  });

  it("lists a written call's per-call fields (the field table's, under record) in its tooltip, one line each, after its line", () => {
    const s = session({
      recent: [writtenCall('w1', 30, NOW - 10, { record: { requestedModel: 'claude-opus-5-5', requestRef: 'req_\u001b[31m1' } }), writtenCall('w2', 20, NOW - 20, { record: {} })],
    });
    const tips = Object.fromEntries(treeModel([s], NOW)[0].children.map((c) => [c.tool_use_id, c.tooltip.split('\n')]));
    // Text from a transcript: printable, as every label and tooltip line (the ESC is dropped).
    assert.deepEqual(tips.w1!.slice(3, 6), ['record at line 30', 'requestedModel: claude-opus-5-5', 'requestRef: req_[31m1']);
    assert.deepEqual(tips.w2!.slice(3, 4), ['record at line 20']);
    assert.ok(!tips.w2!.some((l: string) => l.startsWith('request')));
  });

  it('lists calls newest first, with outcome, age, lag and shape', () => {
    const s = session({
      held: [heldCall('h1', NOW - 2500, { tool_name: 'Edit', wait: { outcome: 'behind', polls: 50, waited_ms: 5000 } })],
      recent: [
        writtenCall('w1', 30, NOW - 10, { fired_at: NOW - 1210, lag_ms: 1200, with_result: true, shape: 'with_result' }),
        writtenCall('w0', 20, NOW - 3000, { fired_at: undefined, lag_ms: null, shape: 'before_result' }),
      ],
    });
    const [root] = treeModel([s], NOW);
    assert.equal(root.label, '1 held');
    assert.equal(root.name, 'Fix the parser');
    assert.equal(root.description, 'Fix the parser');
    assert.deepEqual(root.children.map((c) => c.kind), ['written', 'held', 'written']);
    assert.equal(root.children[1].label, 'Edit');
    assert.equal(root.children[1].description, 'behind · held 2.5s · 50 polls');
    assert.equal(root.children[0].description, 'lag 1.2s · with result');
    assert.equal(root.children[2].description, 'no hook · before result');
    assert.equal(root.children[1].target?.line, 40);
    assert.equal(root.children[0].target?.line, 30);
  });

  it("leads a session's row with its state and figures, its name after, and its tooltip holds every figure", () => {
    const stats = { waits_seen: 2, waits_behind: 3, lag_p50_ms: 7100, lag_p95_ms: 9000, shape_before_result: 4, shape_with_result: 1, shape_unknown: 2 };
    const s = session({ held: [heldCall('h', NOW - 100)], stats: { ...session().stats, ...stats } });
    const [root] = treeModel([s], NOW);
    assert.equal(root.label, '1 held · 3 behind · p50 7.1s');
    assert.equal(root.description, 'Fix the parser');
    const tip = root.tooltip.split('\n');
    assert.deepEqual(tip.slice(0, 3), ['Fix the parser', '1 held · waits 2 seen / 3 behind · lag p50 7.1s · p95 9.0s', 'shapes: 4 before result · 1 with result · 2 unknown']);
    // Nothing behind, nothing measured: the row says only what is so, the tooltip says what is not known.
    const quiet = treeModel([session()], NOW)[0];
    assert.equal(quiet.label, 'in sync');
    assert.equal(quiet.tooltip.split('\n')[1], 'in sync: no call held · waits 0 seen / 0 behind · lag: none measured');
  });

  it("says a call's figures whole in its tooltip, the wait's outcome and what its shape means, whatever the row could keep", () => {
    const seen = { outcome: 'seen' as const, polls: 3, waited_ms: 300 };
    const s = session({
      recent: [
        writtenCall('w1', 30, NOW - 10, { tool_name: 'Bash', lag_ms: null, lag_bounds: { min_ms: 0, max_ms: 121 }, shape: 'before_result', wait: seen }),
        writtenCall('w2', 20, NOW - 20, { tool_name: 'Read', lag_ms: null, shape: 'unknown', wait: { outcome: 'behind', polls: 50, waited_ms: 5000 } }),
        writtenCall('w3', 10, NOW - 30, { tool_name: 'Edit', lag_ms: 1200, shape: 'with_result' }),
      ],
    });
    const rows = Object.fromEntries(treeModel([s], NOW)[0].children.map((c) => [c.tool_use_id, c]));
    assert.equal(rows.w1!.description, 'seen · held ≤ 121 ms · before result');
    assert.deepEqual(rows.w1!.tooltip.split('\n').slice(0, 3), ['w1', 'Bash: seen · held ≤ 121 ms · before result', 'Shape: before result: its record was on disk before its result (a hook could have seen it, given time).']);
    assert.equal(rows.w2!.description, 'behind · lag, shape unknown');
    assert.deepEqual(rows.w2!.tooltip.split('\n').slice(1, 3), ['Read: behind · lag unknown · shape unknown', 'Shape: unknown: nothing read proves whether its record came before its result.']);
    assert.match(rows.w3!.tooltip, /^Edit: lag 1\.2s · with result$/m);
    assert.match(rows.w3!.tooltip, /^Shape: with result: its record and its result came in one write/m);
  });

  it('keeps a call\'s id when it goes from held to written, and ids unique across sessions', () => {
    const before = treeModel([session({ held: [heldCall('t1', NOW - 10)] })], NOW)[0].children[0];
    const after = treeModel([session({ recent: [writtenCall('t1', 41, NOW)] })], NOW)[0].children[0];
    assert.equal(before.id, after.id);
    assert.equal(before.id, callNodeId('s1', 't1'));
    assert.notEqual(callNodeId('s1', 't1'), callNodeId('s2', 't1'));
    assert.equal(before.contextValue, 'heldCall');
    assert.equal(after.contextValue, 'writtenCall');
  });

  it('badges the number of held calls and hides the badge at zero', () => {
    const s1 = session({ held: [heldCall('a', NOW), heldCall('b', NOW)] });
    const s2 = session({ session_id: 's2', held: [heldCall('c', NOW)] });
    assert.equal(heldBadge([s1, s2])?.value, 3);
    assert.equal(heldBadge([session()]), undefined);
  });
});
