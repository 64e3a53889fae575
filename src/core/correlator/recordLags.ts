import { LagWindow, type LagSummary } from '../stats';

/** Record types told apart at most; past it the rest count as "other" (a transcript names the types it likes). */
const MAX_TYPES = 16;
/** Lags kept per type for the percentiles; the count and the max cover them all. */
const LAGS_PER_TYPE = 2_000;
/** Uuids remembered so a line read again (a replaced file) is reported and counted once. */
const SEEN_KEPT = 4_096;

/** A record type's lags (born → on disk) in a session: for the report, beside the calls' lags. */
export interface RecordLagRow {
  type: string;
  /** Records of the type with a lag. */
  count: number;
  /** Of them, born when the mod said (the rest: by their own timestamp). */
  from_mod: number;
  p50_ms: number | null;
  p95_ms: number | null;
  max_ms: number | null;
}

interface TypeLags {
  count: number;
  fromMod: number;
  window: LagWindow;
}

/** Per session: the records reported live, and their lags by type. Bounded. */
export class RecordLags {
  private readonly seen = new Set<string>();
  private readonly byType = new Map<string, TypeLags>();

  /** False when the record was reported before (the same uuid read again): it is not reported or counted twice. */
  firstSight(uuid: string): boolean {
    if (this.seen.has(uuid)) return false;
    this.seen.add(uuid);
    if (this.seen.size > SEEN_KEPT) this.seen.delete(this.seen.values().next().value as string);
    return true;
  }

  add(uuid: string, type: string, lagMs: number, fromMod: boolean): void {
    const key = this.byType.has(type) || this.byType.size < MAX_TYPES ? type : 'other';
    let t = this.byType.get(key);
    if (!t) this.byType.set(key, (t = { count: 0, fromMod: 0, window: new LagWindow(LAGS_PER_TYPE) }));
    t.count++;
    if (fromMod) t.fromMod++;
    t.window.set(uuid, lagMs);
  }

  /** One row per type, most records first. */
  rows(): RecordLagRow[] {
    return [...this.byType.entries()]
      .map(([type, t]) => {
        const s: LagSummary = t.window.summary();
        return { type, count: t.count, from_mod: t.fromMod, p50_ms: s.p50, p95_ms: s.p95, max_ms: s.max };
      })
      .sort((a, b) => b.count - a.count || (a.type < b.type ? -1 : 1));
  }
}
