// Drives the real Claude Code CLI: print mode as a child process, interactive mode inside tmux (on a
// private tmux socket, so we only ever touch our own server).
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** `claude -p PROMPT`: resolves when the process exits (or is killed at the timeout). */
export function runPrint({ claudeBin, cwd, env, prompt, extraArgs = [], timeoutMs = 90_000 }) {
  return new Promise((resolve) => {
    const startedAt = Date.now();
    const child = spawn(claudeBin, ['-p', prompt, ...extraArgs, '--permission-mode', 'acceptEdits'], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, startedAt, endedAt: Date.now() });
    });
  });
}

/**
 * Interactive session under tmux: start the TUI, wait until it shows its prompt, type PROMPT, wait
 * until `isDone()` says the turn is over, then `/exit`. Returns the last screen for diagnostics.
 */
export async function runInteractive({ claudeBin, cwd, env, prompt, isDone, extraArgs = [], timeoutMs = 60_000, readyTimeoutMs = 30_000, sampleScreens = false }) {
  // sampleScreens: every screen seen while the turn runs, with when, to tell what the terminal showed when.
  const screens = [];
  const socket = `tl-field-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const tmux = (...args) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const envArgs = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  const startedAt = Date.now();
  // tmux starts the command through a shell with the server's environment; `env -i` gives it exactly ours.
  const command = ['env', '-i', ...envArgs, claudeBin, ...extraArgs, '--permission-mode', 'acceptEdits'].map(shellQuote).join(' ');
  tmux('new-session', '-d', '-s', 'field', '-x', '160', '-y', '50', '-c', cwd, command);
  // kill-server leaves the socket file behind; remember it to remove it at the end.
  let socketPath = '';
  try {
    socketPath = tmux('display-message', '-p', '-t', 'field', '#{socket_path}').trim();
  } catch {
    // the CLI already exited; the scenario fails on its own
  }
  const screen = () => {
    try {
      return tmux('capture-pane', '-p', '-t', 'field');
    } catch {
      return '';
    }
  };
  let last = '';
  let readyAt;
  let typedAt;
  let doneAt;
  let finished = false;
  try {
    const deadline = startedAt + timeoutMs;
    // Ready: the input prompt line is drawn and the status line under it. A dialog we do not know
    // keeps it from appearing; the prompt is typed anyway and the scenario fails with the screen.
    const readyBy = Math.min(deadline, startedAt + readyTimeoutMs);
    while (Date.now() < readyBy) {
      last = screen();
      if (/^\s*[❯>]\s/m.test(last) && /(accept edits|for shortcuts|bypass|\? for)/i.test(last)) break;
      await sleep(150);
    }
    readyAt = Date.now();
    await sleep(300);
    tmux('send-keys', '-t', 'field', '-l', prompt);
    await sleep(200);
    tmux('send-keys', '-t', 'field', 'Enter');
    typedAt = Date.now();
    while (Date.now() < deadline && !isDone()) {
      if (sampleScreens) screens.push({ t: Date.now(), text: screen() });
      await sleep(100);
    }
    doneAt = Date.now();
    finished = isDone();
    // Let the writer's trailing batch land before leaving (idle: a status line refreshed each second shows it).
    const idleUntil = Date.now() + (sampleScreens ? 2500 : 700);
    while (sampleScreens && Date.now() < idleUntil) {
      screens.push({ t: Date.now(), text: screen() });
      await sleep(100);
    }
    await sleep(Math.max(0, idleUntil - Date.now()));
    last = screen();
    if (sampleScreens) screens.push({ t: Date.now(), text: last });
    tmux('send-keys', '-t', 'field', '-l', '/exit');
    await sleep(150);
    tmux('send-keys', '-t', 'field', 'Enter');
    for (let i = 0; i < 30; i++) {
      await sleep(100);
      try {
        tmux('has-session', '-t', 'field');
      } catch {
        break;
      }
    }
  } finally {
    try {
      tmux('kill-server');
    } catch {
      // already gone with its only session
    }
    if (socketPath) fs.rmSync(socketPath, { force: true });
  }
  return { startedAt, readyAt, typedAt, doneAt, finished, endedAt: Date.now(), screen: last, screens };
}

function shellQuote(s) {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${String(s).replace(/'/g, `'\\''`)}'`;
}

export function tmuxAvailable() {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

