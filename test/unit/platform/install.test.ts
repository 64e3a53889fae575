import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'jsonc-parser';
import * as esbuild from 'esbuild';
import { runInstall, runUninstall } from '../../../src/cli/installHook';
import type { CliIo } from '../../../src/cli/io';
import { channelEventSchema } from '../../../src/core/channel/schema';
import { installHook, uninstallHook, UNINSTALLED_HOOK_STUB } from '../../../src/platform/hookInstaller';
import { nodeFileAccess } from '../../../src/platform/nodeFileAccess';
import { buildHook, hookInput, readJsonLines, tempHome } from '../helpers/hookProcess';

type Settings = { hooks?: Record<string, { matcher: string; hooks: { command: string; args?: string[]; timeout: number }[] }[]>; model?: string };
const forward = (p: string) => p.replace(/\\/g, '/');
const read = (file: string) => parse(fs.readFileSync(file, 'utf8')) as Settings;

function cliIo(home: string, env: NodeJS.ProcessEnv = {}): CliIo & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    env,
    homedir: home,
    cwd: home,
    clock: { now: () => 0 },
    files: nodeFileAccess,
    stopSignal: new Promise(() => undefined),
  };
}

/** Runs a settings.json command the way Claude Code does: through the shell, hook JSON on stdin. */
function runLikeClaudeCode(command: string, stdin: string): string {
  return execFileSync('sh', ['-c', command], { input: stdin, env: { PATH: process.env.PATH } }).toString();
}

describe('install-hook / uninstall-hook', function () {
  let hookSource: string;
  before(async function () {
    this.timeout(60_000);
    hookSource = await buildHook();
    // The CLI takes dist/hook.js beside itself, or the built one when run from the sources.
    const dist = path.resolve(__dirname, '../../../dist/hook.js');
    if (!fs.existsSync(dist)) {
      await esbuild.build({ entryPoints: [path.resolve(__dirname, '../../../src/hook/main.ts')], outfile: dist, bundle: true, platform: 'node', format: 'cjs', target: 'node18', minify: true, logLevel: 'silent' });
    }
  });

  it('installs a stable hook copy and a command that really reports to the channel', async function () {
    if (process.platform === 'win32') this.skip();
    const { claudeDir } = tempHome();
    const r = await installHook({ claudeDir, hookSourcePath: hookSource, nodePath: process.execPath, probe: false });
    assert.equal(r.hookPath, path.join(claudeDir, 'transcript-lag', 'bin', 'transcript-lag-hook.js'));
    assert.equal(fs.readFileSync(r.hookPath, 'utf8'), fs.readFileSync(hookSource, 'utf8'));
    assert.equal(fs.statSync(path.join(claudeDir, 'transcript-lag')).mode & 0o777, 0o700);
    const settings = read(path.join(claudeDir, 'settings.json'));
    const pre = settings.hooks!.PreToolUse[0].hooks[0];
    assert.equal(pre.command, r.command);
    assert.equal(pre.timeout, 5);
    assert.ok(r.command.startsWith(`'${process.execPath}' '${r.hookPath}'`));

    // Claude Code runs it with the user's environment, not ours: the command must carry everything.
    assert.equal(runLikeClaudeCode(pre.command, hookInput({ session_id: 'installed' })), '');
    const post = settings.hooks!.PostToolUse[0].hooks[0].command;
    assert.equal(runLikeClaudeCode(post, hookInput({ session_id: 'installed', hook_event_name: 'PostToolUse' })), '');
    const events = readJsonLines(path.join(claudeDir, 'transcript-lag', 'installed.jsonl')).map((l) => channelEventSchema.parse(l));
    assert.deepEqual(events.map((e) => e.event), ['pre', 'post']);
    // An announcing hook does not hold the call, so it reports no timeout of its own.
    assert.equal(events[0].event === 'pre' && events[0].timeout_ms, undefined);
  });

  it('an env prefix (VS Code Electron as Node) runs too', async function () {
    if (process.platform === 'win32') this.skip();
    const { claudeDir } = tempHome();
    const r = await installHook({ claudeDir, hookSourcePath: hookSource, nodePath: process.execPath, nodeEnv: { ELECTRON_RUN_AS_NODE: '1' }, probe: true, polls: 2, pollMs: 10 });
    assert.ok(r.command.startsWith(`ELECTRON_RUN_AS_NODE='1' '${process.execPath}'`));
    runLikeClaudeCode(r.command, hookInput({ session_id: 'electron' }));
    const events = readJsonLines(path.join(claudeDir, 'transcript-lag', 'electron.jsonl')).map((l) => channelEventSchema.parse(l));
    assert.deepEqual(events.map((e) => e.event), ['pre', 'wait']);
  });

  it('Windows shell form: bare runtime, `node` when PATH finds that very runtime, else quoted for Git Bash with a warning; a launcher for Electron', async () => {
    const { claudeDir, home } = tempHome();
    // A runtime at a path with a space, as C:\\Program Files\\nodejs\\node.exe is.
    const binDir = fs.mkdtempSync(path.join(home, 'Program Files '));
    const nodeExe = path.join(binDir, 'node.exe');
    fs.copyFileSync(process.execPath, nodeExe);
    const win = { claudeDir, hookSourcePath: hookSource, probe: false, form: 'shell' as const, platform: 'win32' as const };
    const onPath = await installHook({ ...win, nodePath: nodeExe, env: { PATH: `C:\\nowhere;${binDir}`, PATHEXT: '.EXE' } });
    assert.equal(onPath.gitBashOnly, false);
    assert.ok(onPath.command.startsWith("node '"), onPath.command);
    // Another node on PATH is not the runtime asked for: quoted, Git Bash only, and said so.
    const otherDir = fs.mkdtempSync(path.join(home, 'other-'));
    fs.copyFileSync(process.execPath, path.join(otherDir, 'node.exe'));
    const quoted = await installHook({ ...win, nodePath: nodeExe, env: { PATH: otherDir, PATHEXT: '.EXE' } });
    assert.equal(quoted.gitBashOnly, true);
    assert.ok(quoted.command.startsWith(`'${forward(nodeExe)}' `), quoted.command);
    assert.equal(read(path.join(claudeDir, 'settings.json')).hooks!.PreToolUse.length, 1);
    // VS Code's Electron: a launcher beside the hook sets ELECTRON_RUN_AS_NODE; the entry names it alone.
    const electron = await installHook({ ...win, nodePath: nodeExe, nodeEnv: { ELECTRON_RUN_AS_NODE: '1' }, form: 'auto', env: { PATH: '' } });
    assert.equal(electron.execForm, false);
    assert.equal(electron.launcherPath, path.join(path.dirname(electron.hookPath), 'transcript-lag-hook.cmd'));
    assert.equal(electron.command.replace(/^'|'$/g, ''), forward(electron.launcherPath!));
    const launcher = fs.readFileSync(electron.launcherPath!, 'utf8');
    assert.ok(launcher.includes(` & set "ELECTRON_RUN_AS_NODE=1" & "${nodeExe}" "%~dp0transcript-lag-hook.js" "--channel-dir" "%~dp0.." & exit /b 0\r\n`), launcher);
    const settings = read(path.join(claudeDir, 'settings.json'));
    assert.deepEqual(settings.hooks!.PreToolUse.map((g) => g.hooks.map((h) => h.command)), [[electron.command]]);
    // Where Claude Code has the exec form, cmd.exe runs the launcher: no Git Bash or PowerShell needed.
    const viaCmd = await installHook({ ...win, nodePath: nodeExe, nodeEnv: { ELECTRON_RUN_AS_NODE: '1' }, form: 'exec', env: { PATH: '', ComSpec: 'C:\\Windows\\system32\\cmd.exe' } });
    assert.equal(viaCmd.execForm, true);
    assert.deepEqual(read(path.join(claudeDir, 'settings.json')).hooks!.PreToolUse.map((g) => g.hooks.map((h) => [h.command, (h as { args?: string[] }).args])), [[['C:\\Windows\\system32\\cmd.exe', ['/d', '/c', viaCmd.launcherPath]]]]);
    const removed = await uninstallHook({ claudeDir });
    assert.equal(removed.changed, true);
    assert.equal(read(path.join(claudeDir, 'settings.json')).hooks?.PreToolUse, undefined);
  });

  it('Windows: no launcher from a claude dir whose path cmd would split (`,` `;` `=`), in either form; it says the way out and changes nothing', async () => {
    for (const sep of [',', ';', '=']) {
      const claudeDir = path.join(tempHome().home, `.claude${sep}work`);
      fs.mkdirSync(claudeDir);
      for (const form of ['exec', 'shell'] as const) {
        await assert.rejects(
          installHook({ claudeDir, hookSourcePath: hookSource, nodePath: process.execPath, nodeEnv: { ELECTRON_RUN_AS_NODE: '1' }, probe: false, form, platform: 'win32', env: { PATH: '' } }),
          /cmd\.exe cannot run a launcher from .*splits one at , ; =.*: put Node on PATH, and the hook needs no launcher$/,
        );
      }
      assert.deepEqual(fs.readdirSync(claudeDir), [], sep);
    }
  });

  it('exec form through env(1): a runtime that needs an environment (VS Code\'s Electron) gets it with no shell', async () => {
    const { claudeDir } = tempHome();
    const r = await installHook({ claudeDir, hookSourcePath: hookSource, nodePath: process.execPath, probe: false, form: 'exec', platform: 'linux' });
    const electron = await installHook({ claudeDir, hookSourcePath: hookSource, nodePath: process.execPath, nodeEnv: { ELECTRON_RUN_AS_NODE: '1' }, probe: false, form: 'exec', platform: 'linux' });
    assert.equal(electron.execForm, true);
    const electronSettings = read(path.join(claudeDir, 'settings.json'));
    assert.equal(electronSettings.hooks!.PreToolUse.length, 1);
    const viaEnv = electronSettings.hooks!.PreToolUse[0].hooks[0] as { command: string; args: string[] };
    assert.deepEqual(viaEnv, { ...viaEnv, command: '/usr/bin/env', args: ['ELECTRON_RUN_AS_NODE=1', process.execPath, r.hookPath, '--channel-dir', r.channelDir] });
    const viaEnvRun = spawnSync(viaEnv.command, viaEnv.args, { input: hookInput({ session_id: 'exec-env', hook_event_name: 'PreToolUse' }), shell: false, env: { PATH: '' } });
    assert.equal(viaEnvRun.status, 0, String(viaEnvRun.stderr));
    assert.deepEqual(readJsonLines(path.join(claudeDir, 'transcript-lag', 'exec-env.jsonl')).map((l) => channelEventSchema.parse(l).event), ['pre']);
  });

  it('exec form: the entry runs with no shell at all (how Claude Code 2.1.139+ runs command + args), on every OS', async () => {
    const { claudeDir, home } = tempHome();
    const r = await installHook({ claudeDir, hookSourcePath: hookSource, nodePath: process.execPath, probe: false, form: 'exec' });
    assert.equal(r.execForm, true);
    const settings = read(path.join(claudeDir, 'settings.json'));
    for (const [event, session] of [['PreToolUse', 'exec-pre'], ['PostToolUse', 'exec-post']] as const) {
      const hook = settings.hooks![event][0].hooks[0] as { command: string; args: string[]; timeout: number };
      assert.deepEqual({ command: hook.command, args: hook.args }, { command: process.execPath, args: [r.hookPath, '--channel-dir', r.channelDir] });
      const run = spawnSync(hook.command, hook.args, { input: hookInput({ session_id: session, hook_event_name: event }), shell: false, env: { PATH: '' } });
      assert.equal(run.status, 0, String(run.stderr));
      assert.equal(String(run.stdout), '');
      const events = readJsonLines(path.join(claudeDir, 'transcript-lag', `${session}.jsonl`)).map((l) => channelEventSchema.parse(l));
      assert.deepEqual(events.map((e) => e.event), [event === 'PreToolUse' ? 'pre' : 'post']);
    }
    // The CLI: --form exec, and without it the shell form when no claude answers on PATH.
    const io = cliIo(home);
    assert.equal(await runInstall(['--claude-dir', claudeDir, '--form', 'exec'], io), 0, io.err.join(''));
    assert.match(io.out.join(''), /form: {5}exec \(no shell\) \(--form exec\)/);
    assert.ok(Array.isArray(read(path.join(claudeDir, 'settings.json')).hooks!.PreToolUse[0].hooks[0].args));
    const noClaude = cliIo(home, { PATH: '' });
    assert.equal(await runInstall(['--claude-dir', claudeDir], noClaude), 0, noClaude.err.join(''));
    assert.match(noClaude.out.join(''), /form: {5}shell \(no claude on PATH to ask\)/);
    assert.equal(read(path.join(claudeDir, 'settings.json')).hooks!.PreToolUse[0].hooks[0].args, undefined);
    assert.equal(await runUninstall(['--claude-dir', claudeDir], cliIo(home)), 0);
    assert.equal(read(path.join(claudeDir, 'settings.json')).hooks, undefined);
  });

  it('CLI: install-hook asks the claude on PATH and writes the exec form for 2.1.139+, the shell form before', async function () {
    if (process.platform === 'win32') this.skip(); // a fake `claude` here is a sh script
    const { claudeDir, home } = tempHome();
    const bin = path.join(home, 'bin');
    fs.mkdirSync(bin);
    for (const [version, exec] of [['2.1.332 (Claude Code)', true], ['2.1.100 (Claude Code)', false]] as const) {
      fs.writeFileSync(path.join(bin, 'claude'), `#!/bin/sh\necho '${version}'\n`, { mode: 0o755 });
      const io = cliIo(home, { PATH: bin });
      assert.equal(await runInstall(['--claude-dir', claudeDir], io), 0, io.err.join(''));
      assert.match(io.out.join(''), new RegExp(`form: {5}${exec ? 'exec \\(no shell\\)' : 'shell'} \\(claude --version: ${version.replace(/[()]/g, '\\$&')}\\)`));
      assert.equal(Array.isArray(read(path.join(claudeDir, 'settings.json')).hooks!.PreToolUse[0].hooks[0].args), exec);
    }
  });

  it('refuses a relative Node path and a missing hook source, writing nothing', async () => {
    const { claudeDir } = tempHome();
    await assert.rejects(installHook({ claudeDir, hookSourcePath: hookSource, nodePath: 'node', probe: false }), /absolute/);
    await assert.rejects(installHook({ claudeDir, hookSourcePath: path.join(claudeDir, 'nope.js'), nodePath: process.execPath, probe: false }), /hook not found/);
    assert.deepEqual(fs.readdirSync(claudeDir), ['projects']);
  });

  it('a bin/ that is a symlink is not written through: refused, the folder it names gets nothing, settings.json as it was', async function () {
    if (process.platform === 'win32') this.skip();
    const { home, claudeDir } = tempHome();
    const elsewhere = path.join(home, 'elsewhere');
    fs.mkdirSync(elsewhere, { mode: 0o700 });
    fs.mkdirSync(path.join(claudeDir, 'transcript-lag'), { recursive: true });
    fs.symlinkSync(elsewhere, path.join(claudeDir, 'transcript-lag', 'bin'));
    const settings = '{ "model": "x" }\n';
    fs.writeFileSync(path.join(claudeDir, 'settings.json'), settings);
    await assert.rejects(installHook({ claudeDir, hookSourcePath: hookSource, nodePath: process.execPath, probe: false }), /is a symbolic link: Claude Code would run what is copied there, so nothing was/);
    assert.deepEqual(fs.readdirSync(elsewhere), []);
    assert.equal(fs.readFileSync(path.join(claudeDir, 'settings.json'), 'utf8'), settings);
  });

  it('a bin/ others may write loses those write bits before the hook is copied into it', async function () {
    if (process.platform === 'win32') this.skip();
    const { claudeDir } = tempHome();
    const bin = path.join(claudeDir, 'transcript-lag', 'bin');
    fs.mkdirSync(bin, { recursive: true });
    fs.chmodSync(bin, 0o777);
    const r = await installHook({ claudeDir, hookSourcePath: hookSource, nodePath: process.execPath, probe: false });
    assert.equal(fs.statSync(bin).mode & 0o777, 0o755);
    assert.equal(fs.readFileSync(r.hookPath, 'utf8'), fs.readFileSync(hookSource, 'utf8'));
  });

  it('CLI: install, re-install with --probe (replaced, not duplicated), uninstall keeps the rest', async () => {
    const { home, claudeDir } = tempHome();
    const settingsPath = path.join(claudeDir, 'settings.json');
    const original = '{\n  // mine\n  "model": "opus",\n  "hooks": { "Stop": [ { "hooks": [ { "type": "command", "command": "done.sh" } ] } ] }\n}\n';
    fs.writeFileSync(settingsPath, original);

    const io1 = cliIo(home, { CLAUDE_CONFIG_DIR: claudeDir });
    assert.equal(await runInstall([], io1), 0, io1.err.join(''));
    // The shell form: a quoted runtime on POSIX, a bare Windows path (or `node`) on Windows.
    assert.match(io1.out.join(''), process.platform === 'win32' ? /announce mode[\s\S]*command: {2}(?:node|[A-Za-z]:\/)/ : /announce mode[\s\S]*command: {2}'/);
    const io2 = cliIo(home);
    assert.equal(await runInstall(['--probe', '--claude-dir', claudeDir, '--polls', '30', '--poll-ms', '200'], io2), 0);
    const s = read(settingsPath);
    assert.equal(s.hooks!.PreToolUse.length, 1);
    assert.equal(s.hooks!.PostToolUse.length, 1);
    assert.match(s.hooks!.PreToolUse[0].hooks[0].command, /--probe --polls 30 --poll-ms 200 --timeout-ms 11000$/);
    assert.equal(s.hooks!.PreToolUse[0].hooks[0].timeout, 11);
    assert.equal(s.model, 'opus');
    assert.ok(fs.existsSync(settingsPath + '.transcript-lag.bak'));

    const io3 = cliIo(home);
    assert.equal(await runUninstall(['--claude-dir', claudeDir], io3), 0);
    assert.equal(fs.readFileSync(settingsPath, 'utf8'), original);
    assert.equal(fs.readFileSync(path.join(claudeDir, 'transcript-lag', 'bin', 'transcript-lag-hook.js'), 'utf8'), UNINSTALLED_HOOK_STUB);
    assert.match(io3.out.join(''), /Replaced the hook copy .* by one that does nothing/);
    const io4 = cliIo(home);
    assert.equal(await runUninstall(['--claude-dir', claudeDir], io4), 0);
    assert.match(io4.out.join(''), /nothing changed/);
  });

  it('CLI: an invalid settings.json is refused, exit 1, clear message, file and folder untouched', async () => {
    const { home, claudeDir } = tempHome();
    const settingsPath = path.join(claudeDir, 'settings.json');
    fs.writeFileSync(settingsPath, '{"model": "opus",,}');
    const io = cliIo(home);
    assert.equal(await runInstall(['--claude-dir', claudeDir], io), 1);
    assert.match(io.err.join(''), /settings\.json: not valid JSON: .*line 1.*untouched/);
    assert.equal(fs.readFileSync(settingsPath, 'utf8'), '{"model": "opus",,}');
    assert.deepEqual(fs.readdirSync(claudeDir).sort(), ['projects', 'settings.json'], 'no hook copied for a refused install');
  });

  it('CLI --http: the secret and port go to transcript-lag/http.json (0600) and are kept by a reinstall; probe and --port alone are refused', async function () {
    if (process.platform === 'win32') this.skip();
    const { home, claudeDir } = tempHome();
    const io = cliIo(home);
    assert.equal(await runInstall(['--http', '--port', '45001', '--claude-dir', claudeDir], io), 0, io.err.join(''));
    const configPath = path.join(claudeDir, 'transcript-lag', 'http.json');
    const config = JSON.parse(fs.readFileSync(configPath, 'utf8'));
    assert.equal(config.port, 45001);
    assert.match(config.secret, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(fs.statSync(configPath).mode & 0o777, 0o600);
    const entry = read(path.join(claudeDir, 'settings.json')).hooks!.PreToolUse[0].hooks[0] as unknown as { url: string; headers: Record<string, string> };
    assert.deepEqual([entry.url, entry.headers['X-Transcript-Lag-Secret']], ['http://127.0.0.1:45001/hook', config.secret]);
    // Running receivers keep accepting: a reinstall keeps the secret (and the port, unless asked).
    assert.equal(await runInstall(['--http', '--claude-dir', claudeDir], cliIo(home)), 0);
    assert.deepEqual(JSON.parse(fs.readFileSync(configPath, 'utf8')), config);
    const refused = cliIo(home);
    assert.equal(await runInstall(['--http', '--probe', '--claude-dir', claudeDir], refused), 2);
    assert.match(refused.err.join(''), /--probe needs the command hook/);
    assert.equal(await runInstall(['--port', '45002', '--claude-dir', claudeDir], cliIo(home)), 2);
  });

  it('CLI --http on a settings.json others may read: it and its backup end 0600, every byte the user wrote kept, and it says so', async function () {
    if (process.platform === 'win32') this.skip();
    const { home, claudeDir } = tempHome();
    const settingsPath = path.join(claudeDir, 'settings.json');
    const mine = '{\n  // my own settings\n  "model": "opus"\n}\n';
    fs.mkdirSync(claudeDir, { recursive: true });
    fs.writeFileSync(settingsPath, mine, { mode: 0o644 });
    fs.chmodSync(settingsPath, 0o644);
    const io = cliIo(home);
    assert.equal(await runInstall(['--http', '--port', '45003', '--claude-dir', claudeDir], io), 0, io.err.join(''));
    assert.equal(fs.statSync(settingsPath).mode & 0o777, 0o600);
    assert.equal(fs.statSync(`${settingsPath}.transcript-lag.bak`).mode & 0o777, 0o600);
    assert.equal(fs.readFileSync(`${settingsPath}.transcript-lag.bak`, 'utf8'), mine);
    assert.ok(fs.readFileSync(settingsPath, 'utf8').startsWith('{\n  // my own settings\n  "model": "opus"'));
    assert.match(io.out.join(''), /readable by others \(0644\).*0600: only the mode changed/);
    // Already installed, made readable again by hand: a reinstall that changes nothing still closes it.
    fs.chmodSync(settingsPath, 0o644);
    const again = cliIo(home);
    const before = fs.readFileSync(settingsPath);
    assert.equal(await runInstall(['--http', '--claude-dir', claudeDir], again), 0);
    assert.equal(fs.statSync(settingsPath).mode & 0o777, 0o600);
    assert.deepEqual(fs.readFileSync(settingsPath), before);
    assert.match(again.out.join(''), /only the mode changed/);
  });

  it('uninstall removes http.json with the http entries: the port is no longer served', async function () {
    const { home, claudeDir } = tempHome();
    assert.equal(await runInstall(['--http', '--port', '45004', '--claude-dir', claudeDir], cliIo(home)), 0);
    const configPath = path.join(claudeDir, 'transcript-lag', 'http.json');
    assert.ok(fs.existsSync(configPath));
    const io = cliIo(home);
    assert.equal(await runUninstall(['--claude-dir', claudeDir], io), 0);
    assert.equal(fs.existsSync(configPath), false);
    assert.match(io.out.join(''), /Removed .*http\.json/);
  });

  it('CLI: --port takes decimal digits only, 1 to 65535', async () => {
    const { home, claudeDir } = tempHome();
    for (const port of ['1e3', '0x50', ' 42', '42 ', '+42', '-1', '0', '65536', '4.0', '']) {
      const io = cliIo(home);
      assert.equal(await runInstall(['--http', '--port', port, '--claude-dir', claudeDir], io), 2, JSON.stringify(port));
      assert.match(io.err.join(''), /--port needs a whole number between 1 and 65535/);
    }
    assert.equal(fs.existsSync(path.join(claudeDir, 'settings.json')), false);
  });

  it('CLI: a read-only settings.json is refused with exit 1', async function () {
    if (process.platform === 'win32') this.skip();
    const { home, claudeDir } = tempHome();
    const settingsPath = path.join(claudeDir, 'settings.json');
    fs.writeFileSync(settingsPath, '{}');
    fs.chmodSync(settingsPath, 0o444);
    const io = cliIo(home);
    assert.equal(await runInstall(['--claude-dir', claudeDir], io), 1);
    assert.match(io.err.join(''), /read-only/);
    assert.equal(fs.readFileSync(settingsPath, 'utf8'), '{}');
  });

  it('probe: the entry\'s timeout and the one the installed hook reports are one, past the whole wait; an older entry of ours is replaced', async function () {
    if (process.platform === 'win32') this.skip();
    const { home, claudeDir } = tempHome();
    const settingsPath = path.join(claudeDir, 'settings.json');
    fs.mkdirSync(claudeDir, { recursive: true });
    // An install from before entries carried a timeout: still ours, so installing again replaces it.
    fs.writeFileSync(settingsPath, JSON.stringify({ hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: `'/usr/bin/node' '/old/transcript-lag/bin/transcript-lag-hook.js' --channel-dir '/old'` }] }] } }));
    const io = cliIo(home);
    assert.equal(await runInstall(['--probe', '--claude-dir', claudeDir, '--polls', '3', '--poll-ms', '20'], io), 0, io.err.join(''));
    const pre = read(settingsPath).hooks!.PreToolUse;
    assert.equal(pre.length, 1);
    const entry = pre[0].hooks[0];
    assert.equal(entry.timeout, 6);
    assert.ok(entry.timeout * 1000 > 3 * 20 + 1000, 'Claude Code must not cancel the probe before it reports');
    runLikeClaudeCode(entry.command, hookInput({ session_id: 'timed' }));
    const events = readJsonLines(path.join(claudeDir, 'transcript-lag', 'timed.jsonl')).map((l) => channelEventSchema.parse(l));
    const reported = events.find((e) => e.event === 'pre');
    assert.equal(reported?.event === 'pre' && reported.timeout_ms, entry.timeout * 1000);

    // A wait longer than the hook can report a timeout for is refused, not installed with the two disagreeing.
    const before = fs.readFileSync(settingsPath, 'utf8');
    const io2 = cliIo(home);
    assert.equal(await runInstall(['--probe', '--claude-dir', claudeDir, '--polls', '10000', '--poll-ms', '60000'], io2), 1);
    assert.match(io2.err.join(''), /longer than the hook's timeout can be/);
    assert.equal(fs.readFileSync(settingsPath, 'utf8'), before);
  });

  it('CLI: usage errors exit 2', async () => {
    const { home } = tempHome();
    for (const args of [['--polls', '5'], ['--node', 'node'], ['--bogus'], ['--probe', '--poll-ms', '0']]) {
      const io = cliIo(home);
      assert.equal(await runInstall(args, io), 2, args.join(' '));
      assert.ok(io.err.join('').length > 0);
    }
    assert.equal(await runUninstall(['--what'], cliIo(home)), 2);
  });

  it('CLI: says so when the transcript-lag plugin is enabled too, and not otherwise', async () => {
    const { home, claudeDir } = tempHome();
    const settingsPath = path.join(claudeDir, 'settings.json');
    fs.writeFileSync(settingsPath, JSON.stringify({ enabledPlugins: { 'transcript-lag@transcript-lag': true, 'other@x': true } }));
    const io1 = cliIo(home);
    assert.equal(await runInstall(['--claude-dir', claudeDir], io1), 0);
    assert.match(io1.out.join(''), /plugin is enabled too \(transcript-lag@transcript-lag\)/);
    fs.writeFileSync(settingsPath, JSON.stringify({ enabledPlugins: { 'transcript-lag@transcript-lag': false } }));
    const io2 = cliIo(home);
    assert.equal(await runInstall(['--claude-dir', claudeDir], io2), 0);
    assert.doesNotMatch(io2.out.join(''), /plugin/);
  });

  it('after uninstall, the command sessions started before still run exits 0 in silence and reports nothing', async function () {
    if (process.platform === 'win32') this.skip();
    for (const probe of [false, true]) {
      const { claudeDir } = tempHome();
      const installed = await installHook({ claudeDir, hookSourcePath: hookSource, nodePath: process.execPath, nodeEnv: probe ? { ELECTRON_RUN_AS_NODE: '1' } : undefined, probe, polls: 2, pollMs: 10 });
      const r = await uninstallHook({ claudeDir });
      assert.equal(r.changed, true);
      assert.equal(r.hookDisabled, true);
      // What a session started before the uninstall still runs on every tool call, through a shell as Claude Code does.
      for (const event of ['PreToolUse', 'PostToolUse']) {
        const run = spawnSync('sh', ['-c', installed.command], { input: hookInput({ session_id: 'after', hook_event_name: event }), env: { PATH: process.env.PATH } });
        assert.equal(run.status, 0, `exit code (stderr: ${run.stderr})`);
        assert.equal(run.stdout.toString(), '');
        assert.equal(run.stderr.toString(), '');
      }
      assert.ok(!fs.existsSync(path.join(claudeDir, 'transcript-lag', 'after.jsonl')), 'an uninstalled hook reports nothing');
      // A second uninstall finds nothing to do; a reinstall puts the real hook back.
      assert.equal((await uninstallHook({ claudeDir })).hookDisabled, false);
      await installHook({ claudeDir, hookSourcePath: hookSource, nodePath: process.execPath, probe: false });
      assert.equal(fs.readFileSync(installed.hookPath, 'utf8'), fs.readFileSync(hookSource, 'utf8'));
    }
  });

  it('uninstall creates no hook file where none was', async () => {
    const { claudeDir } = tempHome();
    fs.writeFileSync(path.join(claudeDir, 'settings.json'), '{}\n');
    assert.equal((await uninstallHook({ claudeDir })).hookDisabled, false);
    assert.ok(!fs.existsSync(path.join(claudeDir, 'transcript-lag')));
  });

  it('uninstall with no settings.json is a no-op', async () => {
    const { claudeDir } = tempHome();
    const r = await uninstallHook({ claudeDir });
    assert.equal(r.changed, false);
    assert.ok(!fs.existsSync(path.join(claudeDir, 'settings.json')));
  });
});
