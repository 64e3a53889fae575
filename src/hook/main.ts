/**
 * transcript-lag hook (bundled to dist/hook.js). Claude Code runs it on
 * PreToolUse and PostToolUse with the hook JSON on stdin. It appends one line
 * per event to `<channel dir>/<session_id>.jsonl`, and in probe mode waits for
 * its own call's record like a reviewing hook and reports how the wait ended.
 *
 * Rules that keep it harmless: it never writes stdout (Claude Code would read
 * it as a decision), always exits 0, never keeps tool_input/tool_response, and
 * is bounded in time: ≤ 1 s in announce mode, polls × interval + 1 s in probe mode.
 */
// Named imports, not `import * as`: esbuild would copy every export of the module at each start.
import { join } from 'node:path';
import { DEFAULT_PROBE_POLLS, DEFAULT_PROBE_POLL_MS, HOOK_SOURCE } from '../rules/channelConstants';
import { MAX_HOOK_TIMEOUT_MS } from '../rules/channelConstants';
import { reportCall } from './callReport';
import { appendChannelLine, resolveChannelDir } from '../rules/channelWriter';
import { LANDING_ARG, runLandingWatch, startLandingWatch } from './landingProcess';
import { installedHookReports } from './pluginGuard';
import { modReportsCall } from '../rules/modFiles';
import { probeTranscript } from './probe';
import { parseHookInput, readStdin } from '../rules/stdin';

/**
 * Milliseconds since the process started. process.uptime() rather than
 * `performance`, whose first use loads perf_hooks (~10 modules) on every call.
 */
const sinceStart = () => process.uptime() * 1000;

// The process start is the closest we can get to when Claude Code fired the hook.
const firedAt = Math.round(Date.now() - sinceStart());

/**
 * Both count from the process start (sinceStart()), node's own start-up
 * included, so the 1 s holds as Claude Code sees it. Stdin until 600 ms; a hard
 * stop at 850 ms (plus polls × interval in probe mode) whatever hangs.
 */
const STDIN_BUDGET_MS = 600;
const WATCHDOG_MS = 850;

interface HookArgs {
  probe: boolean;
  polls: number;
  pollMs: number;
  channelDir?: string;
  timeoutMs?: number;
  /** Run by the Claude Code plugin (plugin/hooks/hooks.json): stands aside where install-hook's entry reports the call. */
  plugin: boolean;
  /**
   * The plugin's SessionStart: keep the message tool beside the channel (src/hook/messageTool.ts) and fold
   * the spool files of finished sessions into their channel files (src/hook/spoolAtStart.ts); nothing else.
   */
  installMessageTool: boolean;
}

function intArg(value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined || !/^\d+$/.test(value)) return undefined;
  const n = Number(value);
  return n >= min && n <= max ? n : undefined;
}

export function parseHookArgs(argv: string[]): HookArgs {
  const args: HookArgs = { probe: false, plugin: false, installMessageTool: false, polls: DEFAULT_PROBE_POLLS, pollMs: DEFAULT_PROBE_POLL_MS };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--probe') args.probe = true;
    else if (a === '--polls') args.polls = intArg(argv[++i], 1, 100_000) ?? args.polls;
    else if (a === '--poll-ms') args.pollMs = intArg(argv[++i], 1, 60_000) ?? args.pollMs;
    else if (a === '--channel-dir') args.channelDir = argv[++i] || undefined;
    else if (a === '--plugin') args.plugin = true;
    else if (a === '--install-message-tool') args.installMessageTool = true;
    else if (a === '--timeout-ms') args.timeoutMs = intArg(argv[++i], 1, MAX_HOOK_TIMEOUT_MS);
  }
  return args;
}

/**
 * How long a probe may wait for its record: polls × interval, but never longer
 * than any timeout install-hook writes (a day; Claude Code has cancelled the
 * hook by then). The cap also keeps the watchdog's delay under setTimeout's
 * limit (2^31 - 1 ms), above which node fires the timer at once.
 */
export function probeBudgetMs(args: Pick<HookArgs, 'probe' | 'polls' | 'pollMs'>): number {
  return args.probe ? Math.min(args.polls * args.pollMs, MAX_HOOK_TIMEOUT_MS) : 0;
}

/** The watchdog's delay, `elapsedMs` after the process start. */
export function watchdogDelayMs(args: Pick<HookArgs, 'probe' | 'polls' | 'pollMs'>, elapsedMs: number): number {
  return Math.max(0, WATCHDOG_MS + probeBudgetMs(args) - elapsedMs);
}

/**
 * The SessionStart's bound: a rename that Windows refuses while the old copy is open is tried
 * again for about 1.5 s (src/rules/renameReplacing.ts), and the spool's fold stops taking sessions
 * 150 ms after it began (src/hook/spoolAtStart.ts). The plugin's entry allows it 10 s.
 */
const INSTALL_WATCHDOG_MS = 4000;
/** The SessionStart input (its session_id: the session starting) arrives at once; this only bounds a stdin left open. */
const START_STDIN_BUDGET_MS = 300;

/**
 * The plugin's SessionStart work (src/hook/sessionStart.ts) is a bundle of its own beside this one
 * (plugin/bin/, scripts/lib/sessionStartBuild.mjs), required by path only in that mode: this bundle,
 * which every tool call's hook parses, holds none of the copy's or the spool fold's code (a third of
 * its size again, ~1 ms more to compile at each call on a busy machine).
 */
export const SESSION_START_BUNDLE = 'hook-session-start.js';

/** The plugin's SessionStart: the message tool copied, then the spool's finished sessions folded. */
async function sessionStart(channelDir: string): Promise<void> {
  const input = parseHookInput(await readStdin(START_STDIN_BUDGET_MS - sinceStart()));
  // Missing (a hook.js copied alone, as install-hook copies it): the require throws, and the hook exits 0 as ever.
  const bundle = require(join(__dirname, SESSION_START_BUNDLE)) as typeof import('./sessionStart');
  await bundle.sessionStart(__dirname, channelDir, input?.session_id, sinceStart);
}

async function run(argv: string[]): Promise<void> {
  const args = parseHookArgs(argv);
  const budget = probeBudgetMs(args);
  if (args.installMessageTool) {
    setTimeout(() => process.exit(0), Math.max(0, INSTALL_WATCHDOG_MS - sinceStart())).unref();
    await sessionStart(resolveChannelDir(args.channelDir, process.env));
    return;
  }
  setTimeout(() => process.exit(0), watchdogDelayMs(args, sinceStart())).unref();

  const input = parseHookInput(await readStdin(STDIN_BUDGET_MS - sinceStart()));
  if (!input) return;
  const dir = resolveChannelDir(args.channelDir, process.env);
  if (args.plugin && input.hook_event_name !== undefined && installedHookReports(process.env, input.hook_event_name)) return;
  // Announce mode reports only what the mod reports better: stand aside for it (probe mode still waits and reports).
  if (!args.probe && modReportsCall(input)) return;
  const reported = reportCall(input, {
    channelDir: dir,
    firedAt,
    mode: args.probe ? 'probe' : 'announce',
    transport: 'command',
    timeoutMs: args.timeoutMs,
    now: Date.now,
    // A detached process: Claude Code does not wait for it.
    watchLanding: startLandingWatch,
  });
  if (!reported || reported.event !== 'pre' || !args.probe || !reported.written) return;
  const { base, head } = reported;

  const result = await probeTranscript(base.transcript_path, base.tool_use_id, {
    polls: args.polls,
    pollMs: args.pollMs,
    // Room left after the last read for the wait line itself.
    deadline: firedAt + WATCHDOG_MS - 100 + budget,
  });
  appendChannelLine(dir, base.session_id, {
    ...head('wait', Date.now()),
    ...result,
    max_polls: args.polls,
    poll_ms: args.pollMs,
    source: HOOK_SOURCE,
  });
}

if (require.main === module) {
  // Whatever goes wrong, Claude Code must see a silent success.
  process.on('uncaughtException', () => process.exit(0));
  const argv = process.argv.slice(2);
  (argv[0] === LANDING_ARG ? runLandingWatch(argv[1]) : run(argv))
    .catch(() => undefined)
    // stdin may still be open (a writer that never closes it): leave explicitly, always 0.
    .finally(() => process.exit(0));
}
