import type { EngineEvent } from '../engineEvents';
import type { LandedEvent, PostEvent, PreEvent, WaitEvent } from '../channel/schema';
import type { ChannelTransport } from '../../rules/channelConstants';
import { carriesSighting, noteSighting, waitLookOf } from '../../rules/hookEvidence';
import { isBetterFire } from '../../rules/fireTime';
import type { CallFacts, VerdictFacts } from './callFacts';
import type { SessionFacts } from './sessionFacts';
import { retellVerdict } from './callOutputs';

/**
 * What is left of a call pruned from memory: enough to ignore its replays, join a late hook event
 * and give its verdict by the one rule (callVerdict) as late sightings come.
 */
export interface Tombstone extends VerdictFacts {
  toolName?: string;
  agentId?: string;
  /** The file its record was read from; undefined when none was. */
  path?: string;
  transport?: ChannelTransport;
  /** The verdict its events last said (./callOutputs.ts retellVerdict). */
  told?: string;
}

/**
 * A session's buried calls: the finished calls pruned from memory (SessionState's prune), each
 * remembered by id so that a late event of a call that is gone is not taken for a new call. Its
 * record or result read again (a replaced file) is ignored, and a wait is counted once; a late `pre`
 * still joins it (its lag); late sightings of its hooks (its waits' looks too) still count, and are
 * said as a live call's are.
 * Bounded: past `rememberedCalls` the one buried first is forgotten.
 */
export class Tombstones {
  private readonly byId = new Map<string, Tombstone>();

  constructor(
    private readonly sessionId: string,
    private readonly facts: SessionFacts,
  ) {}

  get(id: string): Tombstone | undefined {
    return this.byId.get(id);
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** Remembers a call about to leave memory; past `kept` tombstones the oldest is forgotten. */
  bury(c: CallFacts, kept: number): void {
    const w = c.written;
    this.byId.set(c.id, {
      toolName: c.toolName,
      agentId: c.agentId,
      path: w?.path,
      firedAt: c.firedAt,
      transport: c.transport,
      written: w ? { observedAt: w.observedAt, historical: w.historical, withResult: w.withResult } : undefined,
      seen: c.seen,
      ...(c.measuredRead !== undefined ? { measuredRead: c.measuredRead } : {}),
      told: c.told,
    });
    while (this.byId.size > kept) this.byId.delete(this.byId.keys().next().value as string);
  }

  /** A late `pre`: its sighting counts, and its fire time joins a call that had none, or a worse one. */
  ingestPre(tomb: Tombstone, ev: PreEvent, observedAt: number, out: EngineEvent[]): void {
    if (carriesSighting(ev)) noteSighting((tomb.seen ??= {}), ev);
    const report = { at: ev.at, transport: ev.transport ?? 'command' } as const;
    if (isBetterFire(tomb.firedAt === undefined ? undefined : { at: tomb.firedAt, transport: tomb.transport ?? 'command' }, report)) {
      tomb.firedAt = report.at;
      tomb.transport = report.transport;
    }
    this.retell(ev.tool_use_id, tomb, ev.transcript_path, observedAt, out);
  }

  ingestPost(tomb: Tombstone, ev: PostEvent, observedAt: number, out: EngineEvent[]): void {
    if (!carriesSighting(ev)) return;
    noteSighting((tomb.seen ??= {}), ev);
    this.retell(ev.tool_use_id, tomb, ev.transcript_path, observedAt, out);
  }

  /** A late wait: what its looks prove counts, as a live call's (its outcome is counted by the session, once). */
  ingestWait(tomb: Tombstone, ev: WaitEvent, observedAt: number, out: EngineEvent[]): void {
    if (waitLookOf(ev) === undefined) return;
    noteSighting((tomb.seen ??= {}), ev);
    this.retell(ev.tool_use_id, tomb, ev.transcript_path, observedAt, out);
  }

  ingestLanded(tomb: Tombstone, ev: LandedEvent, observedAt: number, out: EngineEvent[]): void {
    noteSighting((tomb.seen ??= {}), ev);
    this.retell(ev.tool_use_id, tomb, ev.transcript_path, observedAt, out);
  }

  private retell(id: string, tomb: Tombstone, hookPath: string, observedAt: number, out: EngineEvent[]): void {
    const subject = { tool_use_id: id, tool_name: tomb.toolName, transcript_path: tomb.path ?? hookPath, agent_id: tomb.agentId };
    tomb.told = retellVerdict(this.sessionId, subject, tomb, observedAt, this.facts, out);
  }
}
