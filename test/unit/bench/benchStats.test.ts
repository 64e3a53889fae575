import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { maxInWindow, median, percentile } from '../../../bench/lib/stats';
import { judge } from '../../../bench/lib/report';
import { selfTimes } from '../../../bench/lib/cpuProfile';

describe('bench statistics', () => {
  it('percentile is the nearest-rank value: a real sample with enough samples at or below it', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ noNaN: true, min: -1e6, max: 1e6 }), { minLength: 1, maxLength: 200 }), fc.integer({ min: 0, max: 100 }), (xs, p) => {
        const v = percentile(xs, p);
        const rank = Math.max(1, Math.ceil((p / 100) * xs.length));
        assert.ok(xs.includes(v));
        assert.ok(xs.filter((x) => x <= v).length >= rank);
        assert.ok(xs.filter((x) => x < v).length < rank);
      }),
    );
  });

  it('p99 of 1..200 is 198 and p50 is 100', () => {
    const xs = Array.from({ length: 200 }, (_, i) => 200 - i);
    assert.equal(percentile(xs, 99), 198);
    assert.equal(percentile(xs, 50), 100);
    assert.ok(Number.isNaN(percentile([], 50)));
    assert.throws(() => percentile([1], 101), RangeError);
  });

  it('median splits the samples in halves, averaging the middle pair of an even count', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -1000, max: 1000 }), { minLength: 1, maxLength: 100 }), (xs) => {
        const m = median(xs);
        assert.ok(xs.filter((x) => x <= m).length >= xs.length / 2);
        assert.ok(xs.filter((x) => x >= m).length >= xs.length / 2);
      }),
    );
    assert.equal(median([4, 1, 3, 2]), 2.5);
  });

  it('maxInWindow agrees with counting every window that starts at an event', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 5000 }), { maxLength: 80 }), fc.integer({ min: 1, max: 2000 }), (times, w) => {
        const brute = Math.max(0, ...times.map((t) => times.filter((u) => u >= t && u < t + w).length));
        assert.equal(maxInWindow(times, w), brute);
      }),
    );
  });

  it('judge compares against the target and leaves untargeted rows informational', () => {
    assert.equal(judge(5, { op: '<=', limit: 5 }), 'PASS');
    assert.equal(judge(5.01, { op: '<=', limit: 5 }), 'MISS');
    assert.equal(judge(0, { op: '>=', limit: 1 }), 'MISS');
    assert.equal(judge(null, { op: '<=', limit: 1 }), 'N/A');
    assert.equal(judge(3, undefined), 'INFO');
  });

  it('selfTimes sums each function\'s samples and ranks the heaviest first', () => {
    const frame = (functionName: string, lineNumber: number) => ({ functionName, url: 'file:///x/cli.cjs', lineNumber });
    const profile = {
      nodes: [
        { id: 1, callFrame: frame('scanString', 9) },
        { id: 2, callFrame: frame('', 1) },
        { id: 3, callFrame: frame('scanString', 9) },
      ],
      samples: [1, 2, 3, 1],
      timeDeltas: [1000, 500, 2000, 500],
    };
    assert.deepEqual(selfTimes(profile), [
      { fn: 'scanString cli.cjs:10', selfMs: 3.5, share: 0.875 },
      { fn: '(anonymous) cli.cjs:2', selfMs: 0.5, share: 0.125 },
    ]);
  });
});
