import { engineNoticeText } from '../core/engineNotices';
import { promises as fsp } from 'node:fs';
import type { CliIo } from './io';
import { ENGINE_EVENT_NAMES, type EngineEvent } from '../core/engineEvents';
import { resolveClaudeDir } from '../core/discovery';
import { TranscriptLagEngine, type EngineReady } from '../core/engine';
import { chokidarChangeSource } from '../platform/chokidarChangeSource';
import { nodeSpoolFolding } from '../rules/nodeSpoolFolding';
import { nodeMeasuredKeeping } from '../platform/measuredKeeping';
import { HookReceiverService, receiverStatusText } from '../platform/hookReceiverService';
import { isLoopbackHost, nonLoopbackMetricsWarning, parseMetricsAddress, type MetricsAddress } from '../platform/metricsAddress';
import type { MetricsServer } from '../platform/metricsServer';
import { boundsText, formatDuration, formatLag, hooksText, shortId } from '../presentation/format';
import { hookRunText } from '../presentation/hookRuns';
import type { CallShape } from '../core/callShape';
import type { HeldBounds } from '../rules/hookEvidence';
import type { HooksDecision } from '../rules/channelConstants';
import { hooksTimedOf } from '../rules/hookEvidence';
import { jsonEscapingUnprintable, printable } from '../rules/printable';

const usage = `Usage: transcript-lag watch [--all] [--claude-dir D] [--json] [--poll-ms N] [--metrics [HOST:]PORT]

Follows live Claude Code sessions of the current folder (or, with --all, every
session under the Claude dir) and prints what happens to each tool call:
held (its PreToolUse fired, its record is not on disk), written (its record
reached the transcript, with the lag), result, wait (how a probing hook's wait
ended), plus session and tail changes. Ctrl-C stops.

  --all            every session under the Claude dir, not only this folder's
  --claude-dir D   the Claude dir (default: $CLAUDE_CONFIG_DIR or ~/.claude)
  --json           one JSON object per line: event, session_id, tool_use_id, at (ms since epoch), ...
                   The first is {"event":"ready",...,"files":N,"history_bytes":B}: from then on every
                   line appended to a transcript or hook channel is reported, while the history
                   found at start (B bytes in N transcripts) is still being indexed.
                   Each live transcript record with a uuid is a "record" event (uuid, type, line,
                   born_at, born_from "mod"|"timestamp", written_at, lag_ms); only --json prints them.
  --poll-ms N      stat poll interval, the safety net for missed file events (default 1000)
  --metrics [HOST:]PORT
                   also serve Prometheus metrics at http://HOST:PORT/metrics (HOST defaults to
                   127.0.0.1: say 0.0.0.0 only if other machines must scrape it)
`;

interface WatchArgs {
  all: boolean;
  json: boolean;
  claudeDir?: string;
  pollMs: number;
  metrics?: MetricsAddress;
}

function parseArgs(args: string[]): WatchArgs | string {
  const out: WatchArgs = { all: false, json: false, pollMs: 1000 };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--all') out.all = true;
    else if (a === '--json') out.json = true;
    else if (a === '--claude-dir') {
      const v = args[++i];
      if (!v) return '--claude-dir needs a folder';
      out.claudeDir = v;
    } else if (a === '--poll-ms') {
      const n = Number(args[++i]);
      if (!Number.isInteger(n) || n < 10 || n > 600_000) return '--poll-ms needs a whole number of milliseconds between 10 and 600000';
      out.pollMs = n;
    } else if (a === '--metrics') {
      const address = parseMetricsAddress(args[++i] ?? '');
      if (!address) return '--metrics needs PORT or HOST:PORT';
      out.metrics = address;
    } else return `unknown option '${a}'`;
  }
  return out;
}

/** Every `event` a `watch --json` line can carry: its own first line, then the engine's. */
export const WATCH_JSON_EVENTS: readonly string[] = ['ready', ...ENGINE_EVENT_NAMES];

/** `ready`: where history ends is fixed for every followed file; what is appended after is live. */
export function readyJsonLine(ready: EngineReady): string {
  return `${JSON.stringify({ event: 'ready', session_id: null, tool_use_id: null, at: ready.at, files: ready.files, history_bytes: ready.historyBytes })}\n`;
}

export function readyReadableLine(ready: EngineReady): string {
  const mib = (ready.historyBytes / 2 ** 20).toFixed(1);
  return `${clockTime(ready.at)}  ready: following ${ready.files} transcript${ready.files === 1 ? '' : 's'}; ${mib} MiB of history being indexed, everything appended from now on is live\n`;
}

/** The `--json` line: the event's own fields, with `tool_use_id` present (null) on session and tail events. */
export function jsonLine(e: EngineEvent): string {
  const { event, session_id, at, ...rest } = e;
  return `${jsonEscapingUnprintable(JSON.stringify({ event, session_id, tool_use_id: 'tool_use_id' in e ? e.tool_use_id : null, at, ...rest }))}\n`;
}

/** `  hooks 2.0s`, `  denied by a hook · hooks 2.0s`: the mod's figures, when the event has them. */
function watchHooks(e: { hooks_ms?: number; hooks_decision?: HooksDecision }): string {
  const text = hooksText(hooksTimedOf(e));
  return text === undefined ? '' : `  ${text}`;
}

/** `lag 515 ms` when the engine's read measured it; `held ≤ 600 ms` when only the looks of the call's hooks bound it. */
function watchLag(e: { lag_ms: number | null; lag_bounds?: HeldBounds | null }): string {
  return e.lag_ms === null && e.lag_bounds ? `held ${boundsText(e.lag_bounds)}` : `lag ${formatLag(e.lag_ms)}`;
}

function watchShape(shape: CallShape): string {
  return shape === 'with_result' ? 'with its result' : shape === 'before_result' ? 'before its result' : 'shape unknown';
}

function clockTime(at: number): string {
  return new Date(at).toISOString().slice(11, 23);
}

/** The readable live view: one line per event, printable (titles, tool names and ids come from transcripts). */
/** The event as one readable line, or '' for events the readable view leaves out. */
export function readableLine(e: EngineEvent): string {
  const text = readableText(e);
  return text ? `${printable(text)}\n` : '';
}

function readableText(e: EngineEvent): string {
  const head = `${clockTime(e.at)}  ${e.session_id.slice(0, 8)}  ${e.event.padEnd(7)}`;
  const call = 'tool_use_id' in e ? `${(e.tool_name ?? 'tool').padEnd(10)} ${shortId(e.tool_use_id)}${e.agent_id ? ` (agent ${e.agent_id.slice(0, 8)})` : ''}` : '';
  switch (e.event) {
    case 'held':
      return `${head}  ${call}  fired; its record is not on disk`;
    case 'written':
      return `${head}  ${call}  line ${e.line}  ${watchLag(e)}  ${watchShape(e.shape)}${e.partial_dwell_ms ? `  sat partial ${formatDuration(e.partial_dwell_ms)}` : ''}${watchHooks(e)}`;
    case 'joined':
      return `${head}  ${call}  hook reported late: lag ${formatDuration(e.lag_ms)}`;
    case 'revised':
      return `${head}  ${call}  a look of its hooks found it before the engine read it: ${watchLag({ lag_ms: null, lag_bounds: e.lag_bounds })}  ${watchShape(e.shape)}`;
    case 'result':
      return `${head}  ${call}  result at line ${e.line}`;
    case 'wait':
      return `${head}  ${call}  ${e.outcome} after ${e.polls} polls (${formatDuration(e.waited_ms)})${e.source && e.source !== 'transcript-lag-hook' ? ` from ${e.source}` : ''}`;
    case 'post':
      return `${head}  ${call}  PostToolUse`;
    case 'hooks':
      return `${head}  ${call}  settings hooks settled${watchHooks(e)}`;
    case 'hook_run':
      return `${head}  ${call}  ${hookRunText(e)}`;
    case 'partial':
      return `${head}  line ${e.line} is partial on disk: ${e.bytes} bytes, no newline yet`;
    case 'tail':
      return `${head}  transcript ${e.change} (generation ${e.generation})`;
    case 'record':
      // One per transcript line: too many to read. --json has them; the report shows their lags by type.
      return '';
    case 'session': {
      const s = e.stats;
      const lag = s.lag_p50_ms === null ? 'no lag measured' : `lag p50 ${formatDuration(s.lag_p50_ms)} p95 ${formatDuration(s.lag_p95_ms ?? 0)} max ${formatDuration(s.lag_max_ms ?? 0)}`;
      const title = e.title ? `"${e.title.replace(/\s+/g, ' ').slice(0, 60)}"  ` : '';
      return `${head}  ${title}waits seen ${s.waits_seen} / behind ${s.waits_behind}  held ${s.held_now}  written ${s.calls_written}  ${lag}`;
    }
  }
}

export async function run(args: string[], io: CliIo): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(usage);
    return 0;
  }
  const parsed = parseArgs(args);
  if (typeof parsed === 'string') {
    io.stderr(`transcript-lag watch: ${parsed}\n\n${usage}`);
    return 2;
  }
  const claudeDir = parsed.claudeDir ?? resolveClaudeDir(io.env, io.homedir);
  let stopped = false;
  let ticking: Promise<void> = Promise.resolve();
  /** A tick is queued and has not begun: another asks for nothing more (one poll over 20,000 files can outlast the interval). */
  let tickQueued = false;
  // http hooks (install-hook --http) arrive here when this process serves their port; the config is
  // looked at on every poll, so an install after start is served without a restart.
  const receiver = new HookReceiverService(claudeDir, () => io.clock.now(), (s) => io.stderr(`transcript-lag watch: ${receiverStatusText(s)}\n`), {
    onWarning: (text) => io.stderr(`transcript-lag watch: ${text}\n`),
  });
  const tick = () => {
    if (stopped || tickQueued) return;
    tickQueued = true;
    void receiver.refresh();
    ticking = ticking
      .then(() => {
        tickQueued = false;
        return stopped ? undefined : engine.tick();
      })
      .catch((err: unknown) => io.stderr(`transcript-lag watch: ${printable(err instanceof Error ? err.message : String(err))}\n`));
  };
  let watcherReady!: () => void;
  const watching = new Promise<void>((resolve) => (watcherReady = resolve));
  const engine = new TranscriptLagEngine({
    claudeDir,
    workspaceFolders: [io.cwd],
    scope: parsed.all ? 'all' : 'workspace',
    files: io.files,
    clock: io.clock,
    // The watcher reports changes only once its own scan is done: a poll then reads at once
    // what was appended before, instead of at the next stat poll.
    changes: chokidarChangeSource({
      onReady: () => {
        watcherReady();
        tick();
      },
    }),
    removeFile: (p) => fsp.unlink(p),
    // The mod's spooled events (no receiver was up when it reported) are folded into the channel.
    spool: nodeSpoolFolding,
    // What it measures is kept in the channel: a window opened later (or watch again) reads it back.
    measured: nodeMeasuredKeeping,
  });
  const print = parsed.json ? jsonLine : readableLine;
  // `ready` is the first line: events of sessions indexed while it waits for the watcher come after it.
  // Events the readable view leaves out (record) print nothing.
  const emit = (e: EngineEvent) => {
    const line = print(e);
    if (line) io.stdout(line);
  };
  let beforeReady: EngineEvent[] | undefined = [];
  engine.onEvent((e) => (beforeReady ? beforeReady.push(e) : emit(e)));
  // Limits hit (too many open files, a hook flood): on stderr, so --json output stays events only.
  engine.onNotice((n) => io.stderr(`transcript-lag watch: ${printable(engineNoticeText(n))}\n`));
  const metricsServer = parsed.metrics ? await serveMetrics(engine, parsed.metrics, io) : undefined;
  if (!parsed.json) io.stderr(`watching ${parsed.all ? 'every session' : `sessions of ${io.cwd}`} under ${claudeDir} (Ctrl-C stops)\n`);

  await receiver.refresh();
  const ready = await engine.start();
  // `ready` says what is appended from now on is reported: once the watcher's first scan is done
  // (5 s at most), at once; before, only at the poll, which over 20,000 files took seconds.
  await resolvedWithin(watching, WATCHER_READY_WAIT_MS);
  io.stdout(parsed.json ? readyJsonLine(ready) : readyReadableLine(ready));
  const held = beforeReady;
  beforeReady = undefined;
  for (const e of held) emit(e);
  // The CLI is the composition root: the timer lives here, never in the engine.
  const timer = setInterval(tick, parsed.pollMs);
  try {
    await io.stopSignal;
  } finally {
    stopped = true;
    clearInterval(timer);
    // Asked first: a tick under way ends at its next step instead of finishing (a fold of a large spool).
    const disposed = engine.dispose();
    await ticking;
    await metricsServer?.close();
    await receiver.stop();
    await disposed;
  }
  return 0;
}

/** How long `ready` waits for the file watcher's first scan (20,000 transcripts in 20 folders: ~1 s). */
const WATCHER_READY_WAIT_MS = 5_000;

/** Waits for `p`, or `ms` at most. */
async function resolvedWithin(p: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([p, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Metrics for the life of this process: counters only grow, whatever sessions
 * the engine drops. A port in use is said once; watching goes on without them.
 */
async function serveMetrics(engine: TranscriptLagEngine, address: MetricsAddress, io: CliIo): Promise<MetricsServer | undefined> {
  // Required here: prom-client is its own bundle (dist/metrics.js), loaded only with --metrics.
  const { LagMetrics, startMetricsServer } = require('../platform/metricsModule') as typeof import('../platform/metricsModule');
  const metrics = new LagMetrics({ sessions: () => engine.sessions() });
  engine.onEvent((e) => metrics.observe(e));
  // Before binding: what was asked for is what the user must know about, served or not.
  if (!isLoopbackHost(address.host)) io.stderr(`transcript-lag watch: ${nonLoopbackMetricsWarning(address.host)}\n`);
  try {
    const server = await startMetricsServer(metrics, address);
    io.stderr(`transcript-lag watch: metrics at http://${address.host.includes(':') ? `[${address.host}]` : address.host}:${server.port}/metrics\n`);
    return server;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'EADDRINUSE' ? 'the port is in use' : code === 'EADDRNOTAVAIL' ? 'no such local address' : code === 'EACCES' ? 'not allowed to bind it' : (err as Error).message;
    io.stderr(`transcript-lag watch: no metrics: cannot listen on ${address.host}:${address.port} (${why}); watching goes on without them\n`);
    return undefined;
  }
}
