import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CliIo } from './io';
import { gitBashOnlyWarning } from './gitBashOnlyWarning';
import { resolveClaudeDir } from '../core/discovery';
import { installStatusLineFile, uninstallStatusLineFile } from '../platform/statusLineInstaller';
import { SETTINGS_BACKUP_SUFFIX, SettingsFileError } from '../platform/settingsFile';

const installUsage = `Usage: transcript-lag install-statusline [--claude-dir D] [--node PATH]

Sets statusLine in <claude dir>/settings.json to 'transcript-lag statusline', refreshed
every second (or as your own refreshInterval says): Claude Code's terminal then shows the
calls held right now and their age, else the last call's lag. A status line you already
have is kept: it runs first and ours is added after it; uninstall-statusline puts yours
back exactly. A backup is written to
settings.json${SETTINGS_BACKUP_SUFFIX}.

  --claude-dir D   the Claude dir (default: $CLAUDE_CONFIG_DIR or ~/.claude)
  --node PATH      absolute path of the Node runtime that runs it (default: this one)
`;

const uninstallUsage = `Usage: transcript-lag uninstall-statusline [--claude-dir D]

Removes the statusLine install-statusline set, restoring the one it kept. Its script copy
stays as a file that prints nothing, for Claude Code sessions that still run it.
`;

/** dist/cli-statusline.js beside this bundle; from the sources (tests, tsx) the built one in dist/. */
function statuslineSourcePath(): string {
  const beside = path.join(__dirname, 'cli-statusline.js');
  if (fs.existsSync(beside)) return beside;
  return path.resolve(__dirname, '..', '..', 'dist', 'cli-statusline.js');
}

function parse(args: string[], allowNode: boolean): { claudeDir?: string; nodePath?: string } | string {
  const out: { claudeDir?: string; nodePath?: string } = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--claude-dir' || (allowNode && a === '--node')) {
      const v = args[++i];
      if (!v) return `${a} needs a path`;
      if (a === '--claude-dir') out.claudeDir = v;
      else if (!path.isAbsolute(v)) return '--node needs an absolute path';
      else out.nodePath = v;
    } else return `unknown option '${a}'`;
  }
  return out;
}

function failure(err: unknown, io: CliIo): number {
  io.stderr(`transcript-lag: ${err instanceof SettingsFileError || err instanceof Error ? err.message : String(err)}\n`);
  return 1;
}

export async function runInstall(args: string[], io: CliIo): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(installUsage);
    return 0;
  }
  const parsed = parse(args, true);
  if (typeof parsed === 'string') {
    io.stderr(`transcript-lag install-statusline: ${parsed}\n\n${installUsage}`);
    return 2;
  }
  const claudeDir = parsed.claudeDir ? path.resolve(io.cwd, parsed.claudeDir) : resolveClaudeDir(io.env, io.homedir);
  try {
    const r = await installStatusLineFile({ claudeDir, sourcePath: statuslineSourcePath(), nodePath: parsed.nodePath ?? process.execPath, env: io.env });
    const state = r.created ? 'created' : r.changed ? `updated, previous content in ${r.backupPath}` : 'already up to date';
    io.stdout(
      `Installed the transcript-lag status line.\n` +
        `  settings: ${r.settingsPath} (${state})\n` +
        `  script:   ${r.scriptPath}\n` +
        (r.wrappedCommand !== undefined
          ? `  yours:    kept; it runs first, and uninstall-statusline restores it exactly\n`
          : r.wraps
            ? `  yours:    saved, and uninstall-statusline restores it exactly; it has no command, so it is not run\n`
            : '') +
        (r.gitBashOnly ? gitBashOnlyWarning('status line') : '') +
        `Claude Code shows it from the next refresh; it needs the hook (install-hook or the plugin) to know what is held.\n`,
    );
    return 0;
  } catch (err) {
    return failure(err, io);
  }
}

export async function runUninstall(args: string[], io: CliIo): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(uninstallUsage);
    return 0;
  }
  const parsed = parse(args, false);
  if (typeof parsed === 'string') {
    io.stderr(`transcript-lag uninstall-statusline: ${parsed}\n\n${uninstallUsage}`);
    return 2;
  }
  const claudeDir = parsed.claudeDir ? path.resolve(io.cwd, parsed.claudeDir) : resolveClaudeDir(io.env, io.homedir);
  try {
    const r = await uninstallStatusLineFile({ claudeDir });
    io.stdout(
      r.changed
        ? `Removed the transcript-lag status line from ${r.settingsPath} (previous content in ${r.backupPath}).\n` +
            (r.restored ? 'Your own status line is back as it was.\n' : '')
        : `No transcript-lag status line in ${r.settingsPath}; nothing changed there.\n`,
    );
    return 0;
  } catch (err) {
    return failure(err, io);
  }
}
