import type { Scheduler } from '../rules/clock';

/** The wall clock and Node's timers: the one real time source the app and CLI hand out. */
export const systemClock: Scheduler = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};
