import { CMD_LITERAL_PUNCTUATION, cmdTakesAsIs } from '../../rules/cmdArgument';
import { DEFAULT_PROBE_POLLS, DEFAULT_PROBE_POLL_MS, MAX_HOOK_TIMEOUT_MS } from '../../rules/channelConstants';

// The command line install-hook writes into settings.json, in two dialects:
//  - POSIX: Claude Code runs it through bash (your $SHELL: bash, zsh or sh). Every path is
//    single-quoted; the runtime may be prefixed by environment assignments (the VS Code extension
//    runs the hook with its own Electron, `ELECTRON_RUN_AS_NODE=1`, when no `node` is on PATH).
//  - Windows: Claude Code runs it through Git Bash, or through PowerShell where there is no Git
//    Bash (2.1.120+), and we cannot know which. So only what both parse alike: forward slashes, a
//    runtime written bare (PowerShell takes a quoted first word for a string, not a command),
//    arguments in single quotes (literal in both), and no `NAME=value` prefix (PowerShell would
//    run it as a command): a runtime that needs an environment gets a launcher file instead.

export interface HookCommandSpec {
  /** Absolute path of the Node runtime that runs the hook. */
  nodePath: string;
  /** Which shells parse the shell form: POSIX (default), or Windows (Git Bash or PowerShell). */
  shells?: ShellDialect;
  /** A `node` on PATH runs the hook too: the Windows form may name it bare when nodePath cannot be. */
  nodeOnPath?: boolean;
  /** Environment assignments placed before the runtime, e.g. { ELECTRON_RUN_AS_NODE: '1' }. */
  nodeEnv?: Readonly<Record<string, string>>;
  /** Absolute path of the installed hook copy. */
  hookPath: string;
  channelDir: string;
  probe: boolean;
  polls?: number;
  pollMs?: number;
}

/** `posix`: sh, bash, zsh. `windows`: Git Bash or PowerShell, whichever Claude Code finds. */
export type ShellDialect = 'posix' | 'windows';

/** Quotes one word for a POSIX shell: single quotes, each `'` written as `'\''`. */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}


const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The runtime's environment as [name, value] pairs, each name one a shell, env(1) and cmd all take as a name. */
function runtimeEnv(spec: Pick<HookCommandSpec, 'nodeEnv'>): [string, string][] {
  const env = Object.entries(spec.nodeEnv ?? {});
  for (const [name] of env) if (!ENV_NAME.test(name)) throw new RangeError(`not an environment variable name: ${JSON.stringify(name)}`);
  return env;
}

/**
 * settings.json `timeout` (seconds) for our entries: room for node's start-up
 * in announce mode; in probe mode the whole wait plus the same room, so Claude
 * Code never cancels a probe before it reports.
 */
export function hookTimeoutSeconds(spec: Pick<HookCommandSpec, 'probe' | 'polls' | 'pollMs'>): number {
  const base = 5;
  if (!spec.probe) return base;
  const waitMs = (spec.polls ?? DEFAULT_PROBE_POLLS) * (spec.pollMs ?? DEFAULT_PROBE_POLL_MS);
  const seconds = base + Math.ceil(waitMs / 1000);
  // The hook ignores a --timeout-ms it does not accept: the entry's timeout and the one the hook reports must be one.
  if (seconds * 1000 > MAX_HOOK_TIMEOUT_MS) {
    throw new RangeError(`a probe wait of ${spec.polls ?? DEFAULT_PROBE_POLLS} polls × ${spec.pollMs ?? DEFAULT_PROBE_POLL_MS} ms is longer than the hook's timeout can be (${MAX_HOOK_TIMEOUT_MS / 3_600_000} h)`);
  }
  return seconds;
}

function positiveInt(name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isInteger(value) && value > 0)) throw new RangeError(`${name} must be a positive integer, got ${value}`);
}

/** The hook's own arguments after the runtime: the hook file, the channel folder, the probe's options. */
function hookArgs(spec: HookCommandSpec): string[] {
  positiveInt('polls', spec.polls);
  positiveInt('pollMs', spec.pollMs);
  const args = [spec.hookPath, '--channel-dir', spec.channelDir];
  if (spec.probe) {
    args.push('--probe', '--polls', String(spec.polls ?? DEFAULT_PROBE_POLLS), '--poll-ms', String(spec.pollMs ?? DEFAULT_PROBE_POLL_MS));
    // Only a probe holds the call for its own timeout. An announcing hook is gone in
    // milliseconds: what holds the call then is the user's other hooks, whose timeouts
    // we do not know, so the views fall back to Claude Code's default.
    args.push('--timeout-ms', String(hookTimeoutSeconds(spec) * 1000));
  }
  return args;
}

/**
 * A word Git Bash and PowerShell both take bare, as it is: no quotes, no expansion (`$`, `~` first,
 * globs), no operators (`;&|()<>{}@,'"` and the backtick), no space. Bare is the only way PowerShell
 * runs a path as a command without `&`, which bash cannot parse. Only a Windows path (`C:/…`, UNC
 * `//server/…`) is written so; uninstall knows ours by the same rule (hookEntries.ts).
 */
export const BARE_IN_EVERY_SHELL = /^(?:[A-Za-z]:\/|\/\/)[A-Za-z0-9_.:/-]*$/;

/** A Windows path with forward slashes: both shells keep them, Windows takes them, and Git Bash does not eat them as escapes. */
function forwardSlashes(p: string): string {
  return p.replace(/\\/g, '/');
}

/**
 * One argument quoted for Git Bash and PowerShell alike: single quotes are literal in both. A value
 * holding `'` (C:\Users\O'Brien) is double-quoted instead, which both also keep literal as long as it
 * holds no `$`, backtick or `"`; anything else has no spelling both read alike. PowerShell also takes
 * the curly quotes for quotes (U+2018–U+201B for `'`, U+201C–U+201E for `"`; bash does not), so
 * `C:\Users\Bob’s PC` is double-quoted too.
 */
export function windowsShellQuote(word: string): string {
  const value = forwardSlashes(word);
  if (!/['\u2018-\u201b]/.test(value)) return `'${value}'`;
  if (!/["$`\u201c-\u201e]/.test(value)) return `"${value}"`;
  throw new RangeError(`no quoting reads alike in Git Bash and PowerShell for ${JSON.stringify(word)}: it holds both ' and one of " $ \` (or their curly forms)`);
}

/** A shell form and the shells it runs in. */
export interface ShellForm {
  command: string;
  /**
   * Windows only: the runtime had to be quoted (its path has a space or the like, and no `node` is
   * on PATH), so the command runs in Git Bash but not in PowerShell. False on POSIX.
   */
  gitBashOnly: boolean;
}

/**
 * The runtime, then the script's words. POSIX: quoted, after its environment. Windows: bare when it
 * can be, else `node` when PATH has one, else quoted for Git Bash only; never an environment prefix.
 */
export function shellFormOf(spec: Pick<HookCommandSpec, 'nodePath' | 'nodeEnv' | 'shells' | 'nodeOnPath'>, words: readonly string[]): ShellForm {
  if (spec.shells === 'windows') {
    if (Object.keys(spec.nodeEnv ?? {}).length > 0) throw new RangeError('a Windows shell form takes no environment prefix: run the runtime through its launcher (hookLauncherText)');
    const runtime = forwardSlashes(spec.nodePath);
    const bare = BARE_IN_EVERY_SHELL.test(runtime) ? runtime : spec.nodeOnPath ? 'node' : undefined;
    return { command: [bare ?? shellQuote(runtime), ...words.map(windowsShellQuoteOrOption)].join(' '), gitBashOnly: bare === undefined };
  }
  const prefix = runtimeEnv(spec).map(([name, value]) => `${name}=${shellQuote(value)}`);
  return { command: [...prefix, shellQuote(spec.nodePath), ...words.map(shellQuoteOrOption)].join(' '), gitBashOnly: false };
}

/** Options, numbers and base64url values are bare words in every shell; everything else is quoted. */
const PLAIN_WORD = /^(?:--[a-z][a-z-]*|\d+|[A-Za-z0-9_-]+)$/;
const shellQuoteOrOption = (w: string) => (PLAIN_WORD.test(w) ? w : shellQuote(w));
const windowsShellQuoteOrOption = (w: string) => (PLAIN_WORD.test(w) ? w : windowsShellQuote(w));

export function buildShellForm(spec: HookCommandSpec): ShellForm {
  return shellFormOf(spec, hookArgs(spec));
}

export function buildHookCommand(spec: HookCommandSpec): string {
  return buildShellForm(spec).command;
}

/** The exec form of our entry: no shell parses it, so no quoting, and it runs alike under Git Bash, PowerShell or none. */
export interface HookExec {
  command: string;
  args: string[];
}

/** Where every POSIX system has env(1): the exec form's way to give a runtime its environment. */
export const POSIX_ENV_PROGRAM = '/usr/bin/env';

/**
 * The exec form. A runtime that needs an environment (VS Code's Electron: ELECTRON_RUN_AS_NODE=1)
 * runs through env(1) on POSIX, as `env NAME=value runtime …`, still with no shell. On Windows there
 * is no env(1): undefined, and the installer runs such a runtime through its launcher file instead.
 */
export function buildHookExec(spec: HookCommandSpec): HookExec | undefined {
  const env = runtimeEnv(spec);
  if (env.length === 0) return { command: spec.nodePath, args: hookArgs(spec) };
  // env(1) takes any word with `=` for one more assignment: such a runtime path gets the shell form.
  if (spec.shells === 'windows' || spec.nodePath.includes('=')) return undefined;
  return { command: POSIX_ENV_PROGRAM, args: [...env.map(([name, value]) => `${name}=${value}`), spec.nodePath, ...hookArgs(spec)] };
}


/**
 * Whether cmd runs the launcher from this path (cmdTakesAsIs). install-hook names it as Windows' own
 * path.resolve does, with `\`: a `/` is only there when the tests install for Windows on POSIX.
 */
function launcherPathTaken(launcherPath: string): boolean {
  return cmdTakesAsIs(launcherPath.replace(/\//g, '\\'));
}

/** The exec form of the Windows launcher: cmd.exe runs the `.cmd` (`cmd.exe /d /c <launcher>`), so even a runtime that needs an environment runs with no Git Bash or PowerShell. */
export function launcherExec(launcherPath: string, cmdExe: string): HookExec {
  if (!launcherPathTaken(launcherPath)) throw new RangeError(launcherRefusal(launcherPath));
  return { command: cmdExe, args: ['/d', '/c', launcherPath] };
}

/**
 * Why a launcher cannot be run from `launcherPath` (undefined: it can), and the way out. The shell form
 * is no way out: Git Bash and PowerShell hand the launcher to cmd too.
 */
export function launcherRefusal(launcherPath: string): string | undefined {
  if (launcherPathTaken(launcherPath)) return undefined;
  return (
    `cmd.exe cannot run a launcher from ${JSON.stringify(launcherPath)} (cmd takes a path as it is only when it holds nothing but ` +
    `letters, digits, spaces and ${CMD_LITERAL_PUNCTUATION}; it splits one at , ; = and acts on & | < > ^ ( ) % ! "): ` +
    'put Node on PATH, and the hook needs no launcher'
  );
}

/** cmd.exe's absolute path from a Windows environment: %ComSpec% when it names cmd.exe, else under %SystemRoot%. */
export function cmdExeOf(env: Readonly<Record<string, string | undefined>>): string {
  const comSpec = env.ComSpec ?? env.COMSPEC;
  if (comSpec && /^[A-Za-z]:\\.*\\cmd\.exe$/i.test(comSpec)) return comSpec;
  return `${env.SystemRoot ?? env.SYSTEMROOT ?? 'C:\\Windows'}\\System32\\cmd.exe`;
}

/** Folders whose variables may spell the start of the runtime's path in the launcher (see below). */
const LAUNCHER_PATH_VARIABLES = ['LOCALAPPDATA', 'APPDATA', 'USERPROFILE', 'ProgramFiles', 'ProgramFiles(x86)', 'ProgramW6432', 'SystemDrive'];

/**
 * The launcher that gives a runtime its environment on Windows, where a shell form can carry none
 * (PowerShell has no `NAME=value cmd`) and the exec form has no field for one: a batch file
 * (HOOK_LAUNCHER_FILE_NAME, beside the hook) that sets the variables and runs the whole hook command;
 * the entry names the launcher alone. What cmd must read right:
 *  - One line, ending in `exit /b 0`: cmd re-reads a batch file after each command it runs, so a
 *    launcher rewritten by install-hook while a hook runs must not be read again; and a runtime that is
 *    gone must not block a tool call (exit 2 would).
 *  - The arguments live in the file, not on the entry: `%*` would let cmd parse `&` or `^` in a path.
 *  - cmd decodes a batch file in the console's code page, not UTF-8: the hook and the channel folder are
 *    named from the launcher's own place (`%~dp0`, which cmd takes from its real path), and the runtime's
 *    path through the variable of a folder it is in (`%LOCALAPPDATA%\Programs\Microsoft VS Code\Code.exe`)
 *    when it is not plain ASCII; a runtime no variable makes ASCII is refused.
 *  - Every word double-quoted (cmd keeps `&|<>^` literal inside), `%` doubled, delayed expansion off (`!`),
 *    a trailing backslash doubled (else it would escape the closing quote for the runtime's own parser).
 */
export function hookLauncherText(spec: HookCommandSpec, env: Readonly<Record<string, string | undefined>>): string {
  const parts = spec.hookPath.split(/[\\/]/);
  const hookFile = parts.pop()!;
  const binDir = parts.join('\\');
  if (parts.pop() === undefined || parts.join('\\').toLowerCase() !== spec.channelDir.replace(/[\\/]+$/, '').replace(/\//g, '\\').toLowerCase()) {
    throw new RangeError(`the launcher names the hook and the channel folder from its own place: ${binDir} must be a folder of ${spec.channelDir}`);
  }
  const ascii = (w: string) => /^[\x20-\x7e]*$/.test(w);
  const quoted = (w: string, raw = '') => {
    if (/["\r\n]/.test(w) || !ascii(w)) throw new RangeError(`not a word a batch file can hold: ${JSON.stringify(w)}`);
    return `"${raw}${w.replace(/%/g, '%%').replace(/(\\+)$/, '$1$1')}"`;
  };
  const runtime = (() => {
    if (ascii(spec.nodePath)) return quoted(spec.nodePath);
    for (const name of LAUNCHER_PATH_VARIABLES) {
      const folder = env[name]?.replace(/\\+$/, '');
      if (!folder || !spec.nodePath.toLowerCase().startsWith(`${folder.toLowerCase()}\\`)) continue;
      const rest = spec.nodePath.slice(folder.length);
      if (ascii(rest)) return quoted(rest, `%${name}%`);
    }
    throw new RangeError(`the runtime's path ${JSON.stringify(spec.nodePath)} is not plain ASCII and no folder variable spells it: a batch file cannot name it; put Node on PATH`);
  })();
  const words = runtimeEnv(spec).map(([name, value]) => `set ${quoted(`${name}=${value}`)}`);
  const [, , , ...options] = hookArgs(spec);
  const command = [runtime, quoted(hookFile, '%~dp0'), '"--channel-dir"', '"%~dp0.."', ...options.map((o) => quoted(o))].join(' ');
  return `@setlocal DisableDelayedExpansion & ${[...words, command, 'exit /b 0'].join(' & ')}\r\n`;
}
