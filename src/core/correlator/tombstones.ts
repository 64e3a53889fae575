import type { EngineEvent } from '../engineEvents';
import type { LandedEvent, PostEvent, PreEvent } from '../channel/schema';
import { type HookSighting, type LandingSighting, betterLanding, earlierSighting, landingOf, sightingOf, verdictFromHook } from '../../rules/hookEvidence';
import type { CallFacts } from './callFacts';
import type { SessionFacts } from './sessionFacts';
import { callEvent } from './snapshots';

/** What is left of a call pruned from memory: enough to ignore its replays and join a late hook event. */
export interface Tombstone {
  /** When its record was observed live; null for a record indexed as history (or none). */
  observedAt: number | null;
  fired: boolean;
  /** Indexed as history: its shape can still be proven by hook sightings that arrive late. */
  historical: boolean;
  pre: HookSighting | undefined;
  post: HookSighting | undefined;
  landed: LandingSighting | undefined;
}

/**
 * A session's buried calls: the finished calls pruned from memory (SessionState's prune), each
 * remembered by id so that a late event of a call that is gone is not taken for a new call. Its
 * record or result read again (a replaced file) and its waits are ignored; a late `pre` still
 * joins it (its lag, once); late sightings of its hook still prove the shape of a call indexed as
 * history. Bounded: past `rememberedCalls` the one buried first is forgotten.
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
    this.byId.set(c.id, {
      observedAt: c.written && !c.written.historical ? c.written.observedAt : null,
      fired: c.firedAt !== undefined,
      historical: c.written?.historical === true,
      pre: c.preSighting,
      post: c.postSighting,
      landed: c.landed,
    });
    while (this.byId.size > kept) this.byId.delete(this.byId.keys().next().value as string);
  }

  /** A late `pre`: its sighting counts, and a call written live with no fire yet is joined (its lag). */
  ingestPre(tomb: Tombstone, ev: PreEvent, observedAt: number, out: EngineEvent[]): void {
    const sighting = sightingOf(ev);
    if (sighting) {
      tomb.pre = earlierSighting(tomb.pre, sighting);
      this.countShape(ev.tool_use_id, tomb);
    }
    if (!tomb.fired && tomb.observedAt !== null) {
      tomb.fired = true;
      const lag = Math.max(0, tomb.observedAt - ev.at);
      this.facts.lags.set(ev.tool_use_id, lag);
      out.push(callEvent(this.sessionId, ev, { event: 'joined', at: observedAt, fired_at: ev.at, lag_ms: lag, transport: ev.transport ?? 'command' }));
    }
  }

  ingestPost(tomb: Tombstone, ev: PostEvent): void {
    const sighting = sightingOf(ev);
    if (!sighting) return;
    tomb.post = earlierSighting(tomb.post, sighting);
    this.countShape(ev.tool_use_id, tomb);
  }

  ingestLanded(tomb: Tombstone, ev: LandedEvent): void {
    tomb.landed = betterLanding(tomb.landed, landingOf(ev));
    this.countShape(ev.tool_use_id, tomb);
  }

  /** A late sighting of a call indexed as history: its shape still counts, from what the tombstone kept. */
  private countShape(id: string, tomb: Tombstone): void {
    if (tomb.historical) this.facts.countShape(id, verdictFromHook(tomb.pre, tomb.post, tomb.landed).shape);
  }
}
