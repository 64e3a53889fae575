// Installs code-server (a real VS Code server + workbench) on first use into a
// cache folder outside the repo, and reuses it afterwards. The test host and the
// end-to-end suite run against it when no VS Code desktop build can be had.
//
// Run directly (`node scripts/codeServer/install.mjs`) to pre-install, as .ci/run does.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { isMissingTool, missingTool } from '../lib/missingTool.mjs';

export const CODE_SERVER_VERSION = '4.100.3';

// code-server's postinstall runs `npm install` in lib/vscode, whose
// @vscode/ripgrep postinstall downloads a binary from GitHub. We have only the
// npm registry, so we seed that package's download cache with Debian's `rg`.
// Both values come from code-server 4.100.3: lib/vscode/npm-shrinkwrap.json pins
// @vscode/ripgrep 1.15.11, whose lib/postinstall.js asks for tag v13.0.0-10.
const RIPGREP_PACKAGE_VERSION = '1.15.11';
const RIPGREP_TAG = 'v13.0.0-10';
const RIPGREP_TARGET = 'x86_64-unknown-linux-musl';

// Packages the install needs from the OS. .ci/run installs them via apt; here we
// only check, so that a missing one fails with a clear message. Command → Debian package;
// the -dev libraries node-gyp links against have no command to look for, so the
// message's apt-get line names them too.
const REQUIRED_COMMANDS = { rg: 'ripgrep', 'g++': 'build-essential', make: 'build-essential', python3: 'python3', 'pkg-config': 'pkg-config', tar: 'tar' };
const NATIVE_BUILD_LIBRARIES = ['libkrb5-dev', 'libsecret-1-dev', 'libxkbfile-dev', 'libx11-dev'];

export function cacheRoot() {
  return process.env.TRANSCRIPT_LAG_CACHE || path.join(os.homedir(), '.cache', 'transcript-lag');
}

export function codeServerDir() {
  return path.join(cacheRoot(), `code-server-${CODE_SERVER_VERSION}`);
}

/** The script to run with `node` to start code-server. */
export function codeServerEntry() {
  return path.join(codeServerDir(), 'node_modules', 'code-server', 'out', 'node', 'entry.js');
}

// Written last, so a half-finished install is redone rather than reused.
function doneMarker() {
  return path.join(codeServerDir(), '.install-complete');
}

export function isInstalled() {
  return fs.existsSync(doneMarker()) && fs.existsSync(codeServerEntry());
}

function which(cmd) {
  const r = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

function seedRipgrepCache(tmpDir, log) {
  const rg = which('rg');
  if (!rg) throw missingTool('rg', ['ripgrep'], 'code-server needs it');
  const cacheDir = path.join(tmpDir, `vscode-ripgrep-cache-${RIPGREP_PACKAGE_VERSION}`);
  const asset = path.join(cacheDir, `ripgrep-${RIPGREP_TAG}-${RIPGREP_TARGET}.tar.gz`);
  if (fs.existsSync(asset)) return;
  fs.mkdirSync(cacheDir, { recursive: true });
  const staging = fs.mkdtempSync(path.join(tmpDir, 'rg-'));
  fs.copyFileSync(fs.realpathSync(rg), path.join(staging, 'rg'));
  fs.chmodSync(path.join(staging, 'rg'), 0o755);
  const r = spawnSync('tar', ['czf', asset, '-C', staging, 'rg'], { stdio: 'inherit' });
  fs.rmSync(staging, { recursive: true, force: true });
  if (r.status !== 0) throw new Error('could not build the ripgrep cache tarball');
  log(`seeded ${asset} from ${rg}`);
}

// node-gyp would download Node headers from nodejs.org; point it at the local
// ones when the Node install ships them (Debian's nodejs and the official tarball do).
function localNodeDir() {
  const prefix = path.resolve(path.dirname(fs.realpathSync(process.execPath)), '..');
  return fs.existsSync(path.join(prefix, 'include', 'node', 'node.h')) ? prefix : undefined;
}

/**
 * What installing code-server needs and this machine lacks: the commands not on PATH and the
 * Debian packages that give them (with the -dev libraries, which have no command to look for),
 * and whether this Node can run it. Nothing missing: an install can start (`npm run demo` then
 * uses code-server; otherwise it plays in the terminal and names these).
 */
export function codeServerPrerequisites() {
  const missing = Object.keys(REQUIRED_COMMANDS).filter((c) => !which(c));
  return {
    missing,
    packages: missing.length ? [...new Set(missing.map((c) => REQUIRED_COMMANDS[c])), ...NATIVE_BUILD_LIBRARIES] : [],
    nodeSupported: Number(process.versions.node.split('.')[0]) === 20,
  };
}

export function ensureCodeServer({ log = (m) => console.error(`[code-server] ${m}`) } = {}) {
  if (isInstalled()) return codeServerEntry();
  const prerequisites = codeServerPrerequisites();
  if (!prerequisites.nodeSupported) throw new Error(`code-server ${CODE_SERVER_VERSION} needs Node 20; this is Node ${process.versions.node}`);
  if (prerequisites.missing.length) {
    throw missingTool(prerequisites.missing.join(', '), prerequisites.packages, `needed to install code-server ${CODE_SERVER_VERSION}`);
  }
  const dir = codeServerDir();
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const tmpDir = path.join(cacheRoot(), 'tmp');
  fs.mkdirSync(tmpDir, { recursive: true });
  seedRipgrepCache(tmpDir, log);

  const env = {
    ...process.env,
    TMPDIR: tmpDir, // where @vscode/ripgrep looks for its download cache
    npm_config_unsafe_perm: 'true', // code-server's postinstall refuses to run as root without it
    npm_config_yes: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
  const nodeDir = localNodeDir();
  if (nodeDir && !env.npm_config_nodedir) env.npm_config_nodedir = nodeDir;
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'code-server-cache', private: true }) + '\n');
  log(`installing code-server@${CODE_SERVER_VERSION} into ${dir} (several minutes the first time)`);
  const started = Date.now();
  const r = spawnSync('npm', ['install', '--prefix', dir, '--no-save', `code-server@${CODE_SERVER_VERSION}`], {
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (r.status !== 0) throw new Error(`npm install code-server@${CODE_SERVER_VERSION} failed (exit ${r.status})`);
  const rgBin = path.join(dir, 'node_modules', 'code-server', 'lib', 'vscode', 'node_modules', '@vscode', 'ripgrep', 'bin', 'rg');
  if (!fs.existsSync(codeServerEntry()) || !fs.existsSync(rgBin)) {
    throw new Error(`code-server install in ${dir} is incomplete (entry or ripgrep missing)`);
  }
  fs.writeFileSync(doneMarker(), new Date().toISOString() + '\n');
  log(`installed in ${Math.round((Date.now() - started) / 1000)} s`);
  return codeServerEntry();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    console.log(ensureCodeServer());
  } catch (err) {
    console.error(isMissingTool(err) ? err.message : `[code-server] ${err instanceof Error ? err.message : err}`);
    process.exit(1);
  }
}
