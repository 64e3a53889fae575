import type { EngineEvent } from '../engineEvents';
import { NO_PER_CALL } from '../records';
import type { HookRunEvent, HooksEvent, LandedEvent, MeasuredEvent, PostEvent, PreEvent, WaitEvent } from '../channel/schema';
import { hookRunOf, withHookRun } from '../../rules/hookRun';
import { type HooksTimed, carriesSighting, hooksFields, hooksTimedOf, noteSighting, waitLookOf } from '../../rules/hookEvidence';
import { isBetterFire } from '../../rules/fireTime';
import { type CallFacts, type Observation, type WaitFact, type WrittenObservation, callVerdict, compareObservations, compareWaits, heldNow, verdictKey } from './callFacts';
import type { SessionFacts } from './sessionFacts';
import type { SessionLimits } from './sessionLimits';
import { callEvent, retellVerdict } from './callOutputs';
import { measuredToKeep, noteMeasured, resolveMeasured } from './measured';

/** Where the engine's own live reads to keep in the channel go (./measured.ts): the engine appends them. */
export interface MeasuredOutbox {
  push(ev: MeasuredEvent): void;
}

/**
 * A session's calls kept in full, and how each input moves one on:
 *
 *   held (its hook fired, its record not read: heldNow) → written (its record read) → result (its result read)
 *
 * A call may be met first by its record (no hook, or the hook's event late: `joined` when that
 * comes), by its result, its post hook, a wait or a landing. Each input merges a fact into the
 * call's CallFacts order-independently (./callFacts.ts), and pushes to `out` the events for what
 * was new: `held` at the first `pre` of a call not written, `written` at its first live record,
 * `result` once it is written and its result read, `joined` when a fire time gives a written call
 * its lag, `revised` when a look of its hooks turns out to have found the record before the engine
 * read it (callVerdict), `post` at its first post hook, `hooks` once its settings hooks' figure is
 * final (tellHooks). The hook's evidence (pre and post sightings, its waits' looks, the landing) joins the call here;
 * its lag and shape are counted in the session's facts (./sessionFacts.ts).
 * SessionState routes an input here only when the call is not buried (./tombstones.ts).
 */
export class CallStates {
  readonly byId = new Map<string, CallFacts>();
  /** Held calls dropped to stay within maxHeldCalls. */
  heldDropped = 0;

  constructor(
    private readonly sessionId: string,
    private readonly facts: SessionFacts,
    private limits: SessionLimits,
    private readonly outbox?: MeasuredOutbox,
  ) {}

  setLimits(limits: SessionLimits): void {
    this.limits = limits;
  }

  get size(): number {
    return this.byId.size;
  }

  get(id: string): CallFacts | undefined {
    return this.byId.get(id);
  }

  private call(id: string): CallFacts {
    let c = this.byId.get(id);
    if (!c) {
      c = { id };
      this.byId.set(id, c);
    }
    return c;
  }

  ingestPre(ev: PreEvent, observedAt: number, out: EngineEvent[]): void {
    if (!this.byId.has(ev.tool_use_id)) this.makeRoomForHeld();
    const c = this.call(ev.tool_use_id);
    const first = c.firedAt === undefined;
    // Several transports may report one call (the mod and a command hook): it is one call, fired when the best report says.
    const report = { at: ev.at, transport: ev.transport ?? 'command' } as const;
    if (isBetterFire(first ? undefined : { at: c.firedAt as number, transport: c.transport ?? 'command' }, report)) {
      c.firedAt = report.at;
      c.transport = report.transport;
    }
    c.toolName ??= ev.tool_name;
    c.agentId ??= ev.agent_id;
    c.timeoutMs ??= ev.timeout_ms;
    c.hookMode ??= ev.mode;
    c.hookTranscriptPath ??= this.facts.sharedHookPath(ev.transcript_path);
    // What its hooks saw, folded by the rule every reader of the channel folds them with (a mod's pre says nothing of the disk).
    if (carriesSighting(ev)) noteSighting((c.seen ??= {}), ev);
    if (heldNow(c)) {
      if (first) {
        const transcriptPath = (c.agentId !== undefined && this.facts.heldPlace(c).path) || ev.transcript_path;
        out.push(callEvent(this.sessionId, { tool_use_id: ev.tool_use_id, tool_name: ev.tool_name, transcript_path: transcriptPath, agent_id: ev.agent_id }, { event: 'held', at: ev.at, transport: c.transport, ...(ev.timeout_ms ? { timeout_ms: ev.timeout_ms } : {}) }));
      }
      return;
    }
    this.retell(c, observedAt, out);
  }

  /**
   * Merges the wait into the call's waits (one per reporting source); returns the canonical one. What
   * its looks prove joins the call's sightings, every wait of every source, as every reader of the
   * channel folds them (a `seen` wait found the record at PreToolUse: src/rules/hookEvidence.ts), and
   * a written call's verdict is said again when that changes it (`revised`: the wait found the record
   * before the engine's read).
   */
  ingestWait(ev: WaitEvent, fact: WaitFact, observedAt: number, out: EngineEvent[]): WaitFact {
    const c = this.call(ev.tool_use_id);
    c.toolName ??= ev.tool_name;
    c.agentId ??= ev.agent_id;
    const waits = (c.waits ??= new Map());
    const known = waits.get(fact.source);
    const canonical = known && compareWaits(known, fact) <= 0 ? known : fact;
    waits.set(fact.source, canonical);
    if (waitLookOf(ev) !== undefined) {
      noteSighting((c.seen ??= {}), ev);
      this.retell(c, observedAt, out);
    }
    return canonical;
  }

  ingestPost(ev: PostEvent, observedAt: number, out: EngineEvent[]): void {
    const c = this.call(ev.tool_use_id);
    c.toolName ??= ev.tool_name;
    // Its look on disk, and the mod's post carries its hooks' figures too (a denied call's post ends it).
    const looked = carriesSighting(ev);
    const timed = hooksTimedOf(ev) !== undefined;
    if (looked || timed) noteSighting((c.seen ??= {}), ev);
    if (looked) this.retell(c, observedAt, out);
    const first = c.postAt === undefined;
    if (first || ev.at < (c.postAt as number)) c.postAt = ev.at;
    if (first) out.push(callEvent(this.sessionId, ev, { event: 'post', at: ev.at }));
    if (timed) this.noteHooksReport(c, 'post', ev.at, ev.transcript_path, out);
  }

  /** The call's settings PreToolUse hooks settled, as the mod timed them (its `hooks` event): folded into the call's figure. */
  ingestHooks(ev: HooksEvent, out: EngineEvent[]): void {
    if (hooksTimedOf(ev) === undefined) return;
    const c = this.call(ev.tool_use_id);
    c.toolName ??= ev.tool_name;
    c.agentId ??= ev.agent_id;
    noteSighting((c.seen ??= {}), ev);
    this.noteHooksReport(c, 'hooks', ev.at, ev.transcript_path, out);
  }

  /**
   * One wrapped hook's run (`transcript-lag complete`'s `hook_run`): kept on the call, by start, and
   * said once as `hook_run`. The same run read again (same hook, exit and time) is not a second run;
   * past MAX_HOOK_RUNS_PER_CALL a call's further runs are said but not kept.
   */
  ingestHookRun(ev: HookRunEvent, out: EngineEvent[]): void {
    const c = this.call(ev.tool_use_id);
    c.toolName ??= ev.tool_name;
    c.agentId ??= ev.agent_id;
    const run = hookRunOf(ev);
    const runs = c.hookRuns ?? [];
    if (runs.some((r) => r.hook === run.hook && r.at === run.at && r.ms === run.ms && r.exit_code === run.exit_code)) return;
    c.hookRuns = withHookRun(runs, run) ?? runs;
    out.push(callEvent(this.sessionId, ev, { event: 'hook_run' as const, ...run }));
  }

  private noteHooksReport(c: CallFacts, kind: 'hooks' | 'post', at: number, hookPath: string, out: EngineEvent[]): void {
    const reported = (c.hooksReported ??= {});
    const known = reported[kind];
    if (known === undefined || at < known) reported[kind] = at;
    this.tellHooks(c, hookPath, false, out);
  }

  /**
   * The call leaves memory (SessionState's prune): a figure only one report gave (the mod did not
   * report the call, or its session ended under it) is final now, since a buried call takes no more
   * reports. Said only for a call whose `written` was said: history gets no call events.
   */
  leaving(c: CallFacts, out: EngineEvent[]): void {
    if (c.written !== undefined && !c.written.historical) this.tellHooks(c, c.written.path, true, out);
  }

  /**
   * The `hooks` event: the call's figure (canonicalHooks' choice of its reports), said once it is
   * final, so that it, `written` and /metrics (which observes it) say one figure. The mod sends it
   * twice, a `hooks` event and the same figures on the `post`, in either order on the channel (the
   * receiver, else the spool): final once both are in, or the call leaves memory. Said again only if a
   * later report changes it (more than the mod's two: another copy of the mod reporting the call).
   */
  private tellHooks(c: CallFacts, hookPath: string, leaving: boolean, out: EngineEvent[]): void {
    const kept = c.seen?.hooks;
    const reported = c.hooksReported;
    if (kept === undefined || reported === undefined) return;
    if (c.hooksTold === undefined && !leaving && (reported.hooks === undefined || reported.post === undefined)) return;
    const key = hooksKey(kept);
    if (key === c.hooksTold) return;
    c.hooksTold = key;
    // `at`: when the hooks settled, the mod's `hooks` event's; its post's only when no such event came.
    const at = reported.hooks ?? (reported.post as number);
    out.push(this.callEvent(c, c.written?.path ?? hookPath, { event: 'hooks', at, hooks_ms: kept.ms, ...(kept.decision !== undefined ? { hooks_decision: kept.decision } : {}) }));
  }

  /** The watcher our post hook left behind, or the mod, saw the record land (src/rules/hookEvidence.ts). */
  ingestLanded(ev: LandedEvent, observedAt: number, out: EngineEvent[]): void {
    const c = this.call(ev.tool_use_id);
    c.toolName ??= ev.tool_name;
    noteSighting((c.seen ??= {}), ev);
    this.retell(c, observedAt, out);
  }

  /**
   * An engine's live read of the call's record, kept in the channel (./measured.ts): the record's
   * first sighting when it is earlier than this engine's own read, or this engine read it as history
   * (a reload); said again (`joined`) when that changes the call's lag.
   */
  ingestMeasured(ev: MeasuredEvent, observedAt: number, out: EngineEvent[]): void {
    const c = this.call(ev.tool_use_id);
    c.toolName ??= ev.tool_name;
    c.agentId ??= ev.agent_id;
    noteMeasured(c, ev);
    resolveMeasured(c);
    this.retell(c, observedAt, out);
  }

  /** The call's record was read (`origin`: the session a fork copied it from). Held → written. */
  ingestToolUse(id: string, name: string, agentId: string | undefined, obs: WrittenObservation, origin: string | undefined, out: EngineEvent[], partialDwellMs = 0): void {
    const c = this.call(id);
    c.toolName ??= name;
    c.agentId ??= agentId;
    c.copiedFrom ??= origin;
    const first = !c.written;
    if (!first && compareObservations(obs, c.written as WrittenObservation) >= 0) return;
    c.written = obs;
    resolveMeasured(c);
    if (first) this.facts.writtenCount++;
    const verdict = callVerdict(c) as NonNullable<ReturnType<typeof callVerdict>>;
    this.facts.countVerdict(id, verdict);
    // An earlier read of a call already written (an input replayed out of time order) moves its
    // figures without a word, as it always has: one engine reads in time order, so live it never comes.
    if (c.told !== undefined) c.told = verdictKey(verdict);
    if (!first || obs.historical) return;
    c.told = verdictKey(verdict);
    out.push(
      this.callEvent(c, obs.path, {
        event: 'written',
        ...(c.transport !== undefined ? { transport: c.transport } : {}),
        at: obs.observedAt,
        line: obs.line,
        generation: obs.generation,
        record_at: obs.recordAt,
        fired_at: c.firedAt ?? null,
        lag_ms: verdict.lag,
        ...(verdict.lag === null && verdict.held !== undefined ? { lag_bounds: verdict.held } : {}),
        with_result: obs.withResult,
        shape: verdict.shape,
        ...(obs.messageId !== undefined ? { message_id: obs.messageId } : {}),
        ...(obs.blockIndex !== undefined ? { block_index: obs.blockIndex } : {}),
        ...(obs.version !== undefined ? { claude_version: obs.version } : {}),
        record: obs.perCall ?? NO_PER_CALL,
        // The hooks' figure only once said (final): a figure it would take back later is not given.
        ...(c.hooksTold !== undefined ? hooksFields(c.seen?.hooks) : {}),
        batch_first_line: obs.batchFirstLine,
        batch_last_line: obs.batchLastLine,
        ...(partialDwellMs > 0 ? { partial_dwell_ms: partialDwellMs } : {}),
      }),
    );
    this.keepMeasured(c);
    // A result that arrived before its record (only in odd orders) is reported once the call is written.
    if (c.result) this.emitResult(c, out);
  }

  /** This engine's live read of the call's record, to be kept in the channel when it is one to keep (./measured.ts). */
  private keepMeasured(c: CallFacts): void {
    if (!this.outbox) return;
    const ev = measuredToKeep(this.sessionId, this.facts.transcriptPath, c);
    if (ev) this.outbox.push(ev);
  }

  /** The call's result was read. Written → result (a result read first waits for its record). */
  ingestResult(id: string, live: Observation, out: EngineEvent[]): void {
    const c = this.call(id);
    // The result of a copied call was copied with it (it carries no mark of its own).
    const obs = c.copiedFrom !== undefined && !live.historical ? { ...live, historical: true } : live;
    const first = !c.result;
    if (!first && compareObservations(obs, c.result as Observation) >= 0) return;
    c.result = obs;
    if (first && c.written) this.emitResult(c, out);
  }

  private emitResult(c: CallFacts, out: EngineEvent[]): void {
    const r = c.result as Observation;
    if (r.historical) return;
    out.push(this.callEvent(c, r.path, { event: 'result', at: r.observedAt, line: r.line, with_result: c.written?.batchKey === r.batchKey }));
  }

  /** A written call's verdict counted, and said again when its events said another (retellVerdict). */
  private retell(c: CallFacts, observedAt: number, out: EngineEvent[]): void {
    if (!c.written) return;
    c.told = retellVerdict(this.sessionId, { tool_use_id: c.id, tool_name: c.toolName, transcript_path: c.written.path, agent_id: c.agentId }, c, observedAt, this.facts, out);
    // A hook's report that came after the record (its pre late): the read is one to keep now.
    this.keepMeasured(c);
  }

  private callEvent<const F extends object>(c: CallFacts, path: string, fields: F) {
    return callEvent(this.sessionId, { tool_use_id: c.id, tool_name: c.toolName, transcript_path: path, agent_id: c.agentId }, fields);
  }

  /** The held calls, fired first first (ties by id). */
  held(): CallFacts[] {
    return [...this.byId.values()].filter(heldNow).sort((a, b) => (a.firedAt as number) - (b.firedAt as number) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  heldCount(): number {
    let held = 0;
    for (const c of this.byId.values()) if (heldNow(c)) held++;
    return held;
  }

  /**
   * At maxHeldCalls held, drops the one fired first: nothing of it is on disk,
   * so it leaves no tombstone (a flood must not push out the tombstones of real
   * calls); should its record come after all, it is written without a lag.
   */
  private makeRoomForHeld(): void {
    let held = 0;
    let oldest: CallFacts | undefined;
    for (const c of this.byId.values()) {
      if (!heldNow(c)) continue;
      held++;
      if (!oldest || (c.firedAt as number) < (oldest.firedAt as number) || (c.firedAt === oldest.firedAt && c.id < oldest.id)) oldest = c;
    }
    if (held < this.limits.maxHeldCalls || !oldest) return;
    this.byId.delete(oldest.id);
    this.heldDropped++;
  }
}

/** A hooks figure as the events say it: two figures with one key say the same. */
function hooksKey(h: HooksTimed): string {
  return `${h.ms}|${h.decision ?? ''}`;
}
