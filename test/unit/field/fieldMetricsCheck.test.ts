import { strict as assert } from 'node:assert';
import { HELD_BUCKETS } from '../../../src/platform/lagMetrics';

/**
 * The field suite's check of what a real Prometheus scraped (test/field/assertions.mjs): it must
 * pass when PromQL agrees with the recorder and the probe, and fail on each way it can disagree.
 */
const load = () => import('../../field/assertions.mjs');

const bounds = [...HELD_BUCKETS, Infinity];
/** Three calls held 1.1–1.3 s, each ended behind by the probe (as in interactive-parallel-probe-metrics). */
const calls = [1200, 1100, 1300].map((heldMs, i) => ({ id: `toolu_${i}`, tool: 'Bash', line: 10 + i, heldMs, wait: { outcome: 'behind' } }));
const scraped = { calls: 3, waits: { seen: 0, behind: 3, error: 0 }, heldCount: 3, medianHeldS: 1.5, bucketBounds: bounds, documentedQueryFailures: [] as string[] };
// `watch: false` skips the watch checks: only the metrics ones speak.
const resultWith = (metrics: unknown) => ({ def: { mode: 'print', watch: false, metrics: true }, calls, sessionId: 's', recording: { channel: [] }, watchEvents: [], run: { code: 0 }, metrics });

async function metricsFailures(metrics: unknown): Promise<string[]> {
  const { checkScenario } = await load();
  return checkScenario(resultWith(metrics), { strictProfile: false }).filter((f) => f.startsWith('metrics'));
}

describe('field suite: the Prometheus check', () => {
  it('buckets are found by upper bound, +Inf last; the median is the value histogram_quantile ranks', async () => {
    const { bucketIndex, rankQuantile } = await load();
    assert.equal(bucketIndex(bounds, 1), 4);
    assert.equal(bucketIndex(bounds, 1.0001), 5);
    assert.equal(bucketIndex(bounds, 0.01), 0);
    assert.equal(bucketIndex(bounds, 500), bounds.length - 1);
    assert.equal(rankQuantile([3, 1, 2], 0.5), 2);
    // Two values: rank 0.5 × 2 = 1, the smaller one, as histogram_quantile picks its bucket.
    assert.equal(rankQuantile([5, 1], 0.5), 1);
    assert.equal(rankQuantile([], 0.5), undefined);
  });

  it('passes when PromQL agrees with the recorder and the probe, a median one bucket off included', async () => {
    assert.deepEqual(await metricsFailures(scraped), []);
    assert.deepEqual(await metricsFailures({ ...scraped, medianHeldS: 2.5 }), []);
  });

  it('fails on a call count, a seen/behind count, a hold count or a median two buckets off', async () => {
    assert.match((await metricsFailures({ ...scraped, calls: 2 })).join(), /calls_total\) is 2, the recorder saw 3/);
    assert.equal((await metricsFailures({ ...scraped, waits: { seen: 1, behind: 2 } })).length, 2);
    assert.match((await metricsFailures({ ...scraped, heldCount: 4 })).join(), /held_seconds_count\) is 4/);
    assert.match((await metricsFailures({ ...scraped, medianHeldS: 4 })).join(), /2 buckets apart/);
    assert.match((await metricsFailures({ ...scraped, medianHeldS: NaN })).join(), /no median hold/);
  });

  it('fails when nothing was scraped, Prometheus failed, or a documented query does not run', async () => {
    assert.match((await metricsFailures(undefined)).join(), /nothing was scraped/);
    assert.match((await metricsFailures({ error: 'prometheus exited (2)' })).join(), /prometheus exited/);
    assert.match((await metricsFailures({ ...scraped, documentedQueryFailures: ['docs/METRICS.md: parse error'] })).join(), /documented PromQL: docs\/METRICS.md: parse error/);
  });
});
