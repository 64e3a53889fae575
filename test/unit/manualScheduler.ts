import type { Scheduler } from '../../src/presentation/coalesce';

/** A scheduler whose time only moves when the test says so: timers run in order, no sleeping. */
export function manualScheduler(start = 0) {
  let now = start;
  let timers: { at: number; fn: () => void; id: number }[] = [];
  let nextId = 1;
  const scheduler: Scheduler = {
    now: () => now,
    setTimeout: (fn, ms) => {
      const id = nextId++;
      timers.push({ at: now + ms, fn, id });
      return id;
    },
    clearTimeout: (h) => {
      timers = timers.filter((t) => t.id !== h);
    },
  };
  /** Runs every timer due within `ms`, in time order, then sets the clock to the end. */
  const advance = (ms: number) => {
    const end = now + ms;
    for (;;) {
      const due = timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      timers = timers.filter((t) => t !== due);
      now = due.at;
      due.fn();
    }
    now = end;
  };
  return { scheduler, advance, pending: () => timers.length, now: () => now };
}
