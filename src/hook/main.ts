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
import {
  CHANNEL_SCHEMA_VERSION,
  DEFAULT_PROBE_POLLS,
  DEFAULT_PROBE_POLL_MS,
  HOOK_SOURCE,
  MAX_ID_LENGTH,
  MAX_PATH_LENGTH,
} from '../core/channel/constants';
import { appendChannelLine, resolveChannelDir } from './channelWriter';
import { LANDING_ARG, runLandingWatch, startLandingWatch } from './landingProcess';
import { checkOnDisk, recordFileOf } from './onDiskCheck';
import { installedHookReports } from './pluginGuard';
import { probeTranscript } from './probe';
import { parseHookInput, readStdin, type HookInput } from './stdin';

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
}

function intArg(value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined || !/^\d+$/.test(value)) return undefined;
  const n = Number(value);
  return n >= min && n <= max ? n : undefined;
}

export function parseHookArgs(argv: string[]): HookArgs {
  const args: HookArgs = { probe: false, plugin: false, polls: DEFAULT_PROBE_POLLS, pollMs: DEFAULT_PROBE_POLL_MS };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--probe') args.probe = true;
    else if (a === '--polls') args.polls = intArg(argv[++i], 1, 100_000) ?? args.polls;
    else if (a === '--poll-ms') args.pollMs = intArg(argv[++i], 1, 60_000) ?? args.pollMs;
    else if (a === '--channel-dir') args.channelDir = argv[++i] || undefined;
    else if (a === '--plugin') args.plugin = true;
    else if (a === '--timeout-ms') args.timeoutMs = intArg(argv[++i], 1, 86_400_000);
  }
  return args;
}

/** An id-like optional field, left out when it would not pass the channel schema. */
function optional(value: string | undefined): string | undefined {
  return value && value.length <= MAX_ID_LENGTH ? value : undefined;
}

/** The fields every event carries, or undefined when the input cannot make a valid event. */
function baseFields(input: HookInput) {
  const { session_id, transcript_path, tool_use_id } = input;
  if (!session_id || !transcript_path || !tool_use_id) return undefined;
  if (session_id.length > MAX_ID_LENGTH || tool_use_id.length > MAX_ID_LENGTH) return undefined;
  if (transcript_path.length > MAX_PATH_LENGTH) return undefined;
  return { session_id, transcript_path, tool_use_id };
}

async function run(argv: string[]): Promise<void> {
  const args = parseHookArgs(argv);
  const budget = args.probe ? args.polls * args.pollMs : 0;
  setTimeout(() => process.exit(0), WATCHDOG_MS + budget - sinceStart()).unref();

  const input = parseHookInput(await readStdin(STDIN_BUDGET_MS - sinceStart()));
  if (!input) return;
  const base = baseFields(input);
  if (!base) return;
  const dir = resolveChannelDir(args.channelDir, process.env);
  // Key order (v, event, at first) only serves people reading the file.
  const head = (event: 'pre' | 'post' | 'wait' | 'landed', at: number) => ({
    v: CHANNEL_SCHEMA_VERSION,
    event,
    at,
    ...base,
    tool_name: optional(input.tool_name),
    agent_id: optional(input.agent_id),
  });

  const hookEvent = input.hook_event_name;
  const isPost = hookEvent === 'PostToolUse' || hookEvent === 'PostToolUseFailure';
  if (!isPost && hookEvent !== 'PreToolUse') return;
  if (args.plugin && installedHookReports(process.env, hookEvent)) return;
  // What was on disk for this call while its hook ran: lets a reader that was not watching prove the
  // call's shape later (README, "The channel"). Checked before the line is appended, so `checked_at`
  // precedes the moment a watcher can see the event.
  const recordPath = recordFileOf(base.transcript_path, base.session_id, optional(input.agent_id));
  const found = recordPath === undefined ? undefined : checkOnDisk(recordPath, base.tool_use_id);
  const { complete_bytes: completeBytes, ...seen } = found ?? { complete_bytes: 0 };
  const evidence = found && {
    ...seen,
    checked_at: Date.now(),
    ...(recordPath !== base.transcript_path && recordPath !== undefined && recordPath.length <= MAX_PATH_LENGTH ? { record_path: recordPath } : {}),
  };
  if (isPost) {
    const posted = appendChannelLine(dir, base.session_id, { ...head('post', firedAt), ...evidence, source: HOOK_SOURCE });
    // Neither record nor result on disk yet: whether the record lands with its result is decided after
    // this hook exits (Claude Code appends the result once PostToolUse hooks have run). Watch for it
    // from a detached process, so Claude Code does not wait for the answer.
    if (posted && recordPath !== undefined && found?.record_on_disk === false && found.result_on_disk === false) {
      startLandingWatch({ ...head('landed', 0), event: 'landed', record_path: recordPath, from_byte: completeBytes, channel_dir: dir });
    }
    return;
  }

  const written = appendChannelLine(dir, base.session_id, {
    ...head('pre', firedAt),
    ...evidence,
    prompt_id: optional(input.prompt_id),
    mode: args.probe ? 'probe' : 'announce',
    timeout_ms: args.timeoutMs,
    source: HOOK_SOURCE,
  });
  if (!args.probe || !written) return;

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
