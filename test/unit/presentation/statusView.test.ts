import { strict as assert } from 'node:assert';
import {
  DEFAULT_HOOK_TIMEOUT_MS, ERROR_BACKGROUND, NEAR_TIMEOUT_FRACTION, WARNING_BACKGROUND, statusView,
} from '../../../src/presentation/statusView';
import { heldCall, session, stats, writtenCall } from '../helpers/presentationSnapshots';

const NOW = 1_750_000_000_000;
const opts = { warnAfterMs: 2000 };

describe('presentation: status bar', () => {
  it('is hidden while no session is active', () => {
    const v = statusView([], NOW, opts);
    assert.equal(v.visible, false);
  });

  it('shows the lag of the newest written call when in sync', () => {
    const s = session({ recent: [writtenCall('b', 12, NOW - 10, { lag_ms: 420 }), writtenCall('a', 8, NOW - 500, { lag_ms: 90 })] });
    const v = statusView([s], NOW, opts);
    assert.equal(v.visible, true);
    assert.equal(v.text, '$(check) 420 ms');
    assert.equal(v.background, undefined);
    assert.equal(v.ticking, false);
  });

  it('shows the bound of the newest written call when its hook evidence proves only a bound, as the tree does', () => {
    const v = statusView([session({ recent: [writtenCall('a', 3, NOW, { lag_ms: null, lag_bounds: { min_ms: 400, max_ms: 2300 } })] })], NOW, opts);
    assert.equal(v.text, '$(check) 400 ms–2.3s');
    const upTo = statusView([session({ recent: [writtenCall('a', 3, NOW, { lag_ms: null, lag_bounds: { min_ms: 0, max_ms: 900 } })] })], NOW, opts);
    assert.equal(upTo.text, '$(check) ≤ 900 ms');
  });

  it('says in sync when the last call had no hook event', () => {
    const v = statusView([session({ recent: [writtenCall('a', 3, NOW, { lag_ms: null })] })], NOW, opts);
    assert.equal(v.text, '$(check) in sync');
  });

  it('counts held calls across sessions and shows the oldest hold age, ticking', () => {
    const s1 = session({ held: [heldCall('x', NOW - 700)] });
    const s2 = session({ session_id: 's2', held: [heldCall('y', NOW - 1500), heldCall('z', NOW - 100)] });
    const v = statusView([s1, s2], NOW, opts);
    assert.equal(v.text, '$(watch) 3 held · 1.5s');
    assert.match(v.text, /held/);
    assert.equal(v.held, 3);
    assert.equal(v.ticking, true);
    const later = statusView([s1, s2], NOW + 2000, opts);
    assert.equal(later.text, '$(watch) 3 held · 3.5s');
  });

  it('turns to the warning colour only once the oldest hold passes warnAfterMs', () => {
    const s = session({ held: [heldCall('x', NOW - 2000)] });
    assert.equal(statusView([s], NOW, opts).background, undefined);
    const past = statusView([s], NOW + 1, opts);
    assert.equal(past.background, WARNING_BACKGROUND);
    assert.equal(past.reason, 'hold-past-warn');
    assert.equal(statusView([s], NOW + 1, { warnAfterMs: 5000 }).background, undefined);
  });

  it('turns to the error colour when a hold nears the hook timeout', () => {
    const timeout = 10_000;
    const s = session({ held: [heldCall('x', NOW - timeout * NEAR_TIMEOUT_FRACTION + 1, { timeout_ms: timeout })] });
    assert.equal(statusView([s], NOW, opts).background, WARNING_BACKGROUND);
    const v = statusView([s], NOW + 1, opts);
    assert.equal(v.background, ERROR_BACKGROUND);
    assert.equal(v.reason, 'near-timeout');
    // Once the hook reported how its wait ended it has finished and cannot time out.
    const done = session({ held: [heldCall('x', NOW - timeout, { timeout_ms: timeout, wait: { outcome: 'seen', polls: 3, waited_ms: 300 } })] });
    assert.equal(statusView([done], NOW, opts).reason, 'hold-past-warn');
    // Without a timeout on the event, Claude Code's default applies.
    const d = session({ held: [heldCall('x', NOW - DEFAULT_HOOK_TIMEOUT_MS * NEAR_TIMEOUT_FRACTION)] });
    assert.equal(statusView([d], NOW, opts).reason, 'near-timeout');
  });

  it('turns to the error colour when the latest wait a hook reported ended behind', () => {
    const behind = writtenCall('a', 9, NOW - 50, { fired_at: NOW - 6000, wait: { outcome: 'behind', polls: 50, waited_ms: 5000 } });
    const v = statusView([session({ recent: [behind] })], NOW, opts);
    assert.equal(v.background, ERROR_BACKGROUND);
    assert.equal(v.reason, 'hook-behind');
    // A later wait that saw its call clears it.
    const seen = writtenCall('b', 11, NOW, { wait: { outcome: 'seen', polls: 2, waited_ms: 200 } });
    assert.equal(statusView([session({ recent: [seen, behind] })], NOW, opts).background, undefined);
  });

  it('builds a tooltip with title, waits, lag percentiles, shapes and command links', () => {
    const s = session({
      title: 'Refactor *everything* [now]',
      held: [heldCall('x', NOW - 3000, { tool_name: 'Edit' })],
      stats: stats({ waits_seen: 40, waits_behind: 472, lag_p50_ms: 180, lag_p95_ms: 4200, shape_before_result: 3, shape_with_result: 37 }),
    });
    const t = statusView([s], NOW, opts).tooltip;
    assert.match(t, /Refactor \\\*everything\\\* \\\[now\\\]/);
    assert.match(t, /Waits seen \/ behind: \*\*40\*\* \/ \*\*472\*\*/);
    assert.match(t, /Lag p50 \/ p95: 180 ms \/ 4\.2s/);
    assert.match(t, /3 before result · 37 with result/);
    assert.match(t, /oldest Edit, its record will land after line 40/);
    // The tooltip does not tick (the text does): hovering it must not flicker.
    assert.equal(statusView([s], NOW + 5000, opts).tooltip, t);
    assert.match(t, /\(command:transcriptLag\.openHeldLine\)/);
    assert.match(t, /\(command:transcriptLag\.showReport\)/);
    assert.match(t, /\(command:transcriptLag\.showLog\)/);
  });

  it('shows dashes for lag percentiles before any hook reported', () => {
    assert.match(statusView([session({ recent: [writtenCall('a', 2, NOW, { lag_ms: null })] })], NOW, opts).tooltip, /Lag p50 \/ p95: — \/ —/);
  });

  it('falls back to the first prompt when the session has no title', () => {
    const s = session({ title: undefined, first_prompt: 'why is the\nbuild red', recent: [writtenCall('a', 2, NOW)] });
    assert.match(statusView([s], NOW, opts).tooltip, /\*\*why is the build red\*\*/);
  });

  it('200,000 held calls: the oldest age without spreading them onto the stack', () => {
    const held = Array.from({ length: 200_000 }, (_, i) => heldCall(`h${i}`, NOW - 1000 - (i === 123_456 ? 60_000 : 0)));
    const v = statusView([session({ held })], NOW, opts);
    assert.equal(v.held, 200_000);
    assert.equal(v.oldestHeldAgeMs, 61_000);
    assert.match(v.text, /200000 held · 1m 01s/);
  });
});
