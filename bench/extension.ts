/**
 * Extension cost: activation time, measured in-process with the vscode shim
 * (bench/vscodeShim.ts) in fresh Node processes: require of dist/extension.js
 * plus `await activate(context)`, with no Claude dir and with one session of
 * the workspace. And the VSIX size from `npm run package`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { BenchContext } from './lib/context';
import { timedRun } from './lib/proc';
import { row, type Row, type SectionResult } from './lib/report';
import { median } from './lib/stats';
import { makeSite } from './lib/writerPhase';

const SECTION = 'extension';
/** docs/benchmarks/sections.md, "Extension": why this limit. */
export const VSIX_LIMIT_BYTES = 400 * 1024;

interface Activation {
  requireMs?: number;
  activateMs?: number;
  followedMs?: number | null;
  error?: string;
}

function activateOnce(ctx: BenchContext, env: NodeJS.ProcessEnv, workspace: string, storage: string, waitForSession: boolean): Activation {
  const child = path.join(ctx.bundleDir, 'extensionChild.cjs');
  const r = timedRun(process.execPath, [child, JSON.stringify({ extensionPath: ctx.repoRoot, workspace, storage, waitForSession })], { env, cwd: workspace });
  const last = r.stdout.trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(last) as Activation;
  } catch {
    return { error: `exit ${r.status}: ${r.stderr.slice(0, 300)}` };
  }
}

function activation(ctx: BenchContext, withClaudeDir: boolean): { requireMs: number; activateMs: number; followedMs: number | null; runs: number } {
  const site = makeSite('ext');
  try {
    const home = path.join(site.root, 'home');
    fs.mkdirSync(home);
    const claudeDir = withClaudeDir ? site.claudeDir : path.join(site.root, 'no-claude-dir');
    const env = { ...process.env, HOME: home, CLAUDE_CONFIG_DIR: claudeDir };
    const storage = path.join(site.root, 'storage');
    const runs = ctx.quick ? 3 : 9;
    const samples: Activation[] = [];
    activateOnce(ctx, env, site.workspace, storage, withClaudeDir);
    for (let i = 0; i < runs; i++) samples.push(activateOnce(ctx, env, site.workspace, storage, withClaudeDir));
    const failed = samples.find((s) => s.error);
    if (failed) throw new Error(`activate failed: ${failed.error?.split('\n')[0]}`);
    const followed = samples.map((s) => s.followedMs).filter((v): v is number => typeof v === 'number');
    return {
      requireMs: median(samples.map((s) => s.requireMs ?? NaN)),
      activateMs: median(samples.map((s) => s.activateMs ?? NaN)),
      followedMs: withClaudeDir ? (followed.length === samples.length ? median(followed) : null) : null,
      runs,
    };
  } finally {
    fs.rmSync(site.root, { recursive: true, force: true });
  }
}

function vsixSize(ctx: BenchContext): { bytes: number | null; note: string } {
  const version = (JSON.parse(fs.readFileSync(path.join(ctx.repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
  const vsix = path.join(ctx.repoRoot, `transcript-lag-${version}.vsix`);
  const r = timedRun('npm', ['run', 'package', '--silent'], { cwd: ctx.repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0 || !fs.existsSync(vsix)) return { bytes: null, note: `npm run package failed: ${(r.stderr || r.stdout).trim().split('\n').slice(-2).join(' ').slice(0, 140)}` };
  return { bytes: fs.statSync(vsix).size, note: `${path.basename(vsix)}, packaged in ${(r.wallMs / 1000).toFixed(1)} s` };
}

export async function extensionCost(ctx: BenchContext): Promise<SectionResult> {
  const rows: Row[] = [];
  const details: Record<string, unknown> = {};
  if (!fs.existsSync(path.join(ctx.repoRoot, 'dist/extension.js'))) {
    rows.push(row(SECTION, 'activation', null, 'ms', undefined, 'dist/extension.js not built'));
  } else {
    for (const withClaudeDir of [false, true]) {
      const what = withClaudeDir ? 'one session in the workspace' : 'no Claude dir';
      try {
        const a = activation(ctx, withClaudeDir);
        details[what] = a;
        rows.push(row(SECTION, `activate(), ${what}`, a.activateMs, 'ms', undefined, `+ require ${a.requireMs.toFixed(1)} ms; median of ${a.runs}, vscode shim, in-process`));
        if (withClaudeDir) rows.push(row(SECTION, 'activate() → session followed', a.followedMs, 'ms', undefined, 'engine loaded, started, first read (not awaited by activate)'));
      } catch (err) {
        rows.push(row(SECTION, `activate(), ${what}`, null, 'ms', undefined, String(err instanceof Error ? err.message : err).slice(0, 160)));
      }
    }
  }
  const vsix = vsixSize(ctx);
  details.vsix = vsix;
  rows.push(row(SECTION, 'VSIX size', vsix.bytes === null ? null : vsix.bytes / 1024, 'KiB', { op: '<=', limit: VSIX_LIMIT_BYTES / 1024 }, vsix.note));
  return { section: SECTION, rows, details };
}
