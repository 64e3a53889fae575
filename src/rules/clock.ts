/** The engine never reads the time itself: whoever builds it hands it a clock. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/**
 * A clock that can also run a function later: what the views and the extension
 * host pace their work with. The engine needs only `now`; the real one is
 * `systemClock` (src/platform), tests pass a manual one so time moves only when
 * they say so.
 */
export interface Scheduler extends Clock {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}
