import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LagMetrics } from '../../../src/platform/lagMetrics';

const root = path.join(__dirname, '..', '..', '..');
const dashboard = JSON.parse(fs.readFileSync(path.join(root, 'docs', 'grafana-dashboard.json'), 'utf8')) as unknown;
const metricsPage = fs.readFileSync(path.join(root, 'docs', 'METRICS.md'), 'utf8');

interface Panel {
  title?: string;
  targets?: { expr?: string }[];
  panels?: Panel[];
}

/** Every panel's queries, rows' panels included. */
function dashboardExprs(d: unknown): { panel: string; expr: string }[] {
  const out: { panel: string; expr: string }[] = [];
  const walk = (panels: Panel[] | undefined): void => {
    for (const p of panels ?? []) {
      for (const t of p.targets ?? []) out.push({ panel: p.title ?? '?', expr: t.expr ?? '' });
      walk(p.panels);
    }
  };
  walk((d as { panels?: Panel[] }).panels);
  return out;
}

/** The lines of the ```promql blocks in some Markdown. */
function promqlLines(markdown: string): string[] {
  return [...markdown.matchAll(/```promql\n([\s\S]*?)```/g)].flatMap((m) => m[1].split('\n')).map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
}

/** The metric names an expression reads: identifiers of ours, wherever they stand. */
function seriesIn(expr: string): string[] {
  return [...new Set([...expr.matchAll(/\b(transcript_lag_\w+)/g)].map((m) => m[1]))];
}

/** The labels an expression names: in `by (…)`/`without (…)` and in `{label op "…"}` matchers. */
function labelsIn(expr: string): string[] {
  const grouped = [...expr.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g)].flatMap((m) => m[1].split(',').map((l) => l.trim()).filter(Boolean));
  const matched = [...expr.matchAll(/\{([^}]*)\}/g)].flatMap((m) => [...m[1].matchAll(/(\w+)\s*(?:=~|!~|!=|=)/g)].map((x) => x[1]));
  return [...new Set([...grouped, ...matched])];
}

/** Every series `watch --metrics` and the extension export, with its labels. */
function exportedSeries(): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const m of new LagMetrics({ sessions: () => [] }).registry.getMetricsAsArray()) {
    const { name, labelNames } = m as unknown as { name: string; labelNames: string[] };
    const histogram = m.constructor.name.startsWith('Histogram');
    const names = histogram ? [`${name}_bucket`, `${name}_sum`, `${name}_count`] : [name];
    for (const n of names) out.set(n, new Set([...labelNames, ...(n.endsWith('_bucket') ? ['le'] : [])]));
  }
  return out;
}

/** Problems of one PromQL expression: a series we do not export, a label none of its series has. */
function problems(expr: string, exported: Map<string, Set<string>>): string[] {
  const series = seriesIn(expr);
  const out: string[] = [];
  if (series.length === 0) out.push(`${expr}: uses none of our series`);
  for (const s of series) if (!exported.has(s)) out.push(`${expr}: ${s} is not exported`);
  // The labels Prometheus adds to every scraped series, besides ours.
  const known = new Set(['job', 'instance', ...series.flatMap((s) => [...(exported.get(s) ?? [])])]);
  for (const l of labelsIn(expr)) if (!known.has(l)) out.push(`${expr}: label ${l} is on none of ${series.join(', ')}`);
  return out;
}

describe('Grafana dashboard and docs/METRICS.md PromQL', () => {
  const exported = exportedSeries();

  it('every dashboard panel has queries, and each uses only series and labels the code exports', () => {
    const exprs = dashboardExprs(dashboard);
    assert.ok(exprs.length >= 6, `found ${exprs.length} queries`);
    for (const { panel, expr } of exprs) assert.deepEqual(problems(expr, exported), [], `panel "${panel}"`);
    // The seed's table and the p50/p95 hold are on it.
    const all = exprs.map((e) => e.expr).join('\n');
    assert.match(all, /sum by \(claude_version, outcome\) \(increase\(transcript_lag_waits_total/);
    assert.match(all, /histogram_quantile\(0\.5, sum by \(le\)/);
    assert.match(all, /histogram_quantile\(0\.95, sum by \(le\)/);
  });

  it('docs/METRICS.md documents every exported series, and its PromQL uses only them', () => {
    const section = metricsPage;
    assert.match(section, /^# Metrics\n/, 'docs/METRICS.md is the metrics page');
    for (const name of new LagMetrics({ sessions: () => [] }).registry.getMetricsAsArray().map((m) => (m as unknown as { name: string }).name)) {
      assert.ok(section.includes(`\`${name}\``), `docs/METRICS.md documents ${name}`);
    }
    const queries = promqlLines(section);
    assert.ok(queries.length >= 3, `found ${queries.length} PromQL lines`);
    for (const q of queries) assert.deepEqual(problems(q, exported), []);
  });

  it('the check catches a series or a label the code does not export', () => {
    assert.equal(problems('sum by (outcome) (transcript_lag_waits_total)', exported).length, 0);
    assert.equal(problems('sum(transcript_lag_wait_total)', exported).length, 1);
    assert.equal(problems('sum by (session_id) (transcript_lag_calls_total)', exported).length, 1);
    assert.equal(problems('sum by (le) (transcript_lag_held_seconds_count)', exported).length, 1);
    // The version comes as the info series and a label, never as a series of its own.
    assert.equal(problems('sum(transcript_lag_claude_code_version)', exported).length, 1);
  });
});
