import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CliIo } from './io';
import { gitBashOnlyWarning } from './gitBashOnlyWarning';
import { DEFAULT_PROBE_POLLS, DEFAULT_PROBE_POLL_MS } from '../rules/channelConstants';
import { resolveClaudeDir } from '../core/discovery';
import { installHook, uninstallHook } from '../platform/hookInstaller';
import { SETTINGS_BACKUP_SUFFIX, SettingsFileError } from '../platform/settingsFile';
import { DEFAULT_HTTP_HOOK_PORT } from '../platform/httpConfigFile';

const installUsage = `Usage: transcript-lag install-hook [--probe | --http [--port N]] [--claude-dir D] [--node PATH] [--polls N] [--poll-ms M] [--form exec|shell]

Adds one PreToolUse and one PostToolUse entry to <claude dir>/settings.json that
run a stable copy of the transcript-lag hook. The hook reports each tool call to
<claude dir>/transcript-lag/ so 'watch' and the VS Code extension can show held
calls and their lag. Other hooks and settings are kept; a backup is written to
settings.json${SETTINGS_BACKUP_SUFFIX}. Running it again replaces our entries.

  --probe          also wait for the call's own record, like a reviewing hook, and report how the wait ended
  --http           install "http" hooks instead: Claude Code POSTs each call to 127.0.0.1, where
                   'watch' or the VS Code extension receives it (~5 ms a call instead of a Node
                   start, ~60 ms); calls made while neither runs are not reported (fail open)
  --port N         --http: the receiver's port (default ${DEFAULT_HTTP_HOOK_PORT}, or the one installed before)
  --polls N        probe: polls before giving up (default ${DEFAULT_PROBE_POLLS})
  --poll-ms M      probe: milliseconds between polls (default ${DEFAULT_PROBE_POLL_MS})
  --claude-dir D   the Claude dir (default: $CLAUDE_CONFIG_DIR or ~/.claude)
  --node PATH      absolute path of the Node runtime for the hook (default: this one)
  --form F         exec: the entry names Node and its arguments, run with no shell (Claude Code
                   2.1.139+; the same under Git Bash, PowerShell or none); shell: one command line
                   for bash. Default: exec when 'claude --version' on PATH says 2.1.139 or later
`;

const uninstallUsage = `Usage: transcript-lag uninstall-hook [--claude-dir D]

Removes only the settings.json entries install-hook added, and the hook copy.
`;

interface InstallArgs {
  probe: boolean;
  http: boolean;
  port?: number;
  claudeDir?: string;
  nodePath?: string;
  polls?: number;
  pollMs?: number;
  form?: 'exec' | 'shell';
}

function positive(flag: string, value: string | undefined, max: number): number | string {
  // Digits only: Number() would take '1e3', '0x50' and ' 42' too.
  const n = value !== undefined && /^[0-9]+$/.test(value) ? Number(value) : NaN;
  return Number.isInteger(n) && n >= 1 && n <= max ? n : `${flag} needs a whole number between 1 and ${max}`;
}

function parseInstallArgs(args: string[]): InstallArgs | string {
  const out: InstallArgs = { probe: false, http: false };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--probe') out.probe = true;
    else if (a === '--http') out.http = true;
    else if (a === '--port') {
      const n = positive(a, args[++i], 65_535);
      if (typeof n === 'string') return n;
      out.port = n;
    }
    else if (a === '--claude-dir' || a === '--node') {
      const v = args[++i];
      if (!v) return `${a} needs a path`;
      if (a === '--claude-dir') out.claudeDir = v;
      else out.nodePath = v;
    } else if (a === '--form') {
      const v = args[++i];
      if (v !== 'exec' && v !== 'shell') return '--form needs exec or shell';
      out.form = v;
    } else if (a === '--polls' || a === '--poll-ms') {
      const n = positive(a, args[++i], a === '--polls' ? 10_000 : 60_000);
      if (typeof n === 'string') return n;
      if (a === '--polls') out.polls = n;
      else out.pollMs = n;
    } else return `unknown option '${a}'`;
  }
  if (!out.probe && (out.polls !== undefined || out.pollMs !== undefined)) return '--polls and --poll-ms only apply with --probe';
  if (out.http && out.probe) return '--probe needs the command hook: an http hook cannot wait for its call';
  if (!out.http && out.port !== undefined) return '--port only applies with --http';
  if (out.nodePath !== undefined && !path.isAbsolute(out.nodePath)) return '--node needs an absolute path';
  if (out.http && out.form !== undefined) return '--form applies to the command hook, not --http';
  return out;
}

/** dist/hook.js beside dist/cli.js; from the sources (tests, tsx) the built one in dist/. */
function hookSourcePath(): string {
  const beside = path.join(__dirname, 'hook.js');
  if (fs.existsSync(beside)) return beside;
  return path.resolve(__dirname, '..', '..', 'dist', 'hook.js');
}

const octal = (mode: number) => mode.toString(8).padStart(4, '0');

function failure(err: unknown, io: CliIo): number {
  const message = err instanceof SettingsFileError || err instanceof Error ? err.message : String(err);
  io.stderr(`transcript-lag: ${message}\n`);
  return 1;
}

/** `<plugin>@<marketplace>` keys of enabledPlugins that enable our plugin (settings read as JSON; none when it is not). */
export function enabledTranscriptLagPlugins(settingsText: string): string[] {
  let settings: unknown;
  try {
    settings = JSON.parse(settingsText);
  } catch {
    return [];
  }
  const enabled = (settings as { enabledPlugins?: unknown } | null)?.enabledPlugins;
  if (!enabled || typeof enabled !== 'object') return [];
  return Object.entries(enabled as Record<string, unknown>)
    .filter(([key, on]) => key.startsWith('transcript-lag@') && on === true)
    .map(([key]) => key);
}

function pluginNote(settingsPath: string): string {
  let text = '';
  try {
    text = fs.readFileSync(settingsPath, 'utf8');
  } catch {
    return '';
  }
  const keys = enabledTranscriptLagPlugins(text);
  if (keys.length === 0) return '';
  return (
    `Note: the transcript-lag plugin is enabled too (${keys.join(', ')}). Its hook stands aside for the events these\n` +
    `  entries report, so each call is reported once; 'claude plugin disable ${keys[0]}' or uninstall-hook keeps just one.\n`
  );
}

/** Why the entry has its form: the flag, or what the claude on PATH said. */
function formWhy(flag: string | undefined, r: { execForm?: boolean; claudeCodeVersion?: string }): string {
  if (flag) return `--form ${flag}${flag === 'exec' && !r.execForm ? ': env(1) would take this runtime\'s path, which holds =, for a variable' : ''}`;
  return r.claudeCodeVersion ? `claude --version: ${r.claudeCodeVersion.split('\n')[0]}` : 'no claude on PATH to ask';
}

const takeEffect = 'Claude Code reads hooks when a session starts: new sessions use this; review running ones in /hooks.\n';

export async function runInstall(args: string[], io: CliIo): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(installUsage);
    return 0;
  }
  const parsed = parseInstallArgs(args);
  if (typeof parsed === 'string') {
    io.stderr(`transcript-lag install-hook: ${parsed}\n\n${installUsage}`);
    return 2;
  }
  const claudeDir = parsed.claudeDir ? path.resolve(io.cwd, parsed.claudeDir) : resolveClaudeDir(io.env, io.homedir);
  try {
    const r = await installHook({
      form: parsed.form ?? 'auto',
      env: io.env,
      claudeDir,
      hookSourcePath: hookSourcePath(),
      nodePath: parsed.nodePath ?? process.execPath,
      probe: parsed.probe,
      polls: parsed.polls,
      pollMs: parsed.pollMs,
      transport: parsed.http ? 'http' : 'command',
      port: parsed.port,
    });
    const state = r.created ? 'created' : r.changed ? `updated, previous content in ${r.backupPath}` : 'already up to date';
    io.stdout(
      parsed.http
        ? `Installed the transcript-lag http hooks.\n` +
            `  settings: ${r.settingsPath} (${state})\n` +
            `  url:      ${r.command} (served by 'transcript-lag watch' or the VS Code extension)\n` +
            `  channel:  ${r.channelDir}\n` +
            `  timeout:  ${r.timeoutSec} s; while no receiver runs, calls go unreported (fail open)\n` +
            (r.madePrivateFrom !== undefined
              ? `  mode:     settings.json was readable by others (${octal(r.madePrivateFrom)}); it holds the hooks' secret now, so it and its backup are ${octal(r.madePrivateFrom & ~0o077)}: only the mode changed\n`
              : '') +
            takeEffect
        : `Installed the transcript-lag hook (${parsed.probe ? 'probe' : 'announce'} mode).\n` +
            `  settings: ${r.settingsPath} (${state})\n` +
            `  hook:     ${r.hookPath}\n` +
            `  channel:  ${r.channelDir}\n` +
            `  command:  ${r.command}\n` +
            `  form:     ${r.execForm ? 'exec (no shell)' : 'shell'} (${formWhy(parsed.form, r)})\n` +
            (r.launcherPath ? `  launcher: ${r.launcherPath} (gives the runtime its environment: no shell form can carry one in both Git Bash and PowerShell)\n` : '') +
            `  timeout:  ${r.timeoutSec} s\n` +
            (r.gitBashOnly ? gitBashOnlyWarning('entry') : '') +
            pluginNote(r.settingsPath) +
            takeEffect,
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
  let claudeDir: string | undefined;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--claude-dir' && args[i + 1]) claudeDir = args[++i];
    else {
      io.stderr(`transcript-lag uninstall-hook: unknown option '${args[i]}'\n\n${uninstallUsage}`);
      return 2;
    }
  }
  const dir = claudeDir ? path.resolve(io.cwd, claudeDir) : resolveClaudeDir(io.env, io.homedir);
  try {
    const r = await uninstallHook({ claudeDir: dir });
    io.stdout(
      r.changed
        ? `Removed the transcript-lag hook entries from ${r.settingsPath} (previous content in ${r.backupPath}).\n`
        : `No transcript-lag hook entries in ${r.settingsPath}; nothing changed there.\n`,
    );
    if (r.httpConfigRemoved) {
      io.stdout(`Removed ${path.join(dir, 'transcript-lag', 'http.json')}: no receiver serves the http hooks' port any more.\n`);
    }
    if (r.hookDisabled) {
      io.stdout(`Replaced the hook copy under ${path.join(dir, 'transcript-lag', 'bin')} by one that does nothing: Claude Code sessions started before now still run it, silently.\n`);
    }
    return 0;
  } catch (err) {
    return failure(err, io);
  }
}
