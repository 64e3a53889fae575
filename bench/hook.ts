/**
 * Hook cost: wall time of one `node dist/hook.js` (announce mode, as
 * install-hook writes it) on a realistic PreToolUse payload, against
 * `node -e ''` fed the same stdin: the floor any Node hook pays. Runs alternate
 * (hook, baseline, baseline, hook, …) so drift on a shared machine hits both.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { BenchContext } from './lib/context';
import { benchEnv, childCpuMs, machineSetsExtraCaCerts, makeTempDir, timedRun } from './lib/proc';
import { row, type SectionResult } from './lib/report';
import { median, percentile } from './lib/stats';

const SECTION = 'hook';

/** What Claude Code sends a PreToolUse hook (2.1.x), with a typical Bash call. */
export function preToolUsePayload(transcriptPath: string, cwd: string): string {
  return JSON.stringify({
    session_id: '8a0c6b7e-5f0e-4d57-9a4c-1f2e3d4c5b6a',
    transcript_path: transcriptPath,
    cwd,
    permission_mode: 'acceptEdits',
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'npm test -- --grep "tail survives truncation" 2>&1 | tail -40', description: 'Run the tail tests', timeout: 120000 },
    tool_use_id: 'toolu_01HookBenchPayload0000000',
    prompt_id: '41050655-b24d-4cb9-a32f-344d90c7f59d',
  });
}

export async function hookCost(ctx: BenchContext): Promise<SectionResult> {
  const hook = path.join(ctx.repoRoot, 'dist/hook.js');
  if (!fs.existsSync(hook)) return { section: SECTION, rows: [], error: 'dist/hook.js not built' };
  const dir = makeTempDir('hook');
  try {
    const channelDir = path.join(dir, 'transcript-lag');
    const transcript = path.join(dir, 'projects/-home-dev-app/8a0c6b7e-5f0e-4d57-9a4c-1f2e3d4c5b6a.jsonl');
    fs.mkdirSync(path.dirname(transcript), { recursive: true });
    fs.writeFileSync(transcript, '');
    const input = preToolUsePayload(transcript, '/home/dev/app');
    const env = benchEnv({ CLAUDE_CONFIG_DIR: dir });
    const asIsEnv = { ...process.env, CLAUDE_CONFIG_DIR: dir };
    const channelLines = () => {
      const file = fs.existsSync(channelDir) ? fs.readdirSync(channelDir).find((f) => f.endsWith('.jsonl')) : undefined;
      return file ? fs.readFileSync(path.join(channelDir, file), 'utf8').split('\n').filter(Boolean) : [];
    };
    /** Wall times of hook runs that wrote no `pre` line (the hook gave up: its budget counts from process start). */
    const silentRuns: number[] = [];
    const runHook = (runEnv: NodeJS.ProcessEnv = env) => {
      const before = channelLines().length;
      const r = timedRun(process.execPath, [hook, '--channel-dir', channelDir], { input, env: runEnv });
      if (channelLines().length === before) silentRuns.push(r.wallMs);
      return r;
    };
    const runBaseline = (runEnv: NodeJS.ProcessEnv = env) => timedRun(process.execPath, ['-e', ''], { input, env: runEnv });

    const n = ctx.quick ? 10 : 40;
    runHook();
    runBaseline();
    const hookMs: number[] = [];
    const baseMs: number[] = [];
    const cpu = { hook: 0, base: 0 };
    for (let i = 0; i < n; i++) {
      const pair = i % 2 === 0 ? [runHook, runBaseline] : [runBaseline, runHook];
      for (const run of pair) {
        const cpuBefore = childCpuMs();
        const r = run();
        const cpuAfter = childCpuMs();
        if (cpuBefore !== null && cpuAfter !== null) cpu[run === runHook ? 'hook' : 'base'] += cpuAfter - cpuBefore;
        if (r.status !== 0) throw new Error(`exit ${r.status}: ${r.stderr.slice(0, 200)}`);
        if (r.stdout !== '') throw new Error(`the hook wrote to stdout: ${r.stdout.slice(0, 200)}`);
        (run === runHook ? hookMs : baseMs).push(r.wallMs);
      }
    }
    // The same pairs as this machine runs them (see benchEnv), where that differs.
    const asIs = { hook: [] as number[], base: [] as number[] };
    if (machineSetsExtraCaCerts) {
      for (let i = 0; i < n / 2; i++) {
        asIs.hook.push(runHook(asIsEnv).wallMs);
        asIs.base.push(runBaseline(asIsEnv).wallMs);
      }
    }
    const events = channelLines();
    const ratio = median(hookMs) / median(baseMs);

    // Oversized input holds the call no longer: a deeply nested tool_input (JSON.parse of it blocks
    // every timer, the watchdog's too, for seconds) and one big string, 20 MB each.
    const oversized = (name: string, toolInput: string) => {
      const payload = input.replace(/"tool_input":\{[^}]*\}/, () => `"tool_input":${toolInput}`);
      const wallMs: number[] = [];
      let unreported = 0;
      for (let i = 0; i < 3; i++) {
        const before = channelLines().length;
        const r = timedRun(process.execPath, [hook, '--channel-dir', channelDir], { input: payload, env });
        if (r.status !== 0 || r.stdout !== '') throw new Error(`${name}: exit ${r.status}, stdout ${r.stdout.slice(0, 200)}`);
        if (channelLines().length === before) unreported++;
        wallMs.push(r.wallMs);
      }
      return [
        row(SECTION, `hook on a ${name}, wall time (max of 3)`, Math.max(...wallMs), 'ms', { op: '<=', limit: 1000 }, `${(payload.length / 2 ** 20).toFixed(0)} MiB on stdin; p50 ${median(wallMs).toFixed(0)} ms`),
        row(SECTION, `hook on a ${name}: runs that wrote no pre event`, unreported, '', { op: '<=', limit: 0 }, 'of 3'),
      ];
    };
    const depth = 2_700_000;
    const bigRows = [
      ...oversized('20 MB nested tool_input', '[{"a":'.repeat(depth) + '1' + '}]'.repeat(depth)),
      ...oversized('20 MB string tool_input', JSON.stringify({ content: 'x'.repeat(20 * 2 ** 20) })),
    ];
    return {
      section: SECTION,
      rows: [
        row(SECTION, 'hook / node -e "" (median)', ratio, 'x', { op: '<=', limit: 1.2 }, `${n} interleaved runs each`),
        ...(asIs.hook.length
          ? [row(SECTION, 'hook / node -e "", NODE_EXTRA_CA_CERTS as set here', median(asIs.hook) / median(asIs.base), 'x', undefined,
              `${median(asIs.hook).toFixed(0)} vs ${median(asIs.base).toFixed(0)} ms: every Node start parses the CA bundle, which hides the hook's own cost`)]
          : []),
        row(SECTION, 'hook wall time p50', median(hookMs), 'ms', undefined, `p90 ${percentile(hookMs, 90).toFixed(1)} ms`),
        row(SECTION, 'node -e "" wall time p50', median(baseMs), 'ms', undefined, `p90 ${percentile(baseMs, 90).toFixed(1)} ms`),
        row(SECTION, 'hook CPU / node -e "" CPU', cpu.base > 0 ? cpu.hook / cpu.base : null, 'x', undefined,
          `user+sys ${(cpu.hook / n).toFixed(0)} vs ${(cpu.base / n).toFixed(0)} ms a run; less sensitive to a busy machine`),
        row(SECTION, 'hook runs that wrote no pre event', silentRuns.length, '', { op: '<=', limit: 0 },
          silentRuns.length ? `their wall times: ${silentRuns.map((t) => t.toFixed(0)).join(', ')} ms` : `of ${n + 1}`),
        ...bigRows,
      ],
      details: { hookMs, baselineMs: baseMs, asIsMs: asIs, cpuMs: cpu, silentRunsMs: silentRuns, channelLines: events.length, sampleEvent: events[0] ? JSON.parse(events[0]) : null },
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
