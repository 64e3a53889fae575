import type { Scheduler } from '../../../src/rules/clock';

/**
 * A clock whose time only moves when the test says so. Its timers run in time
 * order as `advance` passes them, so timing logic is tested without sleeping.
 */
export class ManualClock implements Scheduler {
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private nextId = 1;

  constructor(private current = 1_700_000_000_000) {}

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): number {
    const id = this.nextId++;
    this.timers.push({ at: this.current + ms, fn, id });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((t) => t.id !== handle);
  }

  /** Runs every timer due within `ms`, in time order (each sees the clock at its due time), then sets the clock to the end. */
  advance(ms: number): void {
    const end = this.current + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.current = Math.max(this.current, due.at);
      due.fn();
    }
    this.current = end;
  }

  /** Timers set and not yet run or cleared. */
  pending(): number {
    return this.timers.length;
  }
}
