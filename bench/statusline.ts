/**
 * Status line cost: Claude Code runs `statusLine` about once a second (refreshInterval 1), so this
 * is its start-up, paid every second. Wall time of one `node dist/cli-statusline.js --channel-dir D`
 * (what install-statusline writes, without a wrapped line) on a statusLine payload, for a session
 * whose channel holds 200 written calls and one held call (one transcript lookup), against
 * `node -e ''` fed the same stdin. Runs alternate so drift on a shared machine hits both.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { BenchContext } from './lib/context';
import { benchEnv, childCpuMs, makeTempDir, timedRun } from './lib/proc';
import { row, type SectionResult } from './lib/report';
import { median, percentile } from './lib/stats';

const SECTION = 'statusline';
const SESSION = '8a0c6b7e-5f0e-4d57-9a4c-1f2e3d4c5b6a';

export async function statuslineCost(ctx: BenchContext): Promise<SectionResult> {
  const script = path.join(ctx.repoRoot, 'dist/cli-statusline.js');
  if (!fs.existsSync(script)) return { section: SECTION, rows: [], error: 'dist/cli-statusline.js not built' };
  const dir = makeTempDir('statusline');
  try {
    const channelDir = path.join(dir, 'transcript-lag');
    const transcript = path.join(dir, `projects/-home-dev-app/${SESSION}.jsonl`);
    fs.mkdirSync(path.dirname(transcript), { recursive: true });
    fs.mkdirSync(channelDir, { recursive: true });
    const now = Date.now();
    const records: string[] = [];
    const events: string[] = [];
    for (let i = 0; i < 200; i++) {
      const id = `toolu_01Bench${String(i).padStart(6, '0')}`;
      records.push(JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Bash', input: { command: 'ls' } }] } }));
      records.push(JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'x'.repeat(2000) }] } }));
      const base = { v: 1, session_id: SESSION, transcript_path: transcript, tool_use_id: id, tool_name: 'Bash', source: 'transcript-lag-hook' };
      events.push(JSON.stringify({ ...base, event: 'pre', at: now - 600_000 + i * 1000, record_on_disk: false }));
      events.push(JSON.stringify({ ...base, event: 'post', at: now - 599_500 + i * 1000, record_on_disk: true, checked_at: now - 599_400 + i * 1000 }));
    }
    events.push(JSON.stringify({ v: 1, event: 'pre', at: now, session_id: SESSION, transcript_path: transcript, tool_use_id: 'toolu_01BenchHeld', source: 'transcript-lag-hook' }));
    fs.writeFileSync(transcript, records.join('\n') + '\n');
    fs.writeFileSync(path.join(channelDir, `${SESSION}.jsonl`), events.join('\n') + '\n');
    const input = JSON.stringify({ session_id: SESSION, transcript_path: transcript, cwd: '/home/dev/app', model: { id: 'claude', display_name: 'Claude' }, version: '2.1.332' });
    const env = benchEnv();

    const runStatusline = () => timedRun(process.execPath, [script, '--channel-dir', channelDir], { input, env });
    const runBaseline = () => timedRun(process.execPath, ['-e', ''], { input, env });
    const n = ctx.quick ? 10 : 40;
    runStatusline();
    runBaseline();
    const lineMs: number[] = [];
    const baseMs: number[] = [];
    let wrongOutput = 0;
    const cpu = { line: 0, base: 0 };
    for (let i = 0; i < n; i++) {
      const pair = i % 2 === 0 ? [runStatusline, runBaseline] : [runBaseline, runStatusline];
      for (const run of pair) {
        const cpuBefore = childCpuMs();
        const r = run();
        const cpuAfter = childCpuMs();
        if (cpuBefore !== null && cpuAfter !== null) cpu[run === runStatusline ? 'line' : 'base'] += cpuAfter - cpuBefore;
        if (r.status !== 0) throw new Error(`exit ${r.status}: ${r.stderr.slice(0, 200)}`);
        if (run === runStatusline) {
          if (!/^transcript-lag: 1 held · /.test(r.stdout)) wrongOutput++;
          lineMs.push(r.wallMs);
        } else baseMs.push(r.wallMs);
      }
    }
    return {
      section: SECTION,
      rows: [
        row(SECTION, 'statusline / node -e "" (median)', median(lineMs) / median(baseMs), 'x', { op: '<=', limit: 1.3 }, `${n} interleaved runs each; 401 channel events, one held call`),
        row(SECTION, 'statusline wall time p50', median(lineMs), 'ms', undefined, `p90 ${percentile(lineMs, 90).toFixed(1)} ms`),
        row(SECTION, 'node -e "" wall time p50', median(baseMs), 'ms', undefined, `p90 ${percentile(baseMs, 90).toFixed(1)} ms`),
        row(SECTION, 'statusline CPU / node -e "" CPU', cpu.base > 0 ? cpu.line / cpu.base : null, 'x', undefined,
          `user+sys ${(cpu.line / n).toFixed(0)} vs ${(cpu.base / n).toFixed(0)} ms a run; less sensitive to a busy machine`),
        row(SECTION, 'bundle size', fs.statSync(script).size, 'bytes', undefined, 'dist/cli-statusline.js, source map comment included'),
        row(SECTION, 'runs that did not print the held call', wrongOutput, '', { op: '<=', limit: 0 }, `of ${n}`),
      ],
      details: { statuslineMs: lineMs, baselineMs: baseMs, cpuMs: cpu },
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
