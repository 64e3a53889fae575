/** A session's counts, as its `session` event (src/core/engineEvents.ts) and its snapshot (src/core/snapshot.ts) carry them. */
export interface SessionStats {
  /** Waits that saw the call / waits that ended behind (the report's table). */
  waits_seen: number;
  waits_behind: number;
  held_now: number;
  calls_written: number;
  lag_p50_ms: number | null;
  lag_p95_ms: number | null;
  lag_max_ms: number | null;
  /** Write shapes: a call's record written before its result, or in the same batch (measured live, or proven by its hook's sightings). */
  shape_before_result: number;
  shape_with_result: number;
  /** Calls written whose shape nothing proves (indexed as history without hook sightings). */
  shape_unknown: number;
  malformed_lines: number;
}
