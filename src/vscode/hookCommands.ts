import * as vscode from 'vscode';
import { errorText } from './log';
import { pickNodeRuntime, type NodeRuntime } from './nodeRuntime';

/** What the Install Hook commands ask of src/platform/hookInstaller.ts (adapted in extension.ts). */
export interface HookInstallRequest {
  claudeDir: string;
  /** The bundled hook in the extension folder (`dist/hook.js`); the installer copies it under the Claude dir. */
  hookSource: string;
  runtime: NodeRuntime;
  /** Probe mode: the hook also waits for its own call, like a reviewing hook. */
  probe?: { polls: number; pollMs: number };
}

export interface HookInstallOutcome {
  settingsPath: string;
  /** False when settings.json already held exactly these entries (or, uninstalling, none). */
  changed: boolean;
  /** The command line written into settings.json. */
  command?: string;
  /** Windows: the entry runs in Git Bash but not in PowerShell (InstallHookResult.gitBashOnly). */
  gitBashOnly?: boolean;
}

export interface HookInstallerPort {
  install(req: HookInstallRequest): Promise<HookInstallOutcome>;
  uninstall(claudeDir: string): Promise<HookInstallOutcome>;
  /** wrap-hooks / unwrap-hooks on the Claude dir's settings.json (src/platform/hookInstaller.ts); `count`: commands changed. */
  wrap(req: { claudeDir: string; runtime: NodeRuntime; wrapperSource: string }): Promise<HookInstallOutcome & { count: number }>;
  unwrap(claudeDir: string): Promise<HookInstallOutcome & { count: number }>;
}

export interface HookCommandDeps {
  installer: HookInstallerPort;
  claudeDir(): string;
  hookSource: string;
  /** The completing wrapper in the extension folder (`dist/cli-complete.js`), copied beside the hook copy. */
  wrapperSource?: string;
  probeSettings(): { polls: number; pollMs: number };
  log: vscode.LogOutputChannel;
  afterInstall?(): void;
}

async function showSettings(settingsPath: string): Promise<void> {
  await vscode.window.showTextDocument(vscode.Uri.file(settingsPath), { preview: true });
}

/** Install Hook / Install Hook (Probe Mode); returns the outcome for tests, undefined on failure. */
export async function installHookCommand(deps: HookCommandDeps, probe: boolean): Promise<HookInstallOutcome | undefined> {
  const claudeDir = deps.claudeDir();
  try {
    const runtime = await pickNodeRuntime();
    deps.log.info(`Installing the hook (${probe ? 'probe' : 'announce'} mode) in ${claudeDir} with ${runtime.command} (${runtime.source === 'path' ? 'node on PATH' : "the editor's runtime"})`);
    const outcome = await deps.installer.install({
      claudeDir,
      hookSource: deps.hookSource,
      runtime,
      probe: probe ? deps.probeSettings() : undefined,
    });
    if (outcome.command) deps.log.info(`Hook command: ${outcome.command}`);
    deps.afterInstall?.();
    const what = outcome.changed ? 'installed' : 'already installed';
    const note = runtime.source === 'editor' ? ' (no `node` on PATH: it runs with this editor\'s runtime)' : '';
    const open = 'Open settings.json';
    const message = `Transcript Lag hook ${what}${probe ? ' in probe mode' : ''}${note}. It applies to new Claude Code tool calls.`;
    // Said, not hidden in the log: where Claude Code uses PowerShell (no Git Bash), this entry does not run.
    const shown = outcome.gitBashOnly
      ? vscode.window.showWarningMessage(`${message} It runs in Git Bash but not in PowerShell: a path in it has a space or the like, which PowerShell cannot run unquoted. With Claude Code 2.1.139+ on PATH, Install Hook writes an entry that needs no shell.`, open)
      : vscode.window.showInformationMessage(message, open);
    void shown.then((pick) => (pick === open ? showSettings(outcome.settingsPath) : undefined));
    return outcome;
  } catch (err) {
    // The installer refuses an invalid settings.json and leaves it untouched: say so plainly.
    deps.log.error(`Install hook failed: ${errorText(err)}`);
    void vscode.window.showErrorMessage(`Transcript Lag: could not install the hook: ${errorText(err)}`);
    return undefined;
  }
}

export async function uninstallHookCommand(deps: HookCommandDeps): Promise<HookInstallOutcome | undefined> {
  const claudeDir = deps.claudeDir();
  try {
    const outcome = await deps.installer.uninstall(claudeDir);
    deps.log.info(`Uninstall hook in ${claudeDir}: ${outcome.changed ? 'removed' : 'nothing to remove'}`);
    void vscode.window.showInformationMessage(
      outcome.changed ? 'Transcript Lag hook removed; other hooks were left as they were.' : 'Transcript Lag hook was not installed.',
    );
    return outcome;
  } catch (err) {
    deps.log.error(`Uninstall hook failed: ${errorText(err)}`);
    void vscode.window.showErrorMessage(`Transcript Lag: could not uninstall the hook: ${errorText(err)}`);
    return undefined;
  }
}

/**
 * Wrap Hooks / Unwrap Hooks: every PreToolUse command hook of settings.json behind `transcript-lag
 * complete` (so a hook that reads the transcript sees its held call), or given back as it was.
 */
export async function wrapHooksCommand(deps: HookCommandDeps, wrap: boolean): Promise<(HookInstallOutcome & { count: number }) | undefined> {
  const claudeDir = deps.claudeDir();
  try {
    const outcome = wrap
      ? await deps.installer.wrap({ claudeDir, runtime: await pickNodeRuntime(), wrapperSource: deps.wrapperSource ?? deps.hookSource.replace(/hook\.js$/, 'cli-complete.js') })
      : await deps.installer.unwrap(claudeDir);
    deps.log.info(`${wrap ? 'Wrap' : 'Unwrap'} hooks in ${outcome.settingsPath}: ${outcome.count} command${outcome.count === 1 ? '' : 's'}`);
    const open = 'Open settings.json';
    const message = outcome.count === 0
      ? `Transcript Lag: no PreToolUse command hook to ${wrap ? 'wrap' : 'unwrap'}.`
      : `Transcript Lag: ${outcome.count} PreToolUse hook${outcome.count === 1 ? '' : 's'} ${wrap ? 'now see their held call in the transcript' : 'given back as they were'}. It applies to new Claude Code tool calls.`;
    void vscode.window.showInformationMessage(message, open).then((pick) => (pick === open ? showSettings(outcome.settingsPath) : undefined));
    return outcome;
  } catch (err) {
    deps.log.error(`${wrap ? 'Wrap' : 'Unwrap'} hooks failed: ${errorText(err)}`);
    void vscode.window.showErrorMessage(`Transcript Lag: could not ${wrap ? 'wrap' : 'unwrap'} the hooks: ${errorText(err)}`);
    return undefined;
  }
}
