import { strict as assert } from 'node:assert';
import * as fc from 'fast-check';
import { KeyedCounter, LagWindow, percentile } from '../../../src/core/stats';

describe('stats', () => {
  it('percentile is nearest-rank over a sorted list', () => {
    const xs = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100];
    assert.equal(percentile(xs, 50), 50);
    assert.equal(percentile(xs, 95), 100);
    assert.equal(percentile(xs, 0), 10);
    assert.equal(percentile([], 50), null);
    assert.equal(percentile([7], 95), 7);
  });

  it('percentile returns a member of the list, at least the p-th share of values at or below it (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 1e6 }), { minLength: 1, maxLength: 200 }), fc.integer({ min: 1, max: 100 }), (xs, p) => {
        const sorted = [...xs].sort((a, b) => a - b);
        const v = percentile(sorted, p) as number;
        assert.ok(sorted.includes(v));
        assert.ok(sorted.filter((x) => x <= v).length >= (p / 100) * sorted.length);
        assert.ok(sorted.filter((x) => x < v).length < (p / 100) * sorted.length);
      }),
    );
  });

  it('LagWindow replaces a call lag instead of adding it, bounds its size and keeps the session max', () => {
    const w = new LagWindow(3);
    w.set('a', 500);
    w.set('a', 100);
    assert.equal(w.size, 1);
    assert.deepEqual(w.summary(), { p50: 100, p95: 100, max: 100 });
    w.set('b', 900);
    w.set('c', 10);
    w.set('d', 20);
    w.set('e', 30);
    assert.equal(w.size, 3);
    assert.deepEqual(w.summary(), { p50: 20, p95: 30, max: 900 });
  });

  it('KeyedCounter moves a corrected key between categories and never counts a key twice', () => {
    const k = new KeyedCounter<'seen' | 'behind'>();
    assert.equal(k.set('x', 'behind'), true);
    assert.equal(k.set('x', 'behind'), false);
    k.set('x', 'seen');
    k.set('y', 'behind');
    assert.equal(k.count('seen'), 1);
    assert.equal(k.count('behind'), 1);
  });
});
