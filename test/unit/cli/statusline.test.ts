import * as assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { parse } from 'jsonc-parser';
import { runInstall, runUninstall } from '../../../src/cli/installStatusline';
import type { CliIo } from '../../../src/cli/io';
import { joinStatus, sessionStatus, statusLine } from '../../../src/cli/statusline';
import { runWrapped, WRAPPED_MAX_BYTES, wrappedShellOf } from '../../../src/cli/wrappedStatusLineRun';
import { installStatusLine, installedStatusLineCommand, uninstallStatusLine } from '../../../src/core/settings/statusLineSettings';
import { nodeFileAccess } from '../../../src/platform/nodeFileAccess';
import { UNINSTALLED_STATUSLINE_STUB } from '../../../src/platform/statusLineInstaller';
import { terminalStatusText } from '../../../src/presentation/terminalStatus';
import { runWithSharedNonBlockingStdout } from '../helpers/sharedNonBlockingStdout';

const repoRoot = path.resolve(__dirname, '../../..');
const SESSION = '5e551011-aaaa-4bbb-8ccc-0123456789ab';
const NOW = 1_800_000_000_000;

function tempClaude() {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tl-statusline-')));
  const claudeDir = path.join(root, '.claude');
  const channelDir = path.join(claudeDir, 'transcript-lag');
  const projectDir = path.join(claudeDir, 'projects', '-work');
  fs.mkdirSync(channelDir, { recursive: true });
  fs.mkdirSync(projectDir, { recursive: true });
  const transcript = path.join(projectDir, `${SESSION}.jsonl`);
  fs.writeFileSync(transcript, JSON.stringify({ type: 'user', message: { role: 'user', content: 'go' } }) + '\n');
  const channel = path.join(channelDir, `${SESSION}.jsonl`);
  const event = (e: Record<string, unknown>) =>
    fs.appendFileSync(channel, JSON.stringify({ v: 1, session_id: SESSION, transcript_path: transcript, source: 'transcript-lag-hook', ...e }) + '\n');
  const record = (id: string) =>
    fs.appendFileSync(transcript, JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Bash', input: {} }] } }) + '\n');
  return { root, claudeDir, channelDir, transcript, event, record };
}

describe('statusline: what the terminal shows', function () {
  it('a call whose hook fired and whose record is not on disk is held, with its age; once it lands it is not', function () {
    const t = tempClaude();
    t.event({ event: 'pre', at: NOW - 2300, tool_use_id: 'toolu_A', record_on_disk: false, checked_at: NOW - 2290 });
    const held = sessionStatus(t.channelDir, SESSION, NOW, t.transcript);
    assert.deepEqual({ held: held.held, age: held.oldestHeldMs }, { held: 1, age: 2300 });
    assert.equal(terminalStatusText(held), 'transcript-lag: 1 held · 2.3s');
    t.record('toolu_A');
    const after = sessionStatus(t.channelDir, SESSION, NOW, t.transcript);
    assert.equal(after.held, 0);
    assert.doesNotMatch(terminalStatusText(after), /held/);
  });

  it("a call the mod and a command hook both reported is one held call, aged from the mod's time", function () {
    const t = tempClaude();
    t.event({ event: 'pre', at: NOW - 2000, tool_use_id: 'toolu_A', record_on_disk: false, checked_at: NOW - 1990 });
    t.event({ event: 'pre', at: NOW - 2100, tool_use_id: 'toolu_A', transport: 'mod', source: 'transcript-lag-mod' });
    t.event({ event: 'record', at: NOW - 2200, uuid: 'u-1', record_type: 'assistant', source: 'transcript-lag-mod' });
    const held = sessionStatus(t.channelDir, SESSION, NOW, t.transcript);
    assert.deepEqual({ held: held.held, age: held.oldestHeldMs }, { held: 1, age: 2100 });
  });

  it("idle: the newest written call's lag as its hooks' evidence bounds it, the views' rule: a watched landing bounds it, it is not exact", function () {
    const t = tempClaude();
    t.record('toolu_A');
    t.record('toolu_B');
    t.event({ event: 'pre', at: NOW - 5000, tool_use_id: 'toolu_A', record_on_disk: false, checked_at: NOW - 4990 });
    t.event({ event: 'post', at: NOW - 4000, tool_use_id: 'toolu_A', record_on_disk: false, result_on_disk: false, checked_at: NOW - 3990 });
    t.event({ event: 'landed', at: NOW - 3395, tool_use_id: 'toolu_A', with_result: false });
    // Not on disk when the post hook looked (1.01 s after the fire), found by the watcher's look at 1.605 s.
    assert.equal(terminalStatusText(sessionStatus(t.channelDir, SESSION, NOW, t.transcript)), 'transcript-lag: lag 1.0s–1.6s');
    t.event({ event: 'pre', at: NOW - 1000, tool_use_id: 'toolu_B', record_on_disk: false });
    t.event({ event: 'post', at: NOW - 600, tool_use_id: 'toolu_B', record_on_disk: true, checked_at: NOW - 550 });
    assert.equal(terminalStatusText(sessionStatus(t.channelDir, SESSION, NOW, t.transcript)), 'transcript-lag: lag ≤ 450 ms');
  });

  it("the mod's landing bounds the lag by its find (its last miss proves nothing); a newest call nothing bounds says no lag, not an older call's", function () {
    const t = tempClaude();
    t.record('toolu_M');
    t.event({ event: 'pre', at: NOW - 3000, tool_use_id: 'toolu_M', transport: 'mod', source: 'transcript-lag-mod' });
    t.event({ event: 'landed', at: NOW - 2395, tool_use_id: 'toolu_M', with_result: false, watched_from: 'pre', missed_at: NOW - 2485, fired_at: NOW - 3000, source: 'transcript-lag-mod' });
    assert.equal(terminalStatusText(sessionStatus(t.channelDir, SESSION, NOW, t.transcript)), 'transcript-lag: lag ≤ 605 ms');
    t.record('toolu_N');
    t.event({ event: 'pre', at: NOW - 1000, tool_use_id: 'toolu_N' });
    const s = sessionStatus(t.channelDir, SESSION, NOW, t.transcript);
    assert.deepEqual(s.last, { toolUseId: 'toolu_N' });
    assert.equal(terminalStatusText(s), 'transcript-lag: in sync');
  });

  it('reads channel lines as the engine does: an unknown version, an invalid field or a landing without with_result is dropped; a line glued to a killed write keeps its later event', function () {
    const t = tempClaude();
    const line = (e: Record<string, unknown>) => JSON.stringify({ v: 1, session_id: SESSION, transcript_path: t.transcript, source: 'transcript-lag-hook', ...e });
    fs.appendFileSync(
      path.join(t.channelDir, `${SESSION}.jsonl`),
      [
        line({ v: 2, event: 'pre', at: NOW - 900, tool_use_id: 'toolu_V2' }),
        line({ event: 'pre', at: NOW - 900.5, tool_use_id: 'toolu_F' }),
        line({ event: 'pre', at: NOW - 900, tool_use_id: 'x'.repeat(201) }),
        '{"v":1,"event":"pre","at":' + line({ event: 'pre', at: NOW - 700, tool_use_id: 'toolu_G' }),
        line({ event: 'landed', at: NOW - 100, tool_use_id: 'toolu_G' }),
      ].join('\n') + '\n',
    );
    const s = sessionStatus(t.channelDir, SESSION, NOW, t.transcript);
    assert.deepEqual({ held: s.held, age: s.oldestHeldMs }, { held: 1, age: 700 });
  });

  it('two held, oldest age; a subagent\'s call is looked up in its own file', function () {
    const t = tempClaude();
    t.event({ event: 'pre', at: NOW - 900, tool_use_id: 'toolu_A' });
    t.event({ event: 'pre', at: NOW - 300, tool_use_id: 'toolu_S', agent_id: 'a1' });
    const subagents = path.join(path.dirname(t.transcript), SESSION, 'subagents');
    fs.mkdirSync(subagents, { recursive: true });
    fs.writeFileSync(path.join(subagents, 'agent-a1.jsonl'), '');
    assert.equal(terminalStatusText(sessionStatus(t.channelDir, SESSION, NOW, t.transcript)), 'transcript-lag: 2 held · 900 ms');
    fs.writeFileSync(path.join(subagents, 'agent-a1.jsonl'), JSON.stringify({ type: 'assistant', message: { content: [{ type: 'tool_use', id: 'toolu_S' }] } }) + '\n');
    assert.equal(sessionStatus(t.channelDir, SESSION, NOW, t.transcript).held, 1);
  });

  it('looks only in the transcript Claude Code named: a channel line naming another file is not followed', function () {
    const t = tempClaude();
    const other = path.join(t.root, 'elsewhere.jsonl');
    fs.writeFileSync(other, '');
    t.event({ event: 'pre', at: NOW - 900, tool_use_id: 'toolu_A', transcript_path: other });
    assert.equal(sessionStatus(t.channelDir, SESSION, NOW, t.transcript).held, 0);
    assert.equal(sessionStatus(t.channelDir, SESSION, NOW, other).held, 1);
    assert.equal(sessionStatus(t.channelDir, SESSION, NOW).held, 0);
  });

  it('a record older than the window it reads is unknown, not held; within it, found', function () {
    const t = tempClaude();
    t.record('toolu_A');
    fs.appendFileSync(t.transcript, JSON.stringify({ type: 'user', message: { content: 'x'.repeat(5 * 1024 * 1024) } }) + '\n');
    t.event({ event: 'pre', at: NOW - 900, tool_use_id: 'toolu_A' });
    t.event({ event: 'pre', at: NOW - 800, tool_use_id: 'toolu_B' });
    const s = sessionStatus(t.channelDir, SESSION, NOW, t.transcript);
    assert.equal(s.held, 0, 'toolu_A is before the window, toolu_B cannot be proved absent either');
    t.record('toolu_B');
    assert.equal(sessionStatus(t.channelDir, SESSION, NOW, t.transcript).held, 0);
  });

  it('a transcript it cannot read proves nothing: unknown is not held', function () {
    const t = tempClaude();
    t.event({ event: 'pre', at: NOW - 900, tool_use_id: 'toolu_A' });
    fs.rmSync(t.transcript);
    assert.equal(sessionStatus(t.channelDir, SESSION, NOW, t.transcript).held, 0);
  });

  it('no channel file, a hostile session id, garbage lines: no held, no throw', function () {
    const t = tempClaude();
    assert.equal(terminalStatusText(sessionStatus(t.channelDir, SESSION, NOW, t.transcript)), 'transcript-lag: no hook events yet');
    assert.equal(sessionStatus(t.channelDir, '../../etc/passwd', NOW).hooked, false);
    fs.writeFileSync(path.join(t.channelDir, `${SESSION}.jsonl`), '{"event":"pre"\nnot json\n[1]\n{"event":"pre","tool_use_id":5,"at":1}\n');
    assert.equal(sessionStatus(t.channelDir, SESSION, NOW, t.transcript).held, 0);
    fs.rmSync(path.join(t.channelDir, `${SESSION}.jsonl`));
    fs.mkdirSync(path.join(t.channelDir, `${SESSION}.jsonl`));
    assert.equal(sessionStatus(t.channelDir, SESSION, NOW, t.transcript).hooked, false);
  });

  it('runs the user\'s own status line with the same stdin and puts ours after it; a failing one leaves ours alone', async function () {
    const t = tempClaude();
    const input = JSON.stringify({ session_id: SESSION, transcript_path: t.transcript });
    const wrap = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const theirs = { type: 'command', command: `printf 'mine:%s' "$(cat | head -c 13)"` };
    const line = await statusLine(['--channel-dir', t.channelDir, '--wrap', wrap(theirs)], input, { PATH: process.env.PATH }, () => NOW);
    assert.equal(line, `mine:{"session_id"  │  transcript-lag: no hook events yet`);
    const failing = await statusLine(['--channel-dir', t.channelDir, '--wrap', wrap({ type: 'command', command: 'exit 3' })], input, { PATH: process.env.PATH }, () => NOW);
    assert.equal(failing, 'transcript-lag: no hook events yet');
    assert.equal(await statusLine(['--wrap', '%%%'], 'not json', {}, () => NOW), 'transcript-lag: no session');
    assert.equal(joinStatus('a\nb\n', 'ours'), 'a\nb  │  ours');
  });

  /** Whether the process runs: a zombie (killed, not yet reaped by a container's init) counts as gone. */
  function running(pid: number): boolean {
    try {
      return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return false;
    }
  }

  async function waitGone(pid: number): Promise<boolean> {
    for (let i = 0; i < 100 && running(pid); i++) await new Promise((r) => setTimeout(r, 20));
    return !running(pid);
  }

  it('runs the wrapped command in the shell Claude Code would: sh; on Windows the Git Bash it names in SHELL, else PowerShell 7, else Windows PowerShell', function () {
    const gitBash = 'C:\\Program Files\\Git\\bin\\bash.exe';
    const pwsh = 'C:\\Program Files\\PowerShell\\7\\pwsh.exe';
    const files = (...paths: string[]) => (p: string) => paths.includes(p);
    const ps = ['-NoProfile', '-Command', 'echo hi'];
    assert.deepEqual(wrappedShellOf('echo hi', { PATH: '/usr/bin' }, 'linux', files()), ['sh', ['-c', 'echo hi']]);
    assert.deepEqual(wrappedShellOf('echo hi', { SHELL: gitBash }, 'win32', files(gitBash, pwsh)), [gitBash, ['-c', 'echo hi']]);
    // A SHELL that is not a bash or sh, or is not there, is not Claude Code's Git Bash.
    assert.deepEqual(wrappedShellOf('echo hi', { SHELL: 'C:\\tools\\nu.exe' }, 'win32', files('C:\\tools\\nu.exe', pwsh)), [pwsh, ps]);
    assert.deepEqual(wrappedShellOf('echo hi', { SHELL: gitBash }, 'win32', files()), ['C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe', ps]);
    assert.deepEqual(wrappedShellOf('echo hi', { SystemRoot: 'D:\\WIN' }, 'win32', files()), ['D:\\WIN\\System32\\WindowsPowerShell\\v1.0\\powershell.exe', ps]);
  });

  it('a wrapped command that outlives its timeout is killed with everything it started (its process group)', async function () {
    if (process.platform === 'win32') this.skip();
    const t = tempClaude();
    const pidFile = path.join(t.root, 'sleep.pid');
    const out = await runWrapped(`printf early; sleep 30 & echo $! > '${pidFile}'; wait`, '', { PATH: process.env.PATH }, { timeoutMs: 500, maxBytes: WRAPPED_MAX_BYTES });
    assert.equal(out, 'early');
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    assert.ok(pid > 0);
    assert.ok(await waitGone(pid), `the user's sleep (pid ${pid}) is still running`);
  });

  it('a wrapped command that prints without end is stopped at the byte bound, keeping what came within it, and ours follows', async function () {
    if (process.platform === 'win32') this.skip();
    const t = tempClaude();
    const pidFile = path.join(t.root, 'yes.pid');
    const out = await runWrapped(`echo $$ > '${pidFile}'; exec yes é`, '', { PATH: process.env.PATH }, { timeoutMs: 20_000, maxBytes: 1000 });
    // "é\n" is 3 bytes: 333 fit in 999; the 334th é is cut after its first byte and left out.
    assert.equal(out, 'é\n'.repeat(333));
    assert.ok(await waitGone(Number(fs.readFileSync(pidFile, 'utf8'))), 'yes is still running');
    const input = JSON.stringify({ session_id: SESSION, transcript_path: t.transcript });
    const line = await statusLine(['--channel-dir', t.channelDir, '--wrap', Buffer.from(JSON.stringify({ command: 'yes' })).toString('base64url')], input, { PATH: process.env.PATH }, () => NOW);
    assert.ok(line.length <= WRAPPED_MAX_BYTES + 100, `${line.length} characters`);
    assert.ok(line.endsWith('y  │  transcript-lag: no hook events yet'), line.slice(-80));
  });

  it('runs a wrapped status line whose JSON has comments (settings.json is JSONC)', async function () {
    const t = tempClaude();
    const input = JSON.stringify({ session_id: SESSION, transcript_path: t.transcript });
    const jsonc = '{\n  // mine\n  "type": "command", /* quick */ "command": "printf mine"\n}';
    const line = await statusLine(['--channel-dir', t.channelDir, '--wrap', Buffer.from(jsonc).toString('base64url')], input, { PATH: process.env.PATH }, () => NOW);
    assert.equal(line, 'mine  │  transcript-lag: no hook events yet');
  });
});

describe('statusline: the process Claude Code runs every second', function () {
  this.timeout(60_000);
  let bundle: string;
  let inputs: string[];
  before(async function () {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-statusline-build-'));
    bundle = path.join(out, 'statusline.js');
    const r = await esbuild.build({
      entryPoints: [path.join(repoRoot, 'src/cli/statusline.ts')],
      outfile: bundle,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node18',
      mainFields: ['module', 'main'],
      metafile: true,
      logLevel: 'silent',
    });
    inputs = Object.keys(r.metafile.inputs);
  });

  it('bundles nothing but our own sources and jsonc-parser\'s parser (no zod, chokidar or engine): it starts every second', function () {
    // jsonc-parser reads a wrapped status line's JSONC; it is required only when there is one.
    assert.deepEqual(inputs.filter((f) => f.includes('node_modules') && !/node_modules\/jsonc-parser\/lib\/esm\//.test(f)), []);
    assert.ok(!inputs.some((f) => /src\/(core\/engine|core\/correlator|platform)/.test(f)), inputs.join('\n'));
  });

  function runStatusline(stdin: string | undefined, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const child = spawn(process.execPath, [bundle], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.stdin.on('error', () => undefined);
    if (stdin !== undefined) child.stdin.end(stdin);
    return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  }

  it('prints exactly one line and exits 0, on good input, garbage and a stdin left open', async function () {
    const t = tempClaude();
    t.event({ event: 'pre', at: Date.now() - 1000, tool_use_id: 'toolu_A' });
    const env = { PATH: process.env.PATH, HOME: t.root, USERPROFILE: t.root };
    const good = await runStatusline(JSON.stringify({ session_id: SESSION, transcript_path: t.transcript }), env);
    assert.equal(good.code, 0);
    assert.match(good.stdout, /^transcript-lag: 1 held · 1\.\ds\n$/);
    assert.equal(good.stderr, '');
    for (const bad of ['', '\u0000\u00ff{', '{"session_id":{}}']) {
      const r = await runStatusline(bad, env);
      assert.equal(r.code, 0);
      assert.equal(r.stdout, 'transcript-lag: no session\n');
    }
    const open = await runStatusline(undefined, env);
    assert.equal(open.code, 0);
    assert.equal(open.stdout.split('\n').length, 2);
  });

  it('stdout a full non-blocking pipe it shares with a Node parent: the whole line once the reader reads; exit 1 past the bound if it never does', async function () {
    // POSIX pipes; Windows has no O_NONBLOCK on a pipe for a parent to share.
    if (process.platform === 'win32') this.skip();
    const t = tempClaude();
    t.event({ event: 'pre', at: Date.now() - 1000, tool_use_id: 'toolu_A' });
    const env = { PATH: process.env.PATH, HOME: t.root, USERPROFILE: t.root };
    const input = JSON.stringify({ session_id: SESSION, transcript_path: t.transcript });
    const slow = await runWithSharedNonBlockingStdout([bundle], input, env, 200);
    assert.ok(slow.ready, slow.stderr);
    assert.deepEqual({ code: slow.code, stderr: slow.stderr }, { code: 0, stderr: '' });
    assert.match(slow.stdout, /^transcript-lag: 1 held · [\d.]+m?s\n$/);
    const never = await runWithSharedNonBlockingStdout([bundle], input, { ...env, TRANSCRIPT_LAG_WRITE_WAIT_MS: '100' });
    assert.ok(never.ready, never.stderr);
    assert.equal(never.code, 1);
    assert.ok(!never.stdout.endsWith('\n'), 'no whole line');
  });
});

describe('install-statusline / uninstall-statusline (settings.json statusLine)', function () {
  const spec = { nodePath: '/usr/bin/node', scriptPath: '/h/.claude/transcript-lag/bin/transcript-lag-statusline.js', channelDir: '/h/.claude/transcript-lag' };

  it('adds ours with refreshInterval 1, keeping every other byte; uninstall gives the file back', function () {
    const before = '{\n    // mine\n    "model": "opus",\n    "hooks": {"Stop": []}\n}\n';
    const after = installStatusLine(before, spec);
    const v = parse(after).statusLine;
    assert.deepEqual(v, { type: 'command', command: `'/usr/bin/node' '${spec.scriptPath}' --channel-dir '/h/.claude/transcript-lag'`, refreshInterval: 1 });
    assert.ok(after.startsWith('{\n    // mine\n    "model": "opus",\n    "hooks": {"Stop": []},\n    "statusLine": {\n        "type"'));
    assert.equal(installStatusLine(after, spec), after, 'installing again changes nothing');
    assert.equal(uninstallStatusLine(after), before);
    assert.equal(installStatusLine('', spec).endsWith('}\n'), true);
  });

  it('wraps the user\'s own status line (keeping its other keys) and uninstall restores its exact text', function () {
    const theirs = '{ "type": "command",  "command": "~/bin/line.sh", /* hand-made */ "padding": 2 }';
    const before = `{\n  "statusLine": ${theirs},\n  "model": "opus"\n}\n`;
    const after = installStatusLine(before, spec);
    const v = parse(after).statusLine;
    assert.equal(v.padding, 2);
    assert.equal(v.refreshInterval, 1);
    assert.match(v.command, /--wrap [A-Za-z0-9_-]+$/);
    assert.equal(installedStatusLineCommand(after), v.command);
    // Re-installed (a new Node path): still wraps theirs, not ours.
    const again = installStatusLine(after, { ...spec, nodePath: '/opt/node' });
    assert.equal(parse(again).statusLine.command.split('--wrap ')[1], v.command.split('--wrap ')[1]);
    assert.equal(uninstallStatusLine(after), before);
    assert.equal(uninstallStatusLine(again), before);
  });

  it('leaves a status line that is not ours, and a file without one, alone', function () {
    const theirs = '{"statusLine": {"type": "command", "command": "x"}}';
    assert.equal(uninstallStatusLine(theirs), theirs);
    assert.equal(uninstallStatusLine('{"a": 1}'), '{"a": 1}');
    assert.equal(uninstallStatusLine(''), '');
  });

  function cliIo(home: string): CliIo & { out: string[]; err: string[] } {
    const out: string[] = [];
    const err: string[] = [];
    return { out, err, stdout: (t) => out.push(t), stderr: (t) => err.push(t), env: {}, homedir: home, cwd: home, clock: { now: () => 0 }, files: nodeFileAccess, stopSignal: new Promise(() => undefined) };
  }

  it('CLI: the installed command runs like Claude Code runs it, theirs first; uninstall restores theirs and removes the copy', async function () {
    this.timeout(30_000);
    // The CLI copies dist/cli-statusline.js (beside it, or the built one when run from the sources).
    const dist = path.join(repoRoot, 'dist', 'cli-statusline.js');
    if (!fs.existsSync(dist)) {
      await esbuild.build({ entryPoints: [path.join(repoRoot, 'src/cli/statusline.ts')], outfile: dist, bundle: true, platform: 'node', format: 'cjs', target: 'node18', mainFields: ['module', 'main'], logLevel: 'silent' });
    }
    const t = tempClaude();
    const settingsPath = path.join(t.claudeDir, 'settings.json');
    const original = '{\n  "statusLine": {"type": "command", "command": "echo theirs"}\n}\n';
    fs.writeFileSync(settingsPath, original);
    const io = cliIo(t.root);
    assert.equal(await runInstall(['--claude-dir', t.claudeDir], io), 0, io.err.join(''));
    assert.match(io.out.join(''), /yours: +kept/);
    const command = parse(fs.readFileSync(settingsPath, 'utf8')).statusLine.command as string;
    t.event({ event: 'pre', at: Date.now() - 100, tool_use_id: 'toolu_A' });
    const shown = execFileSync('sh', ['-c', command], { input: JSON.stringify({ session_id: SESSION, transcript_path: t.transcript }), env: { PATH: process.env.PATH } }).toString();
    assert.match(shown, /^theirs {2}│ {2}transcript-lag: 1 held · \d+ ms\n$/);
    const io2 = cliIo(t.root);
    assert.equal(await runUninstall(['--claude-dir', t.claudeDir], io2), 0);
    assert.match(io2.out.join(''), /Your own status line is back/);
    assert.equal(fs.readFileSync(settingsPath, 'utf8'), original);
    // A session started before the uninstall still runs our command: it exits 0 and says nothing.
    const script = path.join(t.channelDir, 'bin', 'transcript-lag-statusline.js');
    assert.equal(fs.readFileSync(script, 'utf8'), UNINSTALLED_STATUSLINE_STUB);
    const stale = spawnSync('sh', ['-c', command], { input: JSON.stringify({ session_id: SESSION, transcript_path: t.transcript }), env: { PATH: process.env.PATH } });
    assert.deepEqual([stale.status, stale.stdout.toString(), stale.stderr.toString()], [0, '', '']);
    // Again: nothing left to change; install writes the real script back over the stub.
    assert.equal(await runUninstall(['--claude-dir', t.claudeDir], cliIo(t.root)), 0);
    assert.equal(fs.readFileSync(script, 'utf8'), UNINSTALLED_STATUSLINE_STUB);
    assert.equal(await runInstall(['--claude-dir', t.claudeDir], cliIo(t.root)), 0);
    assert.equal(fs.readFileSync(script, 'utf8'), fs.readFileSync(dist, 'utf8'));
  });

  it('CLI: a bin/ that is a symlink is not written through: exit 1, the reason said, the folder it names gets nothing, settings.json as it was', async function () {
    if (process.platform === 'win32') this.skip();
    this.timeout(30_000);
    const dist = path.join(repoRoot, 'dist', 'cli-statusline.js');
    if (!fs.existsSync(dist)) {
      await esbuild.build({ entryPoints: [path.join(repoRoot, 'src/cli/statusline.ts')], outfile: dist, bundle: true, platform: 'node', format: 'cjs', target: 'node18', mainFields: ['module', 'main'], logLevel: 'silent' });
    }
    const t = tempClaude();
    const elsewhere = path.join(t.root, 'elsewhere');
    fs.mkdirSync(elsewhere, { mode: 0o700 });
    fs.symlinkSync(elsewhere, path.join(t.channelDir, 'bin'));
    const settings = '{ "model": "x" }\n';
    fs.writeFileSync(path.join(t.claudeDir, 'settings.json'), settings);
    const io = cliIo(t.root);
    assert.equal(await runInstall(['--claude-dir', t.claudeDir], io), 1);
    assert.match(io.err.join(''), /bin is a symbolic link: Claude Code would run what is copied there, so nothing was/);
    assert.deepEqual(fs.readdirSync(elsewhere), []);
    assert.equal(fs.readFileSync(path.join(t.claudeDir, 'settings.json'), 'utf8'), settings);
  });

  it('CLI: says "yours: kept" only for a line it runs: one with comments is run, one without a command is only saved', async function () {
    this.timeout(30_000);
    assert.ok(fs.existsSync(path.join(repoRoot, 'dist', 'cli-statusline.js')), 'npm run build makes dist/cli-statusline.js');
    const t = tempClaude();
    const settingsPath = path.join(t.claudeDir, 'settings.json');
    fs.writeFileSync(settingsPath, '{\n  "statusLine": {\n    // mine\n    "type": "command", "command": "echo theirs"\n  }\n}\n');
    const io = cliIo(t.root);
    assert.equal(await runInstall(['--claude-dir', t.claudeDir], io), 0, io.err.join(''));
    assert.match(io.out.join(''), /yours: +kept; it runs first/);
    const command = parse(fs.readFileSync(settingsPath, 'utf8')).statusLine.command as string;
    const shown = execFileSync('sh', ['-c', command], { input: JSON.stringify({ session_id: SESSION, transcript_path: t.transcript }), env: { PATH: process.env.PATH } }).toString();
    assert.match(shown, /^theirs {2}│ {2}transcript-lag: /);

    const t2 = tempClaude();
    fs.writeFileSync(path.join(t2.claudeDir, 'settings.json'), '{"statusLine": {"type": "command", "padding": 1}}');
    const io2 = cliIo(t2.root);
    assert.equal(await runInstall(['--claude-dir', t2.claudeDir], io2), 0, io2.err.join(''));
    assert.doesNotMatch(io2.out.join(''), /kept; it runs first/);
    assert.match(io2.out.join(''), /yours: +saved, .*it has no command, so it is not run/);
  });
});
