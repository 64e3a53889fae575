import { execFile } from 'node:child_process';

/**
 * `claude --version` of the Claude Code on PATH (`2.1.332 (Claude Code)`), or undefined when there
 * is none, it fails, or it does not answer within the bound. No shell: on Windows that finds the
 * native claude.exe, not npm's claude.cmd (which would need one), and a shell form is then written.
 */
export function claudeCodeVersion(env: NodeJS.ProcessEnv = process.env, timeoutMs = 5000): Promise<string | undefined> {
  return new Promise((resolve) => {
    try {
      execFile('claude', ['--version'], { env, timeout: timeoutMs, maxBuffer: 64 * 1024, windowsHide: true, shell: false }, (err, stdout) => {
        resolve(err ? undefined : String(stdout).trim().slice(0, 200) || undefined);
      });
    } catch {
      resolve(undefined);
    }
  });
}
