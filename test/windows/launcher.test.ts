import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { channelEventSchema } from '../../src/core/channel/schema';
import { shellQuote } from '../../src/core/settings/hookCommand';
import { installHook } from '../../src/platform/hookInstaller';

// The Windows launcher (transcript-lag-hook.cmd), run by a real cmd.exe: the Windows lane only
// (scripts/test-windows.mjs runs this under node.exe in Wine; Linux has no cmd.exe). Git Bash and
// PowerShell both hand a `.cmd` to cmd.exe with its path quoted; here as Node's shell: true does,
// `cmd.exe /d /s /c ""<path>""` (/s takes the outer pair off, the inner one keeps `&` and spaces).

const repoRoot = path.resolve(__dirname, '../..');

function runAsShellsRunACmd(file: string, input: string, env: NodeJS.ProcessEnv = process.env) {
  return spawnSync(process.env.ComSpec ?? 'cmd.exe', ['/d', '/s', '/c', `""${file}""`], { input, env, windowsVerbatimArguments: true, timeout: 60_000, windowsHide: true });
}

describe('Windows launcher under cmd.exe (a runtime that needs an environment, as VS Code\'s Electron)', function () {
  this.timeout(120_000);
  before(function () {
    assert.equal(process.platform, 'win32', 'the Windows lane runs this spec under node.exe');
  });

  // A claude dir whose path has a space, `'` and a letter outside ASCII (cmd reads a batch file in the console's code page).
  const tempClaudeDir = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), "tl José O'Brien ")), '.claude');

  it('gives the runtime its environment and every argument intact, the runtime at a non-ASCII path named through %LOCALAPPDATA%', async () => {
    const claudeDir = tempClaudeDir();
    // A runtime where VS Code's is: under the user's (here non-ASCII) LOCALAPPDATA.
    const localAppData = path.join(path.dirname(claudeDir), 'AppData', 'Local');
    const runtime = path.join(localAppData, 'Programs', 'Runtime', 'node.exe');
    fs.mkdirSync(path.dirname(runtime), { recursive: true });
    fs.copyFileSync(process.execPath, runtime);
    const env = { ...process.env, LOCALAPPDATA: localAppData };
    // The "hook" here records what it was given, so the test sees exactly what cmd passed on.
    const recorder = path.join(path.dirname(claudeDir), 'record-argv.js');
    const recorded = path.join(path.dirname(claudeDir), 'recorded.json');
    fs.writeFileSync(recorder, `require('fs').writeFileSync(${JSON.stringify(recorded)}, JSON.stringify({ env: process.env.ELECTRON_RUN_AS_NODE, argv: process.argv.slice(2) }));\n`);
    const r = await installHook({ claudeDir, hookSourcePath: recorder, nodePath: runtime, nodeEnv: { ELECTRON_RUN_AS_NODE: '1' }, probe: true, polls: 3, pollMs: 100, form: 'shell', env });
    assert.ok(r.launcherPath, 'a launcher was written');
    assert.ok(fs.readFileSync(r.launcherPath, 'utf8').includes('"%LOCALAPPDATA%\\Programs\\Runtime\\node.exe"'));
    const run = runAsShellsRunACmd(r.launcherPath, '{}', env);
    assert.equal(run.status, 0, String(run.stderr));
    const seen = JSON.parse(fs.readFileSync(recorded, 'utf8')) as { env?: string; argv: string[] };
    // The channel folder comes as `<bin>\..` (named from the launcher's own place): the same folder.
    assert.equal(path.resolve(seen.argv[1]!), r.channelDir);
    assert.deepEqual({ ...seen, argv: seen.argv.map((a, i) => (i === 1 ? r.channelDir : a)) }, { env: '1', argv: ['--channel-dir', r.channelDir, '--probe', '--polls', '3', '--poll-ms', '100', '--timeout-ms', String(r.timeoutSec * 1000)] });
  });

  it('the installed hook reports a PreToolUse through it, and prints nothing', async () => {
    const claudeDir = tempClaudeDir();
    const r = await installHook({ claudeDir, hookSourcePath: path.join(repoRoot, 'dist', 'hook.js'), nodePath: process.execPath, nodeEnv: { ELECTRON_RUN_AS_NODE: '1' }, probe: false, form: 'shell' });
    const settings = JSON.parse(fs.readFileSync(r.settingsPath, 'utf8')) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
    // The entry names the launcher alone, forward slashes, quoted only if it must be.
    assert.equal(settings.hooks.PreToolUse[0].hooks[0].command, shellQuote(r.launcherPath!.replace(/\\/g, '/')));
    const input = JSON.stringify({ session_id: 'launcher-1', transcript_path: path.join(claudeDir, 'projects', 'x', 'launcher-1.jsonl'), cwd: os.tmpdir(), hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: {}, tool_use_id: 'toolu_launcher_1' });
    const run = runAsShellsRunACmd(r.launcherPath!, input);
    assert.equal(run.status, 0, String(run.stderr));
    assert.equal(String(run.stdout), '');
    const lines = fs.readFileSync(path.join(r.channelDir, 'launcher-1.jsonl'), 'utf8').trim().split('\n').map((l) => channelEventSchema.parse(JSON.parse(l)));
    assert.deepEqual(lines.map((e) => [e.event, 'tool_use_id' in e ? e.tool_use_id : undefined]), [['pre', 'toolu_launcher_1']]);
  });

  it('refuses a claude dir cmd cannot run a launcher from (`&`), saying how to do without one', async () => {
    const claudeDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tl R&D ')), '.claude');
    await assert.rejects(installHook({ claudeDir, hookSourcePath: path.join(repoRoot, 'dist', 'hook.js'), nodePath: process.execPath, nodeEnv: { ELECTRON_RUN_AS_NODE: '1' }, probe: false, form: 'shell' }), /put Node on PATH/);
    assert.equal(fs.existsSync(path.join(claudeDir, 'settings.json')), false);
  });

  it('exits 0 when the runtime is gone: a launcher must never block a tool call (exit 2 would)', async () => {
    const claudeDir = tempClaudeDir();
    const r = await installHook({ claudeDir, hookSourcePath: path.join(repoRoot, 'dist', 'hook.js'), nodePath: path.join(os.tmpdir(), 'gone-runtime', 'Code.exe'), nodeEnv: { ELECTRON_RUN_AS_NODE: '1' }, probe: false, form: 'shell' });
    const run = runAsShellsRunACmd(r.launcherPath!, '{}');
    assert.equal(run.status, 0, String(run.stderr));
  });

  const preOf = (channelDir: string, session: string): [string, string | undefined][] =>
    fs.readFileSync(path.join(channelDir, `${session}.jsonl`), 'utf8').trim().split('\n').map((l) => channelEventSchema.parse(JSON.parse(l))).map((e): [string, string | undefined] => [e.event, 'tool_use_id' in e ? e.tool_use_id : undefined]);

  it('in exec form cmd.exe runs it, spawned with no shell as Claude Code spawns command and args, from a claude dir with a space', async () => {
    const claudeDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tl John Smith ')), '.claude');
    const r = await installHook({ claudeDir, hookSourcePath: path.join(repoRoot, 'dist', 'hook.js'), nodePath: process.execPath, nodeEnv: { ELECTRON_RUN_AS_NODE: '1' }, probe: false, form: 'exec' });
    assert.equal(r.execForm, true);
    const settings = JSON.parse(fs.readFileSync(r.settingsPath, 'utf8')) as { hooks: Record<string, { hooks: { command: string; args: string[] }[] }[]> };
    const entry = settings.hooks.PreToolUse[0].hooks[0];
    assert.deepEqual(entry.args, ['/d', '/c', r.launcherPath]);
    const input = JSON.stringify({ session_id: 'launcher-exec', transcript_path: path.join(claudeDir, 'projects', 'x', 'launcher-exec.jsonl'), cwd: os.tmpdir(), hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: {}, tool_use_id: 'toolu_launcher_exec' });
    const run = spawnSync(entry.command, entry.args, { input, shell: false, timeout: 60_000, windowsHide: true });
    assert.equal(run.status, 0, String(run.stderr));
    assert.equal(String(run.stdout), '');
    assert.deepEqual(preOf(r.channelDir, 'launcher-exec'), [['pre', 'toolu_launcher_exec']]);
  });

  it('the real claude.exe runs that exec entry: a Read call reported once, pre and post', async function () {
    const claudeExe = process.env.TRANSCRIPT_LAG_CLAUDE_EXE;
    assert.ok(claudeExe && fs.existsSync(claudeExe), 'the Windows lane names claude.exe in TRANSCRIPT_LAG_CLAUDE_EXE');
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tl John Smith '));
    const claudeDir = path.join(root, '.claude');
    const work = path.join(root, 'work');
    fs.mkdirSync(work, { recursive: true });
    fs.writeFileSync(path.join(work, 'notes.txt'), 'field test file\n');
    const r = await installHook({ claudeDir, hookSourcePath: path.join(repoRoot, 'dist', 'hook.js'), nodePath: process.execPath, nodeEnv: { ELECTRON_RUN_AS_NODE: '1' }, probe: false, form: 'exec' });
    assert.equal(r.execForm, true);
    fs.writeFileSync(path.join(claudeDir, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true }));
    const { startStandInApi } = (await import(pathToFileURL(path.join(repoRoot, 'test', 'field', 'standInApi.mjs')).href)) as { startStandInApi(o: object): Promise<{ url: string; close(): Promise<void> }> };
    const id = 'toolu_launcher_claude';
    const api = await startStandInApi({ script: [[{ name: 'Read', id, input: { file_path: path.join(work, 'notes.txt') } }]], logFile: path.join(root, 'api.log') });
    // Not spawnSync: the stand-in answers from this very process, so its event loop must run meanwhile.
    const out = fs.openSync(path.join(root, 'claude.out'), 'w');
    try {
      const child = spawn(claudeExe!, ['-p', 'Read notes.txt', '--permission-mode', 'acceptEdits'], {
        cwd: work,
        timeout: 100_000,
        windowsHide: true,
        stdio: ['ignore', out, out],
        env: {
          ...process.env, CLAUDE_CONFIG_DIR: claudeDir, ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'sk-ant-api03-field-test-0000000000000000000000000000000000',
          NO_PROXY: '127.0.0.1,localhost', DISABLE_TELEMETRY: '1', DISABLE_ERROR_REPORTING: '1', DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        },
      });
      const status = await new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      assert.equal(status, 0, fs.readFileSync(path.join(root, 'claude.out'), 'utf8').slice(-1500));
    } finally {
      fs.closeSync(out);
      await api.close();
    }
    const events: [string, string | undefined][] = [];
    for (const name of fs.readdirSync(r.channelDir).filter((n) => n.endsWith('.jsonl'))) events.push(...preOf(r.channelDir, name.slice(0, -'.jsonl'.length)));
    assert.deepEqual(events.filter(([, t]) => t === id).map(([e]) => e).sort(), ['post', 'pre']);
  });
});
