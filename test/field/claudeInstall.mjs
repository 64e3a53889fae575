// Installs a pinned Claude Code CLI from npm into a cache folder outside the repo (never as a repo
// dependency) and returns the path of its `claude` binary. The registry package ships a native binary
// through a platform-specific optional dependency.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const DEFAULT_CLAUDE_VERSION = '2.1.332';

export function cacheRoot() {
  return process.env.TL_FIELD_CLI_CACHE || path.join(os.homedir(), '.cache', 'transcript-lag');
}

export class ClaudeInstallError extends Error {}

/** The cached binary for `version`, installing it on first use. Throws ClaudeInstallError when npm cannot. */
export function ensureClaude(version, log = () => {}) {
  const prefix = path.join(cacheRoot(), `claude-code-${version}`);
  const bin = path.join(prefix, 'node_modules', '.bin', 'claude');
  if (works(bin, version)) return bin;
  log(`installing @anthropic-ai/claude-code@${version} into ${prefix} …`);
  fs.mkdirSync(prefix, { recursive: true });
  try {
    execFileSync(
      'npm',
      ['install', '--prefix', prefix, `@anthropic-ai/claude-code@${version}`, '--no-audit', '--no-fund', '--loglevel=error'],
      { stdio: ['ignore', 'pipe', 'pipe'], timeout: 240_000 },
    );
  } catch (err) {
    // Leave no half-made prefix behind: the next run should try again from scratch.
    fs.rmSync(prefix, { recursive: true, force: true });
    const detail = err && err.stderr ? String(err.stderr).trim().split('\n').slice(-3).join(' | ') : String(err);
    throw new ClaudeInstallError(`npm could not install @anthropic-ai/claude-code@${version}: ${detail}`);
  }
  if (!works(bin, version)) {
    throw new ClaudeInstallError(`@anthropic-ai/claude-code@${version} installed but ${bin} does not run on this machine`);
  }
  return bin;
}

function works(bin, version) {
  if (!fs.existsSync(bin)) return false;
  try {
    const out = execFileSync(bin, ['--version'], { encoding: 'utf8', timeout: 30_000, stdio: ['ignore', 'pipe', 'pipe'] });
    return out.includes(version);
  } catch {
    return false;
  }
}
