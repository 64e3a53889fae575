// Shared helpers for the host suite: the extension's test API, fresh Claude dirs
// switched in through the real setting, transcripts written as Claude Code writes
// them, and the bundled hook run as a real process with a real payload on stdin.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { projectSlug } from '../../../src/core/discovery';
import { CONFIG_SECTION } from '../../../src/presentation/commandIds';
import type { TranscriptLagApi } from '../../../src/vscode/testApi';
import { EXTENSION_ID, hookScript, scratchRoot } from './hostEnv';

export async function extensionApi(): Promise<TranscriptLagApi> {
  const ext = vscode.extensions.getExtension<TranscriptLagApi>(EXTENSION_ID);
  if (!ext) throw new Error(`${EXTENSION_ID} is not loaded`);
  return ext.activate();
}

/**
 * Re-checks `check` after each engine poll and view render until it returns a
 * value (not undefined / false). The engine and views are asynchronous by
 * nature (file watcher, webviews, editors), so host tests wait for a state,
 * never for a fixed time; the bound only turns a hang into a failure.
 */
export async function eventually<T>(
  api: TranscriptLagApi,
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 10_000,
): Promise<T> {
  const started = Date.now();
  let lastError: unknown;
  for (;;) {
    // Bounded too: an engine whose poll never returns (a fold in a loop) fails here, saying what was awaited.
    const polled = await settlesWithin(api.refresh(), Math.max(timeoutMs - (Date.now() - started), 1_000));
    if (!polled) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}: the extension's poll (api.refresh) did not return`);
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() - started > timeoutMs) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${lastError}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Whether `p` settles within `ms` (its rejection is thrown); false when it is still pending then. */
export async function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([p.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A line in the suite's progress log (what the runner prints as it runs): measured times, for one. */
export function note(line: string): void {
  const file = process.env.TRANSCRIPT_LAG_HOST_LOG;
  if (file) fs.appendFileSync(file, `    ${line}\n`);
  else console.log(line);
}

/**
 * Waits until the extension follows the session's transcript. Lag is measured
 * only for records that land while the engine watches (a record already on disk
 * at first sight has no observed arrival), as in real use, where a session's
 * transcript exists before its first tool call.
 */
export async function sessionFollowed(api: TranscriptLagApi, session: FakeSession): Promise<void> {
  await eventually(api, `session ${session.sessionId} to be listed`, () => api.treeItems().some((n) => n.session_id === session.sessionId));
}

export function workspaceFolder(): string {
  const f = vscode.workspace.workspaceFolders?.[0];
  if (!f) throw new Error('no workspace folder open');
  return f.uri.fsPath;
}

let dirCount = 0;
/** A new, empty Claude dir under the run's scratch root. */
export function newClaudeDir(label: string): string {
  const dir = path.join(scratchRoot(), `claude-${++dirCount}-${label}`);
  fs.mkdirSync(path.join(dir, 'projects'), { recursive: true });
  return dir;
}

export async function setSetting(key: string, value: unknown): Promise<void> {
  await vscode.workspace.getConfiguration(CONFIG_SECTION).update(key, value, vscode.ConfigurationTarget.Global);
}

/** Points the running extension at `dir` through the `transcriptLag.claudeDir` setting. */
export async function useClaudeDir(api: TranscriptLagApi, dir: string): Promise<void> {
  await setSetting('claudeDir', dir);
  await eventually(api, `the extension to use ${dir}`, () => api.claudeDir() === dir && api.engine() !== undefined);
}

/** A Claude Code session transcript under `<claudeDir>/projects/<slug of cwd>/`, written record by record. */
export class FakeSession {
  readonly sessionId = randomUUID();
  readonly transcriptPath: string;
  private parent: string | null = null;
  private clock = Date.now() - 30_000;
  private gitBranch: string | undefined;

  constructor(
    readonly claudeDir: string,
    readonly cwd: string = workspaceFolder(),
  ) {
    this.transcriptPath = path.join(claudeDir, 'projects', projectSlug(cwd), `${this.sessionId}.jsonl`);
    fs.mkdirSync(path.dirname(this.transcriptPath), { recursive: true });
  }

  private common(): Record<string, unknown> {
    const uuid = randomUUID();
    const rec = {
      parentUuid: this.parent,
      isSidechain: false,
      uuid,
      timestamp: new Date((this.clock += 400)).toISOString(),
      cwd: this.cwd,
      sessionId: this.sessionId,
      version: '2.1.332',
      ...(this.gitBranch === undefined ? {} : { gitBranch: this.gitBranch }),
      userType: 'external',
    };
    this.parent = uuid;
    return rec;
  }

  /** The time of its first record (the next record's timestamp is 400 ms after it). */
  startingAt(ms: number): this {
    this.clock = ms - 400;
    return this;
  }

  /** The git branch the following records name (`gitBranch`), as Claude Code writes it in a repository. */
  onBranch(name: string): this {
    this.gitBranch = name;
    return this;
  }

  prompt(text: string): this {
    return this.append({ ...this.common(), type: 'user', message: { role: 'user', content: text } });
  }

  toolUse(id: string, name: string, input: Record<string, unknown> = {}): this {
    return this.append({
      ...this.common(),
      type: 'assistant',
      message: { id: `msg_${id}`, type: 'message', role: 'assistant', content: [{ type: 'tool_use', id, name, input }], stop_reason: 'tool_use' },
    });
  }

  toolResult(id: string, content = 'ok'): this {
    return this.append({
      ...this.common(),
      type: 'user',
      message: { role: 'user', content: [{ tool_use_id: id, type: 'tool_result', content, is_error: false }] },
    });
  }

  /** The call's record and its result in one write, as Claude Code writes a record held until its result. */
  toolUseWithResult(id: string, name: string): this {
    const before = fs.existsSync(this.transcriptPath) ? fs.statSync(this.transcriptPath).size : 0;
    this.toolUse(id, name).toolResult(id);
    const both = fs.readFileSync(this.transcriptPath).subarray(before);
    fs.truncateSync(this.transcriptPath, before);
    fs.appendFileSync(this.transcriptPath, both);
    return this;
  }

  title(text: string): this {
    return this.append({ type: 'ai-title', aiTitle: text, sessionId: this.sessionId });
  }

  append(record: Record<string, unknown>): this {
    fs.appendFileSync(this.transcriptPath, JSON.stringify(record) + '\n');
    return this;
  }

  lineCount(): number {
    return fs.readFileSync(this.transcriptPath, 'utf8').split('\n').filter((l) => l.length > 0).length;
  }

  preToolUse(toolUseId: string, toolName: string): Record<string, unknown> {
    return {
      session_id: this.sessionId,
      transcript_path: this.transcriptPath,
      cwd: this.cwd,
      hook_event_name: 'PreToolUse',
      tool_name: toolName,
      tool_input: { command: 'true' },
      tool_use_id: toolUseId,
    };
  }

  postToolUse(toolUseId: string, toolName: string): Record<string, unknown> {
    return { ...this.preToolUse(toolUseId, toolName), hook_event_name: 'PostToolUse', tool_response: { stdout: '' } };
  }
}

export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command line through a shell, as Claude Code runs hook commands. */
export function runShell(command: string, stdin: string, env: NodeJS.ProcessEnv): Promise<ProcessResult> {
  return collect(spawn('/bin/sh', ['-c', command], { env, stdio: ['pipe', 'pipe', 'pipe'] }), stdin);
}

/**
 * The bundled hook (dist/hook.js) with a hook payload on stdin. The Claude dir
 * comes through CLAUDE_CONFIG_DIR, as Claude Code passes it on. In desktop VS Code
 * process.execPath is Electron: ELECTRON_RUN_AS_NODE makes it plain Node.
 */
export function runHook(claudeDir: string, payload: object, args: string[] = []): Promise<ProcessResult> {
  const child = spawn(process.execPath, [hookScript(), ...args], {
    env: { ...process.env, CLAUDE_CONFIG_DIR: claudeDir, ELECTRON_RUN_AS_NODE: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return collect(child, JSON.stringify(payload));
}

function collect(child: ReturnType<typeof spawn>, stdin: string): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d) => (stdout += d));
    child.stderr?.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin?.end(stdin);
  });
}

/** Closes every editor and panel so each test starts from a clean workbench. */
export async function closeAllEditors(): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
}
