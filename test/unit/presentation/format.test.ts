import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { formatBound, formatDuration, formatLag, formatStat } from '../../../src/presentation/format';

describe('presentation: durations', () => {
  it('formats ages at each unit boundary', () => {
    assert.equal(formatDuration(0), '0 ms');
    assert.equal(formatDuration(999), '999 ms');
    assert.equal(formatDuration(1000), '1.0s');
    assert.equal(formatDuration(1299), '1.2s');
    assert.equal(formatDuration(9999), '9.9s');
    assert.equal(formatDuration(10_000), '10s');
    assert.equal(formatDuration(59_999), '59s');
    assert.equal(formatDuration(65_000), '1m 05s');
    assert.equal(formatDuration(3_600_000), '1h 00m');
    assert.equal(formatDuration(-5), '0 ms');
    assert.equal(formatDuration(Number.NaN), '0 ms');
  });

  it('never shows more than elapsed, and never a full unit less (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1000, max: 59_999 }), (ms) => {
        const shown = parseFloat(formatDuration(ms)) * 1000;
        return shown <= ms && ms - shown < 1000;
      }),
    );
  });

  it('writes round axis bounds compactly', () => {
    assert.deepEqual([50, 1000, 2000, 10_000, 30_000, 60_000, 90_000].map(formatBound), ['50 ms', '1s', '2s', '10s', '30s', '1m', '1.5m']);
  });

  it('shows a dash for a statistic not measured yet', () => {
    assert.equal(formatStat(null), '—');
    assert.equal(formatStat(1500), '1.5s');
  });

  it('says "no hook" for a lag nobody measured', () => {
    assert.equal(formatLag(null), 'no hook');
    assert.equal(formatLag(undefined), 'no hook');
    assert.equal(formatLag(250), '250 ms');
  });
});
