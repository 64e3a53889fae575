import * as assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { settingsRunOurHook } from '../../../src/hook/pluginGuard';
import { hookInput, tempHome } from '../helpers/hookProcess';
import { ModHarness, SESSION as MOD_SESSION } from '../mod/modHarness';
import { nodeFileAccess } from '../../../src/rules/nodeFileAccess';
import { foldSpool } from '../../../src/rules/spoolFold';
import { nodeSpoolFolding } from '../../../src/rules/nodeSpoolFolding';

const repoRoot = path.resolve(__dirname, '../../..');
const pluginRoot = path.join(repoRoot, 'plugin');
const SESSION = '0b7c5a8e-1111-4222-8333-944455556666';
type HooksJson = { hooks: Record<string, { matcher: string; hooks: { type: string; command: string; timeout: number }[] }[]> };
const hooksJson = () => JSON.parse(fs.readFileSync(path.join(pluginRoot, 'hooks', 'hooks.json'), 'utf8')) as HooksJson;

/** A plugin hook command run as Claude Code runs it: ${CLAUDE_PLUGIN_ROOT} substituted and set, through the shell. */
function runPluginHook(event: string, env: NodeJS.ProcessEnv, stdin: string): number | null {
  const command = hooksJson().hooks[event][0].hooks[0].command.replaceAll('${CLAUDE_PLUGIN_ROOT}', pluginRoot);
  const r = spawnSync('sh', ['-c', command], { input: stdin, env: { ...env, CLAUDE_PLUGIN_ROOT: pluginRoot }, encoding: 'utf8' });
  assert.equal(r.stdout, '', 'a hook never writes stdout');
  return r.status;
}

function channelEvents(claudeDir: string): { event: string; tool_use_id: string }[] {
  const file = path.join(claudeDir, 'transcript-lag', `${SESSION}.jsonl`);
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

/** A PATH with the system's tools but no `node`. */
function pathWithoutNode(home: string): string {
  const bin = path.join(home, 'bin-no-node');
  fs.mkdirSync(bin);
  for (const tool of ['sh', 'dirname', 'ls']) {
    const found = execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim();
    fs.symlinkSync(found, path.join(bin, tool));
  }
  return bin;
}

describe('Claude Code plugin (plugin/, .claude-plugin/marketplace.json)', function () {
  this.timeout(30_000);

  it('the committed plugin/bin/hook.js, the mod and plugin/bin/transcript-lag-message.js are byte for byte their builds', function () {
    // The plugin installed from a git URL runs the committed file: nothing is built in its clone.
    const r = spawnSync(process.execPath, [path.join(repoRoot, 'scripts', 'plugin-hook.mjs'), '--check'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  });

  it('the marketplace offers the plugin transcript-lag from ./plugin, and its manifest names it', function () {
    const market = JSON.parse(fs.readFileSync(path.join(repoRoot, '.claude-plugin', 'marketplace.json'), 'utf8'));
    const entry = market.plugins.find((p: { name: string }) => p.name === 'transcript-lag');
    assert.equal(entry.source, './plugin');
    const manifest = JSON.parse(fs.readFileSync(path.join(pluginRoot, '.claude-plugin', 'plugin.json'), 'utf8'));
    assert.equal(manifest.name, 'transcript-lag');
    assert.equal(manifest.version, entry.version);
  });

  it('hooks every tool call before and after, success or failure, and every session start, through ${CLAUDE_PLUGIN_ROOT}', function () {
    const { SessionStart, ...calls } = hooksJson().hooks;
    assert.deepEqual(Object.keys(calls).sort(), ['PostToolUse', 'PostToolUseFailure', 'PreToolUse']);
    for (const groups of Object.values(calls)) {
      assert.equal(groups.length, 1);
      assert.equal(groups[0].matcher, '*');
      assert.match(groups[0].hooks[0].command, /^sh "\$\{CLAUDE_PLUGIN_ROOT\}\/bin\/transcript-lag-hook\.sh"$/);
    }
    // Every start (startup, resume, clear, compact): no matcher.
    assert.equal(SessionStart.length, 1);
    assert.equal(SessionStart[0].matcher, undefined);
    assert.equal(SessionStart[0].hooks[0].command, 'sh "${CLAUDE_PLUGIN_ROOT}/bin/transcript-lag-hook.sh" --install-message-tool');
    assert.ok(fs.statSync(path.join(pluginRoot, 'bin', 'transcript-lag-hook.sh')).isFile());
  });

  it('reports pre and post (and a failure as post) to $CLAUDE_CONFIG_DIR/transcript-lag', function () {
    const { home, env } = tempHome();
    const configDir = path.join(home, 'config');
    const e = { ...env, CLAUDE_CONFIG_DIR: configDir };
    assert.equal(runPluginHook('PreToolUse', e, hookInput({ hook_event_name: 'PreToolUse', tool_use_id: 'toolu_A' })), 0);
    assert.equal(runPluginHook('PostToolUse', e, hookInput({ hook_event_name: 'PostToolUse', tool_use_id: 'toolu_A' })), 0);
    assert.equal(runPluginHook('PostToolUseFailure', e, hookInput({ hook_event_name: 'PostToolUseFailure', tool_use_id: 'toolu_B' })), 0);
    assert.deepEqual(
      channelEvents(configDir).map((x) => `${x.event} ${x.tool_use_id}`),
      ['pre toolu_A', 'post toolu_A', 'post toolu_B'],
    );
  });

  it('stands aside for the events install-hook entries already report, so no call is reported twice', function () {
    const { claudeDir, env } = tempHome();
    const installed = `'/usr/bin/node' '${claudeDir}/transcript-lag/bin/transcript-lag-hook.js' --channel-dir '${claudeDir}/transcript-lag'`;
    const group = { matcher: '*', hooks: [{ type: 'command', command: installed, timeout: 5 }] };
    fs.writeFileSync(path.join(claudeDir, 'settings.json'), JSON.stringify({ hooks: { PreToolUse: [group], PostToolUse: [group] } }));
    runPluginHook('PreToolUse', env, hookInput({ hook_event_name: 'PreToolUse', tool_use_id: 'toolu_A' }));
    runPluginHook('PostToolUse', env, hookInput({ hook_event_name: 'PostToolUse', tool_use_id: 'toolu_A' }));
    // install-hook registers no PostToolUseFailure: that one only the plugin reports.
    runPluginHook('PostToolUseFailure', env, hookInput({ hook_event_name: 'PostToolUseFailure', tool_use_id: 'toolu_B' }));
    assert.deepEqual(channelEvents(claudeDir).map((x) => `${x.event} ${x.tool_use_id}`), ['post toolu_B']);
  });

  it('with no node on PATH: exits 0 silently, or runs the Node named by $TRANSCRIPT_LAG_NODE', function () {
    const { home, claudeDir, env } = tempHome();
    const noNode = { ...env, PATH: pathWithoutNode(home) };
    assert.equal(runPluginHook('PreToolUse', noNode, hookInput({ tool_use_id: 'toolu_A' })), 0);
    assert.deepEqual(channelEvents(claudeDir), []);
    assert.equal(runPluginHook('PreToolUse', { ...noNode, TRANSCRIPT_LAG_NODE: process.execPath }, hookInput({ tool_use_id: 'toolu_A' })), 0);
    assert.deepEqual(channelEvents(claudeDir).map((x) => x.event), ['pre']);
  });

  it('with no node on PATH: finds the Node VS Code Server ships', function () {
    const { home, claudeDir, env } = tempHome();
    const server = path.join(home, '.vscode-server', 'cli', 'servers', 'Stable-abc', 'server');
    fs.mkdirSync(server, { recursive: true });
    fs.symlinkSync(process.execPath, path.join(server, 'node'));
    assert.equal(runPluginHook('PreToolUse', { ...env, PATH: pathWithoutNode(home) }, hookInput({ tool_use_id: 'toolu_A' })), 0);
    assert.deepEqual(channelEvents(claudeDir).map((x) => x.event), ['pre']);
  });
});

describe('the plugin at session start: the message tool at <claude dir>/transcript-lag/bin/transcript-lag-message.js', function () {
  this.timeout(30_000);
  const committed = path.join(pluginRoot, 'bin', 'transcript-lag-message.js');
  const startInput = () => JSON.stringify({ session_id: SESSION, transcript_path: '/nowhere/x.jsonl', hook_event_name: 'SessionStart', source: 'startup' });
  const toolOf = (claudeDir: string) => path.join(claudeDir, 'transcript-lag', 'bin', 'transcript-lag-message.js');
  const binOf = (claudeDir: string) => path.dirname(toolOf(claudeDir));

  it('copies the plugin\'s tool there (no stdout, exit 0), and the copy answers a PreToolUse hook on its own', function () {
    const { claudeDir, env } = tempHome();
    assert.equal(runPluginHook('SessionStart', env, startInput()), 0);
    assert.ok(fs.readFileSync(toolOf(claudeDir)).equals(fs.readFileSync(committed)));
    if (process.platform !== 'win32') {
      assert.equal(fs.statSync(toolOf(claudeDir)).mode & 0o777, 0o600);
      assert.equal(fs.statSync(binOf(claudeDir)).mode & 0o777, 0o700);
    }
    // The completing wrapper beside it, the same way (issue 39): a settings hook put behind it needs the plugin alone.
    assert.deepEqual(fs.readdirSync(binOf(claudeDir)).sort(), ['transcript-lag-complete.js', 'transcript-lag-message.js'], 'no temp file left');
    assert.ok(fs.readFileSync(path.join(binOf(claudeDir), 'transcript-lag-complete.js')).equals(fs.readFileSync(path.join(pluginRoot, 'bin', 'transcript-lag-complete.js'))));
    const wrapped = spawnSync(process.execPath, [path.join(binOf(claudeDir), 'transcript-lag-complete.js'), '--', process.execPath, '-e', 'process.stdout.write(require("fs").readFileSync(0)); process.exit(2)'], { input: 'in', encoding: 'utf8' });
    assert.deepEqual([wrapped.status, wrapped.stdout], [2, 'in']);
    const r = spawnSync(process.execPath, [toolOf(claudeDir), '--json'], { input: hookInput({ tool_use_id: 'toolu_A' }), encoding: 'utf8' });
    assert.equal(r.status, 0);
    const answer = JSON.parse(r.stdout);
    assert.deepEqual([answer.tool_use_id, answer.source, answer.mod], ['toolu_A', null, false]);
  });

  it('$CLAUDE_CONFIG_DIR decides the Claude dir, as for the channel', function () {
    const { home, env } = tempHome();
    const configDir = path.join(home, 'config');
    assert.equal(runPluginHook('SessionStart', { ...env, CLAUDE_CONFIG_DIR: configDir }, startInput()), 0);
    assert.ok(fs.existsSync(toolOf(configDir)));
  });

  it('a copy with the same bytes is left alone; one with other bytes (an older plugin\'s) is replaced by a rename, never written in place', function () {
    if (process.platform === 'win32') this.skip(); // inode numbers
    const { claudeDir, env } = tempHome();
    runPluginHook('SessionStart', env, startInput());
    const first = fs.statSync(toolOf(claudeDir));
    runPluginHook('SessionStart', env, startInput());
    assert.equal(fs.statSync(toolOf(claudeDir)).ino, first.ino, 'the same bytes: not copied again');
    // An older tool, held open by a hook running it: the open file keeps its bytes, the path gets the new ones.
    fs.writeFileSync(toolOf(claudeDir), '// an older transcript-lag-message.js\n');
    const old = fs.openSync(toolOf(claudeDir), 'r');
    try {
      runPluginHook('SessionStart', env, startInput());
      assert.ok(fs.readFileSync(toolOf(claudeDir)).equals(fs.readFileSync(committed)));
      assert.equal(fs.readFileSync(old, 'utf8'), '// an older transcript-lag-message.js\n');
    } finally {
      fs.closeSync(old);
    }
    assert.deepEqual(fs.readdirSync(binOf(claudeDir)).sort(), ['transcript-lag-complete.js', 'transcript-lag-message.js']);
  });

  it('a symlink where the tool goes is replaced by the file; what it named is not touched', function () {
    if (process.platform === 'win32') this.skip();
    const { home, claudeDir, env } = tempHome();
    const elsewhere = path.join(home, 'elsewhere.js');
    fs.writeFileSync(elsewhere, 'keep me');
    fs.mkdirSync(binOf(claudeDir), { recursive: true });
    fs.symlinkSync(elsewhere, toolOf(claudeDir));
    assert.equal(runPluginHook('SessionStart', env, startInput()), 0);
    assert.ok(!fs.lstatSync(toolOf(claudeDir)).isSymbolicLink());
    assert.ok(fs.readFileSync(toolOf(claudeDir)).equals(fs.readFileSync(committed)));
    assert.equal(fs.readFileSync(elsewhere, 'utf8'), 'keep me');
  });

  it('a symlink as bin/ is not written through: the tool is not copied, the folder it names gets nothing', function () {
    if (process.platform === 'win32') this.skip();
    const { home, claudeDir, env } = tempHome();
    const elsewhere = path.join(home, 'elsewhere');
    fs.mkdirSync(elsewhere, { mode: 0o700 });
    fs.mkdirSync(path.dirname(binOf(claudeDir)), { recursive: true });
    fs.symlinkSync(elsewhere, binOf(claudeDir));
    assert.equal(runPluginHook('SessionStart', env, startInput()), 0);
    assert.deepEqual(fs.readdirSync(elsewhere), []);
    assert.ok(fs.lstatSync(binOf(claudeDir)).isSymbolicLink(), 'the link is the user\'s: left as it is');
  });

  it('a bin/ of the user\'s that others may write loses those write bits before the tool goes in', function () {
    if (process.platform === 'win32') this.skip();
    const { claudeDir, env } = tempHome();
    fs.mkdirSync(binOf(claudeDir), { recursive: true });
    fs.chmodSync(binOf(claudeDir), 0o777);
    assert.equal(runPluginHook('SessionStart', env, startInput()), 0);
    assert.equal(fs.statSync(binOf(claudeDir)).mode & 0o777, 0o755);
    assert.ok(fs.readFileSync(toolOf(claudeDir)).equals(fs.readFileSync(committed)));
  });

  it("another user's bin/ gets nothing (root alone can make one)", function () {
    if (process.platform === 'win32' || process.getuid?.() !== 0) this.skip();
    const { claudeDir, env } = tempHome();
    fs.mkdirSync(binOf(claudeDir), { recursive: true });
    fs.chownSync(binOf(claudeDir), 65534, 65534);
    assert.equal(runPluginHook('SessionStart', env, startInput()), 0);
    assert.deepEqual(fs.readdirSync(binOf(claudeDir)), []);
  });

  it('a copy with the plugin\'s bytes that others may write is replaced by one of ours', function () {
    if (process.platform === 'win32') this.skip();
    const { claudeDir, env } = tempHome();
    fs.mkdirSync(binOf(claudeDir), { recursive: true, mode: 0o700 });
    fs.copyFileSync(committed, toolOf(claudeDir));
    fs.chmodSync(toolOf(claudeDir), 0o666);
    assert.equal(runPluginHook('SessionStart', env, startInput()), 0);
    assert.equal(fs.statSync(toolOf(claudeDir)).mode & 0o777, 0o600);
    assert.ok(fs.readFileSync(toolOf(claudeDir)).equals(fs.readFileSync(committed)));
  });

  it('a temp file a cut-short copy left (its process gone) is removed; a copy in progress and files not ours stay', function () {
    const { claudeDir, env } = tempHome();
    fs.mkdirSync(binOf(claudeDir), { recursive: true, mode: 0o700 });
    // A pid no process has now: the SessionStart watchdog ended a copy that ran as it.
    const gone = Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
    const leftover = `transcript-lag-message.js.${gone}.0a1b2c3d.tmp`;
    const inProgress = `transcript-lag-message.js.${process.pid}.0a1b2c3d.tmp`;
    for (const name of [leftover, inProgress, 'notes.txt']) fs.writeFileSync(path.join(binOf(claudeDir), name), 'x');
    assert.equal(runPluginHook('SessionStart', env, startInput()), 0);
    assert.deepEqual(fs.readdirSync(binOf(claudeDir)).sort(), [inProgress, 'notes.txt', 'transcript-lag-complete.js', 'transcript-lag-message.js'].sort());
  });

  it('where it cannot write (a file where bin/ should be), or with no Node: exit 0, silent, nothing copied', function () {
    const blocked = tempHome();
    fs.mkdirSync(path.dirname(binOf(blocked.claudeDir)), { recursive: true });
    fs.writeFileSync(binOf(blocked.claudeDir), 'not a folder');
    assert.equal(runPluginHook('SessionStart', blocked.env, startInput()), 0);
    assert.equal(fs.readFileSync(binOf(blocked.claudeDir), 'utf8'), 'not a folder');
    const { home, claudeDir, env } = tempHome();
    assert.equal(runPluginHook('SessionStart', { ...env, PATH: pathWithoutNode(home) }, startInput()), 0);
    assert.ok(!fs.existsSync(toolOf(claudeDir)));
  });

  it('a tool call\'s hook copies nothing (only the SessionStart entry asks for it)', function () {
    const { claudeDir, env } = tempHome();
    runPluginHook('PreToolUse', env, hookInput({ hook_event_name: 'PreToolUse', tool_use_id: 'toolu_A' }));
    assert.ok(!fs.existsSync(toolOf(claudeDir)));
  });
});

describe('the plugin at session start: the mod\'s spool of finished sessions folded, with no watch and no window (issue 40 §6)', function () {
  this.timeout(30_000);
  let h: ModHarness | undefined;
  afterEach(() => {
    h?.dispose();
    h = undefined;
  });
  const OTHER = '7f0e1d2c-3b4a-4596-8877-665544332211';
  const startOf = (sessionId: string) => JSON.stringify({ session_id: sessionId, transcript_path: '/nowhere/x.jsonl', hook_event_name: 'SessionStart', source: 'startup' });
  const spoolOf = (claudeDir: string) => path.join(claudeDir, 'transcript-lag', 'spool');
  const spoolNames = (claudeDir: string) => (fs.existsSync(spoolOf(claudeDir)) ? fs.readdirSync(spoolOf(claudeDir)).sort() : []);
  const channelOf = (claudeDir: string, sessionId: string): unknown[] => {
    const file = path.join(claudeDir, 'transcript-lag', `${sessionId}.jsonl`);
    return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
  };

  it('the mod\'s files of a session it ran are left while it runs, and folded into its channel file, in order, at the first start after it ended', async function () {
    if (process.platform === 'win32') this.skip(); // the harness's session.end removes the liveness file with rm
    h = new ModHarness();
    const env = { ...tempHome().env, CLAUDE_CONFIG_DIR: h.claudeDir };
    await h.start();
    for (const id of ['toolu_A', 'toolu_B']) {
      const call = await h.call(id);
      h.appendRecord(id);
      await call.finish();
    }
    await h.settle();
    const spooled = h.spooled();
    assert.ok(spooled.length >= 4, `the mod spooled ${spooled.length} events`);
    // Another session starts while this one runs: its files are its own, left where they are.
    assert.equal(runPluginHook('SessionStart', env, startOf(OTHER)), 0);
    assert.equal(spoolNames(h.claudeDir).length, spooled.length);
    assert.deepEqual(channelOf(h.claudeDir, MOD_SESSION), []);
    // It ends (its liveness file goes): the next start folds them, as watch would have.
    await h.emit('session.end', {});
    await h.settle();
    assert.equal(runPluginHook('SessionStart', env, startOf(OTHER)), 0);
    assert.deepEqual(spoolNames(h.claudeDir), []);
    assert.deepEqual(channelOf(h.claudeDir, MOD_SESSION), spooled);
  });

  it('a session whose liveness file went stale (Claude Code killed) is folded; one fresh and the session starting are not', function () {
    const { claudeDir, env } = tempHome();
    const spool = spoolOf(claudeDir);
    const live = path.join(claudeDir, 'transcript-lag', 'mod');
    fs.mkdirSync(spool, { recursive: true });
    fs.mkdirSync(live, { recursive: true });
    const ids = { killed: 'aaaaaaaa-0000-4000-8000-000000000001', running: 'aaaaaaaa-0000-4000-8000-000000000002', starting: 'aaaaaaaa-0000-4000-8000-000000000003', ended: 'aaaaaaaa-0000-4000-8000-000000000004' };
    const now = Date.now();
    for (const [i, id] of Object.values(ids).entries()) {
      for (let seq = 1; seq <= 3; seq++) {
        const ev = { v: 1, event: 'record', at: now - 60_000 + i * 10 + seq, session_id: id, transcript_path: `/c/projects/-w/${id}.jsonl`, uuid: `${i}-${seq}`, record_type: 'user', source: 'transcript-lag-mod' };
        fs.writeFileSync(path.join(spool, `${id}.0a1b2c3d.${String(seq).padStart(8, '0')}.json`), JSON.stringify(ev));
      }
    }
    const alive = (id: string, at: number) => fs.writeFileSync(path.join(live, `${id}.live.json`), JSON.stringify({ v: 1, session_id: id, at, every_ms: 5000, keep_held_messages: true }));
    alive(ids.killed, now - 60_000);
    alive(ids.running, now);
    assert.equal(runPluginHook('SessionStart', env, startOf(ids.starting)), 0);
    for (const id of [ids.killed, ids.ended]) assert.equal(channelOf(claudeDir, id).length, 3, id);
    for (const id of [ids.running, ids.starting]) assert.deepEqual(channelOf(claudeDir, id), [], id);
    assert.deepEqual(
      spoolNames(claudeDir).map((n) => n.split('.')[0]),
      [ids.running, ids.running, ids.running, ids.starting, ids.starting, ids.starting],
    );
  });

  it('three starts at once beside a watch folding the same spool: each event appended once, none lost', async function () {
    const { claudeDir, env } = tempHome();
    const spool = spoolOf(claudeDir);
    fs.mkdirSync(spool, { recursive: true });
    const sessions = Array.from({ length: 6 }, (_, i) => `bbbbbbbb-0000-4000-8000-00000000000${i}`);
    const at = Date.now() - 60_000;
    for (const id of sessions) {
      for (let seq = 1; seq <= 60; seq++) {
        const ev = { v: 1, event: 'record', at: at + seq, session_id: id, transcript_path: `/c/projects/-w/${id}.jsonl`, uuid: `${id}-${seq}`, record_type: 'user', source: 'transcript-lag-mod' };
        fs.writeFileSync(path.join(spool, `${id}.0a1b2c3d.${String(seq).padStart(8, '0')}.json`), JSON.stringify(ev));
      }
    }
    // The hook as the plugin runs it, without sh: three sessions starting at once.
    const start = () =>
      new Promise<number | null>((resolve) => {
        const child = spawn(process.execPath, [path.join(pluginRoot, 'bin', 'hook.js'), '--plugin', '--install-message-tool'], { env: { ...env, CLAUDE_PLUGIN_ROOT: pluginRoot }, stdio: ['pipe', 'ignore', 'ignore'] });
        child.stdin.end(startOf(OTHER));
        child.on('close', resolve);
      });
    let starting = true;
    const watch = async () => {
      const spoolDir = spool;
      const channelDir = path.dirname(spool);
      while (starting) await foldSpool({ files: nodeFileAccess, clock: { now: () => Date.now() }, spoolDir, channelDir, ops: nodeSpoolFolding, maxAgeMs: 7 * 86_400_000, maxFiles: 40 });
    };
    const watching = watch();
    assert.deepEqual(await Promise.all([start(), start(), start()]), [0, 0, 0]);
    starting = false;
    await watching;
    // Each start reads at most 200 files: what is left goes at the next ones.
    for (let i = 0; i < 3 && spoolNames(claudeDir).length > 0; i++) assert.equal(runPluginHook('SessionStart', env, startOf(OTHER)), 0);
    assert.deepEqual(spoolNames(claudeDir), []);
    for (const id of sessions) {
      const uuids = (channelOf(claudeDir, id) as { uuid: string }[]).map((e) => e.uuid).sort();
      assert.deepEqual(uuids, Array.from({ length: 60 }, (_, k) => `${id}-${k + 1}`).sort(), id);
    }
  });
});

describe('plugin/bin/transcript-lag-hook.sh under dash: always exit 0', function () {
  this.timeout(30_000);
  // The script as Claude Code's `sh` runs it; dash where there is one (Debian's and Ubuntu's sh), the strictest common sh.
  const shell = ['/usr/bin/dash', '/bin/dash'].find((p) => fs.existsSync(p)) ?? 'sh';
  const script = path.join(pluginRoot, 'bin', 'transcript-lag-hook.sh');
  const run = (env: NodeJS.ProcessEnv, stdin: string) => spawnSync(shell, [script], { input: stdin, env, encoding: 'utf8' });

  it('a folder as $TRANSCRIPT_LAG_NODE is not run (it gave 126)', function () {
    const { home, claudeDir, env } = tempHome();
    const r = run({ ...env, PATH: pathWithoutNode(home), TRANSCRIPT_LAG_NODE: os.tmpdir() }, hookInput({ tool_use_id: 'toolu_A' }));
    assert.deepEqual([r.status, r.stdout, r.stderr], [0, '', '']);
    assert.deepEqual(channelEvents(claudeDir), []);
  });

  it('a runtime that fails still gives 0, and it gets the hook JSON on its stdin', function () {
    const { home, env } = tempHome();
    const got = path.join(home, 'stdin.txt');
    const failing = path.join(home, 'failing-node');
    fs.writeFileSync(failing, `#!/bin/sh\ncat > '${got}'\nexit 1\n`, { mode: 0o755 });
    const input = hookInput({ tool_use_id: 'toolu_A' });
    // $TRANSCRIPT_LAG_NODE comes before node on PATH.
    const r = run({ ...env, TRANSCRIPT_LAG_NODE: failing }, input);
    assert.equal(r.status, 0);
    assert.equal(fs.readFileSync(got, 'utf8'), input);
    if (fs.existsSync('/bin/false')) assert.equal(run({ ...env, TRANSCRIPT_LAG_NODE: '/bin/false' }, input).status, 0);
  });

  it('a HOME with a space, Node only under ~/.vscode-server: the newest server\'s Node reports', function () {
    const base = tempHome();
    const home = path.join(base.home, 'my home');
    const claudeDir = path.join(home, '.claude');
    fs.mkdirSync(path.join(claudeDir, 'projects', '-work'), { recursive: true });
    const older = path.join(home, '.vscode-server', 'cli', 'servers', 'Stable-old', 'server', 'node');
    const newer = path.join(home, '.vscode-server', 'bin', 'abc def', 'node');
    const marker = path.join(home, 'old-ran');
    fs.mkdirSync(path.dirname(older), { recursive: true });
    fs.mkdirSync(path.dirname(newer), { recursive: true });
    fs.writeFileSync(older, `#!/bin/sh\ntouch '${marker}'\n`, { mode: 0o755 });
    fs.writeFileSync(newer, `#!/bin/sh\nexec '${process.execPath}' "$@"\n`, { mode: 0o755 });
    fs.utimesSync(older, new Date(1_000_000_000_000), new Date(1_000_000_000_000));
    const r = run({ PATH: pathWithoutNode(base.home), HOME: home, CLAUDE_CONFIG_DIR: claudeDir }, hookInput({ tool_use_id: 'toolu_A' }));
    assert.deepEqual([r.status, r.stdout], [0, '']);
    assert.deepEqual(channelEvents(claudeDir).map((x) => x.event), ['pre']);
    assert.ok(!fs.existsSync(marker), 'the older server\'s Node was not run');
  });
});

describe('plugin/bin/transcript-lag-hook.sh on macOS: Node where hooks have no login PATH', function () {
  this.timeout(30_000);
  const shell = ['/usr/bin/dash', '/bin/dash'].find((p) => fs.existsSync(p)) ?? 'sh';
  const script = path.join(pluginRoot, 'bin', 'transcript-lag-hook.sh');
  const run = (env: NodeJS.ProcessEnv, stdin: string) => spawnSync(shell, [script], { input: stdin, env, encoding: 'utf8' });
  const fixed = ['/opt/homebrew/bin/node', '/usr/local/bin/node'].filter((p) => fs.existsSync(p));

  /** A HOME with a space holding fake Nodes at `rel` paths, oldest first; the newest really runs the hook, the others leave a marker. */
  function homeWith(rels: string[]): { home: string; claudeDir: string; marker: string } {
    const base = tempHome();
    const home = path.join(base.home, 'my home');
    const claudeDir = path.join(home, '.claude');
    fs.mkdirSync(path.join(claudeDir, 'projects', '-work'), { recursive: true });
    const marker = path.join(home, 'older-ran');
    rels.forEach((rel, i) => {
      const file = path.join(home, rel);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const newest = i === rels.length - 1;
      fs.writeFileSync(file, newest ? `#!/bin/sh\nexec '${process.execPath}' "$@"\n` : `#!/bin/sh\ntouch '${marker}'\n`, { mode: 0o755 });
      const t = new Date(1_000_000_000_000 + i * 1_000_000);
      fs.utimesSync(file, t, t);
    });
    return { home, claudeDir, marker };
  }

  for (const [manager, older, newer] of [
    ['nvm', '.nvm/versions/node/v18.20.0/bin/node', '.nvm/versions/node/v22.1.0/bin/node'],
    ['volta', '.volta/tools/image/node/18.20.0/bin/node', '.volta/tools/image/node/22.1.0/bin/node'],
    ['fnm', '.local/share/fnm/node-versions/v18.20.0/installation/bin/node', '.local/share/fnm/node-versions/v22.1.0/installation/bin/node'],
    ['fnm (macOS folder)', 'Library/Application Support/fnm/node-versions/v18.20.0/installation/bin/node', 'Library/Application Support/fnm/node-versions/v22.1.0/installation/bin/node'],
  ] as const) {
    it(`no node on PATH: the newest ${manager} install reports, the older is not run`, function () {
      if (fixed.length) this.skip(); // a Homebrew or /usr/local node here comes first, as it should
      const { home, claudeDir, marker } = homeWith([older, newer]);
      const r = run({ PATH: pathWithoutNode(path.dirname(home)), HOME: home, CLAUDE_CONFIG_DIR: claudeDir }, hookInput({ tool_use_id: 'toolu_A' }));
      assert.deepEqual([r.status, r.stdout, r.stderr], [0, '', '']);
      assert.deepEqual(channelEvents(claudeDir).map((x) => x.event), ['pre']);
      assert.ok(!fs.existsSync(marker), 'the older install was not run');
    });
  }

  it('a version manager comes before VS Code Server; $NVM_DIR is honoured; a folder named node is skipped; always exit 0', function () {
    if (fixed.length) this.skip();
    const { home, claudeDir, marker } = homeWith(['.vscode-server/bin/abc/node', 'custom nvm/versions/node/v22.1.0/bin/node']);
    fs.mkdirSync(path.join(home, '.volta', 'tools', 'image', 'node', '99.0.0', 'bin', 'node'), { recursive: true });
    const env = { PATH: pathWithoutNode(path.dirname(home)), HOME: home, CLAUDE_CONFIG_DIR: claudeDir, NVM_DIR: path.join(home, 'custom nvm') };
    const r = run(env, hookInput({ tool_use_id: 'toolu_A' }));
    assert.deepEqual([r.status, r.stdout, r.stderr], [0, '', '']);
    assert.deepEqual(channelEvents(claudeDir).map((x) => x.event), ['pre']);
    assert.ok(!fs.existsSync(marker), 'VS Code Server\'s Node was not run');
    // Nothing anywhere: exit 0, silent.
    const empty = homeWith([]);
    assert.deepEqual([run({ PATH: pathWithoutNode(path.dirname(empty.home)), HOME: empty.home, CLAUDE_CONFIG_DIR: empty.claudeDir }, '{}').status], [0]);
  });
});

describe('settingsRunOurHook (the plugin hook\'s guard)', function () {
  const cmd = "'/n' '/h/.claude/transcript-lag/bin/transcript-lag-hook.js'";
  const settings = (hooks: unknown) => JSON.stringify({ hooks });
  it('finds install-hook\'s entry for the event asked, only that event', function () {
    const text = settings({ PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: 'other' }, { type: 'command', command: cmd }] }] });
    assert.equal(settingsRunOurHook(text, 'PreToolUse'), true);
    assert.equal(settingsRunOurHook(text, 'PostToolUse'), false);
  });
  it('stands aside for install-hook\'s exec form too (the hook file is in args, the command is Node)', function () {
    const exec = { type: 'command', command: 'C:\\Program Files\\nodejs\\node.exe', args: ['C:\\Users\\me\\.claude\\transcript-lag\\bin\\transcript-lag-hook.js', '--channel-dir', 'C:\\Users\\me\\.claude\\transcript-lag'] };
    assert.equal(settingsRunOurHook(settings({ PostToolUse: [{ matcher: '*', hooks: [exec] }] }), 'PostToolUse'), true);
    assert.equal(settingsRunOurHook(settings({ PostToolUse: [{ matcher: '*', hooks: [{ ...exec, args: ['C:\\hooks\\mine.js'] }] }] }), 'PostToolUse'), false);
  });
  it('stands aside for the Windows launcher entry (a runtime that needs an environment: transcript-lag-hook.cmd)', function () {
    const launcher = { type: 'command', command: 'C:/Users/me/.claude/transcript-lag/bin/transcript-lag-hook.cmd' };
    assert.equal(settingsRunOurHook(settings({ PreToolUse: [{ matcher: '*', hooks: [launcher] }] }), 'PreToolUse'), true);
    assert.equal(settingsRunOurHook(settings({ PreToolUse: [{ matcher: '*', hooks: [{ ...launcher, command: 'C:/hooks/mine.cmd' }] }] }), 'PreToolUse'), false);
  });
  it('a file name elsewhere in the settings is not an entry', function () {
    assert.equal(settingsRunOurHook(JSON.stringify({ env: { X: cmd }, hooks: { PreToolUse: [] } }), 'PreToolUse'), false);
    assert.equal(settingsRunOurHook(settings({ PreToolUse: [{ hooks: [{ type: 'http', command: cmd }] }] }), 'PreToolUse'), false);
  });
  it('stands aside for install-hook --http\'s exact entry too, not for another http hook on the same port', function () {
    const ours = { type: 'http', url: 'http://127.0.0.1:41877/hook', timeout: 1, headers: { 'X-Transcript-Lag-Secret': 's3cret' }, onFailure: 'continue' };
    assert.equal(settingsRunOurHook(settings({ PreToolUse: [{ matcher: '*', hooks: [ours] }] }), 'PreToolUse'), true);
    assert.equal(settingsRunOurHook(settings({ PreToolUse: [{ matcher: '*', hooks: [ours] }] }), 'PostToolUse'), false);
    const { headers: _h, ...noSecret } = ours;
    for (const other of [noSecret, { ...ours, url: 'http://127.0.0.1:41877/other' }, { ...ours, url: 'http://example.com:41877/hook' }, { ...ours, type: 'command' }]) {
      assert.equal(settingsRunOurHook(JSON.stringify({ env: { H: 'X-Transcript-Lag-Secret' }, hooks: { PreToolUse: [{ hooks: [other] }] } }), 'PreToolUse'), false, JSON.stringify(other));
    }
  });
  it('no settings, or settings without our file: reports', function () {
    assert.equal(settingsRunOurHook(undefined, 'PreToolUse'), false);
    assert.equal(settingsRunOurHook('{ // comment\n}', 'PreToolUse'), false);
  });
  it('settings it cannot parse that name our file: stands aside rather than report twice', function () {
    assert.equal(settingsRunOurHook(`{ // ours\n "hooks": {"PreToolUse": [{"hooks": [{"command": ${JSON.stringify(cmd)}}]}]}}`, 'PreToolUse'), true);
  });
});
