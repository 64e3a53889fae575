import type { EngineEvent } from '../engineEvents';
import type { SessionStats } from '../sessionStats';
import type { ScannedRecord } from '../records';
import { copiedFrom } from '../records';
import { subagentTranscriptPath } from '../discovery';
import { KeyedCounter, LagWindow } from '../stats';
import { type CallFacts, type CallVerdict, type Observation, compareObservations, parseTimestamp } from './callFacts';
import { LineRanges } from './lineRanges';
import { RecordBirths } from './recordBirths';
import { RecordLags } from './recordLags';
import { SessionDisk } from './sessionDisk';
import type { HeldPlace } from './heldPlace';

/** A value and the observation that gave it: a later or earlier one replaces it, whatever order they came in. */
export type Keyed<T> = { key: Observation; value: T };

/**
 * What is known of one session as a whole, beside its calls (./callStates.ts): its files (the
 * main transcript, each subagent's, the one its hooks name; what is on disk and which lines were
 * read: ./sessionDisk.ts, ./lineRanges.ts), what its records say (title, first prompt, cwd,
 * version, branch, start), and the counts its stats are made of: lags, waits and shapes keyed by
 * call so a fact learned twice counts once, the calls written, and its records' births and lags.
 * Merged order-independently like the calls: the smallest path, the earliest prompt, the latest
 * title, whatever order the inputs came in. The calls and the tombstones write the counts; the
 * session (./sessionState.ts) reads them into its stats and snapshot.
 */
export class SessionFacts {
  /** Hook fired → record on disk, per call. */
  readonly lags: LagWindow;
  /** Each call's wait per reporting source, by outcome. */
  readonly waits: KeyedCounter<'seen' | 'behind' | 'error'>;
  /** Each call's write shape, once known. */
  private readonly shapes: KeyedCounter<'before' | 'with'>;
  writtenCount = 0;
  readonly disk: SessionDisk;
  /** The lines already ingested, per file generation (`path\0generation`): a batch read twice is ingested once. */
  private readonly lines = new Map<string, LineRanges>();
  /** Rows' birth times by uuid, from the mod's `record` events. */
  readonly births = new RecordBirths();
  /** The records reported live, and their lags by type. */
  readonly recordLags = new RecordLags();
  // What the records say; set only by noteMetadata.
  title?: Keyed<string>;
  firstPrompt?: Keyed<string>;
  cwd?: Keyed<string>;
  /** The Claude Code version of the latest call record (a session resumed under a newer build changes it). */
  version?: Keyed<string>;
  /** The branch of the session's latest own record that names one: sessions of one name are told apart by it. */
  gitBranch?: Keyed<string>;
  /**
   * Earliest record `timestamp` seen. The scanner keeps `timestamp` only on
   * records with tool uses, so this is when the session's first call was
   * made as far as its records show, not its very first line.
   */
  startedAt?: number;
  private mainPath?: string;
  private hookPath?: string;
  /** Each subagent's own transcript, by agent id: a held subagent call's record lands there, not in the main file. */
  private readonly agentPaths = new Map<string, string>();

  constructor(countedCalls: number, batchesKept: number) {
    this.lags = new LagWindow(countedCalls);
    this.waits = new KeyedCounter(countedCalls);
    this.shapes = new KeyedCounter(countedCalls);
    this.disk = new SessionDisk(batchesKept);
  }

  /** The session's transcript: its main file once read, else the path its hooks name. */
  get transcriptPath(): string {
    return this.mainPath ?? this.hookPath ?? '';
  }

  /** A hook event named `path`. The smallest path, not the first: the snapshot must not depend on arrival order. */
  noteHookPath(path: string): void {
    if (!this.hookPath || path < this.hookPath) this.hookPath = path;
  }

  /** `path`, as the session's own string when it is that one: one string, not a copy per call (a flood holds 500 calls per session). */
  sharedHookPath(path: string): string {
    return path === this.hookPath ? this.hookPath : path;
  }

  /** A read of `path`: the main transcript or, with an agent id, a subagent's (the smallest path of each, as for hooks). */
  noteTranscriptPath(path: string, isMain: boolean, agentId: string | undefined): void {
    if (isMain && (!this.mainPath || path < this.mainPath)) this.mainPath = path;
    if (!isMain && agentId !== undefined) {
      const known = this.agentPaths.get(agentId);
      if (known === undefined || path < known) this.agentPaths.set(agentId, path);
    }
  }

  /** The lines already ingested of `path`'s `generation`, made on first use. */
  linesOf(path: string, generation: number): LineRanges {
    const key = `${path}\u0000${generation}`;
    let ranges = this.lines.get(key);
    if (!ranges) this.lines.set(key, (ranges = new LineRanges()));
    return ranges;
  }

  /**
   * Where a held call's record will land: a subagent call in its subagent's
   * own transcript (known once that file was read; else the place Claude Code
   * writes it, with no held line: nothing of it was seen), any other call in
   * the session's main transcript. The held line is that file's last line on disk.
   */
  heldPlace(c: CallFacts): HeldPlace {
    const main = this.mainPath ?? c.hookTranscriptPath;
    if (c.agentId !== undefined) {
      const own = this.agentPaths.get(c.agentId);
      if (own !== undefined) return { path: own, line: this.disk.lastLineOf(own) ?? 0 };
      return main === undefined ? {} : { path: subagentTranscriptPath(main, c.agentId) };
    }
    if (main === undefined) return { line: this.disk.lastLine };
    return { path: main, line: this.disk.lastLineOf(main) ?? this.disk.lastLine };
  }

  /** Counts a written call's verdict (callVerdict): its lag among the measured ones or not, its shape when proven (`unknown` takes a count back). */
  countVerdict(id: string, verdict: CallVerdict): void {
    if (verdict.lag === null) this.lags.delete(id);
    else this.lags.set(id, verdict.lag);
    if (verdict.shape === 'unknown') this.shapes.delete(id);
    else this.shapes.set(id, verdict.shape === 'with_result' ? 'with' : 'before');
  }

  noteMetadata(rec: ScannedRecord, obs: Observation): void {
    // The latest title wins; the first prompt and cwd are the earliest seen.
    if (rec.title && (!this.title || compareObservations(obs, this.title.key) > 0)) this.title = { key: obs, value: rec.title };
    if (rec.prompt && !rec.isMetadata && (!this.firstPrompt || compareObservations(obs, this.firstPrompt.key) < 0)) this.firstPrompt = { key: obs, value: rec.prompt };
    if (rec.cwd && (!this.cwd || compareObservations(obs, this.cwd.key) < 0)) this.cwd = { key: obs, value: rec.cwd };
    // A fork's copies were written by the parent's build: only the session's own records say its version.
    if (rec.version && copiedFrom(rec) === undefined && (!this.version || compareObservations(obs, this.version.key) > 0)) this.version = { key: obs, value: rec.version };
    // The latest: a session that switched branches is on the last one. A fork's copies carry the parent's.
    if (rec.gitBranch && copiedFrom(rec) === undefined && (!this.gitBranch || compareObservations(obs, this.gitBranch.key) > 0)) this.gitBranch = { key: obs, value: rec.gitBranch };
    const at = parseTimestamp(rec.timestamp);
    if (at !== null && (this.startedAt === undefined || at < this.startedAt)) this.startedAt = at;
  }

  /** The version that wrote the call's record, else the session's latest: `{}` while neither is known. */
  versionOf(c: CallFacts | undefined): { claude_version?: string } {
    const v = c?.written?.version ?? this.version?.value;
    return v === undefined ? {} : { claude_version: v };
  }

  /**
   * A live record with a uuid reached disk: born (the mod's time, else its own
   * timestamp) → written. Reported once per uuid, whatever reads it again.
   */
  ingestRecordLine(sessionId: string, rec: ScannedRecord, uuid: string, obs: Observation, agentId: string | undefined, out: EngineEvent[]): void {
    if (!this.recordLags.firstSight(uuid)) return;
    const fromMod = this.births.bornAt(uuid);
    const bornAt = fromMod ?? parseTimestamp(rec.timestamp);
    const lag = bornAt === null ? null : Math.max(0, obs.observedAt - bornAt);
    const type = rec.type ?? null;
    if (lag !== null) this.recordLags.add(uuid, type ?? '(none)', lag, fromMod !== undefined);
    out.push({
      event: 'record',
      session_id: sessionId,
      transcript_path: obs.path,
      at: obs.observedAt,
      ...(agentId !== undefined ? { agent_id: agentId } : {}),
      uuid,
      type,
      line: obs.line,
      born_at: bornAt,
      born_from: fromMod !== undefined ? 'mod' : bornAt !== null ? 'timestamp' : null,
      written_at: obs.observedAt,
      lag_ms: lag,
    });
  }

  /** The session's stats, given how many of its calls are held now (heldNow). */
  stats(held: number): SessionStats {
    const lag = this.lags.summary();
    return {
      waits_seen: this.waits.count('seen'),
      waits_behind: this.waits.count('behind'),
      held_now: held,
      calls_written: this.writtenCount,
      lag_p50_ms: lag.p50,
      lag_p95_ms: lag.p95,
      lag_max_ms: lag.max,
      shape_before_result: this.shapes.count('before'),
      shape_with_result: this.shapes.count('with'),
      shape_unknown: Math.max(0, this.writtenCount - this.shapes.count('before') - this.shapes.count('with')),
      malformed_lines: this.disk.malformedLines(),
    };
  }
}
