import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { EngineEvent } from '../core/engineEvents';
import type { ChannelTransport } from '../rules/channelConstants';
import type { SessionSnapshot } from '../core/snapshot';

/**
 * The engine's events as Prometheus series (docs/METRICS.md), for a team
 * that scrapes every developer's `watch --metrics` or extension. Labels are
 * bounded: no session or tool_use ids, tools folded to the built-in ones plus
 * `mcp` and `other`, at most MAX_VERSION_LABELS versions plus `other` and `unknown`. Counters only grow for the life of the process, whatever
 * sessions the engine evicts, as Prometheus expects of a counter.
 */

/** Claude Code's own tools keep their name; anything else is `mcp` (an MCP server's tool) or `other`. */
const KNOWN_TOOLS = new Set([
  'Agent', 'Bash', 'BashOutput', 'Edit', 'ExitPlanMode', 'Glob', 'Grep', 'KillShell', 'LS', 'MultiEdit',
  'NotebookEdit', 'Read', 'SlashCommand', 'Task', 'TodoWrite', 'WebFetch', 'WebSearch', 'Write',
]);

export function metricToolName(name: string | undefined): string {
  if (name === undefined) return 'other';
  if (KNOWN_TOOLS.has(name)) return name;
  return name.startsWith('mcp__') ? 'mcp' : 'other';
}

/** The label of a version nothing said yet (the first call of a session whose record is not on disk). */
export const UNKNOWN_VERSION = 'unknown';

/** The label of every version past the first MAX_VERSION_LABELS seen. */
export const OTHER_VERSION = 'other';

/** Distinct versions kept as labels: a machine runs a few Claude Code versions, not thousands. */
export const MAX_VERSION_LABELS = 20;

/**
 * Claude Code versions as a label, bounded twice: anything not shaped like
 * `2.1.332` (a garbled record) is `unknown`, and past the first
 * MAX_VERSION_LABELS distinct well-formed ones (records may say any number
 * in that shape), a new one is `other`, for the life of the process.
 */
export class VersionLabels {
  private readonly kept = new Set<string>();

  constructor(private readonly max = MAX_VERSION_LABELS) {}

  of(version: string | undefined): string {
    if (version === undefined || !/^\d{1,4}\.\d{1,4}\.\d{1,6}$/.test(version)) return UNKNOWN_VERSION;
    if (this.kept.has(version)) return version;
    if (this.kept.size >= this.max) return OTHER_VERSION;
    this.kept.add(version);
    return version;
  }
}

/** The label of every wrapped hook past the first MAX_HOOK_LABELS seen. */
export const OTHER_HOOK = 'other';

/** Distinct wrapped hooks kept as labels: a machine runs a handful of PreToolUse hooks. */
export const MAX_HOOK_LABELS = 20;

/**
 * Wrapped hooks' labels (`hook_run`'s `hook`: a program's or script's file name, src/rules/hookRun.ts)
 * as a label, bounded: the first MAX_HOOK_LABELS distinct ones keep their name, and any later one is
 * `other`, for the life of the process. A label that names `other` itself is kept apart as `other_`.
 */
export class HookLabels {
  private readonly kept = new Set<string>();

  constructor(private readonly max = MAX_HOOK_LABELS) {}

  of(hook: string): string {
    const name = hook === OTHER_HOOK ? `${OTHER_HOOK}_` : hook;
    if (this.kept.has(name)) return name;
    if (this.kept.size >= this.max) return OTHER_HOOK;
    this.kept.add(name);
    return name;
  }
}

/** Hold buckets in seconds: from a prompt write (~0.1 s) to a slow reviewing hook's timeout (60 s). */
export const HELD_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 30, 60];

export interface LagMetricsOptions {
  /** The sessions followed now, read at each scrape: calls held now and Claude Code versions come from them. */
  sessions: () => readonly Pick<SessionSnapshot, 'held' | 'claude_version'>[];
}

export class LagMetrics {
  readonly registry = new Registry();
  private readonly held: Histogram<'tool' | 'shape' | 'transport'>;
  private readonly hooks: Histogram<'tool' | 'decision'>;
  private readonly hookRuns: Histogram<'hook' | 'decision'>;
  private readonly hookLabels = new HookLabels();
  private readonly calls: Counter<'shape' | 'claude_version'>;
  private readonly waits: Counter<'outcome' | 'claude_version'>;
  private readonly revised: Counter<'tool'>;
  /** Calls whose hook fired, so the transport of their `written` event is known (ids forgotten once written). */
  private readonly transports = new Map<string, ChannelTransport>();
  /** Calls whose lag was observed as a figure: a `revised` of one of them is counted once (ids forgotten then). */
  private readonly observed = new Set<string>();
  /** Calls whose hooks were observed: a `hooks` said again for one is not observed twice (the last 10,000, like `observed`). */
  private readonly hooksObserved = new Set<string>();
  private readonly versions = new VersionLabels();

  constructor(opts: LagMetricsOptions) {
    const versionLabel = (v: string | undefined) => this.versions.of(v);
    const registers = [this.registry];
    this.held = new Histogram({
      name: 'transcript_lag_held_seconds',
      help: 'How long a call was held: its PreToolUse hook fired until its record was on disk.',
      labelNames: ['tool', 'shape', 'transport'],
      buckets: HELD_BUCKETS,
      registers,
    });
    this.hooks = new Histogram({
      name: 'transcript_lag_hooks_seconds',
      help: "How long a call's settings PreToolUse hooks ran, as the mod timed them (their share of the hold), by their decision (allow, ask, deny, none). Only calls the mod reported.",
      labelNames: ['tool', 'decision'],
      buckets: HELD_BUCKETS,
      registers,
    });
    this.hookRuns = new Histogram({
      name: 'transcript_lag_hook_seconds',
      help: `How long each wrapped PreToolUse hook ran (transcript-lag complete's hook_run), by hook (its program's or script's file name: the first ${MAX_HOOK_LABELS} seen, then other) and decision (allow, deny, ask, block, error, none). Each hook's own share of a hold.`,
      labelNames: ['hook', 'decision'],
      buckets: HELD_BUCKETS,
      registers,
    });
    this.calls = new Counter({
      name: 'transcript_lag_calls_total',
      help: "Calls whose record was seen to reach disk, by write shape (before its result, or with it in one write) and the Claude Code version that wrote it.",
      labelNames: ['shape', 'claude_version'],
      registers,
    });
    this.revised = new Counter({
      name: 'transcript_lag_revised_total',
      help: "Calls whose lag was observed in transcript_lag_held_seconds and then revised: a look of their own hooks had found the record on disk before the engine read it (the read came late), so that observation overstates the hold; watch and the report give the looks' bound.",
      labelNames: ['tool'],
      registers,
    });
    this.waits = new Counter({
      name: 'transcript_lag_waits_total',
      help: "Hook waits for their own call's record, by how they ended (seen, behind or error) and the Claude Code version of the session.",
      labelNames: ['outcome', 'claude_version'],
      registers,
    });
    new Gauge({
      name: 'transcript_lag_held_calls',
      help: 'Calls held now: their PreToolUse fired and their record is not on disk yet.',
      registers,
      collect() {
        this.set(opts.sessions().reduce((n, s) => n + s.held.length, 0));
      },
    });
    new Gauge({
      name: 'transcript_lag_claude_code_info',
      help: 'Claude Code versions seen in the transcripts followed (value 1).',
      labelNames: ['version'],
      registers,
      collect() {
        this.reset();
        for (const s of opts.sessions()) {
          const version = versionLabel(s.claude_version);
          if (version !== UNKNOWN_VERSION) this.set({ version }, 1);
        }
      },
    });
    // Zero series for every outcome and shape, so rates and ratios exist before the first event.
    for (const outcome of ['seen', 'behind', 'error']) this.waits.inc({ outcome, claude_version: UNKNOWN_VERSION }, 0);
    for (const shape of ['before_result', 'with_result']) this.calls.inc({ shape, claude_version: UNKNOWN_VERSION }, 0);
  }

  observe(e: EngineEvent): void {
    if (e.event === 'held') {
      this.transports.set(e.tool_use_id, e.transport ?? 'command');
      if (this.transports.size > 100_000) this.transports.delete(this.transports.keys().next().value as string);
    } else if (e.event === 'written') {
      const shape = e.shape;
      this.calls.inc({ shape, claude_version: this.versions.of(e.claude_version) });
      const transport = e.transport ?? this.transports.get(e.tool_use_id) ?? 'none';
      this.transports.delete(e.tool_use_id);
      if (e.lag_ms !== null) {
        this.held.observe({ tool: metricToolName(e.tool_name), shape, transport }, e.lag_ms / 1000);
        this.noteObserved(e.tool_use_id);
      }
    } else if (e.event === 'joined') {
      // The hook's report came after the record was seen: its lag is known only now; its shape was counted.
      this.held.observe({ tool: metricToolName(e.tool_name), shape: 'unknown', transport: this.transports.get(e.tool_use_id) ?? 'command' }, e.lag_ms / 1000);
      this.noteObserved(e.tool_use_id);
    } else if (e.event === 'revised') {
      // A look of the call's hooks had found the record before the engine's read: the lag observed for
      // it overstated the hold. A histogram cannot take an observation back; the count of such calls
      // says how many it holds (docs/METRICS.md). Once a call: a revision of a bound observed nothing.
      if (this.observed.delete(e.tool_use_id)) this.revised.inc({ tool: metricToolName(e.tool_name) });
    } else if (e.event === 'hooks') {
      // Said once the call's figure is final (docs/CHANNEL.md): observed then, once a call. Said again
      // only should a report beyond the mod's two change it, which a histogram cannot take back.
      if (this.hooksObserved.has(e.tool_use_id)) return;
      this.hooksObserved.add(e.tool_use_id);
      if (this.hooksObserved.size > 10_000) this.hooksObserved.delete(this.hooksObserved.values().next().value as string);
      this.hooks.observe({ tool: metricToolName(e.tool_name), decision: e.hooks_decision ?? 'none' }, e.hooks_ms / 1000);
    } else if (e.event === 'hook_run') {
      // The engine says each run once (a run read twice is one run).
      this.hookRuns.observe({ hook: this.hookLabels.of(e.hook), decision: e.decision ?? 'none' }, e.ms / 1000);
    } else if (e.event === 'wait') {
      this.waits.inc({ outcome: e.outcome, claude_version: this.versions.of(e.claude_version) });
    }
  }

  private noteObserved(id: string): void {
    this.observed.add(id);
    // A revision comes within seconds of its call's read: the last 10,000 calls are plenty, and bounded.
    if (this.observed.size > 10_000) this.observed.delete(this.observed.values().next().value as string);
  }

  /** The text exposition format, for GET /metrics. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
