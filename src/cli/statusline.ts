/**
 * `transcript-lag statusline`: Claude Code's statusLine command. Claude Code runs it about once a
 * second (refreshInterval 1) with the session's JSON on stdin (session_id, transcript_path; nothing
 * about running hooks), and shows what it prints. It prints one line: the calls held right now and
 * the oldest one's age, else the newest written call's lag; with `--wrap`, the user's own status line first.
 * Held and lag are the views' rules (src/rules/hookEvidence.ts): it never watches a record land, so
 * it says a lag as the bound its hooks' evidence proves, as the views say a call they did not watch
 * (test/unit/cli/statuslineAgreement.test.ts holds the two to the same answers).
 *
 * It starts on every refresh, so it stays small (node: modules only, no zod, chokidar or engine;
 * jsonc-parser's parser only when it wraps a line),
 * reads only bounded tails of the session's channel file and transcript, exits 0 (1 only when the
 * line could not be written whole: src/rules/writeAll.ts) and never prints anything but that line.
 * install-statusline runs a stable copy of this bundle. Our part of the line holds no text from a
 * transcript (counts and durations only); the user's own part is their program's output, colours
 * and all, as Claude Code shows it without us.
 */
import type { ChildProcessByStdio } from 'node:child_process';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { CHANNEL_FILE_SUFFIX, SAFE_SESSION_ID } from '../rules/channelConstants';
import { type FireReport, isBetterFire } from '../rules/fireTime';
import { type LenientCallEvent, lenientCallEvent } from '../rules/channelLineHead';
import { type CallSightings, type HeldBounds, type HooksTimed, hookSawRecord, isHeld, noteSighting, verdictFromHook } from '../rules/hookEvidence';
import { readBounded } from '../rules/boundedRead';
import { resolveChannelDir } from '../rules/channelWriter';
import { callInWindow, ON_DISK_WINDOW_BYTES, readWindow, recordFileOf, type TranscriptWindow } from '../rules/onDiskCheck';
import { readStdin as readStdinBytes } from '../rules/stdin';
import { lazyWriteDeadline, writeAll } from '../rules/writeAll';
import { terminalStatusText, type TerminalStatus } from '../presentation/terminalStatus';
import type { CliIo } from './io';

/** The channel file's last bytes read: about 200 events (pre and post of 100 calls), more than a turn has held at once. */
export const CHANNEL_TAIL_BYTES = 64 * 1024;
/** Calls looked up in the transcript per refresh at most, newest first (each is one bounded read). */
export const MAX_CALLS_CHECKED = 16;
const STDIN_MAX_BYTES = 1024 * 1024;
const STDIN_WAIT_MS = 500;
/** The user's own status line command gets this long before its output is left out. */
export const WRAPPED_TIMEOUT_MS = 3000;

interface CallEvents {
  id: string;
  /** The pre that gives the call's fire time: the mod's when it reported the call, else the earliest (../rules/fireTime.ts). */
  pre: LenientCallEvent;
  /** The transcript and subagent the call's first pre named. */
  transcriptPath: string;
  agentId?: string;
  /** What its own hooks saw on disk, folded as the engine folds it (../rules/hookEvidence.ts). */
  seen: CallSightings;
}

/** The last `maxBytes` of a regular file, from its first complete line; undefined when it cannot be read. */
export function readTail(path: string, maxBytes: number): string | undefined {
  const read = readBounded(path, maxBytes, 'end');
  if (!read) return undefined;
  const text = read.bytes.toString('utf8');
  return read.start === 0 ? text : text.slice(text.indexOf('\n') + 1);
}

/** How a pre line reached the channel, for choosing among several reports of one call. */
function fireOf(e: LenientCallEvent): FireReport {
  return { at: e.at, transport: e.transport ?? 'command' };
}

/**
 * Each call's fire, first transcript and subagent, and what its hooks saw, in the order their first
 * pre events came. Lines are read as the engine's reader reads them (../rules/channelLineHead.ts):
 * a line the engine drops is dropped here.
 */
export function callsOf(channelText: string): CallEvents[] {
  const calls = new Map<string, CallEvents>();
  const later: LenientCallEvent[] = [];
  for (const line of channelText.split('\n')) {
    const e = lenientCallEvent(line);
    if (!e) continue;
    if (e.event !== 'pre') {
      later.push(e);
      continue;
    }
    let call = calls.get(e.tool_use_id);
    if (!call) calls.set(e.tool_use_id, (call = { id: e.tool_use_id, pre: e, transcriptPath: e.transcript_path, seen: {} }));
    else if (isBetterFire(fireOf(call.pre), fireOf(e))) call.pre = e;
    call.agentId ??= e.agent_id;
    noteSighting(call.seen, e as LenientCallEvent & { event: 'pre' });
  }
  for (const e of later) {
    const call = calls.get(e.tool_use_id);
    if (!call) continue;
    // No copy per event: lenientCallEvent requires a landed event's with_result, a boolean, and a wait's outcome.
    noteSighting(call.seen, e as LenientCallEvent & ({ event: 'post' | 'hooks' } | { event: 'landed'; with_result: boolean } | { event: 'wait'; outcome: 'seen' | 'behind' | 'error' }));
  }
  return [...calls.values()];
}

/** Whether the call's tool_use record is in the window: true, false, or undefined when the window cannot tell. */
export function recordIn(w: TranscriptWindow, toolUseId: string): boolean | undefined {
  return callInWindow(w, toolUseId).record !== undefined ? true : w.whole ? false : undefined;
}

/** One call as the status line sees it: the engine's facts, from the channel and a bounded transcript lookup. */
export interface StatuslineCall {
  id: string;
  firedAt: number;
  /** True: on disk (a hook saw it, or the lookup found it); false: the lookup proved it absent; undefined: not known. */
  recordOnDisk?: boolean;
  /** Held by the one rule (../rules/hookEvidence.ts `isHeld`). */
  held: boolean;
  /** Written calls: the hold as their hooks' evidence proves it (`verdictFromHook`), as the views show a call indexed as history. */
  bounds?: HeldBounds;
  /** Its settings PreToolUse hooks as the mod timed them, once they settled. */
  hooks?: HooksTimed;
}

/**
 * The session's calls from its channel file and, for calls the hook did not see written, its
 * transcript (or a subagent's), newest fire first. Only the transcript Claude Code named on stdin
 * is read: a channel line naming another file is not followed.
 */
export function sessionCalls(channelDir: string, sessionId: string, transcriptPath?: string): StatuslineCall[] | undefined {
  if (!SAFE_SESSION_ID.test(sessionId)) return undefined;
  const text = readTail(join(channelDir, sessionId + CHANNEL_FILE_SUFFIX), CHANNEL_TAIL_BYTES);
  if (text === undefined) return undefined;
  let checked = 0;
  const tails = new Map<string, TranscriptWindow | undefined>();
  const out: StatuslineCall[] = [];
  // Newest first: held calls are among the newest, and the budget of lookups goes to them.
  for (const call of callsOf(text).sort((a, b) => b.pre.at - a.pre.at)) {
    const firedAt = call.pre.at;
    let recordOnDisk: boolean | undefined = hookSawRecord(call.seen) ? true : undefined;
    if (recordOnDisk === undefined && checked < MAX_CALLS_CHECKED && transcriptPath !== undefined && call.transcriptPath === transcriptPath) {
      checked++;
      const recordPath = recordFileOf(transcriptPath, sessionId, call.agentId);
      if (recordPath !== undefined) {
        if (!tails.has(recordPath)) tails.set(recordPath, readWindow(recordPath, ON_DISK_WINDOW_BYTES));
        const tail = tails.get(recordPath);
        // A record the window cannot find is unknown, not held; only a window holding the whole file proves it absent.
        if (tail !== undefined) recordOnDisk = recordIn(tail, call.id);
      }
    }
    const entry: StatuslineCall = { id: call.id, firedAt, held: isHeld({ firedAt, recordOnDisk }) };
    if (recordOnDisk !== undefined) entry.recordOnDisk = recordOnDisk;
    if (call.seen.hooks !== undefined) entry.hooks = call.seen.hooks;
    if (recordOnDisk === true) {
      const held = verdictFromHook(call.seen, firedAt).held;
      if (held) entry.bounds = held;
    }
    out.push(entry);
  }
  return out;
}

/** What the line says: the held calls and the oldest one's age, else the newest written call's lag as its evidence bounds it. */
export function sessionStatus(channelDir: string, sessionId: string, now: number, transcriptPath?: string): TerminalStatus {
  const status: TerminalStatus = { held: 0, oldestHeldMs: 0, hooked: false };
  const calls = sessionCalls(channelDir, sessionId, transcriptPath);
  if (calls === undefined) return status;
  status.hooked = calls.length > 0;
  for (const call of calls) {
    if (call.held) {
      status.held++;
      if (now - call.firedAt >= status.oldestHeldMs) {
        status.oldestHeldMs = now - call.firedAt;
        status.oldestHeldHooks = call.hooks;
      }
    } else if (call.recordOnDisk === true && status.last === undefined) {
      status.last = { toolUseId: call.id };
      if (call.bounds) status.last.bounds = call.bounds;
      if (call.hooks) status.last.hooks = call.hooks;
    }
  }
  return status;
}

/** Claude Code's statusLine input, or undefined for anything else. */
export function parseStatusInput(text: string): { session_id: string; transcript_path?: string } | undefined {
  try {
    const v = JSON.parse(text) as { session_id?: unknown; transcript_path?: unknown } | null;
    if (typeof v?.session_id !== 'string') return undefined;
    return { session_id: v.session_id, transcript_path: typeof v.transcript_path === 'string' ? v.transcript_path : undefined };
  } catch {
    return undefined;
  }
}

export interface StatuslineArgs {
  channelDir?: string;
  /** The user's previous statusLine value, as its exact JSON text, base64url: run, and restored by uninstall. */
  wrap?: string;
}

export function parseStatuslineArgs(argv: string[]): StatuslineArgs {
  const out: StatuslineArgs = {};
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--channel-dir') out.channelDir = argv[++i] || undefined;
    else if (argv[i] === '--wrap') out.wrap = argv[++i] || undefined;
  }
  return out;
}

/**
 * The command of a wrapped statusLine value, when it has one. Its text is JSONC: jsonc-parser reads
 * it, required here, not imported, so a refresh without a wrapped line loads no parser.
 */
export function wrappedCommand(wrap: string | undefined): string | undefined {
  if (!wrap) return undefined;
  try {
    return (require('../core/settings/wrappedStatusLine') as typeof import('../core/settings/wrappedStatusLine')).wrappedCommand(wrap);
  } catch {
    return undefined;
  }
}

/** The user's own status line output kept at most: a status line is a few hundred bytes; `yes` is endless. */
export const WRAPPED_MAX_BYTES = 16 * 1024;

export interface WrappedLimits {
  timeoutMs: number;
  maxBytes: number;
}

/** Where Claude Code 2.1.332 looks for PowerShell 7 when there is no Git Bash, before Windows PowerShell. */
const POWERSHELL_7 = ['C:\\Program Files\\PowerShell\\7\\pwsh.exe', 'C:\\Program Files\\PowerShell\\7-preview\\pwsh.exe'];

/**
 * The shell Claude Code runs a status line in, so the user's own runs where they wrote it for: sh on
 * POSIX. On Windows Claude Code finds Git Bash (CLAUDE_CODE_GIT_BASH_PATH, Program Files, beside git on
 * PATH) and puts its path in SHELL for what it starts: that bash when SHELL names one; else PowerShell 7
 * where Claude Code looks for it, else Windows PowerShell, with its arguments (`-NoProfile -Command`).
 */
export function wrappedShellOf(command: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform, isFile: (p: string) => boolean = isFileSync): [string, string[]] {
  if (platform !== 'win32') return ['sh', ['-c', command]];
  const shell = env.SHELL;
  if (shell && /(?:^|[\\/])(?:bash|sh)(?:\.exe)?$/i.test(shell) && isFile(shell)) return [shell, ['-c', command]];
  const powershell = POWERSHELL_7.find(isFile) ?? `${env.SystemRoot ?? env.SYSTEMROOT ?? 'C:\\Windows'}\\System32\\WindowsPowerShell\\v1.0\\powershell.exe`;
  return [powershell, ['-NoProfile', '-Command', command]];
}

function isFileSync(p: string): boolean {
  try {
    return (require('node:fs') as typeof import('node:fs')).statSync(p).isFile();
  } catch {
    return false;
  }
}

/**
 * Runs the user's own status line command as Claude Code would (shell, same stdin); its stdout, or
 * what it printed before it failed, was slow or said too much. It runs in a process group of its
 * own, which is killed whole when it takes longer than the timeout or prints more than maxBytes:
 * killing only `sh` would leave its `sleep` or `yes` running after us, one more on every refresh.
 */
export function runWrapped(command: string, input: string, env: NodeJS.ProcessEnv, limits: WrappedLimits = { timeoutMs: WRAPPED_TIMEOUT_MS, maxBytes: WRAPPED_MAX_BYTES }): Promise<string> {
  return new Promise((resolve) => {
    let child: ChildProcessByStdio<Writable, Readable, null>;
    let StringDecoderCtor: typeof import('node:string_decoder').StringDecoder;
    try {
      // Required here, not imported: without a wrapped line the start-up need not load child_process.
      const { spawn } = require('node:child_process') as typeof import('node:child_process');
      StringDecoderCtor = (require('node:string_decoder') as typeof import('node:string_decoder')).StringDecoder;
      const [shell, args] = wrappedShellOf(command, env);
      // Windows: a detached child would get a console window of its own, flashing on every refresh;
      // the tree is killed with taskkill there instead (killProcessGroup).
      const win = process.platform === 'win32';
      child = spawn(shell, args, { env, stdio: ['pipe', 'pipe', 'ignore'], detached: !win, windowsHide: true });
    } catch {
      resolve('');
      return;
    }
    // Whole characters only: a cut in the middle of one is left out.
    const decoder = new StringDecoderCtor('utf8');
    let out = '';
    let bytes = 0;
    let done = false;
    const finish = (killGroup: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (killGroup) killProcessGroup(child);
      child.stdout.destroy();
      resolve(out);
    };
    const timer = setTimeout(() => finish(true), limits.timeoutMs);
    child.stdout.on('data', (d: Buffer) => {
      if (done) return;
      const room = limits.maxBytes - bytes;
      out += decoder.write(d.length > room ? d.subarray(0, room) : d);
      bytes += Math.min(d.length, room);
      if (d.length > room) finish(true);
    });
    child.on('error', () => finish(false));
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
    child.on('close', () => finish(false));
  });
}

/** SIGKILL to the child's whole process group (it leads its own: `detached`), else to the child alone. */
function killProcessGroup(child: { pid?: number; kill(signal: NodeJS.Signals): boolean }): void {
  try {
    if (child.pid === undefined) return;
    if (process.platform === 'win32') {
      // No process groups: taskkill ends the shell and everything it started (/T).
      const { spawn } = require('node:child_process') as typeof import('node:child_process');
      spawn('taskkill', ['/pid', String(child.pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true }).on('error', () => child.kill('SIGKILL'));
      return;
    }
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    try {
      child.kill('SIGKILL');
    } catch {
      // gone already
    }
  }
}

/** Their output, then ours on the same last line. */
export function joinStatus(theirs: string, ours: string): string {
  const t = theirs.replace(/\s+$/, '');
  return t === '' ? ours : `${t}  │  ${ours}`;
}

/** The whole status line for one refresh: never throws. */
export async function statusLine(argv: string[], input: string, env: NodeJS.ProcessEnv, now: () => number): Promise<string> {
  const args = parseStatuslineArgs(argv);
  const command = wrappedCommand(args.wrap);
  const theirs = command === undefined ? Promise.resolve('') : runWrapped(command, input, env);
  let ours = 'transcript-lag: no session';
  try {
    const parsed = parseStatusInput(input);
    if (parsed) ours = terminalStatusText(sessionStatus(resolveChannelDir(args.channelDir, env), parsed.session_id, now(), parsed.transcript_path));
  } catch {
    ours = 'transcript-lag: unknown';
  }
  return joinStatus(await theirs, ours);
}

/**
 * The statusLine JSON, read as the hook reads its own (src/rules/stdin.ts): without process.stdin,
 * which would load net and streams at every start; a stdin left open ends at the deadline.
 */
async function readStdin(): Promise<string> {
  const bytes = await readStdinBytes(STDIN_WAIT_MS);
  // The statusLine JSON is small: a payload over the hook's parse cap is not one.
  return bytes.whole && bytes.whole.length <= STDIN_MAX_BYTES ? bytes.whole.toString('utf8') : '';
}

export const usage = `Usage: transcript-lag statusline [--channel-dir D] [--wrap B64]  < statusLine JSON

Claude Code's statusLine command (install-statusline sets it): reads the session's JSON on stdin
and prints one line, the calls held right now and the oldest one's age, else the newest written
call's lag as its hooks' evidence bounds it (lag ≤ 2.8s, lag 405 ms–605 ms, lag ≥ 200 ms).
  --channel-dir D  the hook channel folder (default: <claude dir>/transcript-lag)
  --wrap B64       the statusLine value it replaced, base64url: run first, its output kept
Exits 0, unless the line could not be written whole (stdout a non-blocking pipe nobody read
for 10 s, or a failed write): then 1.
`;

/** `transcript-lag statusline [--channel-dir D] [--wrap B64]`: always 0. --help answers before stdin is read. */
export async function run(args: string[], io: CliIo): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(usage);
    return 0;
  }
  const line = await statusLine(args, await readStdin(), io.env, () => io.clock.now());
  io.stdout(`${line}\n`);
  return 0;
}

if (require.main === module) {
  // The stable copy install-statusline runs: whatever happens, one line and exit 0; exit 1 only
  // when the line could not be written whole. writeSync, not process.stdout (net and streams again).
  process.on('uncaughtException', () => process.exit(0));
  let code = 0;
  readStdin()
    .then((input) => statusLine(process.argv.slice(2), input, process.env, Date.now))
    .then((line) => {
      if (!writeAll(1, `${line}\n`, lazyWriteDeadline(process.env))) code = 1;
    })
    .catch(() => undefined)
    // A wrapped command still running past its timeout, or a stdin never closed: leave now.
    .finally(() => process.exit(code));
}
