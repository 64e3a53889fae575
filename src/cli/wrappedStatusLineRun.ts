/**
 * The user's own status line, which `install-statusline` wrapped: run as Claude Code would run it
 * (its shell, the same stdin), in a process group of its own (src/rules/processGroupRun.ts,
 * required only when there is a line to run), its output bounded in time and bytes.
 */
import type { GroupRunSpec } from '../rules/processGroupRun';

/** The user's own status line command gets this long before its output is left out. */
export const WRAPPED_TIMEOUT_MS = 3000;

/** The user's own status line output kept at most: a status line is a few hundred bytes; `yes` is endless. */
export const WRAPPED_MAX_BYTES = 16 * 1024;

export interface WrappedLimits {
  timeoutMs: number;
  maxBytes: number;
}

/** Where Claude Code 2.1.332 looks for PowerShell 7 when there is no Git Bash, before Windows PowerShell. */
const POWERSHELL_7 = ['C:\\Program Files\\PowerShell\\7\\pwsh.exe', 'C:\\Program Files\\PowerShell\\7-preview\\pwsh.exe'];

/**
 * The shell Claude Code runs a status line in, so the user's own runs where they wrote it for: sh on
 * POSIX. On Windows Claude Code finds Git Bash (CLAUDE_CODE_GIT_BASH_PATH, Program Files, beside git on
 * PATH) and puts its path in SHELL for what it starts: that bash when SHELL names one; else PowerShell 7
 * where Claude Code looks for it, else Windows PowerShell, with its arguments (`-NoProfile -Command`).
 */
export function wrappedShellOf(command: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform, isFile: (p: string) => boolean = isFileSync): [string, string[]] {
  if (platform !== 'win32') return ['sh', ['-c', command]];
  const shell = env.SHELL;
  if (shell && /(?:^|[\\/])(?:bash|sh)(?:\.exe)?$/i.test(shell) && isFile(shell)) return [shell, ['-c', command]];
  const powershell = POWERSHELL_7.find(isFile) ?? `${env.SystemRoot ?? env.SYSTEMROOT ?? 'C:\\Windows'}\\System32\\WindowsPowerShell\\v1.0\\powershell.exe`;
  return [powershell, ['-NoProfile', '-Command', command]];
}

function isFileSync(p: string): boolean {
  try {
    return (require('node:fs') as typeof import('node:fs')).statSync(p).isFile();
  } catch {
    return false;
  }
}

/**
 * Runs the user's own status line command as Claude Code would (shell, same stdin); its stdout, or
 * what it printed before it failed, was slow or said too much. It runs in a process group of its
 * own, which is killed whole when it takes longer than the timeout or prints more than maxBytes:
 * killing only `sh` would leave its `sleep` or `yes` running after us, one more on every refresh.
 * Whole characters only: a character cut at the bound is left out.
 */
export async function runWrapped(command: string, input: string, env: NodeJS.ProcessEnv, limits: WrappedLimits = { timeoutMs: WRAPPED_TIMEOUT_MS, maxBytes: WRAPPED_MAX_BYTES }): Promise<string> {
  let run: typeof import('../rules/processGroupRun');
  let StringDecoderCtor: typeof import('node:string_decoder').StringDecoder;
  let shell: [string, string[]];
  try {
    // Required here, not imported: without a wrapped line the start-up need not load child_process.
    run = require('../rules/processGroupRun') as typeof import('../rules/processGroupRun');
    StringDecoderCtor = (require('node:string_decoder') as typeof import('node:string_decoder')).StringDecoder;
    shell = wrappedShellOf(command, env);
  } catch {
    return '';
  }
  const spec: GroupRunSpec = { file: shell[0], args: shell[1], env, input, timeoutMs: limits.timeoutMs, maxBytes: limits.maxBytes, stderr: false, overflow: 'kill', end: { kind: 'now' } };
  const done = await run.runInGroup(spec);
  return new StringDecoderCtor('utf8').write(done.stdout);
}
