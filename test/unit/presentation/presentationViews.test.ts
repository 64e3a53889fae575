import { strict as assert } from 'node:assert';
import { callLagText, callShapeText } from '../../../src/presentation/format';
import { LagSampleStore } from '../../../src/presentation/lagSamples';
import { buildReport } from '../../../src/presentation/reportModel';
import { sessionNames, sessionPickItems, startLabel } from '../../../src/presentation/sessionLabel';
import { BEHIND_RED_MS, ERROR_BACKGROUND, statusView } from '../../../src/presentation/statusView';
import { callsInOrder, heldBadge, treeModel } from '../../../src/presentation/treeModel';
import { heldCall, session, writtenCall } from '../helpers/presentationSnapshots';

/** Local time, so the expected labels hold in any time zone. */
const NOW = new Date(2026, 11, 1, 19, 30).getTime();
const at = (h: number, m: number, day = 1) => new Date(2026, 11, day, h, m).getTime();
const opts = { warnAfterMs: 2000 };

describe('presentation: sessions a person can tell apart', () => {
  it('names a session by its title or first prompt and its start time', () => {
    assert.equal(startLabel(at(9, 5), NOW), '09:05');
    assert.equal(startLabel(at(8, 0, 2), NOW), 'Dec 2 08:00');
    assert.equal(startLabel(new Date(2026, 10, 29, 23, 59).getTime(), NOW), 'Nov 29 23:59');
    assert.equal(startLabel(undefined, NOW), undefined);
    const names = sessionNames(
      [
        session({ session_id: 'a', title: 'Fix the parser', started_at: at(9, 5) }),
        session({ session_id: 'b', title: undefined, first_prompt: 'go', started_at: at(10, 0) }),
        session({ session_id: 'c', title: undefined, first_prompt: 'why', started_at: undefined }),
      ],
      NOW,
    );
    assert.deepEqual([...names.entries()], [
      ['a', 'Fix the parser · 09:05'],
      ['b', 'go · 10:00'],
      ['c', 'why'],
    ]);
  });

  it('tells colliding names apart by folder, else branch, else enough of the id', () => {
    const go = { title: undefined, first_prompt: 'go', started_at: at(10, 0) };
    const byFolder = sessionNames(
      [session({ ...go, session_id: 'a1', cwd: '/home/u/api' }), session({ ...go, session_id: 'a2', cwd: '/home/u/web' })],
      NOW,
    );
    assert.deepEqual([...byFolder.values()], ['go · 10:00 · api', 'go · 10:00 · web']);
    const byBranch = sessionNames(
      [session({ ...go, session_id: 'b1', cwd: '/w', git_branch: 'main' }), session({ ...go, session_id: 'b2', cwd: '/w', git_branch: 'fix' })],
      NOW,
    );
    assert.deepEqual([...byBranch.values()], ['go · 10:00 · main', 'go · 10:00 · fix']);
    const byId = sessionNames(
      [
        session({ ...go, session_id: '0123456789-aaaa', cwd: '/w' }),
        session({ ...go, session_id: '0123456789-bbbb', cwd: '/w' }),
        session({ ...go, session_id: 'ffffffff-cccc', cwd: '/w' }),
      ],
      NOW,
    );
    assert.deepEqual([...byId.values()], ['go · 10:00 · 0123456789-a', 'go · 10:00 · 0123456789-b', 'go · 10:00 · ffffffff-ccc']);
  });

  it('gives eight sessions that all said "go" eight different names', () => {
    const sessions = Array.from({ length: 8 }, (_, i) =>
      session({ session_id: `${i}e1f2a3b-0000-4000-8000-00000000000${i}`, title: undefined, first_prompt: 'go', started_at: at(19, i < 4 ? 0 : 1) }),
    );
    const names = sessionNames(sessions, NOW);
    assert.equal(new Set(names.values()).size, 8);
    for (const n of names.values()) assert.match(n, /^go · 19:0[01] · /);
  });

  it('lists sessions most recent first in the tree and the picker, with the same names', () => {
    const old = session({ session_id: 'old', title: undefined, first_prompt: 'go', started_at: at(9, 0), cwd: '/a' });
    const fresh = session({ session_id: 'new', title: undefined, first_prompt: 'go', started_at: at(11, 0), cwd: '/a' });
    const unknown = session({ session_id: 'unk', title: 'Other', started_at: undefined });
    const tree = treeModel([old, unknown, fresh], NOW);
    assert.deepEqual(tree.map((n) => [n.session_id, n.name]), [
      ['new', 'go · 11:00'],
      ['old', 'go · 09:00'],
      ['unk', 'Other'],
    ]);
    assert.match(tree[0].tooltip, /started 11:00/);
    assert.match(tree[0].tooltip, /session new/);
    assert.equal(buildReport(fresh, [], NOW, tree[0].name).title, 'go · 11:00');
    const picks = sessionPickItems([old, unknown, fresh], NOW);
    assert.deepEqual(picks.map((p) => p.label), tree.map((n) => n.name));
    assert.match(picks[0].detail, /\/a · new/);
  });

  it('names sessions the same way in the status bar tooltip', () => {
    const a = session({ session_id: 'a', title: undefined, first_prompt: 'go', started_at: at(9, 0), cwd: '/x' });
    const b = session({ session_id: 'b', title: undefined, first_prompt: 'go', started_at: at(9, 0), cwd: '/y' });
    const t = statusView([a, b], NOW, opts).tooltip;
    assert.match(t, /\*\*go · 09:00 · x\*\*/);
    assert.match(t, /\*\*go · 09:00 · y\*\*/);
  });
});

describe('presentation: one meaning per signal', () => {
  const behindWait = { outcome: 'behind' as const, polls: 50, waited_ms: 300 };

  it('is red while a behind call is held, then red without a check for a short time, then plain', () => {
    const firedAt = NOW - 1000;
    const held = session({ held: [heldCall('b', firedAt, { wait: behindWait })] });
    const whileHeld = statusView([held], NOW, opts);
    assert.equal(whileHeld.background, ERROR_BACKGROUND);
    assert.match(whileHeld.text, /^\$\(watch\) 1 held/);
    const landed = session({ recent: [writtenCall('b', 41, NOW + 50, { fired_at: firedAt, lag_ms: 383, wait: behindWait })] });
    const waitEnded = firedAt + behindWait.waited_ms;
    const soon = statusView([landed], NOW + 100, opts);
    assert.equal(soon.background, ERROR_BACKGROUND);
    assert.equal(soon.text, '$(error) hook behind · lag 383 ms');
    assert.equal(soon.ticking, true, 'must re-render so the colour clears');
    const later = statusView([landed], waitEnded + BEHIND_RED_MS, opts);
    assert.equal(later.background, undefined);
    assert.equal(later.text, '$(check) 383 ms');
    assert.equal(later.ticking, false);
  });

  it('never shows a check mark on red', () => {
    const firedAt = NOW - 1000;
    const states = [
      session({ held: [heldCall('b', firedAt, { wait: behindWait })] }),
      session({ recent: [writtenCall('b', 41, NOW, { fired_at: firedAt, wait: behindWait })] }),
      session({ recent: [writtenCall('b', 41, NOW, { fired_at: firedAt, lag_ms: null, wait: behindWait })] }),
      session({ held: [heldCall('t', NOW - 59_000)] }),
    ];
    for (const s of states) {
      for (const t of [NOW, NOW + 5000, NOW + 20_000, NOW + 60_000]) {
        const v = statusView([s], t, opts);
        if (v.background === ERROR_BACKGROUND) assert.doesNotMatch(v.text, /\$\(check\)/, `${v.text} at +${t - NOW}`);
      }
    }
  });

  it('gives the status bar an accessibility label that says the text and why it is coloured', () => {
    const v = statusView([session({ held: [heldCall('b', NOW - 1000, { wait: behindWait })] })], NOW, opts);
    assert.equal(v.accessibilityLabel, "Transcript Lag: 1 held, 1.0s; a hook's wait ended behind: the record was not on disk");
    const sync = statusView([session({ recent: [writtenCall('a', 3, NOW, { lag_ms: 420 })] })], NOW, opts);
    assert.equal(sync.accessibilityLabel, 'Transcript Lag: in sync, 420 ms');
  });

  it('says "hook waiting" only for a probe that has not reported its wait', () => {
    const rows = (over: Parameters<typeof heldCall>[2]) => treeModel([session({ held: [heldCall('h', NOW - 2100, over)] })], NOW)[0].children[0];
    assert.equal(rows({ hook_mode: 'probe' }).description, 'held 2.1s · hook waiting');
    assert.equal(rows({ hook_mode: 'announce' }).description, 'held 2.1s · hook fired');
    assert.equal(rows({}).description, 'held 2.1s · hook fired');
    assert.equal(rows({ transport: 'mod' }).description, 'held 2.1s · mod watching');
    assert.equal(rows({ transport: 'mod', hook_mode: 'probe' }).description, 'held 2.1s · hook waiting', 'a probe that also reports it still waits');
    assert.equal(rows({ hook_mode: 'probe', wait: { outcome: 'seen', polls: 3, waited_ms: 300 } }).description, 'seen · held 2.1s · 3 polls');
    assert.match(rows({ hook_mode: 'probe' }).tooltip, /probe's own wait lengthens the hold/);
    assert.doesNotMatch(rows({ hook_mode: 'announce' }).tooltip, /lengthens/);
    const tip = statusView([session({ held: [heldCall('h', NOW - 2100, { hook_mode: 'probe' })] })], NOW, opts).tooltip;
    assert.match(tip, /probe's own wait lengthens the hold/);
  });

  it('puts the outcome first in every call row, so a narrow sidebar keeps it', () => {
    const s = session({
      held: [heldCall('h', NOW - 2100, { agent_id: 'q' })],
      recent: [writtenCall('w', 9, NOW - 5000, { wait: { outcome: 'behind', polls: 50, waited_ms: 5000 }, shape: 'before_result' })],
    });
    const [held, written] = treeModel([s], NOW)[0].children;
    assert.match(held.description, /^held 2\.1s · /);
    assert.equal(written.description, 'behind · lag 300 ms · before result');
  });

  it('keeps every call in its slot as another call\'s hold clears', () => {
    const calls = [heldCall('h1', NOW - 900), heldCall('h2', NOW - 600), heldCall('h3', NOW - 300)];
    const written = [writtenCall('w1', 10, NOW - 1500), writtenCall('w0', 8, NOW - 2500)];
    const before = callsInOrder(session({ held: calls, recent: written })).map((c) => c.tool_use_id);
    for (const clearing of ['h1', 'h2', 'h3']) {
      const cleared = calls.find((c) => c.tool_use_id === clearing)!;
      const after = session({
        held: calls.filter((c) => c !== cleared),
        recent: [writtenCall(clearing, 20, NOW, { fired_at: cleared.fired_at }), ...written],
      });
      const order = treeModel([after], NOW)[0].children.map((n) => n.tool_use_id);
      assert.deepEqual(order, before, `after ${clearing} cleared`);
    }
  });

  it('orders a call read from history by its record\'s own time, not by when the window read it', () => {
    const history = writtenCall('old', 3, NOW, { fired_at: undefined, record_at: NOW - 60_000, lag_ms: null, shape: 'unknown' });
    const s = session({ held: [heldCall('h', NOW - 5000)], recent: [history] });
    assert.deepEqual(treeModel([s], NOW)[0].children.map((c) => c.tool_use_id), ['h', 'old']);
  });

  it('badges held calls with a hover that says the same number, and no hover without a badge', () => {
    const b = heldBadge([session({ held: [heldCall('a', NOW)] })]);
    assert.deepEqual(b, { value: 1, tooltip: '1 call held back from the transcript' });
    assert.equal(heldBadge([session({ recent: [writtenCall('a', 3, NOW)] })])?.tooltip, undefined);
  });
});

describe('presentation: never a label the evidence does not prove', () => {
  it('never says "no hook" when a hook event joined the call', () => {
    assert.equal(callLagText({ fired_at: NOW, lag_ms: null }), 'lag unknown');
    assert.equal(callLagText({ fired_at: NOW, lag_ms: null, lag_bounds: { min_ms: 0, max_ms: 2300 } }), 'held ≤ 2.3s');
    assert.equal(callLagText({ fired_at: NOW, lag_ms: null, lag_bounds: { min_ms: 400, max_ms: 2300 } }), 'held 400 ms–2.3s');
    assert.equal(callLagText({ fired_at: NOW, lag_ms: null, lag_bounds: { min_ms: 1400, max_ms: null } }), 'held ≥ 1.4s');
    assert.equal(callLagText({ fired_at: NOW, lag_ms: 2900 }), 'lag 2.9s');
    assert.equal(callLagText({ lag_ms: null }), 'no hook');
    const [row] = treeModel([session({ recent: [writtenCall('w', 3, NOW, { lag_ms: null })] })], NOW)[0].children;
    assert.equal(row.description, 'lag, shape unknown');
  });

  it('takes a shape from the evidence only, never from with_result alone', () => {
    assert.equal(callShapeText('before_result'), 'before result');
    assert.equal(callShapeText('with_result'), 'with result');
    assert.equal(callShapeText('unknown'), 'shape unknown');
    assert.equal(callShapeText(undefined), 'shape unknown');
    const history = writtenCall('w', 3, NOW, { lag_ms: null, with_result: false, shape: 'unknown' });
    assert.equal(treeModel([session({ recent: [history] })], NOW)[0].children[0].description, 'lag, shape unknown');
  });

  it('reports a joined call without a lag as "lag unknown" and its unproven shape as "shape unknown"', () => {
    const store = new LagSampleStore();
    store.absorb(session({ recent: [writtenCall('w', 3, NOW, { lag_ms: null, with_result: true, shape: 'unknown' })] }));
    assert.equal(store.samples('s1')[0].shape, null);
    const [row] = buildReport(session(), store.samples('s1'), NOW).rows;
    assert.deepEqual([row.lag, row.shape], ['lag unknown', 'shape unknown']);
  });
});

describe('views: a fork\'s copied calls', () => {
  it('a copy shows the session it was copied from, never a lag or a shape of this session', () => {
    const copy = writtenCall('toolu_copy', 3, 1000, { copied_from: 'b4e672aa-3347-44eb-a27c-535072cbd17a', lag_ms: null, fired_at: undefined, shape: 'unknown' });
    const [node] = treeModel([session({ recent: [copy] })], 2000);
    const row = node!.children[0]!;
    assert.equal(row.description, 'copied from b4e672aa');
    assert.match(row.tooltip, /Copied by --fork-session from session b4e672aa-3347-44eb-a27c-535072cbd17a/);
  });
});

