#!/usr/bin/env node
// Runs the integration suite (test/host/suite) inside a real VS Code extension host.
//
//   node test/host/run.mjs [--no-build] [--grep <pattern>] [--keep]
//
// Host choice:
//   - VSCODE_EXECUTABLE=/path/to/code, or TRANSCRIPT_LAG_HOST=electron (downloads VS Code):
//     @vscode/test-electron launches desktop VS Code with the suite.
//   - otherwise (this machine and CI, where no VS Code desktop can be had): code-server
//     4.100.3, installed on first use outside the repo, opened in headless Chromium with a
//     `payload` URL that makes its Node extension host load the suite.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { chromiumPath, keepPageOnLoopback, launchChromium } from '../../scripts/codeServer/browser.mjs';
import { isMissingTool } from '../../scripts/lib/missingTool.mjs';
import { startCodeServer, workbenchUrl } from '../../scripts/codeServer/server.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const suiteSrc = path.join(repoRoot, 'test', 'host', 'suite');
const suiteOut = path.join(repoRoot, 'out', 'host');
const artifacts = path.join(repoRoot, 'test-artifacts');
const RUN_TIMEOUT_MS = Number(process.env.TRANSCRIPT_LAG_HOST_TIMEOUT_MS ?? 10 * 60_000);

const argv = process.argv.slice(2);
const flag = (name) => argv.includes(name);
const option = (name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);

function log(msg) {
  console.log(`[host] ${msg}`);
}

async function buildSuite() {
  if (!flag('--no-build')) {
    const r = spawnSync(process.execPath, [path.join(repoRoot, 'scripts', 'build.mjs')], { cwd: repoRoot, stdio: 'inherit' });
    if (r.status !== 0) throw new Error('npm run build failed');
  }
  if (!fs.existsSync(path.join(repoRoot, 'dist', 'extension.js'))) throw new Error('dist/extension.js missing: run npm run build');
  fs.rmSync(suiteOut, { recursive: true, force: true });
  const entries = fs.readdirSync(suiteSrc).filter((f) => f === 'index.ts' || f.endsWith('.test.ts'));
  await esbuild.build({
    entryPoints: entries.map((f) => path.join(suiteSrc, f)),
    outdir: suiteOut,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node18',
    sourcemap: 'inline',
    // vscode is the host's; mocha resolves from the repo's node_modules at runtime.
    external: ['vscode', 'mocha'],
    logLevel: 'warning',
  });
  return path.join(suiteOut, 'index.js');
}

/** Temp HOME, Claude dir and workspace folder for one run; the suite writes its transcripts there. */
function makeScratch() {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tl-host-')));
  const dirs = {
    root,
    home: path.join(root, 'home'),
    claude: path.join(root, 'claude'),
    workspace: path.join(root, 'workspace'),
    userData: path.join(root, 'user-data'),
    extensions: path.join(root, 'extensions'),
    results: path.join(root, 'results.json'),
    progress: path.join(root, 'progress.log'),
  };
  for (const d of [dirs.home, dirs.claude, dirs.workspace, dirs.userData, dirs.extensions]) fs.mkdirSync(d, { recursive: true });
  fs.writeFileSync(path.join(dirs.workspace, 'README.md'), '# host test workspace\n');
  return dirs;
}

function suiteEnv(scratch) {
  const env = {
    HOME: scratch.home,
    CLAUDE_CONFIG_DIR: scratch.claude,
    TRANSCRIPT_LAG_REPO: repoRoot,
    TRANSCRIPT_LAG_TEST_ROOT: scratch.root,
    TRANSCRIPT_LAG_HOST_RESULTS: scratch.results,
    TRANSCRIPT_LAG_HOST_LOG: scratch.progress,
  };
  const grep = option('--grep');
  if (grep) env.TRANSCRIPT_LAG_HOST_GREP = grep;
  return env;
}

/** Prints what the suite appends to its progress log, as it appears. */
function tailFile(file) {
  let offset = 0;
  const pump = () => {
    if (!fs.existsSync(file)) return;
    const buf = fs.readFileSync(file);
    if (buf.length > offset) process.stdout.write(buf.subarray(offset));
    offset = buf.length;
  };
  const timer = setInterval(pump, 250);
  return () => {
    clearInterval(timer);
    pump();
  };
}

async function runInCodeServer(scratch, testsEntry) {
  const server = await startCodeServer({
    userDataDir: scratch.userData,
    extensionsDir: scratch.extensions,
    env: suiteEnv(scratch),
    log: process.env.TRANSCRIPT_LAG_DEBUG ? (l) => console.log(`[code-server] ${l}`) : undefined,
  });
  log(`code-server on ${server.origin}`);
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await keepPageOnLoopback(page);
    let resolveExit;
    const exited = new Promise((resolve) => (resolveExit = resolve));
    // The workbench calls this when the extension host's test run ends (code 0 = passed).
    await page.exposeFunction('codeAutomationExit', (code) => resolveExit(code));
    page.on('console', (msg) => {
      // The extension host forwards its console (mocha's reporter) to the page.
      const text = msg.text().replace(/%c/g, '').replace(/color: [^;]+;?/g, '');
      if (/\[Extension Host\]/.test(text) || process.env.TRANSCRIPT_LAG_DEBUG) {
        console.log(text.replace(/^\s*\[Extension Host\]\s?/, ''));
      }
    });
    const remote = (p) => `vscode-remote://${server.authority}${p}`;
    const url = workbenchUrl(server.origin, {
      folder: scratch.workspace,
      payload: [
        ['extensionDevelopmentPath', remote(repoRoot)],
        ['extensionTestsPath', remote(testsEntry)],
      ],
    });
    await page.goto(url);
    const timeout = new Promise((resolve) => setTimeout(() => resolve('timeout'), RUN_TIMEOUT_MS).unref());
    const died = server.died.then((msg) => {
      throw new Error(msg);
    });
    const code = await Promise.race([exited, timeout, died]);
    if (code !== 0) {
      fs.mkdirSync(artifacts, { recursive: true });
      await page.screenshot({ path: path.join(artifacts, 'host-failure.png') }).catch(() => {});
      if (code === 'timeout') {
        console.error(server.output().split('\n').slice(-40).join('\n'));
        throw new Error(`the host suite did not finish within ${RUN_TIMEOUT_MS} ms`);
      }
    }
    return code;
  } finally {
    await browser.close();
    await server.stop();
  }
}

async function runInElectron(scratch, testsEntry) {
  const { runTests } = await import('@vscode/test-electron');
  const { cacheRoot } = await import('../../scripts/codeServer/install.mjs');
  try {
    await runTests({
      vscodeExecutablePath: process.env.VSCODE_EXECUTABLE || undefined,
      // A downloaded VS Code is cached next to code-server, outside the repo.
      cachePath: path.join(cacheRoot(), 'vscode-test'),
      extensionDevelopmentPath: repoRoot,
      extensionTestsPath: testsEntry,
      extensionTestsEnv: suiteEnv(scratch),
      launchArgs: [
        scratch.workspace,
        '--disable-extensions',
        '--disable-workspace-trust',
        '--user-data-dir', scratch.userData,
        '--extensions-dir', scratch.extensions,
      ],
    });
    return 0;
  } catch (err) {
    console.error(err);
    return 1;
  }
}

async function main() {
  const started = Date.now();
  const useElectron = Boolean(process.env.VSCODE_EXECUTABLE) || process.env.TRANSCRIPT_LAG_HOST === 'electron';
  // Before the build: a missing browser fails in a second, not after it.
  if (!useElectron) chromiumPath();
  const testsEntry = await buildSuite();
  const scratch = makeScratch();
  log(`${useElectron ? 'VS Code desktop (@vscode/test-electron)' : 'code-server + Chromium'}; scratch ${scratch.root}`);
  let code;
  const stopTail = tailFile(scratch.progress);
  try {
    code = useElectron ? await runInElectron(scratch, testsEntry) : await runInCodeServer(scratch, testsEntry);
  } finally {
    stopTail();
    var summary = fs.existsSync(scratch.results) ? JSON.parse(fs.readFileSync(scratch.results, 'utf8')) : undefined;
    if (!flag('--keep')) fs.rmSync(scratch.root, { recursive: true, force: true });
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (!summary) throw new Error(`the host suite wrote no results (exit code ${code}): it did not run`);
  for (const f of summary.failed) console.error(`FAILED ${f.title}\n${f.error}\n`);
  log(`${summary.passes} passed, ${summary.failures} failed, ${summary.pending} pending in ${seconds} s`);
  if (code !== 0 || summary.failures > 0) return 1;
  if (summary.passes === 0) {
    console.error('[host] no test passed: refusing to report success');
    return 1;
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(isMissingTool(err) ? err.message : `[host] ${err instanceof Error ? err.stack : err}`);
    process.exit(1);
  },
);
