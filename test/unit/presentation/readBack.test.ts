import { strict as assert } from 'node:assert';
import { treeModel } from '../../../src/presentation/treeModel';
import { session, writtenCall } from '../helpers/presentationSnapshots';

const NOW = 1_750_000_000_000;

describe('presentation: a lag read back after a reload', () => {
  it('says the same label it said while watched, and the tooltip says the measurement was read back', () => {
    const live = writtenCall('w', 12, NOW - 1000, { lag_ms: 7100, shape: 'before_result' });
    const readBack = { ...live, read_back: true as const };
    const row = (c: typeof live) => treeModel([session({ recent: [c] })], NOW)[0].children[0];
    assert.equal(row(readBack).description, row(live).description);
    assert.match(row(live).description, /lag 7\.1s · before result/);
    assert.match(row(readBack).tooltip, /read back/);
    assert.doesNotMatch(row(live).tooltip, /read back/);
  });
});
