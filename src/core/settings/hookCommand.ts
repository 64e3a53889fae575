import { DEFAULT_PROBE_POLLS, DEFAULT_PROBE_POLL_MS } from '../channel/constants';

// The command line install-hook writes into settings.json. Claude Code runs
// hook commands through a POSIX shell (bash; Git Bash on Windows), so every
// path is single-quoted and the Node runtime may be prefixed by environment
// assignments (the VS Code extension runs the hook with its own Electron,
// `ELECTRON_RUN_AS_NODE=1`, when no `node` is on PATH).

export interface HookCommandSpec {
  /** Absolute path of the Node runtime that runs the hook. */
  nodePath: string;
  /** Environment assignments placed before the runtime, e.g. { ELECTRON_RUN_AS_NODE: '1' }. */
  nodeEnv?: Readonly<Record<string, string>>;
  /** Absolute path of the installed hook copy. */
  hookPath: string;
  channelDir: string;
  probe: boolean;
  polls?: number;
  pollMs?: number;
}

/** Quotes one word for a POSIX shell: single quotes, each `'` written as `'\''`. */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The largest --timeout-ms the hook takes (src/hook/main.ts parseHookArgs). */
export const MAX_HOOK_TIMEOUT_MS = 86_400_000;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

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

export function buildHookCommand(spec: HookCommandSpec): string {
  const words: string[] = [];
  for (const [name, value] of Object.entries(spec.nodeEnv ?? {})) {
    if (!ENV_NAME.test(name)) throw new RangeError(`not an environment variable name: ${JSON.stringify(name)}`);
    words.push(`${name}=${shellQuote(value)}`);
  }
  const [hookPath, flag, channelDir, ...rest] = hookArgs(spec);
  words.push(shellQuote(spec.nodePath), shellQuote(hookPath), flag, shellQuote(channelDir), ...rest);
  return words.join(' ');
}

/**
 * The first Claude Code that runs a command hook in exec form, `{"command": <exe>, "args": [...]}`,
 * spawning the program with no shell. Found by reading the binaries' schema text ("Argument list for
 * exec form"): absent from 2.1.120, 2.1.137 and 2.1.138, present in 2.1.139 and in every later
 * version checked (2.1.140, 2.1.160, 2.1.200, 2.1.240, 2.1.283, 2.1.310, 2.1.332). An older Claude
 * Code has no `args`, so the exec form is written only for a version known to have it.
 */
export const EXEC_FORM_SINCE = [2, 1, 139] as const;

/** Whether a `claude --version` answer (`2.1.332 (Claude Code)`) names a version with the exec form. */
export function supportsExecForm(versionText: string | undefined): boolean {
  const m = /^\s*(\d+)\.(\d+)\.(\d+)/.exec(versionText ?? '');
  if (!m) return false;
  const v = [Number(m[1]), Number(m[2]), Number(m[3])];
  for (let i = 0; i < 3; i++) if (v[i] !== EXEC_FORM_SINCE[i]) return v[i] > EXEC_FORM_SINCE[i];
  return true;
}

/** The exec form of our entry: no shell parses it, so no quoting, and it runs alike under Git Bash, PowerShell or none. */
export interface HookExec {
  command: string;
  args: string[];
}

/**
 * The exec form, or undefined where it cannot say what the shell form says: an environment for the
 * runtime (VS Code's Electron needs ELECTRON_RUN_AS_NODE=1), which an exec entry has no field for.
 */
export function buildHookExec(spec: HookCommandSpec): HookExec | undefined {
  if (Object.keys(spec.nodeEnv ?? {}).length > 0) return undefined;
  return { command: spec.nodePath, args: hookArgs(spec) };
}
