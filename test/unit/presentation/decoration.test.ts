import { strict as assert } from 'node:assert';
import { callDecoration } from '../../../src/presentation/decoration';
import { heldCall, session, writtenCall } from '../helpers/presentationSnapshots';

const NOW = 1_750_000_000_000;

describe('presentation: after-line decoration', () => {
  it('sits on the held line while held, then moves to the record line', () => {
    const held = session({ last_line: 55, held: [heldCall('t', NOW - 1200, { tool_name: 'Bash' })] });
    const d1 = callDecoration(held, 't', NOW);
    assert.deepEqual([d1?.line, d1?.held], [55, true]);
    assert.match(d1?.text ?? '', /Bash held 1\.2s/);
    const written = session({ last_line: 58, recent: [writtenCall('t', 57, NOW, { tool_name: 'Bash', lag_ms: 1300, with_result: true, shape: 'with_result' })] });
    const d2 = callDecoration(written, 't', NOW);
    assert.deepEqual([d2?.line, d2?.held], [57, false]);
    assert.match(d2?.text ?? '', /lag 1\.3s · with result/);
    // with_result alone proves no shape.
    const unproven = session({ recent: [writtenCall('t', 57, NOW, { lag_ms: 1300, with_result: true })] });
    assert.match(callDecoration(unproven, 't', NOW)?.text ?? '', /lag 1\.3s · shape unknown/);
  });

  it('is gone once the call has left the snapshot', () => {
    assert.equal(callDecoration(session(), 't', NOW), undefined);
    assert.equal(callDecoration(undefined, 't', NOW), undefined);
  });
});
