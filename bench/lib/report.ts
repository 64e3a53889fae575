/**
 * The benchmark report: rows of (measurement, value, target, PASS/MISS), the
 * machine they ran on, and per-section details for the JSON output. Benchmarks
 * report, they do not gate: a MISS is printed loudly, never turned into an exit code.
 */
import * as os from 'node:os';
import { execFileSync } from 'node:child_process';

export interface Target {
  /** The measured value must be at most (`<=`) or at least (`>=`) the limit. */
  op: '<=' | '>=';
  limit: number;
  /** A softer goal beside the limit ("aim for 2.0x"), shown but not judged. */
  aim?: number;
}

export type Status = 'PASS' | 'MISS' | 'INFO' | 'N/A';

export interface Row {
  section: string;
  name: string;
  value: number | null;
  unit: string;
  target?: Target;
  status: Status;
  note?: string;
}

export interface SectionResult {
  section: string;
  rows: Row[];
  details?: Record<string, unknown>;
  /** Set when the section could not run (a component not built yet, a tool missing). */
  error?: string;
}

export function judge(value: number | null, target: Target | undefined): Status {
  if (!target) return 'INFO';
  if (value === null || Number.isNaN(value)) return 'N/A';
  return (target.op === '<=' ? value <= target.limit : value >= target.limit) ? 'PASS' : 'MISS';
}

export function row(section: string, name: string, value: number | null, unit: string, target?: Target, note?: string): Row {
  return { section, name, value, unit, target, status: judge(value, target), note };
}

export interface Machine {
  nproc: number;
  cpu: string;
  memoryBytes: number;
  node: string;
  platform: string;
  kernel: string;
  loadAverage: number[];
}

function cpuModel(): string {
  const fromNode = os.cpus()[0]?.model?.trim();
  if (fromNode && fromNode !== 'unknown') return fromNode;
  try {
    const line = execFileSync('lscpu', { encoding: 'utf8' }).split('\n').find((l) => l.startsWith('Model name'));
    if (line) return line.split(':')[1].trim();
  } catch {
    // lscpu is optional: fall through.
  }
  return 'unknown';
}

export function machine(): Machine {
  return {
    nproc: os.availableParallelism?.() ?? os.cpus().length,
    cpu: cpuModel(),
    memoryBytes: os.totalmem(),
    node: process.version,
    platform: `${os.platform()} ${os.arch()}`,
    kernel: os.release(),
    loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

export function formatValue(value: number | null, unit: string): string {
  if (value === null || Number.isNaN(value)) return '—';
  const digits = Math.abs(value) >= 100 || Number.isInteger(value) ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  const n = value.toFixed(digits);
  return unit === 'x' ? `${n}x` : unit ? `${n} ${unit}` : n;
}

export function formatTarget(t: Target | undefined, unit: string): string {
  if (!t) return '';
  const sign = t.op === '<=' ? '≤' : '≥';
  const aim = t.aim !== undefined ? ` (aim ${formatValue(t.aim, unit)})` : '';
  return `${sign} ${formatValue(t.limit, unit)}${aim}`;
}

/** A plain-text table that also reads as Markdown, so BENCHMARKS.md can quote it as is. */
export function formatTable(sections: SectionResult[]): string {
  const header = ['section', 'measurement', 'value', 'target', 'status', 'note'];
  const body: string[][] = [];
  for (const s of sections) {
    if (s.error) body.push([s.section, '(not run)', '—', '', 'N/A', s.error]);
    for (const r of s.rows) {
      body.push([r.section, r.name, formatValue(r.value, r.unit), formatTarget(r.target, r.unit), r.status, r.note ?? '']);
    }
  }
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}

export function summary(sections: SectionResult[]): { pass: number; miss: number; notRun: number } {
  const rows = sections.flatMap((s) => s.rows);
  return {
    pass: rows.filter((r) => r.status === 'PASS').length,
    miss: rows.filter((r) => r.status === 'MISS').length,
    notRun: sections.filter((s) => s.error).length + rows.filter((r) => r.status === 'N/A').length,
  };
}
