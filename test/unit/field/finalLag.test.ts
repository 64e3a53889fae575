import { strict as assert } from 'node:assert';

/** The field suite reads watch's last word on a call's lag (test/field/assertions.mjs): a revision supersedes the written figure. */
const load = () => import('../../field/assertions.mjs');

describe("field: watch's last word on a call's lag", () => {
  it('the last of written, joined and revised that says a figure or a bound; other sessions and calls ignored', async () => {
    const { finalLag } = await load();
    const written = { event: 'written', session_id: 's', tool_use_id: 'A', lag_ms: 900 };
    const revised = { event: 'revised', session_id: 's', tool_use_id: 'A', lag_bounds: { min_ms: 0, max_ms: 600 } };
    const noFire = { event: 'written', session_id: 's', tool_use_id: 'B', lag_ms: null };
    const joined = { event: 'joined', session_id: 's', tool_use_id: 'B', lag_ms: 40 };
    const other = { event: 'revised', session_id: 't', tool_use_id: 'A', lag_bounds: { min_ms: 0, max_ms: 1 } };
    const result = { event: 'result', session_id: 's', tool_use_id: 'A', lag_ms: 5 };
    assert.equal(finalLag([written, revised, other, result], 's', 'A'), revised);
    assert.equal(finalLag([written, other], 's', 'A'), written);
    assert.equal(finalLag([noFire, joined], 's', 'B'), joined);
    assert.equal(finalLag([noFire], 's', 'B'), undefined);
  });
});
