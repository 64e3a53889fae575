import type { Scheduler } from '../rules/clock';

/**
 * At most 10 refreshes in any second under a burst of events. Not 100: the clock
 * is read in whole milliseconds, so gaps of "100 ms" measure 99.x ms and an 11th
 * refresh fits into a second.
 */
export const DEFAULT_REFRESH_INTERVAL_MS = 110;

export interface Coalescer {
  request(): void;
  /** Runs now if a run is pending (used by tests and before disposal). */
  flush(): void;
  dispose(): void;
}

/**
 * Turns a burst of "something changed" into at most one refresh per interval:
 * the first request after a quiet period runs at once (a held call shows
 * without delay), later ones in the same interval fold into one trailing run.
 * The scheduler is injected so tests drive time without sleeping.
 */
export function createCoalescer(run: () => void, intervalMs: number, scheduler: Scheduler): Coalescer {
  let lastRun = -Infinity;
  let pending: unknown;
  let disposed = false;

  const fire = () => {
    pending = undefined;
    if (disposed) return;
    lastRun = scheduler.now();
    run();
  };

  // Node's timers may fire a millisecond before the wall clock says the interval is
  // over (they run on the monotonic clock): wait out the rest rather than run early,
  // or an 11th refresh fits into a second.
  const fireWhenDue = () => {
    const wait = lastRun + intervalMs - scheduler.now();
    if (wait > 0 && !disposed) pending = scheduler.setTimeout(fireWhenDue, wait);
    else fire();
  };

  return {
    request() {
      if (disposed || pending !== undefined) return;
      const wait = lastRun + intervalMs - scheduler.now();
      if (wait <= 0) fire();
      else pending = scheduler.setTimeout(fireWhenDue, wait);
    },
    flush() {
      if (pending === undefined) return;
      scheduler.clearTimeout(pending);
      fire();
    },
    dispose() {
      disposed = true;
      if (pending !== undefined) scheduler.clearTimeout(pending);
      pending = undefined;
    },
  };
}
