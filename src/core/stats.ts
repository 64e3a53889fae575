/**
 * Small statistics the correlator keeps per session: lag percentiles over a
 * bounded window of calls, and counters keyed by call so that a fact learned
 * twice (a replayed file, a duplicated hook line) never counts twice.
 */

/** Nearest-rank percentile of `sorted` (ascending); null when empty. `p` in [0, 100]. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  if (p <= 0) return sorted[0];
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

export interface LagSummary {
  p50: number | null;
  p95: number | null;
  max: number | null;
}

/**
 * Lags by tool_use_id, newest-inserted last, bounded: a long session keeps the
 * lags of its last `capacity` calls. Setting a call's lag again replaces it
 * (a better observation of the same call), so the summary never double counts.
 */
export class LagWindow {
  private readonly lags = new Map<string, number>();
  /** The largest lag that fell out of the window: max stays a session max. */
  private evictedMax: number | null = null;
  private cached: LagSummary | undefined;

  constructor(private readonly capacity = 10_000) {}

  set(toolUseId: string, lagMs: number): void {
    if (this.lags.get(toolUseId) === lagMs) return;
    this.lags.set(toolUseId, lagMs);
    this.cached = undefined;
    while (this.lags.size > this.capacity) {
      const [oldestId, oldestLag] = this.lags.entries().next().value as [string, number];
      this.lags.delete(oldestId);
      this.evictedMax = this.evictedMax === null ? oldestLag : Math.max(this.evictedMax, oldestLag);
    }
  }

  /** Forgets a call's lag: a later fact showed the read that gave it came late (callVerdict). */
  delete(toolUseId: string): void {
    if (this.lags.delete(toolUseId)) this.cached = undefined;
  }

  get size(): number {
    return this.lags.size;
  }

  summary(): LagSummary {
    if (this.cached) return this.cached;
    const sorted = [...this.lags.values()].sort((a, b) => a - b);
    const windowMax = sorted.length ? sorted[sorted.length - 1] : null;
    const max = windowMax === null ? this.evictedMax : this.evictedMax === null ? windowMax : Math.max(windowMax, this.evictedMax);
    this.cached = { p50: percentile(sorted, 50), p95: percentile(sorted, 95), max };
    return this.cached;
  }
}

/**
 * Counts keys by category (a wait's outcome, a call's write shape), where a
 * key's category may be corrected later: moving a key moves its count.
 */
export class KeyedCounter<C extends string> {
  private readonly categoryOf = new Map<string, C>();
  private readonly counts = new Map<C, number>();

  /** Past `capacity` keys the oldest are forgotten (their counts stay): memory stays bounded. */
  constructor(private readonly capacity = 20_000) {}

  /** Sets the key's category; returns true when a count changed. */
  set(key: string, category: C): boolean {
    const before = this.categoryOf.get(key);
    if (before === category) return false;
    if (before !== undefined) this.counts.set(before, (this.counts.get(before) ?? 0) - 1);
    else if (this.categoryOf.size >= this.capacity) this.categoryOf.delete(this.categoryOf.keys().next().value as string);
    this.categoryOf.set(key, category);
    this.counts.set(category, (this.counts.get(category) ?? 0) + 1);
    return true;
  }

  /** Takes the key's count back (its category turned out unproven). */
  delete(key: string): void {
    const before = this.categoryOf.get(key);
    if (before === undefined) return;
    this.categoryOf.delete(key);
    this.counts.set(before, (this.counts.get(before) ?? 0) - 1);
  }

  has(key: string): boolean {
    return this.categoryOf.has(key);
  }

  count(category: C): number {
    return this.counts.get(category) ?? 0;
  }
}

/** An insertion-ordered set that forgets its oldest members past `capacity`. */
export class BoundedSet {
  private readonly members = new Set<string>();
  constructor(private readonly capacity: number) {}
  add(key: string): void {
    this.members.delete(key);
    this.members.add(key);
    while (this.members.size > this.capacity) this.members.delete(this.members.values().next().value as string);
  }
  has(key: string): boolean {
    return this.members.has(key);
  }
  get size(): number {
    return this.members.size;
  }
}
