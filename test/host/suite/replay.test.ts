// Replay Hook on Session…: the CLI's replay run from the editor on a session the views show, its
// table in a webview (the calls decided differently first), a click on a call opening the
// transcript at the call's record, and Cancel killing the running hook and removing its temp folder.
// The session is the interactive 2.1.332 fixture (its two calls held while their hooks ran), its
// working directory made this workspace's; the hooks are real processes.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { projectSlug } from '../../../src/core/discovery';
import { COMMANDS, REPLAY_VIEW_TYPE } from '../../../src/presentation/commandIds';
import type { ReplayTableData } from '../../../src/presentation/replayTable';
import { repoRoot, scratchRoot } from './hostEnv';
import { closeAllEditors, eventually, extensionApi, newClaudeDir, useClaudeDir, workspaceFolder } from './support';

const FIXTURE_SESSION = '31fe55b3-cdf5-46f4-87b6-e09ef369569a';
const FIXTURE_CWD = '/home/dev/demo-interactive-parallel-2000/work';
const READ = 'toolu_field001r';
const BASH = 'toolu_field001b';

/** The fixture written into `claudeDir` as a session of this workspace; its path. */
function fixtureSession(claudeDir: string): string {
  const source = path.join(repoRoot(), 'test/fixtures/real/interactive-parallel-2000', `${FIXTURE_SESSION}.jsonl`);
  const file = path.join(claudeDir, 'projects', projectSlug(workspaceFolder()), `${FIXTURE_SESSION}.jsonl`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, fs.readFileSync(source, 'utf8').split(JSON.stringify(FIXTURE_CWD)).join(JSON.stringify(workspaceFolder())));
  return file;
}

/** The 1-based line of the assistant record that carries the call. */
function recordLine(transcript: string, id: string): number {
  const lines = fs.readFileSync(transcript, 'utf8').split('\n');
  const at = lines.findIndex((l) => l.includes('"type":"assistant"') && l.includes(`"id":${JSON.stringify(id)}`));
  assert.ok(at >= 0, `${id} has a record`);
  return at + 1;
}

/**
 * A reviewing hook: Read calls must be in the transcript it is handed (3 looks, 30 ms apart), else
 * it says no (JSON deny, or with `block` exit 2); other tools pass at once. The fixture's Read is
 * the first call of its message, which interactive 2.1.332 holds while its hooks run.
 */
function pollHook(): string {
  const file = path.join(scratchRoot(), 'replay-poll-hook.js');
  fs.writeFileSync(
    file,
    `const fs = require('fs');
let input = '';
process.stdin.on('data', (d) => (input += d)).on('end', async () => {
  const h = JSON.parse(input);
  if (h.tool_name !== 'Read') process.exit(0);
  for (let i = 0; i < 3; i++) {
    let t = '';
    try { t = fs.readFileSync(h.transcript_path, 'utf8'); } catch {}
    if (t.includes('"id":' + JSON.stringify(h.tool_use_id))) process.exit(0);
    await new Promise((r) => setTimeout(r, 30));
  }
  if (process.argv[2] === 'block') {
    process.stderr.write('<b>my call</b> is not in the transcript');
    process.exit(2);
  }
  process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: '<b>my call</b> is not in the transcript' } }));
});
`,
  );
  // In desktop VS Code process.execPath is Electron: ELECTRON_RUN_AS_NODE makes it plain Node.
  return `ELECTRON_RUN_AS_NODE=1 ${JSON.stringify(process.execPath)} ${JSON.stringify(file)}`;
}

/** The command links of the page, in row order, read back as VS Code reads a `command:` URI on a click. */
function rowLinks(html: string): Array<{ command: string; args: unknown[] }> {
  const unescape = (s: string) => s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  const links: Array<{ command: string; args: unknown[] }> = [];
  for (const row of html.split('<tr').slice(1)) {
    const href = /href="command:([^?"]+)\?([^"]*)"/.exec(row);
    if (href) links.push({ command: href[1]!, args: JSON.parse(decodeURIComponent(unescape(href[2]!))) as unknown[] });
  }
  return links;
}

const callOrder = (html: string) => [...html.matchAll(/<tr class="(differs|same)" data-call="([^"]*)"/g)].map((m) => `${m[2]} ${m[1]}`);

function replayTabs(): vscode.Tab[] {
  return vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith(REPLAY_VIEW_TYPE));
}

function activeLine(): { path: string; line: number } | undefined {
  const ed = vscode.window.activeTextEditor;
  return ed && { path: ed.document.uri.fsPath, line: ed.selection.active.line + 1 };
}

/** The process is gone, or a zombie nobody has reaped yet, within 2 s. */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 40; i++) {
    let state: string | undefined;
    try {
      state = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '')[0];
    } catch {
      try {
        process.kill(pid, 0);
      } catch {
        return true;
      }
    }
    if (state === 'Z' || state === 'X') return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

describe('replay hook on session', function () {
  this.timeout(60_000);
  let transcript: string;

  before(async () => {
    const api = await extensionApi();
    const dir = newClaudeDir('replay');
    await useClaudeDir(api, dir);
    transcript = fixtureSession(dir);
    await eventually(api, 'the fixture session to be listed', () => api.treeItems().some((n) => n.session_id === FIXTURE_SESSION), 30_000);
  });
  after(closeAllEditors);

  it('shows the per-call table, the call decided differently first: live deny, complete allow; a click opens its record line', async () => {
    const api = await extensionApi();
    const data = await vscode.commands.executeCommand<ReplayTableData>(COMMANDS.replayHook, { session_id: FIXTURE_SESSION, command: pollHook() });
    assert.equal(data?.state, 'done', JSON.stringify(data?.notes));
    const view = api.replayView()!;
    assert.deepEqual(view.data, data);
    await eventually(api, 'the table in a webview tab', () => replayTabs().length === 1);
    // Replayed Read then Bash; Read, held while its hook ran, was decided differently: it comes first.
    assert.deepEqual(callOrder(view.html), [`${READ} differs`, `${BASH} same`]);
    const [read, bash] = data.rows;
    assert.deepEqual(
      [read!.tool_use_id, read!.tool, read!.basis, read!.live.decision, read!.live.reason, read!.complete.decision, read!.differs],
      [READ, 'Read', 'model', 'deny', '<b>my call</b> is not in the transcript', 'allow', true],
    );
    // Each live run, when the record landed and what the hook decided, in the CLI's words; where the measure allows a
    // landing while the hooks run too (landings.json), the runs differ and the row says it depends on timing.
    assert.ok(read!.timings.endsWith('not while it ran deny'), read!.timings);
    assert.equal(read!.timing_dependent, read!.timings.includes(' allow'), read!.timings);
    // How each run ended, and what it was handed: the live copy at the fire is shorter than the complete one.
    assert.deepEqual([read!.live.exit, read!.complete.exit], ['exit 0', 'exit 0']);
    const [liveBytes, completeBytes] = read!.bytes.split(' / ').map(Number);
    assert.ok(liveBytes! < completeBytes!, read!.bytes);
    // The page says it in words: differs, the next step (the message tool, the complete wrapper), the command on its own line.
    assert.match(view.html, new RegExp(`data-call="${READ}"><td>.*<span class="flag">differs</span>`));
    assert.match(view.html, /<p class="next-step">Next: .*<code>transcript-lag message<\/code>.*<code>node ~\/\.claude\/transcript-lag\/bin\/transcript-lag-complete\.js -- &lt;your hook&gt;<\/code>/);
    assert.ok(view.html.includes(`<pre class="command"><code>${pollHook().replace(/&/g, '&amp;').replace(/"/g, '&quot;')}</code></pre>`));
    assert.match(view.html, /<dt>Basis<\/dt><dd>where those times come from: channel: .*; model: /);
    assert.deepEqual([bash!.tool_use_id, bash!.live.decision, bash!.complete.decision, bash!.differs], [BASH, 'allow', 'allow', false]);
    assert.deepEqual([read!.line, bash!.line], [recordLine(transcript, READ), recordLine(transcript, BASH)]);
    // Drawn as text, not markup; the verdict says what the CLI says.
    assert.ok(view.html.includes('&lt;b&gt;my call&lt;/b&gt; is not in the transcript') && !view.html.includes('<b>'));
    assert.match(data.verdict, /^Decided differently on 1 of 2 calls: your hook depends on its call being in the transcript, which it is not while it runs[.;]/);

    // The click: the Read row's link, run as VS Code runs a command link of the page.
    const [link] = rowLinks(view.html);
    assert.equal(link!.command, COMMANDS.openCall);
    await vscode.commands.executeCommand(link!.command, ...link!.args);
    const at = await eventually(api, 'the transcript at the call', () => activeLine()?.path === transcript && activeLine());
    assert.equal(at.line, recordLine(transcript, READ));
    assert.deepEqual([api.lastReveal()?.tool_use_id, api.lastReveal()?.line], [READ, recordLine(transcript, READ)]);
  });

  it('the hook picker runs a command typed into its box: with no hook configured, Enter replays what was typed', async () => {
    const api = await extensionApi();
    const replaying = vscode.commands.executeCommand<ReplayTableData>(COMMANDS.replayHook, { session_id: FIXTURE_SESSION });
    const picker = await eventually(api, 'the hook picker', () => api.hookPicker());
    assert.match(picker.placeholder(), /^No PreToolUse command hook in the settings: type the command your hook runs, then Enter$/);
    assert.deepEqual(picker.items(), ['Type a command…']);
    const command = pollHook();
    picker.type(command);
    // The workbench reports the text back; the picker makes it an item, first, that its own text cannot filter away.
    await eventually(api, 'the typed command listed to run', () => api.hookPicker()?.items()[0] === `Run: ${command}`);
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    const data = await replaying;
    assert.equal(data?.state, 'done', JSON.stringify(data?.notes));
    assert.equal(data.hooks, command);
    assert.deepEqual(data.rows.map((r) => [r.tool_use_id, r.live.decision, r.complete.decision]), [[READ, 'deny', 'allow'], [BASH, 'allow', 'allow']]);
    assert.equal(api.hookPicker(), undefined, 'the picker is gone');
  });

  it("all configured hooks: the session's project settings, each on the calls its matcher takes", async () => {
    const api = await extensionApi();
    const settings = path.join(workspaceFolder(), '.claude', 'settings.json');
    fs.mkdirSync(path.dirname(settings), { recursive: true });
    fs.writeFileSync(settings, JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Read', hooks: [{ type: 'command', command: `${pollHook()} block` }] }] } }));
    try {
      const data = await vscode.commands.executeCommand<ReplayTableData>(COMMANDS.replayHook, { session_id: FIXTURE_SESSION, configured: 'all' });
      assert.equal(data?.state, 'done', JSON.stringify(data?.notes));
      assert.deepEqual(
        data.rows.map((r) => [r.tool_use_id, r.live.decision, r.live.reason, r.complete.decision, r.hook]),
        [[READ, 'block', '<b>my call</b> is not in the transcript', 'allow', `${pollHook()} block`]],
      );
      assert.ok(data.notes.includes('1 call(s) matched no hook'), JSON.stringify(data.notes));
      assert.deepEqual(callOrder(api.replayView()!.html), [`${READ} differs`]);
    } finally {
      fs.rmSync(path.dirname(settings), { recursive: true, force: true });
    }
  });

  it("the session's channel file, when there is one, says what the hook saw (basis channel)", async () => {
    const api = await extensionApi();
    // Our hook's pre event for the Read call, at its start, found the record: it was on disk while the hooks ran.
    const text = fs.readFileSync(transcript, 'utf8');
    const seen = Buffer.byteLength(text.split('\n').slice(0, recordLine(transcript, READ)).join('\n') + '\n');
    const channel = path.join(api.claudeDir(), 'transcript-lag', `${FIXTURE_SESSION}.jsonl`);
    fs.mkdirSync(path.dirname(channel), { recursive: true });
    const at = Date.parse('2026-11-30T08:05:40.000Z');
    const pre = { v: 1, event: 'pre', at, session_id: FIXTURE_SESSION, transcript_path: transcript, tool_use_id: READ, tool_name: 'Read', bytes_on_disk: seen, record_on_disk: true, result_on_disk: false, checked_at: at, mode: 'announce', source: 'transcript-lag-hook' };
    fs.writeFileSync(channel, `${JSON.stringify(pre)}\n`);
    try {
      const data = await vscode.commands.executeCommand<ReplayTableData>(COMMANDS.replayHook, { session_id: FIXTURE_SESSION, command: pollHook() });
      assert.equal(data?.state, 'done', JSON.stringify(data?.notes));
      const read = data.rows.find((r) => r.tool_use_id === READ)!;
      // Not held until the hooks ended, as the channel proves: no run without the record while the hook runs.
      assert.deepEqual([read.basis, read.complete.decision], ['channel', 'allow']);
      assert.ok(!read.timings.includes('not while it ran'), read.timings);
      assert.notEqual(read.live.decision, 'deny');
      assert.equal(data.rows.find((r) => r.tool_use_id === BASH)!.basis, 'model');
    } finally {
      fs.rmSync(channel, { force: true });
    }
  });

  it("Cancel kills the running hook's process group and removes the temp folder", async () => {
    const api = await extensionApi();
    const dir = fs.mkdtempSync(path.join(scratchRoot(), 'replay-cancel-'));
    const pids = path.join(dir, 'pids');
    const seen = path.join(dir, 'config');
    const command = `echo "$CLAUDE_CONFIG_DIR" > '${seen}'; sleep 30 & echo $! >> '${pids}'; sleep 30`;
    const replaying = vscode.commands.executeCommand<ReplayTableData>(COMMANDS.replayHook, { session_id: FIXTURE_SESSION, command });
    await eventually(api, 'the hook to start', () => fs.existsSync(pids) && fs.readFileSync(pids, 'utf8').trim() !== '');
    assert.equal(api.replayView()?.data.state, 'running');
    const started = Date.now();
    assert.equal(api.cancelReplay(), true);
    const data = await replaying;
    assert.ok(Date.now() - started < 10_000, `${Date.now() - started} ms`);
    assert.equal(data.state, 'cancelled');
    assert.deepEqual(data.rows, [], 'no call finished both runs');
    assert.ok(await gone(Number(fs.readFileSync(pids, 'utf8').trim())), "the hook's child is killed with it");
    const tmp = path.dirname(path.dirname(fs.readFileSync(seen, 'utf8').trim()));
    assert.match(path.basename(tmp), /^transcript-lag-replay-/);
    assert.ok(!fs.existsSync(tmp), 'the temp folder is removed');
    assert.equal(api.cancelReplay(), false, 'nothing runs any more');
  });

  it("closing the table's tab mid-run stops the replay: the hook's group killed, the temp folder removed", async () => {
    const api = await extensionApi();
    const dir = fs.mkdtempSync(path.join(scratchRoot(), 'replay-close-'));
    const pids = path.join(dir, 'pids');
    const seen = path.join(dir, 'config');
    // It ignores SIGTERM: only the group's SIGKILL ends it.
    const command = `echo "$CLAUDE_CONFIG_DIR" > '${seen}'; trap '' TERM; sleep 30 & echo $! >> '${pids}'; sleep 30`;
    const replaying = vscode.commands.executeCommand<ReplayTableData>(COMMANDS.replayHook, { session_id: FIXTURE_SESSION, command });
    await eventually(api, 'the hook to start', () => fs.existsSync(pids) && fs.readFileSync(pids, 'utf8').trim() !== '');
    await eventually(api, 'the table in a webview tab', () => replayTabs().length === 1);
    const started = Date.now();
    assert.equal(await vscode.window.tabGroups.close(replayTabs()), true);
    const data = await replaying;
    assert.ok(Date.now() - started < 10_000, `${Date.now() - started} ms`);
    assert.equal(data.state, 'cancelled');
    assert.ok(await gone(Number(fs.readFileSync(pids, 'utf8').trim())), "the hook's child is killed with it");
    const tmp = path.dirname(path.dirname(fs.readFileSync(seen, 'utf8').trim()));
    assert.match(path.basename(tmp), /^transcript-lag-replay-/);
    assert.ok(!fs.existsSync(tmp), 'the temp folder is removed');
    assert.equal(api.cancelReplay(), false, 'nothing runs any more');
    assert.equal(replayTabs().length, 0);
  });
});
