import type { SessionSnapshot } from '../snapshot';
import type { WriteBatch } from '../tailTypes';

type BatchRow = SessionSnapshot['batches'][number];

/**
 * What a session's files look like on disk: the main transcript's extent and
 * its recent write batches (the report's timeline), and malformed lines per
 * file. Merged order-independently, like the calls: a duplicated batch is kept
 * once, and a generation re-read after truncation does not add its malformed
 * lines again (a file counts the most any of its generations had).
 */
export class SessionDisk {
  private main?: { generation: number; lastLine: number; bytes: number };
  /** Every file's extent (main and subagents'): the held line of a call that will land in it. */
  private readonly files = new Map<string, { generation: number; lastLine: number }>();
  private batches: BatchRow[] = [];
  private readonly batchKeys = new Set<string>();
  private readonly malformed = new Map<string, Map<number, number>>();

  constructor(private batchesKept: number) {}

  setBatchesKept(n: number): void {
    this.batchesKept = n;
  }

  /** The main transcript was truncated, replaced or deleted: a new generation starts empty. */
  noteChange(generation: number): void {
    this.noteMain(generation, 0, 0);
  }

  noteMainBatch(key: string, batch: WriteBatch): void {
    this.noteMain(batch.generation, batch.lastLine, batch.byteEnd);
    if (this.batchKeys.has(key)) return;
    this.batchKeys.add(key);
    this.batches.push({ observed_at: batch.observedAt, first_line: batch.firstLine, last_line: batch.lastLine, bytes: batch.byteEnd - batch.byteStart });
    this.batches.sort((x, y) => x.observed_at - y.observed_at || x.first_line - y.first_line);
    if (this.batches.length > this.batchesKept) {
      this.batches = this.batches.slice(-this.batchesKept);
      if (this.batchKeys.size > this.batchesKept * 4) this.batchKeys.clear();
    }
  }

  private noteMain(generation: number, lastLine: number, bytes: number): void {
    const m = this.main;
    if (!m || generation > m.generation || (generation === m.generation && lastLine > m.lastLine)) this.main = { generation, lastLine, bytes };
  }

  /** A read of `path` brought lines up to `lastLine` of `generation` (0 after a change: a new generation starts empty). */
  noteFile(path: string, generation: number, lastLine: number): void {
    const f = this.files.get(path);
    if (!f || generation > f.generation || (generation === f.generation && lastLine > f.lastLine)) this.files.set(path, { generation, lastLine });
  }

  /** Complete lines on disk in `path`'s current generation; undefined when no read of it was seen. */
  lastLineOf(path: string): number | undefined {
    return this.files.get(path)?.lastLine;
  }

  countMalformed(path: string, generation: number): void {
    let perGen = this.malformed.get(path);
    if (!perGen) this.malformed.set(path, (perGen = new Map()));
    perGen.set(generation, (perGen.get(generation) ?? 0) + 1);
  }

  malformedLines(): number {
    let n = 0;
    for (const perGen of this.malformed.values()) n += Math.max(0, ...perGen.values());
    return n;
  }

  get lastLine(): number {
    return this.main?.lastLine ?? 0;
  }

  get bytes(): number {
    return this.main?.bytes ?? 0;
  }

  batchRows(): BatchRow[] {
    return this.batches.map((b) => ({ ...b }));
  }
}
