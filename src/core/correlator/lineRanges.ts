/**
 * Which line numbers of one file generation were already ingested, as sorted
 * disjoint intervals. A tail delivers lines contiguously, so this stays one
 * interval in practice; it exists so that a duplicated or replayed batch is
 * ingested once whatever order batches arrive in.
 */
export class LineRanges {
  /** [first, last] inclusive, sorted, disjoint, non-adjacent. */
  private readonly ranges: [number, number][] = [];

  has(line: number): boolean {
    let lo = 0;
    let hi = this.ranges.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const [a, b] = this.ranges[mid];
      if (line < a) hi = mid - 1;
      else if (line > b) lo = mid + 1;
      else return true;
    }
    return false;
  }

  /** Adds a line; returns false when it was already there. */
  add(line: number): boolean {
    if (this.has(line)) return false;
    let i = 0;
    while (i < this.ranges.length && this.ranges[i][1] < line) i++;
    const prev = this.ranges[i - 1];
    const next = this.ranges[i];
    if (prev && prev[1] === line - 1 && next && next[0] === line + 1) {
      prev[1] = next[1];
      this.ranges.splice(i, 1);
    } else if (prev && prev[1] === line - 1) prev[1] = line;
    else if (next && next[0] === line + 1) next[0] = line;
    else this.ranges.splice(i, 0, [line, line]);
    return true;
  }

  get intervals(): number {
    return this.ranges.length;
  }
}
