// The project's own pieces as the field test uses them: install-hook, watch --json, analyze --json,
// all through the built dist/cli.js (the same entry points a user runs).
import { spawn, execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI_JS = path.join(repoRoot, 'dist', 'cli.js');
export const HOOK_JS = path.join(repoRoot, 'dist', 'hook.js');

/** What is missing from dist/ for the field test to run, as messages (empty when all is there). */
export function missingPieces() {
  const missing = [];
  if (!fs.existsSync(HOOK_JS)) missing.push('dist/hook.js');
  if (!fs.existsSync(CLI_JS)) missing.push('dist/cli.js');
  else {
    const help = cli(['--help'], { allowFail: true });
    for (const cmd of ['install-hook', 'watch', 'analyze', 'install-statusline']) {
      if (!help.includes(cmd)) missing.push(`dist/cli.js ${cmd}`);
    }
  }
  return missing;
}

function cli(args, { allowFail = false, env = process.env } = {}) {
  try {
    return execFileSync(process.execPath, [CLI_JS, ...args], { encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    if (allowFail) return `${err.stdout ?? ''}${err.stderr ?? ''}`;
    throw new Error(`transcript-lag ${args.join(' ')} failed (${err.status}): ${err.stderr || err.stdout || err}`);
  }
}

export function installHook({ claudeDir, probe, polls, pollMs, httpPort, form }) {
  const args = ['install-hook', '--claude-dir', claudeDir];
  // `form`: exec or shell, whatever `claude --version` on PATH says (the compat runner asks whether a version runs the exec form).
  if (form) args.push('--form', form);
  if (probe) args.push('--probe', '--polls', String(polls), '--poll-ms', String(pollMs));
  // http hooks to the receiver `watch` serves on that port.
  if (httpPort !== undefined) args.push('--http', '--port', String(httpPort));
  return cli(args);
}

/** `install-statusline`: Claude Code's statusLine runs `transcript-lag statusline` every second. */
export function installStatusline({ claudeDir }) {
  return cli(['install-statusline', '--claude-dir', claudeDir]);
}

/** `watch --json` (with `--metrics ADDRESS` when given): every stdout line parsed, with the time it arrived. */
export function startWatch({ claudeDir, cwd, metrics }) {
  const args = [CLI_JS, 'watch', '--json', '--all', '--claude-dir', claudeDir];
  if (metrics) args.push('--metrics', metrics);
  const child = spawn(process.execPath, args, {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events = [];
  let partial = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    const t = Date.now();
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) {
      if (!line.trim()) continue;
      try {
        events.push({ t, ...JSON.parse(line) });
      } catch {
        events.push({ t, event: 'unparsed', text: line });
      }
    }
  });
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return {
    events,
    stderr: () => stderr,
    async stop() {
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      const how = await exited;
      clearTimeout(timer);
      return how;
    },
  };
}

export function analyze(transcript, channel) {
  const args = ['analyze', transcript, '--json'];
  if (channel && fs.existsSync(channel)) args.push('--channel', channel);
  return JSON.parse(cli(args));
}

/**
 * The plugin installed the way a user does, with the real CLI: `claude plugin marketplace add SOURCE`
 * then `claude plugin install transcript-lag@transcript-lag`. SOURCE is this repository's folder (a
 * directory marketplace: the hook runs from the folder) or a git URL (cloned into the CLI's plugin
 * cache, where nothing is built). Returns the install record the CLI keeps.
 */
export async function installPlugin({ claudeBin, env, cwd, source }) {
  // Not execFileSync: a git URL may be served by this very process (gitHttpServer.mjs).
  const run = (args) =>
    new Promise((resolve, reject) => {
      execFile(claudeBin, args, { cwd, env, encoding: 'utf8', timeout: 120_000 }, (err, stdout, stderr) => {
        if (err) reject(new Error(`claude ${args.join(' ')} failed (${err.code}): ${(stderr || stdout || String(err)).trim().slice(0, 600)}`));
        else resolve(stdout);
      });
    });
  await run(['plugin', 'marketplace', 'add', source]);
  await run(['plugin', 'install', 'transcript-lag@transcript-lag']);
  const installed = JSON.parse(fs.readFileSync(path.join(env.HOME, '.claude', 'plugins', 'installed_plugins.json'), 'utf8'));
  const records = installed.plugins?.['transcript-lag@transcript-lag'] ?? [];
  return { installPath: records[0]?.installPath, version: records[0]?.version };
}
