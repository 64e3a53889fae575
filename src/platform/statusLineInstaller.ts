import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { HOOK_BIN_DIR_NAME, STATUSLINE_FILE_NAME } from '../rules/channelConstants';
import { channelDirOf } from '../rules/channelPaths';
import { buildStatusLineCommand, installStatusLine, installedStatusLineCommand, uninstallStatusLine, wrapOf, type StatusLineCommandSpec } from '../core/settings/statusLineSettings';
import { shellFormOf } from '../core/settings/hookCommand';
import { nodeOnPathIs } from './nodeOnPath';
import { wrappedStatusLineCommand } from '../core/settings/wrappedStatusLine';
import { replaceCopyByStub } from './hookInstaller';
import { copyAtomically } from '../rules/renameReplacing';
import { requireOwnBinFolder } from '../rules/binFolder';
import { updateSettingsFile, type SettingsFileUpdate } from './settingsFile';

// install-statusline: a stable copy of the statusline bundle (dist/cli-statusline.js) under the
// Claude dir, beside the hook's, and `statusLine` in settings.json running it every second.

export function installedStatusLinePathOf(claudeDir: string): string {
  return path.join(channelDirOf(claudeDir), HOOK_BIN_DIR_NAME, STATUSLINE_FILE_NAME);
}

export interface InstallStatusLineOptions {
  claudeDir: string;
  /** The bundle to copy (dist/cli-statusline.js). */
  sourcePath: string;
  /** Absolute path of the Node runtime that runs it. */
  nodePath: string;
  /** The OS Claude Code runs on (default: this one's): `win32` writes the form Git Bash and PowerShell both run. */
  platform?: NodeJS.Platform;
  /** Where the Windows form looks for `node` (default: this process's environment). */
  env?: NodeJS.ProcessEnv;
}

export interface InstallStatusLineResult extends SettingsFileUpdate {
  settingsPath: string;
  scriptPath: string;
  command: string;
  /** A status line of the user's was there: kept in ours, restored by uninstall. */
  wraps: boolean;
  /** Its command, which ours runs first; undefined when it has none ours can run. */
  wrappedCommand?: string;
  /** Windows: the runtime had to be quoted, so the status line runs in Git Bash but not in PowerShell (see InstallHookResult). */
  gitBashOnly: boolean;
}


export async function installStatusLineFile(opts: InstallStatusLineOptions): Promise<InstallStatusLineResult> {
  if (!path.isAbsolute(opts.nodePath)) throw new Error(`the Node path must be absolute: ${opts.nodePath}`);
  await fsp.access(opts.sourcePath).catch(() => {
    throw new Error(`statusline bundle not found at ${opts.sourcePath}; build it first (npm run build)`);
  });
  const claudeDir = path.resolve(opts.claudeDir);
  const scriptPath = installedStatusLinePathOf(claudeDir);
  const platform = opts.platform ?? process.platform;
  const env = opts.env ?? process.env;
  const shells = platform === 'win32' ? 'windows' : 'posix';
  const nodeOnPath = shells === 'windows' && (await nodeOnPathIs(opts.nodePath, env, platform));
  const spec: StatusLineCommandSpec = { nodePath: opts.nodePath, scriptPath, channelDir: channelDirOf(claudeDir), shells, nodeOnPath };
  const settingsPath = path.join(claudeDir, 'settings.json');
  let after = '';
  const update = await updateSettingsFile(
    settingsPath,
    (text) => {
      after = installStatusLine(text, spec);
      return after;
    },
    {
      // The script is in place before settings.json names it.
      afterValidate: async () => {
        // As the hook's copy: only into a bin/ of the user's that others cannot write (src/rules/binFolder.ts).
        requireOwnBinFolder(channelDirOf(claudeDir));
        await copyAtomically(opts.sourcePath, scriptPath);
      },
    },
  );
  const command = installedStatusLineCommand(after) ?? buildStatusLineCommand(spec);
  const wrap = wrapOf(command);
  const gitBashOnly = shellFormOf(spec, []).gitBashOnly;
  return { ...update, settingsPath, scriptPath, command, wraps: wrap !== undefined, wrappedCommand: wrappedStatusLineCommand(wrap), gitBashOnly };
}

export interface UninstallStatusLineResult extends SettingsFileUpdate {
  settingsPath: string;
  /** The user's own status line, which ours wrapped, is back. */
  restored: boolean;
  /** The script copy was replaced by UNINSTALLED_STATUSLINE_STUB: it prints nothing any more. */
  scriptDisabled: boolean;
}

/**
 * What uninstall leaves where the statusline copy was: sessions started before it may go on
 * running our command on every refresh, and with the file gone node would print a stack trace
 * and exit 1 each time. install-statusline writes the real script over it.
 */
export const UNINSTALLED_STATUSLINE_STUB =
  '// transcript-lag: the status line was uninstalled. Claude Code sessions started before that may still run\n' +
  '// this file on every refresh; it prints nothing, so they go on undisturbed. Safe to delete once those\n' +
  '// sessions have ended.\n';

export async function uninstallStatusLineFile(opts: { claudeDir: string }): Promise<UninstallStatusLineResult> {
  const claudeDir = path.resolve(opts.claudeDir);
  const settingsPath = path.join(claudeDir, 'settings.json');
  const exists = await fsp.stat(settingsPath).then(
    () => true,
    () => false,
  );
  let restored = false;
  const update: SettingsFileUpdate = exists
    ? await updateSettingsFile(settingsPath, (text) => {
        restored = wrapOf(installedStatusLineCommand(text) ?? '') !== undefined;
        return uninstallStatusLine(text);
      })
    : { path: settingsPath, changed: false, created: false };
  const scriptDisabled = await replaceCopyByStub(installedStatusLinePathOf(claudeDir), UNINSTALLED_STATUSLINE_STUB);
  return { ...update, settingsPath, scriptDisabled, restored: restored && update.changed };
}
