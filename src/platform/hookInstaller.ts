import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { channelDirOf, installedHookPathOf } from '../rules/channelPaths';
import { buildHookExec, buildShellForm, cmdExeOf, hookLauncherText, hookTimeoutSeconds, launcherExec, launcherRefusal, shellFormOf, type HookCommandSpec } from '../core/settings/hookCommand';
import { supportsExecForm } from '../core/compat/claudeCode';
import { COMPLETE_TOOL_FILE_NAME, HOOK_BIN_DIR_NAME, HOOK_LAUNCHER_FILE_NAME } from '../rules/channelConstants';
import { unwrapPreToolUseHooks, wrapPreToolUseHooks, type WrapResult } from '../core/settings/wrapHooks';
import { nodeOnPathIs } from './nodeOnPath';
import { claudeCodeVersion } from './claudeCodeVersion';
import { HOOK_PATH } from './hookReceiver';
import { DEFAULT_HTTP_HOOK_PORT, newHttpHookSecret, readHttpHookConfig, removeHttpHookConfig, writeHttpHookConfig } from './httpConfigFile';
import { installHookEntries, uninstallHookEntries } from '../core/settings/hookEntries';
import { copyAtomically, writeAtomically, type RenameDeps } from '../rules/renameReplacing';
import { requireOwnBinFolder } from '../rules/binFolder';
import { updateSettingsFile, type SettingsFileUpdate } from './settingsFile';

// Installs the reporting hook for Claude Code: a stable copy of dist/hook.js
// under the Claude dir (so settings.json never points into an extension folder
// that changes with every update) and our two entries in settings.json.
// Used by the CLI (install-hook / uninstall-hook) and by the VS Code extension.

export interface InstallHookOptions {
  claudeDir: string;
  /** The bundled hook to copy (dist/hook.js). */
  hookSourcePath: string;
  /** Absolute path of the runtime that will run the hook. */
  nodePath: string;
  /** Environment placed before the runtime, e.g. { ELECTRON_RUN_AS_NODE: '1' } for VS Code's own Electron. */
  nodeEnv?: Readonly<Record<string, string>>;
  probe: boolean;
  polls?: number;
  pollMs?: number;
  /** `http`: hooks POST to our receiver on 127.0.0.1:`port` instead of running a process per call. */
  transport?: 'command' | 'http';
  port?: number;
  /**
   * `exec`: the entry names the runtime and its arguments, run with no shell (Claude Code 2.1.139+,
   * see EXEC_FORM_SINCE in src/core/compat/claudeCode.ts: measured); falls back to the shell form when the runtime needs an environment
   * (nodeEnv). `auto`: exec when `claude --version` on the PATH of `env` says a version that has
   * it. Default `shell`: a command line for bash (Git Bash on Windows).
   */
  form?: 'exec' | 'shell' | 'auto';
  /** The environment `auto` looks for `claude` in, and the Windows form for `node` (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** The OS Claude Code runs on (default: this one's): `win32` writes the form Git Bash and PowerShell both run. */
  platform?: NodeJS.Platform;
}

export interface InstallHookResult extends SettingsFileUpdate {
  settingsPath: string;
  hookPath: string;
  channelDir: string;
  /** The command (exec form: the runtime and its arguments, space-joined), or for http hooks the URL, that settings.json now names. */
  command: string;
  /** The entry is in exec form (no shell). */
  execForm?: boolean;
  /**
   * Windows shell form only: the runtime's path could not be written bare and no `node` on PATH is
   * that runtime, so the entry runs in Git Bash but not in PowerShell.
   */
  gitBashOnly?: boolean;
  /** Windows, a runtime that needs an environment: the launcher file the entry names (hookLauncherText). */
  launcherPath?: string;
  /** form `auto`: what `claude --version` said, undefined when nothing answered. */
  claudeCodeVersion?: string;
  timeoutSec: number;
}

/** The http hook's timeout: the receiver answers at once, and a hung one must not hold a tool call for long. */
export const HTTP_HOOK_TIMEOUT_SEC = 1;

export function settingsPathOf(claudeDir: string): string {
  return path.join(claudeDir, 'settings.json');
}

export async function installHook(opts: InstallHookOptions): Promise<InstallHookResult> {
  if (opts.transport === 'http') return installHttpHook(opts);
  if (!path.isAbsolute(opts.nodePath)) throw new Error(`the Node path must be absolute: ${opts.nodePath}`);
  await fsp.access(opts.hookSourcePath).catch(() => {
    throw new Error(`hook not found at ${opts.hookSourcePath}; build it first (npm run build)`);
  });
  const claudeDir = path.resolve(opts.claudeDir);
  const channelDir = channelDirOf(claudeDir);
  const hookPath = installedHookPathOf(claudeDir);
  const platform = opts.platform ?? process.platform;
  const env = opts.env ?? process.env;
  const spec: HookCommandSpec = {
    nodePath: opts.nodePath, nodeEnv: opts.nodeEnv, hookPath, channelDir, probe: opts.probe, polls: opts.polls, pollMs: opts.pollMs,
    shells: platform === 'win32' ? 'windows' : 'posix',
  };
  const version = opts.form === 'auto' ? await claudeCodeVersion(env) : undefined;
  const wantsExec = opts.form === 'exec' || (opts.form === 'auto' && supportsExecForm(version));
  // Windows with a runtime that needs an environment: a launcher beside the hook sets it (a shell form
  // there can carry none, an exec form has no field for it); cmd.exe runs it in exec form.
  const launcherPath = spec.shells === 'windows' && Object.keys(opts.nodeEnv ?? {}).length > 0 ? path.join(path.dirname(hookPath), HOOK_LAUNCHER_FILE_NAME) : undefined;
  const refused = launcherPath !== undefined ? launcherRefusal(launcherPath) : undefined;
  if (refused !== undefined) throw new Error(refused);
  const launcherText = launcherPath !== undefined ? hookLauncherText(spec, env) : undefined;
  const exec = !wantsExec ? undefined : launcherPath ? launcherExec(launcherPath, cmdExeOf(env)) : buildHookExec(spec);
  const nodeOnPath = spec.shells === 'windows' && !exec && !launcherPath && (await nodeOnPathIs(opts.nodePath, env, platform));
  const shellForm = exec ? undefined : launcherPath ? shellFormOf({ nodePath: launcherPath, shells: 'windows' }, []) : buildShellForm({ ...spec, nodeOnPath });
  const command = exec ? [exec.command, ...exec.args].join(' ') : shellForm!.command;
  const entry = exec ? { command: exec.command, args: exec.args } : { command };
  const timeoutSec = hookTimeoutSeconds(spec);
  const settingsPath = settingsPathOf(claudeDir);
  const update = await updateSettingsFile(settingsPath, (text) => installHookEntries(text, { ...entry, timeoutSec }), {
    // The hook file (and its launcher) is in place before settings.json names it; refreshed even when the entries are unchanged.
    afterValidate: async () => {
      // bin/ a real folder of the user's that others cannot write (src/rules/binFolder.ts), else nothing is copied and settings.json is left as it was.
      requireOwnBinFolder(channelDir);
      await fsp.chmod(channelDir, 0o700);
      await copyAtomically(opts.hookSourcePath, hookPath);
      if (launcherPath !== undefined && launcherText !== undefined) await writeAtomically(launcherPath, launcherText);
    },
  });
  return { ...update, settingsPath, hookPath, channelDir, command, timeoutSec, execForm: exec !== undefined, gitBashOnly: shellForm?.gitBashOnly, launcherPath, claudeCodeVersion: version };
}

/**
 * http hooks: our entries POST to the receiver that `watch` and the extension
 * serve on 127.0.0.1 (src/platform/hookReceiver.ts). The secret is kept across
 * installs, so receivers already running go on accepting.
 */
async function installHttpHook(opts: InstallHookOptions): Promise<InstallHookResult> {
  if (opts.probe) throw new Error('probe mode needs the command hook: an http hook cannot wait for its call');
  const claudeDir = path.resolve(opts.claudeDir);
  const channelDir = channelDirOf(claudeDir);
  const known = await readHttpHookConfig(claudeDir);
  const config = { port: opts.port ?? known?.port ?? DEFAULT_HTTP_HOOK_PORT, secret: known?.secret ?? newHttpHookSecret() };
  const url = `http://127.0.0.1:${config.port}${HOOK_PATH}`;
  const settingsPath = settingsPathOf(claudeDir);
  const update = await updateSettingsFile(settingsPath, (text) => installHookEntries(text, { url, secret: config.secret, timeoutSec: HTTP_HOOK_TIMEOUT_SEC }), {
    // Our entries carry the secret in their header: settings.json and its backup are kept from others.
    private: true,
    // The receivers learn port and secret before settings.json sends anything there.
    afterValidate: async () => {
      await writeHttpHookConfig(claudeDir, config);
      await fsp.chmod(channelDir, 0o700);
    },
  });
  return { ...update, settingsPath, hookPath: '', channelDir, command: url, timeoutSec: HTTP_HOOK_TIMEOUT_SEC };
}

export interface UninstallHookResult extends SettingsFileUpdate {
  settingsPath: string;
  /** The hook copy was replaced by UNINSTALLED_HOOK_STUB: it reports nothing any more. */
  hookDisabled: boolean;
  /** transcript-lag/http.json was removed: no receiver serves the http hooks' port any more. */
  httpConfigRemoved: boolean;
}

/**
 * What uninstall leaves where the hook copy was. Claude Code reads its hooks
 * when a session starts, so sessions started before the uninstall go on
 * running our command on every tool call: with the file gone, node would print
 * a stack trace and exit 1 each time. An empty program exits 0 in silence.
 * install-hook writes the real hook over it.
 */
export const UNINSTALLED_HOOK_STUB =
  '// transcript-lag: the hook was uninstalled. Claude Code sessions started before that still run\n' +
  '// this file on every tool call; it does nothing, so they go on undisturbed. Safe to delete\n' +
  '// once those sessions have ended.\n';

/**
 * Replaces an installed copy (the hook's, the status line's), if there is one, by its stub, unless
 * it is that stub already: by rename, so a process starting meanwhile runs one file or the other,
 * whole. Whether it replaced one. Sessions started before an uninstall still run the copy: the
 * stub lets them exit 0 in silence instead of failing with MODULE_NOT_FOUND. `renameDeps`: as
 * copyAtomically's.
 */
export async function replaceCopyByStub(copyPath: string, stub: string, renameDeps?: RenameDeps): Promise<boolean> {
  const st = await fsp.lstat(copyPath).catch(() => undefined);
  if (!st || !(st.isFile() || st.isSymbolicLink())) return false;
  if (await isStub(copyPath, stub)) return false;
  return writeAtomically(copyPath, stub, renameDeps).then(
    () => true,
    () => false,
  );
}

/**
 * Removes only our settings.json entries, then disables the hook copy (it
 * stays, as a no-op, for sessions still running its command) and removes
 * http.json (the http hooks' port and secret). Channel files stay (the views
 * may still read them).
 */
export async function uninstallHook(opts: { claudeDir: string }): Promise<UninstallHookResult> {
  const claudeDir = path.resolve(opts.claudeDir);
  const settingsPath = settingsPathOf(claudeDir);
  const exists = await fsp.stat(settingsPath).then(
    () => true,
    () => false,
  );
  const update: SettingsFileUpdate = exists
    ? await updateSettingsFile(settingsPath, uninstallHookEntries)
    : { path: settingsPath, changed: false, created: false };
  const hookPath = installedHookPathOf(claudeDir);
  const hookDisabled = await replaceCopyByStub(hookPath, UNINSTALLED_HOOK_STUB);
  // With the http entries gone, nothing is sent to the port: receivers stop serving it at their next look.
  const httpConfigRemoved = await removeHttpHookConfig(claudeDir);
  return { ...update, settingsPath, hookDisabled, httpConfigRemoved };
}

/** Whether the file is already the stub: a second uninstall then changes nothing. */
async function isStub(copyPath: string, stub: string): Promise<boolean> {
  const st = await fsp.lstat(copyPath).catch(() => undefined);
  if (!st?.isFile() || st.size !== Buffer.byteLength(stub)) return false;
  return (await fsp.readFile(copyPath, 'utf8').catch(() => '')) === stub;
}

export interface WrapHooksOptions {
  claudeDir: string;
  /** A project's `.claude/settings.json` instead of the Claude dir's settings.json. */
  projectDir?: string;
  /** The runtime the wrapped commands start the wrapper with: absolute. */
  nodePath: string;
  /**
   * The wrapper's build (dist/cli-complete.js), copied to `<claude dir>/transcript-lag/bin/` before any
   * command names it; when absent there must be a copy there already (the plugin's session start keeps one).
   */
  wrapperSourcePath?: string;
}

export interface WrapHooksResult extends SettingsFileUpdate {
  /** Commands wrapped, or given back. */
  count: number;
  skipped: WrapResult['skipped'];
  wrapperPath: string;
}

export function wrapSettingsPathOf(opts: Pick<WrapHooksOptions, 'claudeDir' | 'projectDir'>): string {
  return opts.projectDir !== undefined ? path.join(path.resolve(opts.projectDir), '.claude', 'settings.json') : settingsPathOf(path.resolve(opts.claudeDir));
}

/**
 * `wrap-hooks`: every PreToolUse command hook of the settings file behind `transcript-lag complete`
 * (src/core/settings/wrapHooks.ts), as install-hook edits it (backup, atomic replace, every other
 * byte kept). The wrapper is put in place first: a command naming a file that is not there would
 * fail, and the hook it wraps would not run at all.
 */
export async function wrapHooks(opts: WrapHooksOptions): Promise<WrapHooksResult> {
  if (!path.isAbsolute(opts.nodePath)) throw new Error(`the Node path must be absolute: ${opts.nodePath}`);
  const channelDir = channelDirOf(path.resolve(opts.claudeDir));
  const wrapperPath = path.join(channelDir, HOOK_BIN_DIR_NAME, COMPLETE_TOOL_FILE_NAME);
  const settingsPath = wrapSettingsPathOf(opts);
  let result: WrapResult | undefined;
  const exists = await fsp.stat(settingsPath).then(() => true, () => false);
  if (!exists) return { path: settingsPath, changed: false, created: false, count: 0, skipped: [], wrapperPath };
  const update = await updateSettingsFile(
    settingsPath,
    (text) => {
      result = wrapPreToolUseHooks(text, { nodePath: opts.nodePath, wrapperPath });
      return result.text;
    },
    {
      afterValidate: async () => {
        if (result === undefined || result.changed === 0) return;
        if (opts.wrapperSourcePath !== undefined && (await fsp.stat(opts.wrapperSourcePath).then((s) => s.isFile(), () => false))) {
          requireOwnBinFolder(channelDir);
          await copyAtomically(opts.wrapperSourcePath, wrapperPath);
        } else if (!(await fsp.stat(wrapperPath).then((s) => s.isFile(), () => false))) {
          throw new Error(`the wrapper is not at ${wrapperPath}: start a Claude Code session with the transcript-lag plugin (it puts it there), or run wrap-hooks from a build; ${settingsPath} is left untouched`);
        }
      },
    },
  );
  return { ...update, count: result?.changed ?? 0, skipped: result?.skipped ?? [], wrapperPath };
}

/** `unwrap-hooks`: each command wrap-hooks wrapped given back as it was; the wrapper copy stays (running sessions may run it). */
export async function unwrapHooks(opts: Pick<WrapHooksOptions, 'claudeDir' | 'projectDir'>): Promise<WrapHooksResult> {
  const wrapperPath = path.join(channelDirOf(path.resolve(opts.claudeDir)), HOOK_BIN_DIR_NAME, COMPLETE_TOOL_FILE_NAME);
  const settingsPath = wrapSettingsPathOf(opts);
  const exists = await fsp.stat(settingsPath).then(() => true, () => false);
  if (!exists) return { path: settingsPath, changed: false, created: false, count: 0, skipped: [], wrapperPath };
  let count = 0;
  const update = await updateSettingsFile(settingsPath, (text) => {
    const r = unwrapPreToolUseHooks(text);
    count = r.changed;
    return r.text;
  });
  return { ...update, count, skipped: [], wrapperPath };
}
