// npm run demo: builds, then opens the extension on a replayed Claude Code session.
//
// The sessions are real recordings from the field suite (test/field/recordings/), written
// by Claude Code 2.1.332 and our hook, replayed with their timing into a temp Claude dir:
// calls held while a slow hook runs (interactive mode), and calls written promptly
// (print mode). With the `code` CLI on PATH it opens VS Code on a temp profile; without
// it, it starts code-server on 127.0.0.1 and prints the URL.
//
// Options: --speed N (replay N times faster), --rounds N (replay the set N times, 0 = until
// Ctrl-C; default 0), --code-server (use code-server even when `code` is on PATH),
// --no-open (replay only; print the Claude dir), --exit-after-replay (for a smoke test),
// --dir D (use and keep folder D instead of a temp folder removed on exit).
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadRecording, replayRecording } from './lib/replay.mjs';
import { failAndExit } from './lib/missingTool.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RECORDINGS = ['interactive-parallel-probe-slow.jsonl', 'print-single-probe.jsonl', 'interactive-single-probe.jsonl'];

const { values: opts } = parseArgs({
  options: {
    speed: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '0' },
    'code-server': { type: 'boolean', default: false },
    'no-open': { type: 'boolean', default: false },
    'exit-after-replay': { type: 'boolean', default: false },
    'skip-build': { type: 'boolean', default: false },
    dir: { type: 'string' },
  },
});
const speed = Number(opts.speed);
const rounds = Number(opts.rounds);
if (!(speed > 0) || !Number.isInteger(rounds) || rounds < 0) {
  console.error('demo: --speed must be > 0 and --rounds a whole number >= 0');
  process.exit(2);
}

function say(line) {
  console.log(`[demo] ${line}`);
}

function onPath(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' }).status === 0;
}

/** Each replay gets a session id of its own, so a round adds new sessions instead of repeating records. */
function withFreshSession(recording) {
  const from = recording.meta.session_id;
  const to = randomUUID();
  const swap = (text) => text.split(from).join(to);
  return {
    meta: { ...recording.meta, session_id: to },
    rows: recording.rows.map((r) => ({ ...r, text: swap(r.text) })),
  };
}

async function replayLoop({ claudeDir, workspace, home, signal }) {
  const recordings = RECORDINGS.map((f) => loadRecording(path.join(repo, 'test/field/recordings', f)));
  for (let round = 1; rounds === 0 || round <= rounds; round++) {
    for (const recording of recordings) {
      if (signal.aborted) return;
      const fresh = withFreshSession(recording);
      say(`replaying ${recording.meta.scenario} (Claude Code ${recording.meta.claude_code_version}, ${recording.meta.mode} mode), session ${fresh.meta.session_id}`);
      const { transcript } = await replayRecording(fresh, { claudeDir, workspace, home, speed, signal });
      say(`  done: ${path.relative(claudeDir, transcript)}`);
      await new Promise((r) => setTimeout(r, 3000 / speed));
    }
  }
}

async function openVsCode({ workspace, env, root }) {
  const useCode = onPath('code') && !opts['code-server'];
  if (useCode) {
    const args = [
      '--new-window',
      '--user-data-dir', path.join(root, 'vscode-user'),
      '--extensions-dir', path.join(root, 'vscode-extensions'),
      `--extensionDevelopmentPath=${repo}`,
      workspace,
    ];
    say(`opening VS Code: code ${args.join(' ')}`);
    spawn('code', args, { env, stdio: 'ignore', detached: true }).unref();
    return { stop: async () => {} };
  }
  const { startCodeServer, workbenchUrl } = await import('./codeServer/server.mjs');
  say('no `code` on PATH: starting code-server on 127.0.0.1 (installed on first use, which takes a few minutes)');
  const server = await startCodeServer({
    userDataDir: path.join(root, 'code-server-user'),
    extensionsDir: path.join(root, 'code-server-extensions'),
    env,
  });
  const url = workbenchUrl(server.origin, {
    folder: workspace,
    payload: [['extensionDevelopmentPath', `vscode-remote://${server.authority}${repo}`]],
  });
  say(`open this URL in a browser on this machine:\n\n  ${url}\n`);
  return server;
}

async function main() {
  if (!opts['skip-build']) {
    say('building');
    const build = spawnSync('npm', ['run', 'build'], { cwd: repo, stdio: 'inherit' });
    if (build.status !== 0) process.exit(build.status ?? 1);
  }
  const keep = opts.dir !== undefined;
  const root = keep ? path.resolve(opts.dir) : fs.mkdtempSync(path.join(os.tmpdir(), 'transcript-lag-demo-'));
  const home = path.join(root, 'home');
  const claudeDir = path.join(home, '.claude');
  const workspace = path.join(root, 'work');
  fs.mkdirSync(path.join(claudeDir, 'projects'), { recursive: true });
  fs.mkdirSync(workspace, { recursive: true });
  fs.writeFileSync(
    path.join(workspace, 'README.md'),
    '# Transcript Lag demo\n\nA replayed Claude Code session works in this folder. Watch the status bar and the Transcript Lag view.\n',
  );
  say(`temp Claude dir: ${claudeDir}`);
  say(`workspace:       ${workspace}`);
  const env = { ...process.env, CLAUDE_CONFIG_DIR: claudeDir };

  const abort = new AbortController();
  let server = { stop: async () => {} };
  const stop = async () => {
    abort.abort();
    await server.stop();
    if (!keep) fs.rmSync(root, { recursive: true, force: true });
  };
  process.once('SIGINT', () => void stop().then(() => process.exit(0)));
  process.once('SIGTERM', () => void stop().then(() => process.exit(0)));

  if (!opts['no-open']) {
    server = await openVsCode({ workspace, env, root });
    // Give the window time to load and the extension to activate before the first call fires.
    await new Promise((r) => setTimeout(r, 5000));
  }
  await replayLoop({ claudeDir, workspace, home, signal: abort.signal });
  if (opts['exit-after-replay']) {
    await stop();
    return;
  }
  say('replay finished; Ctrl-C to stop');
}

main().catch((err) => failAndExit('demo: ', err));
