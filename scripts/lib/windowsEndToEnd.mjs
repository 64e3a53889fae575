// The Windows lane's end-to-end CLI checks (scripts/test-windows.mjs): dist/cli.js run by node.exe
// under Wine on a Claude dir whose paths are Windows paths (Z:\…, backslashes), as Claude Code on
// Windows writes them.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const SESSION = '0e4f6a52-3c1d-4b7a-9d2e-5f8a1b2c3d4e';

function toolUse(cwd, id) {
  return {
    type: 'assistant', uuid: `a-${id}`, timestamp: new Date().toISOString(), sessionId: SESSION, cwd,
    message: { id: `msg_${id}`, role: 'assistant', content: [{ type: 'tool_use', id, name: 'Bash', input: { command: 'dir' } }], stop_reason: 'tool_use' },
  };
}

function channelLines(channelDir) {
  const lines = [];
  for (const name of fs.existsSync(channelDir) ? fs.readdirSync(channelDir) : []) {
    if (!name.endsWith('.jsonl')) continue;
    for (const line of fs.readFileSync(path.join(channelDir, name), 'utf8').split('\n')) {
      if (line.trim()) lines.push(JSON.parse(line));
    }
  }
  return lines;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs the hook entry install-hook wrote as Claude Code does, from inside Windows: the exec form
 * (`command` + `args`) spawned with no shell; a shell form's words split as Git Bash splits our
 * quoted subset, `NAME='value'` prefixes moved to the environment.
 */
const RUN_ENTRY = String.raw`
const fs = require('node:fs');
const { run } = require('./run-with-pipe.js');
const [settingsPath, inputPath] = process.argv.slice(2);
const settings = JSON.parse(fs.readFileSync(settingsPath, 'utf8'));
const hook = settings.hooks.PreToolUse[0].hooks[0];
let command = hook.command, args = hook.args, env = { ...process.env };
if (!Array.isArray(args)) {
  const words = [];
  const re = /(?:'[^']*'|\\.|[^\s'\\])+/g;
  for (const m of command.matchAll(re)) words.push(m[0].replace(/'([^']*)'|\\(.)|([^'\\]+)/g, (_, q, e, p) => q ?? e ?? p));
  while (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0])) { const w = words.shift(); const i = w.indexOf('='); env[w.slice(0, i)] = w.slice(i + 1); }
  [command, ...args] = words;
}
run(command, args, env, inputPath, settingsPath + '.ran.json', Array.isArray(hook.args) ? 'exec' : 'shell');
`;

/** Runs a program from inside Windows with its input on a pipe, as Claude Code gives a hook or status line its JSON. */
const RUN_WITH_PIPE = String.raw`
const fs = require('node:fs');
const { spawnSync } = require('node:child_process');
function run(command, args, env, inputPath, resultPath, form) {
  const r = spawnSync(command, args, { input: fs.readFileSync(inputPath), env, shell: false, timeout: 30000 });
  fs.writeFileSync(resultPath, JSON.stringify({ form, status: r.status, error: r.error && String(r.error), stdout: String(r.stdout), stderr: String(r.stderr) }));
}
if (require.main === module) {
  const [resultPath, inputPath, command, ...args] = process.argv.slice(2);
  run(command, args, process.env, inputPath, resultPath, 'exec');
}
module.exports = { run };
`;
 
export async function runEndToEnd({ repoRoot, nodeExe, runNodeExe, startNodeExe, runWindowsProgram, claudeExe, toWinPath, log }) {
  const nodeExeWin = toWinPath(nodeExe);
  const results = [];
  const check = async (name, fn) => {
    try {
      await fn();
      results.push(true);
      log(`e2e ok: ${name}`);
    } catch (err) {
      results.push(false);
      log(`FAIL e2e: ${name}\n  ${String(err?.message ?? err).split('\n').slice(0, 12).join('\n  ')}`);
    }
  };
  const cli = toWinPath(path.join(repoRoot, 'dist', 'cli.js'));
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-win-e2e-'));
  const claudeDir = path.join(root, 'claude');
  const workspace = path.join(root, 'Work Space', 'app');
  fs.mkdirSync(workspace, { recursive: true });
  const winWorkspace = toWinPath(workspace);
  // Claude Code files a Windows session under its cwd's slug; the drive letter's case is the CLI's.
  const slug = winWorkspace.replace(/[^a-zA-Z0-9]/g, '-');
  const projectDir = path.join(claudeDir, 'projects', `z${slug.slice(1)}`);
  fs.mkdirSync(projectDir, { recursive: true });
  const transcript = path.join(projectDir, `${SESSION}.jsonl`);
  fs.writeFileSync(transcript, '');
  const env = { CLAUDE_CONFIG_DIR: toWinPath(claudeDir) };
  const channelDir = path.join(claudeDir, 'transcript-lag');

  await check('install-hook --form exec, then its PreToolUse entry spawned with no shell, as Claude Code 2.1.139+ runs it: a pre lands', async () => {
    const install = await runNodeExe([cli, 'install-hook', '--form', 'exec'], { env });
    if (install.code !== 0) throw new Error(`install-hook exit ${install.code}: ${install.stdout}${install.stderr}`);
    const settingsPath = path.join(claudeDir, 'settings.json');
    const input = path.join(root, 'pre.json');
    fs.writeFileSync(input, JSON.stringify({
      session_id: SESSION, transcript_path: toWinPath(transcript), cwd: winWorkspace, hook_event_name: 'PreToolUse',
      tool_name: 'Bash', tool_input: { command: 'dir' }, tool_use_id: 'toolu_win_pre',
    }));
    const runner = path.join(root, 'run-entry.js');
    fs.writeFileSync(runner, RUN_ENTRY);
    fs.writeFileSync(path.join(root, 'run-with-pipe.js'), RUN_WITH_PIPE);
    const r = await runNodeExe([toWinPath(runner), toWinPath(settingsPath), toWinPath(input)], { env });
    if (!fs.existsSync(`${settingsPath}.ran.json`)) throw new Error(`the runner failed (${r.code}): ${r.stdout} ${r.stderr}`);
    const ran = JSON.parse(fs.readFileSync(`${settingsPath}.ran.json`, 'utf8'));
    if (r.code !== 0 || ran.status !== 0) throw new Error(`the entry did not run (${ran.form} form): ${JSON.stringify(ran)} ${r.stderr}`);
    if (ran.stdout !== '') throw new Error(`the hook wrote stdout: ${ran.stdout}`);
    const pre = channelLines(channelDir).find((l) => l.event === 'pre' && l.tool_use_id === 'toolu_win_pre');
    if (!pre) throw new Error(`no pre in ${channelDir}: ${JSON.stringify(channelLines(channelDir))}`);
    if (pre.transcript_path !== toWinPath(transcript)) throw new Error(`pre names ${pre.transcript_path}`);
    if (ran.form !== 'exec') throw new Error(`install-hook --form exec wrote a ${ran.form} form`);
  });

  // Wine has no Git Bash, and its powershell.exe is a stub that runs nothing: a Claude Code with no shell.
  await check('real Claude Code for Windows (claude.exe, no Git Bash, no PowerShell): install-hook asks it, writes the exec form, and its hooks report a Read call once; the plugin\'s mod reports one in process', async () => {
    const { startStandInApi } = await import('../../test/field/standInApi.mjs');
    const sandbox = path.join(root, 'real claude');
    const realClaudeDir = path.join(sandbox, 'Claude Dir');
    const work = path.join(sandbox, 'work');
    fs.mkdirSync(realClaudeDir, { recursive: true });
    fs.mkdirSync(work, { recursive: true });
    fs.writeFileSync(path.join(work, 'notes.txt'), 'field test file\n');
    const apiKey = 'sk-ant-api03-field-test-0000000000000000000000000000000000';
    fs.writeFileSync(path.join(realClaudeDir, '.claude.json'), JSON.stringify({
      hasCompletedOnboarding: true, customApiKeyResponses: { approved: [apiKey.slice(-20)], rejected: [] },
    }));
    // One print session: the stand-in asks for a Read of notes.txt, then ends the turn.
    const runClaude = async (toolUseId, claudeEnv, extraArgs = [], dir = realClaudeDir) => {
      const api = await startStandInApi({
        script: [[{ name: 'Read', id: toolUseId, input: { file_path: toWinPath(path.join(work, 'notes.txt')) } }]],
        logFile: path.join(sandbox, `api-${toolUseId}.log`),
      });
      try {
        const run = await runWindowsProgram(claudeExe, ['-p', 'Read notes.txt', '--permission-mode', 'acceptEdits', ...extraArgs], {
          cwd: work,
          timeoutMs: 180_000,
          env: {
            ...claudeEnv,
            ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: apiKey, NO_PROXY: '127.0.0.1,localhost',
            DISABLE_TELEMETRY: '1', DISABLE_ERROR_REPORTING: '1', DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          },
        });
        if (run.code !== 0) throw new Error(`claude.exe exit ${run.code}: ${run.stdout.slice(-1000)} ${run.stderr.slice(-2000)}`);
        if (!run.stdout.includes('Done: the field test script has finished.')) throw new Error(`claude.exe did not finish the scripted turn: ${run.stdout.slice(-1000)}`);
        return channelLines(path.join(dir, 'transcript-lag')).filter((l) => l.tool_use_id === toolUseId);
      } finally {
        await api.close();
      }
    };
    // claude.exe on the Windows PATH: install-hook's `claude --version` finds it, as on a Windows machine.
    const claudeEnv = { CLAUDE_CONFIG_DIR: toWinPath(realClaudeDir), WINEPATH: `${toWinPath(path.dirname(nodeExe))};${toWinPath(path.dirname(claudeExe))}` };
    const install = await runNodeExe([cli, 'install-hook'], { env: claudeEnv });
    if (install.code !== 0) throw new Error(`install-hook exit ${install.code}: ${install.stdout}${install.stderr}`);
    if (!/form: {5}exec \(no shell\) \(claude --version: \d+\.\d+\.\d+ \(Claude Code\)\)/.test(install.stdout)) throw new Error(`install-hook did not write the exec form for the claude.exe it found:\n${install.stdout}`);
    const toolUseId = 'toolu_win_real_read1';
    const events = await runClaude(toolUseId, claudeEnv);
    const kinds = events.map((e) => e.event).sort();
    if (kinds.join(' ') !== 'post pre') throw new Error(`the hooks reported ${JSON.stringify(kinds)} for ${toolUseId}, not one pre and one post: ${JSON.stringify(events).slice(0, 1500)}`);
    const transcriptPath = events[0].transcript_path;
    if (!/^[A-Za-z]:\\.*\\projects\\[^\\]+\\[0-9a-f-]{36}\.jsonl$/.test(transcriptPath ?? '')) throw new Error(`transcript_path ${transcriptPath}`);
    const channelFile = toWinPath(path.join(realClaudeDir, 'transcript-lag', `${events[0].session_id}.jsonl`));
    const analyze = await runNodeExe([cli, 'analyze', transcriptPath, '--channel', channelFile, '--json'], { env: claudeEnv });
    let calls = [];
    try { calls = JSON.parse(analyze.stdout).calls?.filter((c) => c.tool_use_id === toolUseId) ?? []; } catch { /* said below */ }
    // The channel joined: when the hook fired, and a proven shape (by the hook's look or the trailer records).
    if (analyze.code !== 0 || calls.length !== 1 || typeof calls[0].hook_fired_at !== 'number' || !['before_result', 'with_result'].includes(calls[0].shape)) throw new Error(`analyze --channel: ${analyze.code} ${analyze.stdout.slice(0, 1500)} ${analyze.stderr}`);
    // The control: this Claude Code has no shell to run a shell form in, so the same hook written
    // as a command line reports nothing. What the exec form ran, it ran with no shell.
    const shellInstall = await runNodeExe([cli, 'install-hook', '--form', 'shell'], { env: claudeEnv });
    if (shellInstall.code !== 0 || !/form: {5}shell/.test(shellInstall.stdout)) throw new Error(`install-hook --form shell: ${shellInstall.stdout}${shellInstall.stderr}`);
    const unreported = await runClaude('toolu_win_real_read2', claudeEnv);
    if (unreported.length !== 0) throw new Error(`a shell form ran in a Claude Code with no shell: ${JSON.stringify(unreported).slice(0, 500)}`);

    // The plugin on the same Claude Code: its mod runs in process, so a Windows machine with neither
    // Git Bash nor PowerShell has every call reported (its command hooks, `sh …`, cannot run there).
    const pluginClaudeDir = path.join(sandbox, 'Plugin Claude Dir');
    fs.mkdirSync(pluginClaudeDir, { recursive: true });
    fs.copyFileSync(path.join(realClaudeDir, '.claude.json'), path.join(pluginClaudeDir, '.claude.json'));
    const pluginEnv = { ...claudeEnv, CLAUDE_CONFIG_DIR: toWinPath(pluginClaudeDir) };
    const modId = 'toolu_win_real_mod1';
    await runClaude(modId, pluginEnv, ['--plugin-dir', toWinPath(path.join(repoRoot, 'plugin'))], pluginClaudeDir);
    const spoolDir = path.join(pluginClaudeDir, 'transcript-lag', 'spool');
    const spooled = (fs.existsSync(spoolDir) ? fs.readdirSync(spoolDir) : []).filter((n) => n.endsWith('.json')).map((n) => JSON.parse(fs.readFileSync(path.join(spoolDir, n), 'utf8')));
    const modEvents = spooled.filter((e) => e.tool_use_id === modId);
    const pres = modEvents.filter((e) => e.event === 'pre');
    if (pres.length !== 1 || pres[0].transport !== 'mod' || !modEvents.some((e) => e.event === 'post' && e.transport === 'mod')) {
      throw new Error(`the mod did not report ${modId} once (pre and post, transport mod): ${JSON.stringify(modEvents).slice(0, 1500)}`);
    }
    if (!modEvents.some((e) => e.event === 'landed')) throw new Error(`the mod saw no landing for ${modId}: ${JSON.stringify(modEvents).slice(0, 1500)}`);
    // Its held message goes once the record lands (cmd's del on Windows, where there is no rm).
    const heldDir = path.join(pluginClaudeDir, 'transcript-lag', 'held', pres[0].session_id);
    const left = fs.existsSync(heldDir) ? fs.readdirSync(heldDir) : [];
    if (left.length !== 0) throw new Error(`held messages left after their records landed: ${left.join(', ')}`);
  });

  await check('statusline: the held call, from a backslash transcript_path', async () => {
    const input = path.join(root, 'status.json');
    fs.writeFileSync(input, JSON.stringify({ session_id: SESSION, transcript_path: toWinPath(transcript), cwd: winWorkspace }));
    const result = path.join(root, 'status.result.json');
    const r = await runNodeExe([toWinPath(path.join(root, 'run-with-pipe.js')), toWinPath(result), toWinPath(input), nodeExeWin, cli, 'statusline', '--channel-dir', toWinPath(channelDir)], { env });
    if (!fs.existsSync(result)) throw new Error(`the runner failed (${r.code}): ${r.stdout} ${r.stderr}`);
    const ran = JSON.parse(fs.readFileSync(result, 'utf8'));
    if (ran.status !== 0 || !/^transcript-lag: 1 held · \d+(\.\d)?s\n$/.test(ran.stdout)) throw new Error(`statusline: ${JSON.stringify(ran)}`);
  });

  await check('watch in the workspace folder (Z:\\, session filed under z--…) follows a live session', async () => {
    const watch = startNodeExe([cli, 'watch', '--json', '--poll-ms', '200'], { env, cwd: workspace });
    try {
      const deadline = Date.now() + 45_000;
      const until = async (what, test) => {
        while (!test(watch.stdout())) {
          if (Date.now() > deadline) throw new Error(`no ${what} from watch: ${watch.stdout().slice(-2000)} ${watch.stderr().slice(-1000)}`);
          await sleep(200);
        }
      };
      await until('ready', (out) => out.includes('"event":"ready"'));
      fs.appendFileSync(transcript, `${JSON.stringify(toolUse(winWorkspace, 'toolu_win_pre'))}\n`);
      await until('written for the live call', (out) => out.split('\n').some((l) => l.includes('"toolu_win_pre"') && l.includes('"event":"written"')));
    } finally {
      await watch.stop();
    }
  });

  await check('analyze: node.exe gives what Linux Node gives', async () => {
    const fixture = path.join(repoRoot, 'test', 'fixtures', 'real', 'print-single-0', 'c94aa0db-5ed1-4c10-836d-4ea712608109.jsonl');
    const linux = execFileSync(process.execPath, [path.join(repoRoot, 'dist', 'cli.js'), 'analyze', fixture, '--json'], { encoding: 'utf8', timeout: 60_000 });
    const win = await runNodeExe([cli, 'analyze', toWinPath(fixture), '--json'], {});
    if (win.code !== 0) throw new Error(`exit ${win.code}: ${win.stderr}`);
    const strip = (text) => text.replace(/Z:\\[^"]*|\/[^"]*c94aa0db[^"]*/g, '<file>');
    if (strip(win.stdout) !== strip(linux)) throw new Error(`differs:\nlinux: ${linux.slice(0, 800)}\nwin:   ${win.stdout.slice(0, 800)}`);
  });

  fs.rmSync(root, { recursive: true, force: true });
  return { passed: results.filter(Boolean).length, failed: results.filter((ok) => !ok).length };
}
