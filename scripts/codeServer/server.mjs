// Starts code-server on loopback for a test run: no auth, telemetry and update
// checks off, a private user-data and extensions dir, and the caller's env (a
// temp HOME, CLAUDE_CONFIG_DIR, ...), which the extension host inherits.
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensureCodeServer } from './install.mjs';

/**
 * @typedef {{ userDataDir: string, extensionsDir: string, env?: NodeJS.ProcessEnv, settings?: Record<string, unknown> }} CodeServerDirs
 */

function serverEnv(env) {
  const merged = { ...process.env, ...env };
  // A key given as undefined means "not set" (e.g. CLAUDE_CONFIG_DIR when the test
  // wants the default ~/.claude of its temp HOME).
  for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k];
  // Inside a VS Code terminal this would make code-server hand our request to
  // the outer instance instead of starting its own.
  delete merged.VSCODE_IPC_HOOK_CLI;
  delete merged.VSCODE_PROXY_URI;
  delete merged.ELECTRON_RUN_AS_NODE;
  // Tests stay on loopback: marketplace queries go to a port nothing listens on.
  merged.EXTENSIONS_GALLERY = JSON.stringify({
    serviceUrl: 'http://127.0.0.1:9/gallery',
    itemUrl: 'http://127.0.0.1:9/items',
    resourceUrlTemplate: 'http://127.0.0.1:9/resources/{publisher}/{name}/{version}/{path}',
  });
  return merged;
}

// Quiet, offline workbench: no welcome page, no trust prompt, no update or
// marketplace checks (the gallery points at a closed loopback port, see serverEnv).
const DEFAULT_USER_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'git.enabled': false,
  'files.autoSave': 'off',
};

function commonArgs(/** @type {CodeServerDirs & { settings?: Record<string, unknown> }} */ dirs) {
  const config = path.join(dirs.userDataDir, 'code-server.yaml');
  fs.mkdirSync(path.join(dirs.userDataDir, 'User'), { recursive: true });
  const settingsFile = path.join(dirs.userDataDir, 'User', 'settings.json');
  if (!fs.existsSync(settingsFile)) {
    fs.writeFileSync(settingsFile, JSON.stringify({ ...DEFAULT_USER_SETTINGS, ...dirs.settings }, null, 2));
  }
  fs.mkdirSync(dirs.extensionsDir, { recursive: true });
  // An explicit config file: otherwise code-server writes ~/.config/code-server
  // with a generated password.
  if (!fs.existsSync(config)) fs.writeFileSync(config, 'auth: none\ncert: false\n');
  return [
    '--config', config,
    '--user-data-dir', dirs.userDataDir,
    '--extensions-dir', dirs.extensionsDir,
  ];
}

/** `code-server --install-extension <vsix>` into the given extensions dir; throws on failure. */
export function installExtension(vsixPath, /** @type {CodeServerDirs} */ dirs) {
  const entry = ensureCodeServer();
  const r = spawnSync(process.execPath, [entry, ...commonArgs(dirs), '--install-extension', vsixPath], {
    env: serverEnv(dirs.env),
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (r.status !== 0) {
    throw new Error(`code-server --install-extension ${vsixPath} failed (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
  }
  return r.stdout.trim();
}

/**
 * Starts code-server on 127.0.0.1 with an OS-chosen port and resolves once it listens.
 * @param {CodeServerDirs & { log?: (line: string) => void, startTimeoutMs?: number }} opts
 */
export async function startCodeServer(opts) {
  const entry = ensureCodeServer();
  const args = [
    entry,
    ...commonArgs(opts),
    '--bind-addr', '127.0.0.1:0',
    '--auth', 'none',
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--ignore-last-opened',
    '--session-socket', path.join(opts.userDataDir, 'session.sock'),
  ];
  const child = spawn(process.execPath, args, {
    env: serverEnv(opts.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Never leave a server behind, whatever way the runner exits.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  const log = opts.log ?? (() => {});
  /** @type {string[]} */
  const output = [];
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`code-server did not start within ${opts.startTimeoutMs ?? 60_000} ms:\n${output.join('')}`)),
      opts.startTimeoutMs ?? 60_000,
    );
    const onData = (chunk) => {
      const text = chunk.toString();
      output.push(text);
      for (const line of text.split('\n')) if (line.trim()) log(line);
      const m = /HTTP server listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output.join(''));
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`code-server exited with ${code} before listening:\n${output.join('')}`));
    });
  });
  const origin = `http://127.0.0.1:${port}`;
  /** Resolves with a message if code-server dies while a suite still needs it. */
  const died = new Promise((resolve) =>
    child.once('exit', (code, signal) => resolve(`code-server exited (${signal ?? code}):\n${output.join('').split('\n').slice(-30).join('\n')}`)),
  );
  return {
    died,
    port,
    origin,
    /** The authority extension-development URIs use: vscode-remote://<authority>/path. */
    authority: `127.0.0.1:${port}`,
    output: () => output.join(''),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * The workbench URL: `folder` opens a workspace folder; `payload` entries go to the
 * workbench as-is (extensionDevelopmentPath / extensionTestsPath run tests in the
 * server's Node extension host).
 * @param {string} origin
 * @param {{ folder?: string, payload?: [string, string][] }} opts
 */
export function workbenchUrl(origin, { folder, payload } = {}) {
  const url = new URL(origin + '/');
  if (folder) url.searchParams.set('folder', folder);
  if (payload?.length) url.searchParams.set('payload', JSON.stringify(payload));
  return url.toString();
}
