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
import { resolveChannelDir } from '../rules/channelWriter';
import { readStdin as readStdinBytes } from '../rules/stdin';
import { lazyWriteDeadline, writeAll } from '../rules/writeAll';
import { terminalStatusText, type TerminalStatus } from '../presentation/terminalStatus';
import type { CliIo } from './io';
import { sessionCalls } from './statuslineCalls';
import { runWrapped } from './wrappedStatusLineRun';

const STDIN_MAX_BYTES = 1024 * 1024;
const STDIN_WAIT_MS = 500;

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

/** Their output, then ours on the same last line. */
export function joinStatus(theirs: string, ours: string): string {
  const t = theirs.replace(/\s+$/, '');
  return t === '' ? ours : `${t}  │  ${ours}`;
}

/**
 * The command of a wrapped statusLine value, when it has one. Its text is JSONC: jsonc-parser reads
 * it, required here, not imported, so a refresh without a wrapped line loads no parser.
 */
function wrappedCommandOf(wrap: string | undefined): string | undefined {
  if (!wrap) return undefined;
  try {
    return (require('../core/settings/wrappedStatusLine') as typeof import('../core/settings/wrappedStatusLine')).wrappedStatusLineCommand(wrap);
  } catch {
    return undefined;
  }
}

/** The whole status line for one refresh: never throws. */
export async function statusLine(argv: string[], input: string, env: NodeJS.ProcessEnv, now: () => number): Promise<string> {
  const args = parseStatuslineArgs(argv);
  const command = wrappedCommandOf(args.wrap);
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
