// The world the end-to-end test sets up outside VS Code: a temp HOME with a
// Claude dir (~/.claude), a project folder, a transcript of a session in that
// folder, and the hook installed by our own CLI, run exactly as Claude Code would.
import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Claude Code's project folder name: every character outside [A-Za-z0-9] becomes '-'. */
export function projectSlug(folder) {
  return folder.replace(/[^A-Za-z0-9]/g, '-');
}

export function makeScenario() {
  // A short root keeps the slug short (Claude Code hashes very long ones).
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tl-e2e-')));
  const home = path.join(root, 'home');
  const claudeDir = path.join(home, '.claude');
  const workspace = path.join(root, 'project');
  const sessionId = randomUUID();
  const transcript = path.join(claudeDir, 'projects', projectSlug(workspace), `${sessionId}.jsonl`);
  for (const d of [home, workspace, path.dirname(transcript)]) fs.mkdirSync(d, { recursive: true });
  fs.writeFileSync(path.join(workspace, 'notes.md'), '# a project Claude Code works in\n');
  return {
    root,
    home,
    claudeDir,
    workspace,
    sessionId,
    transcript,
    userData: path.join(root, 'user-data'),
    extensions: path.join(root, 'extensions'),
  };
}

/** Records shaped like Claude Code 2.1's (see test/fixtures/real), one JSON object per line. */
export function transcriptRecords(s) {
  let parent = null;
  let clock = Date.now() - 60_000;
  const common = () => {
    const uuid = randomUUID();
    const rec = { parentUuid: parent, isSidechain: false, uuid, timestamp: new Date((clock += 500)).toISOString(), cwd: s.workspace, sessionId: s.sessionId, version: '2.1.332', userType: 'external' };
    parent = uuid;
    return rec;
  };
  return {
    prompt: (text) => ({ ...common(), type: 'user', message: { role: 'user', content: text } }),
    toolUse: (id, name, input, messageId = `msg_${id}`) => ({
      ...common(),
      type: 'assistant',
      message: { id: messageId, type: 'message', role: 'assistant', model: 'claude-opus-5-5', content: [{ type: 'tool_use', id, name, input }], stop_reason: 'tool_use', stop_sequence: null },
    }),
    toolResult: (id, content) => ({
      ...common(),
      type: 'user',
      message: { role: 'user', content: [{ tool_use_id: id, type: 'tool_result', content, is_error: false }] },
    }),
  };
}

export function appendRecords(file, records) {
  fs.appendFileSync(file, records.map((r) => JSON.stringify(r) + '\n').join(''));
}

export function lineCount(file) {
  const text = fs.readFileSync(file, 'utf8');
  return text.split('\n').filter((l) => l.length > 0).length;
}

/** `transcript-lag install-hook --claude-dir <dir>` with the packaged CLI. */
export function installHook(repoRoot, s) {
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'dist', 'cli.js'), 'install-hook', '--claude-dir', s.claudeDir], {
    env: { ...process.env, HOME: s.home, CLAUDE_CONFIG_DIR: '' },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`install-hook failed (${r.status}): ${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** The command install-hook wrote for an event, read back from settings.json as Claude Code reads it. */
export function hookCommandFromSettings(s, event) {
  const settings = JSON.parse(fs.readFileSync(path.join(s.claudeDir, 'settings.json'), 'utf8'));
  const commands = (settings.hooks?.[event] ?? []).flatMap((m) => m.hooks ?? []).map((h) => h.command).filter(Boolean);
  const ours = commands.filter((c) => /transcript-lag|hook\.js/.test(c));
  if (ours.length !== 1) throw new Error(`expected one transcript-lag ${event} hook in settings.json, found ${JSON.stringify(commands)}`);
  return ours[0];
}

/** Runs a hook command the way Claude Code does: through a shell, the hook JSON on stdin. */
export function runHookCommand(command, payload, s) {
  const started = Date.now();
  const r = spawnSync('/bin/sh', ['-c', command], {
    input: JSON.stringify(payload),
    cwd: s.workspace,
    env: { PATH: process.env.PATH, HOME: s.home, CLAUDE_PROJECT_DIR: s.workspace },
    encoding: 'utf8',
    timeout: 15_000,
  });
  if (r.status !== 0) throw new Error(`hook command exited ${r.status}: ${r.stderr}`);
  if (r.stdout !== '') throw new Error(`the hook wrote to stdout, which Claude Code reads as a decision: ${JSON.stringify(r.stdout)}`);
  return Date.now() - started;
}

export function preToolUsePayload(s, toolUseId, toolName, toolInput) {
  return {
    session_id: s.sessionId,
    transcript_path: s.transcript,
    cwd: s.workspace,
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: toolName,
    tool_input: toolInput,
    tool_use_id: toolUseId,
  };
}
