/**
 * "The first line of a file whose time is later than T", answered in memory by what changes the answer,
 * not by line (./transcriptIndex.ts feeds them in file order, ./liveCut.ts asks). The first line whose
 * time is later than T is the first at which the running maximum of the times passes T, so only the
 * lines that raise it matter.
 */

/**
 * Every line that raises the running maximum, as (start, maximum) steps; for few lines (the records the
 * mod reported births of), asked at any T afterwards.
 */
export class RisingSteps {
  private starts = new Float64Array(16);
  private maxima = new Float64Array(16);
  private count = 0;

  /** A line at `start` whose time is `at`, in file order. */
  see(start: number, at: number): void {
    if (this.count > 0 && at <= this.maxima[this.count - 1]!) return;
    if (this.count === this.starts.length) {
      this.starts = grown(this.starts);
      this.maxima = grown(this.maxima);
    }
    this.starts[this.count] = start;
    this.maxima[this.count] = at;
    this.count += 1;
  }

  /** The start of the first line later than `at`; undefined when none is. */
  firstLaterThan(at: number): number | undefined {
    // The maxima rise: the first above `at`, by bisection.
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.maxima[mid]! > at) hi = mid;
      else lo = mid + 1;
    }
    return lo < this.count ? this.starts[lo] : undefined;
  }
}

function grown(a: Float64Array): Float64Array<ArrayBuffer> {
  const b = new Float64Array(a.length * 2);
  b.set(a);
  return b;
}

/**
 * The same question for times known before the lines go by (the subagents' calls' records, asked of
 * the session's file), answered as they go: memory by question, whatever the lines (a session's
 * records nearly all raise the maximum).
 */
export class LaterThan {
  /** The questions, ascending. */
  private readonly times: Float64Array;
  /** Each question's answer: the start of its first later line; -1 while none has come. */
  private readonly answers: Float64Array;
  private next = 0;

  constructor(times: readonly number[]) {
    this.times = Float64Array.from(times).sort();
    this.answers = new Float64Array(this.times.length).fill(-1);
  }

  /** A line at `start` whose time is `at`, in file order. */
  see(start: number, at: number): void {
    // The questions not answered yet are all at or past the maximum so far: those below `at` are answered here.
    while (this.next < this.times.length && this.times[this.next]! < at) this.answers[this.next++] = start;
  }

  /** Whether every question is answered: the times of the lines after need not be read. */
  get done(): boolean {
    return this.next === this.times.length;
  }

  /** The start of the first line later than `at`, one of the questions; undefined when none is; throws for a time not asked. */
  firstLaterThan(at: number): number | undefined {
    let lo = 0;
    let hi = this.times.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.times[mid]! < at) lo = mid + 1;
      else hi = mid;
    }
    if (lo === this.times.length || this.times[lo] !== at) throw new Error(`replay: the first line later than ${at} was not asked for`);
    const answer = this.answers[lo]!;
    return answer < 0 ? undefined : answer;
  }
}
