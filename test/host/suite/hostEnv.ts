// What the runner (test/host/run.mjs) hands the suite through the environment.
import * as path from 'node:path';

export const EXTENSION_ID = 'transcript-lag.transcript-lag';

function required(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run the host suite through test/host/run.mjs`);
  return v;
}

/** Repository root (for dist/hook.js and dist/cli.js). */
export const repoRoot = (): string => required('TRANSCRIPT_LAG_REPO');
/** Per-run scratch dir the runner created and removes. */
export const scratchRoot = (): string => required('TRANSCRIPT_LAG_TEST_ROOT');
/** The Claude dir the extension was started with (CLAUDE_CONFIG_DIR). */
export const claudeDir = (): string => required('CLAUDE_CONFIG_DIR');
export const hookScript = (): string => path.join(repoRoot(), 'dist', 'hook.js');
export const cliScript = (): string => path.join(repoRoot(), 'dist', 'cli.js');
