import { watchAndReport, type LandingJob } from '../hook/landingProcess';

/**
 * The landing watches of one http receiver. A command hook leaves one detached
 * process per PostToolUse whose record is not on disk yet; the receiver runs
 * them in its own process, where a burst of forged PostToolUse requests (the
 * secret is all it takes) would each start a 60 s poll with its own read
 * buffer. So: one watch per call (a repeated tool_use_id joins the one
 * running), at most MAX_LANDING_WATCHES at once (past that a call's landing
 * goes unwatched: its shape stays unknown, which readers say), small reads,
 * and every watch ends when the receiver stops.
 */
export const MAX_LANDING_WATCHES = 64;
/** Per look: a record line is small; a look with more to read goes on at once. */
export const LANDING_READ_BYTES = 64 * 1024;

export class LandingWatches {
  private readonly active = new Set<string>();
  private stopped = false;

  constructor(
    private readonly max = MAX_LANDING_WATCHES,
    private readonly run: typeof watchAndReport = watchAndReport,
  ) {}

  /** Watches running now. */
  get size(): number {
    return this.active.size;
  }

  /** Starts watching the job's record land, unless that call is watched already, the cap is reached, or stop() ran. */
  start(job: LandingJob): boolean {
    const key = `${job.session_id}\0${job.tool_use_id}`;
    if (this.stopped || this.active.has(key) || this.active.size >= this.max) return false;
    this.active.add(key);
    void this.run(job, { readBytes: LANDING_READ_BYTES, cancelled: () => this.stopped })
      .catch(() => undefined)
      .finally(() => this.active.delete(key));
    return true;
  }

  /** Every watch ends at its next look, without a `landed` event. */
  stop(): void {
    this.stopped = true;
  }
}
