// npm run demo: builds, then opens the extension on replayed Claude Code sessions.
//
// The sessions are real recordings from the field suite (test/field/recordings/), written
// by Claude Code 2.1.332 and our hook, replayed with their timing into a temp Claude dir.
// What it shows, in order:
//   1. a finished session, written before the window opens: opened after the fact (history);
//   2. once a window shows the extension: calls held while a slow second hook runs, whose
//      probe ends `behind` (interactive mode); calls written promptly (print mode); one call
//      per message held ~1 s (interactive mode);
//   3. each window that connects later (a reload, a second browser tab) gets the first live
//      session again, as a new session.
// It ends by itself: --linger-sec after the last replay without a new window (default 600).
// With the `code` CLI on PATH it opens VS Code on a temp profile; without it, when code-server is
// installed or can be (scripts/codeServer/install.mjs: Node 20, rg, g++, make, ...), it starts
// code-server on 127.0.0.1 and prints the URL.
// Otherwise, and always with --terminal, it plays the same sessions in the terminal: the CLI's
// engine follows them and src/cli/terminalDemo.ts draws what the view would show (held calls and
// their age, landed calls with lag and shape, each session's waits seen / behind); it ends
// --linger-sec after the last replay (default 3), and says what to install for the VS Code view.
// That needs nothing but Node and the npm packages: no compiler, no browser, no network.
//
// Options: --speed N (replay N times faster), --rounds N (replay the live set N times, default 1),
// --linger-sec S, --code-server (use code-server even when `code` is on PATH), --terminal (play in
// the terminal whatever is installed), --no-open (replay only, at once; print the Claude dir),
// --exit-after-replay (for a smoke test), --dir D (use and keep folder D instead of a temp folder
// removed on exit), --skip-build.
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadRecording, replayRecording } from './lib/replay.mjs';
import { aptInstall, failAndExit, findCommand } from './lib/missingTool.mjs';
import { codeServerPrerequisites, isInstalled as codeServerInstalled } from './codeServer/install.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const EXTENSION_ID = 'transcript-lag.transcript-lag';

/** Each recording's prompt was "go": the demo's copies get prompts of their own, so the view tells them apart. */
const FINISHED = { file: 'print-single-probe.jsonl', prompt: 'Earlier: list the files (finished before the window opened)' };
const LIVE = [
  { file: 'interactive-parallel-probe-slow.jsonl', prompt: 'Held: two parallel calls while a slow hook runs (probe ends behind)' },
  { file: 'print-single-probe.jsonl', prompt: 'Written: print mode, each call on disk when its message ends' },
  { file: 'interactive-single-probe.jsonl', prompt: 'Held: one call per message, ~1 s each' },
];

const { values: opts } = parseArgs({
  options: {
    speed: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '1' },
    'linger-sec': { type: 'string' },
    'code-server': { type: 'boolean', default: false },
    terminal: { type: 'boolean', default: false },
    'no-open': { type: 'boolean', default: false },
    'exit-after-replay': { type: 'boolean', default: false },
    'skip-build': { type: 'boolean', default: false },
    dir: { type: 'string' },
  },
});
const speed = Number(opts.speed);
const rounds = Number(opts.rounds);
const lingerMs = opts['linger-sec'] === undefined ? undefined : Number(opts['linger-sec']) * 1000;
if (!(speed > 0) || !Number.isInteger(rounds) || rounds < 1 || !(lingerMs === undefined || lingerMs >= 0)) {
  console.error('demo: --speed must be > 0, --rounds a whole number >= 1, --linger-sec >= 0');
  process.exit(2);
}

/** Where the demo's narration goes: the console, or the terminal screen's notes while it is drawn. */
let narrate = (line) => console.log(line);

function say(line) {
  narrate(`[demo] ${line}`);
}

function sleep(ms, signal) {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * A copy of a recording as a session of its own: a new session id (a replay adds a
 * session instead of repeating records) and the first prompt, "go" in every
 * recording, rewritten to `prompt`. No line is added or removed: every call stays
 * at its recorded line.
 */
function demoCopy(recording, prompt) {
  const from = recording.meta.session_id;
  const to = randomUUID();
  let prompted = false;
  const rows = recording.rows.map((r) => {
    let text = r.text.split(from).join(to);
    if (!prompted && r.kind === 'transcript') {
      const obj = JSON.parse(text);
      if (obj.type === 'user' && typeof obj.message?.content === 'string') {
        obj.message.content = prompt;
        text = JSON.stringify(obj);
        prompted = true;
      }
    }
    return { ...r, text };
  });
  return { meta: { ...recording.meta, session_id: to }, rows };
}

function load(file) {
  return loadRecording(path.join(repo, 'test/field/recordings', file));
}

async function replay(entry, prompt, ctx, replaySpeed = speed) {
  const recording = load(entry.file);
  const copy = demoCopy(recording, prompt);
  say(`replaying ${recording.meta.scenario} (Claude Code ${recording.meta.claude_code_version}, ${recording.meta.mode} mode) as "${prompt}" (session ${copy.meta.session_id.slice(0, 8)})`);
  const { transcript } = await replayRecording(copy, { claudeDir: ctx.claudeDir, workspace: ctx.workspace, home: ctx.home, speed: replaySpeed, signal: ctx.signal });
  say(`  done: ${path.relative(ctx.claudeDir, transcript)}`);
}

/**
 * Windows that have loaded the extension so far: VS Code and code-server give
 * each extension host a log folder of its own per extension, under the
 * user-data dir's logs/ (…/exthost<N>/<extension id>/). A new one means a window
 * connected (or reloaded). Bounded walk: the logs tree is small and ours.
 */
function extensionHostsSeen(userDataDir) {
  const found = new Set();
  const walk = (dir, depth) => {
    if (depth > 6) return;
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (!e.isDirectory()) continue;
      const full = path.join(dir, e.name);
      if (e.name.toLowerCase() === EXTENSION_ID) found.add(full);
      else walk(full, depth + 1);
    }
  };
  walk(path.join(userDataDir, 'logs'), 0);
  return found.size;
}

/** Resolves with the number of extension hosts once it exceeds `known`, or undefined when the time is up. */
async function nextWindow(userDataDir, known, withinMs, signal) {
  const until = Date.now() + withinMs;
  while (!signal.aborted && Date.now() < until) {
    const n = extensionHostsSeen(userDataDir);
    if (n > known) return n;
    await sleep(500, signal);
  }
  return undefined;
}

async function runDemo(ctx, userDataDir) {
  let windows = 0;
  if (userDataDir) {
    say('waiting for a window to show the extension before the replay starts');
    const n = await nextWindow(userDataDir, 0, 30 * 60_000, ctx.signal);
    if (n === undefined) return say('no window connected within 30 minutes; stopping');
    windows = n;
    say('a window is open: replaying');
    // The extension reads its first look as history: give it a moment before the first live write.
    await sleep(2000, ctx.signal);
  }
  for (let round = 1; round <= rounds && !ctx.signal.aborted; round++) {
    for (const entry of LIVE) {
      if (ctx.signal.aborted) return;
      await replay(entry, round === 1 ? entry.prompt : `${entry.prompt} · round ${round}`, ctx);
      await sleep(3000 / speed, ctx.signal);
    }
  }
  if (!userDataDir || opts['exit-after-replay']) return;
  // Bounded: each new window replays the first live session again; quiet for lingerMs, the demo ends.
  for (let again = 2; !ctx.signal.aborted; again++) {
    say(`replay finished; a new window (or a reload) replays the first session again; stopping after ${Math.round((lingerMs ?? 600_000) / 1000)} s without one`);
    const n = await nextWindow(userDataDir, windows, lingerMs ?? 600_000, ctx.signal);
    if (n === undefined) return;
    windows = n;
    await sleep(2000, ctx.signal);
    await replay(LIVE[0], `${LIVE[0].prompt} · again (${again})`, ctx);
  }
}

/**
 * Where the sessions are shown: VS Code when `code` is on PATH, else code-server when it is
 * installed or its install can run here, else the terminal (with what is missing, for the hint).
 */
function chooseView() {
  if (opts.terminal) return { view: 'terminal' };
  if (findCommand('code') && !opts['code-server']) return { view: 'code' };
  if (codeServerInstalled()) return { view: 'code-server' };
  const prerequisites = codeServerPrerequisites();
  if (prerequisites.nodeSupported && prerequisites.missing.length === 0) return { view: 'code-server' };
  const lacks = prerequisites.nodeSupported ? `${prerequisites.missing.join(', ')} not found` : `it needs Node 20, this is Node ${process.versions.node}`;
  return { view: 'terminal', why: `no \`code\` on PATH, and code-server cannot be installed here (${lacks})` };
}

/** The one line that says what to install for the VS Code view (after a code-server that did not start: what to fix). */
function vsCodeViewHint(codeServerFailed) {
  if (codeServerFailed) return 'For the VS Code view: install VS Code (`code` on PATH), or fix what stopped code-server (above).';
  const prerequisites = codeServerPrerequisites();
  if (findCommand('code') || codeServerInstalled() || (prerequisites.nodeSupported && prerequisites.missing.length === 0)) {
    return 'For the VS Code view: run `npm run demo` without --terminal.';
  }
  const codeServer = prerequisites.nodeSupported ? `code-server's build tools: ${aptInstall(prerequisites.packages)}` : 'code-server (it needs Node 20)';
  return `For the VS Code view: install VS Code (\`code\` on PATH) or ${codeServer}, then run \`npm run demo\` again.`;
}

/**
 * The terminal view: the built CLI's engine follows the temp Claude dir while the live set is
 * replayed; the screen ends --linger-sec (default 3) after the last replay, on its final state.
 */
async function runInTerminal(ctx, onStop) {
  const { startTerminalDemo } = createRequire(import.meta.url)(path.join(repo, 'dist', 'terminalDemo.js'));
  const version = load(LIVE[0].file).meta.claude_code_version;
  const screen = await startTerminalDemo({
    claudeDir: ctx.claudeDir,
    title: `Claude Code ${version} sessions replayed${speed === 1 ? '' : ` ${speed}× faster`}`,
    out: {
      write: (text) => process.stdout.write(text),
      // A terminal that cannot move the cursor (TERM=dumb) gets the plain lines too.
      isTTY: process.stdout.isTTY === true && process.env.TERM !== 'dumb',
      get columns() {
        return process.stdout.columns;
      },
      get rows() {
        return process.stdout.rows;
      },
    },
  });
  const stopScreen = async () => {
    narrate = (line) => console.log(line);
    await screen.stop();
  };
  onStop(stopScreen);
  narrate = (line) => screen.note(line);
  await runDemo(ctx, undefined);
  say('replay finished');
  await sleep(lingerMs ?? 3000, ctx.signal);
  await stopScreen();
}

async function openVsCode({ workspace, env, root }, view) {
  if (view === 'code') {
    const userDataDir = path.join(root, 'vscode-user');
    const args = [
      '--new-window',
      '--user-data-dir', userDataDir,
      '--extensions-dir', path.join(root, 'vscode-extensions'),
      `--extensionDevelopmentPath=${repo}`,
      workspace,
    ];
    say(`opening VS Code: code ${args.join(' ')}`);
    spawn('code', args, { env, stdio: 'ignore', detached: true }).unref();
    return { stop: async () => {}, userDataDir };
  }
  const { startCodeServer, workbenchUrl } = await import('./codeServer/server.mjs');
  say('no `code` on PATH: starting code-server on 127.0.0.1 (installed on first use, which takes a few minutes)');
  const userDataDir = path.join(root, 'code-server-user');
  const server = await startCodeServer({ userDataDir, extensionsDir: path.join(root, 'code-server-extensions'), env });
  const url = workbenchUrl(server.origin, {
    folder: workspace,
    payload: [['extensionDevelopmentPath', `vscode-remote://${server.authority}${repo}`]],
  });
  say(`open this URL in a browser on this machine; the replay starts when the page has loaded:\n\n  ${url}\n`);
  return { stop: () => server.stop(), userDataDir };
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
    '# Transcript Lag demo\n\nReplayed Claude Code sessions work in this folder. Watch the status bar and the Transcript Lag view.\n',
  );
  say(`temp Claude dir: ${claudeDir}`);
  say(`workspace:       ${workspace}`);
  const env = { ...process.env, CLAUDE_CONFIG_DIR: claudeDir };

  const abort = new AbortController();
  let server = { stop: async () => {}, userDataDir: undefined };
  let stopped = false;
  /** Gives the terminal back when the terminal view is drawn (set by it). */
  let stopView = async () => {};
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    abort.abort();
    await stopView();
    await server.stop();
    if (!keep) fs.rmSync(root, { recursive: true, force: true });
  };
  process.once('SIGINT', () => void stop().then(() => process.exit(0)));
  process.once('SIGTERM', () => void stop().then(() => process.exit(0)));

  const ctx = { claudeDir, workspace, home, signal: abort.signal };
  // A session that ended before the window opened: the extension reads it as history.
  await replay(FINISHED, FINISHED.prompt, ctx, Number.MAX_SAFE_INTEGER);
  if (opts['no-open']) {
    await runDemo(ctx, undefined);
    await stop();
    return say('demo finished');
  }
  let { view, why } = chooseView();
  let codeServerFailed = false;
  if (view !== 'terminal') {
    try {
      server = await openVsCode({ workspace, env, root }, view);
    } catch (err) {
      if (view !== 'code-server') throw err;
      why = `code-server did not start: ${err instanceof Error ? err.message : err}`;
      view = 'terminal';
      codeServerFailed = true;
    }
  }
  if (view === 'terminal') {
    say(`${why ? `${why}: ` : ''}playing the sessions in the terminal`);
    await runInTerminal(ctx, (stopScreen) => (stopView = stopScreen));
    await stop();
    say('demo finished');
    return say(vsCodeViewHint(codeServerFailed));
  }
  await runDemo(ctx, server.userDataDir);
  await stop();
  say('demo finished');
}

main().catch((err) => failAndExit('demo: ', err));
