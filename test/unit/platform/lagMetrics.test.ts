import { strict as assert } from 'node:assert';
import { request } from 'node:http';
import type { EngineEvent } from '../../../src/core/engineEvents';
import { LagMetrics, MAX_VERSION_LABELS, OTHER_VERSION, UNKNOWN_VERSION, metricToolName } from '../../../src/platform/lagMetrics';
import { isAllowedHostHeader, isLoopbackHost, parseMetricsAddress } from '../../../src/platform/metricsAddress';
import { startMetricsServer } from '../../../src/platform/metricsServer';

const base = { session_id: 's1', transcript_path: '/c/projects/-w/s1.jsonl', at: 1 };
const held = (id: string, transport?: 'command' | 'http'): EngineEvent => ({ ...base, event: 'held', tool_use_id: id, tool_name: 'Bash', ...(transport ? { transport } : {}) });
const written = (id: string, tool: string, lagMs: number | null, withResult: boolean, version?: string): EngineEvent => ({
  ...base, event: 'written', tool_use_id: id, tool_name: tool, line: 3, generation: 0, record_at: null, fired_at: lagMs === null ? null : 0,
  lag_ms: lagMs, with_result: withResult, shape: withResult ? 'with_result' : 'before_result', record: {}, batch_first_line: 3, batch_last_line: 3, ...(version ? { claude_version: version } : {}),
});
const wait = (id: string, outcome: 'seen' | 'behind', version?: string): EngineEvent => ({ ...base, event: 'wait', tool_use_id: id, outcome, polls: 50, waited_ms: 5000, bytes_on_disk: 1, ...(version ? { claude_version: version } : {}) });

/** One sample's value from the text format, by its exact name and labels. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('lag metrics (Prometheus)', () => {
  it('tools fold to the built-in names, mcp and other: labels stay bounded', () => {
    assert.deepEqual(['Bash', 'mcp__github__create_issue', 'MyCustomTool', undefined].map(metricToolName), ['Bash', 'mcp', 'other', 'other']);
  });

  it('holds by tool, shape and transport; calls by shape; waits by outcome; held now at scrape time; no ids in labels', async () => {
    // Two sessions of one version: two calls held in one, none in the other.
    let heldCalls: unknown[] = [{}, {}];
    const m = new LagMetrics({ sessions: () => [{ held: heldCalls, claude_version: '2.1.332' }, { held: [], claude_version: '2.1.332' }] as never });
    m.observe(held('toolu_a', 'http'));
    m.observe(written('toolu_a', 'Bash', 1500, false, '2.1.332'));
    m.observe(written('toolu_b', 'Read', 120, true, '2.1.332'));
    m.observe(written('toolu_c', 'Read', null, false, 'not-a-version'));
    m.observe(wait('toolu_a', 'behind', '2.1.332'));
    m.observe(wait('toolu_b', 'seen', '2.1.332'));
    m.observe(wait('toolu_c', 'seen'));
    const text = await m.text();
    assert.equal(sample(text, 'transcript_lag_held_seconds_count{tool="Bash",shape="before_result",transport="http"}'), 1);
    assert.equal(sample(text, 'transcript_lag_held_seconds_bucket{le="2",tool="Bash",shape="before_result",transport="http"}'), 1);
    assert.equal(sample(text, 'transcript_lag_held_seconds_bucket{le="1",tool="Bash",shape="before_result",transport="http"}'), 0);
    assert.equal(sample(text, 'transcript_lag_held_seconds_count{tool="Read",shape="with_result",transport="none"}'), 1);
    // By the version that wrote the record; an unknown or garbled one folds to "unknown" (bounded labels).
    assert.equal(sample(text, 'transcript_lag_calls_total{shape="before_result",claude_version="2.1.332"}'), 1);
    assert.equal(sample(text, 'transcript_lag_calls_total{shape="before_result",claude_version="unknown"}'), 1);
    assert.equal(sample(text, 'transcript_lag_calls_total{shape="with_result",claude_version="2.1.332"}'), 1);
    assert.equal(sample(text, 'transcript_lag_waits_total{outcome="seen",claude_version="2.1.332"}'), 1);
    assert.equal(sample(text, 'transcript_lag_waits_total{outcome="seen",claude_version="unknown"}'), 1);
    assert.equal(sample(text, 'transcript_lag_waits_total{outcome="behind",claude_version="2.1.332"}'), 1);
    assert.equal(sample(text, 'transcript_lag_waits_total{outcome="error",claude_version="unknown"}'), 0);
    assert.equal(sample(text, 'transcript_lag_held_calls'), 2);
    assert.equal(sample(text, 'transcript_lag_claude_code_info{version="2.1.332"}'), 1);
    heldCalls = [];
    assert.equal(sample(await m.text(), 'transcript_lag_held_calls'), 0);
    assert.doesNotMatch(text, /toolu_|s1|not-a-version/);
  });

  it("a call's shape is its written's (the first sighting's); a revision is counted, its earlier observation left as it was", async () => {
    const m = new LagMetrics({ sessions: () => [] });
    // The engine's late read brought record and result; a look had found the record alone before.
    m.observe({ ...(written('toolu_a', 'Bash', null, true) as Extract<EngineEvent, { event: 'written' }>), shape: 'before_result', lag_bounds: { min_ms: 0, max_ms: 600 } });
    m.observe(written('toolu_b', 'Bash', 900, true));
    m.observe({ ...base, event: 'revised', tool_use_id: 'toolu_b', tool_name: 'Bash', fired_at: 0, lag_bounds: { min_ms: 0, max_ms: 600 }, shape: 'before_result' });
    const text = await m.text();
    assert.equal(sample(text, 'transcript_lag_calls_total{shape="before_result",claude_version="unknown"}'), 1);
    assert.equal(sample(text, 'transcript_lag_calls_total{shape="with_result",claude_version="unknown"}'), 1);
    assert.equal(sample(text, 'transcript_lag_held_seconds_count{tool="Bash",shape="before_result",transport="none"}'), undefined, 'a bound is not observed as a figure');
    assert.equal(sample(text, 'transcript_lag_held_seconds_count{tool="Bash",shape="with_result",transport="none"}'), 1);
    assert.equal(sample(text, 'transcript_lag_revised_total{tool="Bash"}'), 1);
    // Revised again (a tighter bound), or a call whose lag was never observed as a figure: nothing more to count.
    m.observe({ ...base, event: 'revised', tool_use_id: 'toolu_b', tool_name: 'Bash', fired_at: 0, lag_bounds: { min_ms: 0, max_ms: 500 }, shape: 'before_result' });
    m.observe({ ...base, event: 'revised', tool_use_id: 'toolu_a', tool_name: 'Bash', fired_at: 0, lag_bounds: { min_ms: 0, max_ms: 500 }, shape: 'before_result' });
    assert.equal(sample(await m.text(), 'transcript_lag_revised_total{tool="Bash"}'), 1);
  });

  it('Host: loopback names and addresses, the bound address; beyond loopback any IP address too, never another name', () => {
    for (const h of ['localhost', 'LOCALHOST:1', '127.0.0.1:9464', '127.1.2.3', '[::1]:9464', '[::1]']) assert.equal(isAllowedHostHeader(h, '127.0.0.1'), true, h);
    for (const h of [undefined, '', 'evil.example', 'evil.example:9464', '192.168.1.5:9464', 'localhost.evil.example', '127.0.0.1.evil.example', 'a:b:c']) assert.equal(isAllowedHostHeader(h, '127.0.0.1'), false, String(h));
    assert.equal(isAllowedHostHeader('192.168.1.5:9464', '0.0.0.0'), true);
    assert.equal(isAllowedHostHeader('box.lan:9464', '0.0.0.0'), false);
    assert.equal(isAllowedHostHeader('box.lan:9464', 'box.lan'), true);
    assert.deepEqual(['127.0.0.1', '::1', 'localhost', '0.0.0.0', '::', '192.168.1.5'].map(isLoopbackHost), [true, true, true, false, false, false]);
  });

  it('versions: the first 20 distinct keep their label, later ones fold into "other", in counters and the info gauge', async () => {
    const versions = Array.from({ length: 2000 }, (_, i) => `2.${Math.floor(i / 100)}.${i % 100}`);
    const m = new LagMetrics({ sessions: () => versions.map((v) => ({ held: [], claude_version: v })) as never });
    versions.forEach((v, i) => {
      m.observe(written(`toolu_${i}`, 'Bash', null, false, v));
      m.observe(wait(`toolu_${i}`, 'seen', v));
    });
    const text = await m.text();
    const labelsOf = (series: string, label: string) => new Set([...text.matchAll(new RegExp(`^${series}\\{[^}]*${label}="([^"]*)"`, 'gm'))].map((x) => x[1]));
    const kept = [...versions.slice(0, MAX_VERSION_LABELS), OTHER_VERSION];
    assert.deepEqual([...labelsOf('transcript_lag_calls_total', 'claude_version')].sort(), [...kept, UNKNOWN_VERSION].sort());
    assert.deepEqual([...labelsOf('transcript_lag_waits_total', 'claude_version')].sort(), [...kept, UNKNOWN_VERSION].sort());
    assert.deepEqual([...labelsOf('transcript_lag_claude_code_info', 'version')].sort(), [...kept].sort());
    assert.equal(sample(text, `transcript_lag_calls_total{shape="before_result",claude_version="${versions[0]}"}`), 1);
    assert.equal(sample(text, `transcript_lag_calls_total{shape="before_result",claude_version="other"}`), versions.length - MAX_VERSION_LABELS);
    assert.ok(text.split('\n').filter((l) => l && !l.startsWith('#')).length < 150, 'series stay bounded');
  });

  it('serves /metrics on the address asked for, 404 elsewhere; addresses parse as PORT or HOST:PORT', async () => {
    assert.deepEqual(parseMetricsAddress('9464'), { host: '127.0.0.1', port: 9464 });
    assert.deepEqual(parseMetricsAddress('0.0.0.0:9464'), { host: '0.0.0.0', port: 9464 });
    assert.deepEqual(parseMetricsAddress('[::1]:9464'), { host: '::1', port: 9464 });
    assert.equal(parseMetricsAddress('host:99999'), undefined);
    assert.equal(parseMetricsAddress('nope'), undefined);
    const m = new LagMetrics({ sessions: () => [] });
    const server = await startMetricsServer(m, { host: '127.0.0.1', port: 0 });
    try {
      const get = (p: string) =>
        new Promise<{ status: number; type: string; body: string }>((resolve, reject) => {
          request({ host: '127.0.0.1', port: server.port, path: p }, (res) => {
            let body = '';
            res.on('data', (d) => (body += d));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }));
          }).on('error', reject).end();
        });
      const ok = await get('/metrics');
      assert.equal(ok.status, 200);
      assert.match(ok.type, /^text\/plain; version=0\.0\.4/);
      assert.match(ok.body, /^# HELP transcript_lag_held_seconds /m);
      assert.equal((await get('/other')).status, 404);
      // DNS rebinding: a page whose own name points at 127.0.0.1 sends that name as Host.
      const withHost = (host: string) =>
        new Promise<number>((resolve, reject) => {
          request({ host: '127.0.0.1', port: server.port, path: '/metrics', headers: { host } }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          }).on('error', reject).end();
        });
      assert.equal(await withHost(`attacker.example:${server.port}`), 421);
      assert.equal(await withHost('attacker.example'), 421);
      assert.equal(await withHost(`192.168.1.5:${server.port}`), 421);
      for (const host of [`localhost:${server.port}`, `127.0.0.1:${server.port}`, '127.0.0.1', `[::1]:${server.port}`]) assert.equal(await withHost(host), 200, host);
      await assert.rejects(startMetricsServer(m, { host: '127.0.0.1', port: server.port }), (e: NodeJS.ErrnoException) => e.code === 'EADDRINUSE');
    } finally {
      await server.close();
    }
  });
});
