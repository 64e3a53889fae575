/** What one session's state keeps at most (the correlator's limits, src/core/correlator/index.ts). */
export interface SessionLimits {
  recentCalls: number;
  /** Finished calls remembered (as tombstones and counter keys) so late duplicates do not count twice. */
  rememberedCalls: number;
  /** Hard cap on calls kept in full; past it the oldest unfinished ones are dropped too. */
  maxLiveCalls: number;
  /**
   * Calls fired and not written kept per session: past it a new pre event drops
   * the call fired longest ago, so a flood of pre events for ids that are never
   * written (forged, or a broken hook) keeps each later event's cost bounded.
   */
  maxHeldCalls: number;
  batchesKept: number;
}
