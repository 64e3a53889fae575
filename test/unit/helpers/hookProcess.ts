// Runs the bundled hook as Claude Code does: a real process, JSON on a real stdin.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as esbuild from 'esbuild';

const repoRoot = path.resolve(__dirname, '../../..');
let built: Promise<string> | undefined;

/** Bundles src/hook/main.ts once per test run, with the options of scripts/build.mjs, into a temp folder. */
export function buildHook(): Promise<string> {
  built ??= (async () => {
    const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-hook-build-'));
    const outfile = path.join(outDir, 'hook.js');
    await esbuild.build({
      entryPoints: [path.join(repoRoot, 'src/hook/main.ts')],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node18',
      minify: true,
      logLevel: 'silent',
    });
    return outfile;
  })();
  return built;
}

export interface HookRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  elapsedMs: number;
}

export interface HookRunOptions {
  args?: string[];
  /** Bytes for stdin; undefined: stdin closed at once. */
  stdin?: string | Buffer;
  /** Keep stdin open after writing (a writer that never closes it). */
  keepStdinOpen?: boolean;
  env: NodeJS.ProcessEnv;
}

export async function runHook(opts: HookRunOptions): Promise<HookRun> {
  const hook = await buildHook();
  const started = Date.now();
  const child = spawn(process.execPath, [hook, ...(opts.args ?? [])], { env: opts.env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  // The hook may exit before reading everything (a bounded wait): that is allowed.
  child.stdin.on('error', () => undefined);
  if (opts.stdin !== undefined) child.stdin.write(opts.stdin);
  if (!opts.keepStdinOpen) child.stdin.end();
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      child.stdin.destroy();
      resolve({ code, signal, stdout, stderr, elapsedMs: Date.now() - started });
    });
  });
}

/** A fresh HOME with a Claude dir; env for the hook with nothing else of ours. */
export function tempHome(): { home: string; claudeDir: string; env: NodeJS.ProcessEnv } {
  const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tl-hook-home-')));
  const claudeDir = path.join(home, '.claude');
  fs.mkdirSync(path.join(claudeDir, 'projects', '-work'), { recursive: true });
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, USERPROFILE: home };
  return { home, claudeDir, env };
}

/** Every path under root with its size and mode, to prove a run wrote nowhere else. */
export function snapshotTree(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of fs.readdirSync(dir)) {
      const p = path.join(dir, name);
      const st = fs.lstatSync(p);
      out.set(path.relative(root, p), `${st.mode.toString(8)}:${st.isDirectory() ? 'dir' : st.size}`);
      if (st.isDirectory()) walk(p);
    }
  };
  walk(root);
  return out;
}

/** Paths added or changed between two snapshots. */
export function changedPaths(before: Map<string, string>, after: Map<string, string>): string[] {
  const changed: string[] = [];
  for (const [p, v] of after) if (before.get(p) !== v) changed.push(p);
  for (const p of before.keys()) if (!after.has(p)) changed.push(p);
  return changed.sort();
}

export function readJsonLines(file: string): unknown[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as unknown);
}

export function hookInput(fields: Record<string, unknown>): string {
  return JSON.stringify({
    session_id: '0b7c5a8e-1111-4222-8333-944455556666',
    transcript_path: '/nonexistent/transcript.jsonl',
    cwd: '/work',
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'echo secret-input', description: 'x' },
    tool_use_id: 'toolu_01TEST',
    ...fields,
  });
}
