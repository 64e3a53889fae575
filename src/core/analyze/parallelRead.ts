import type { FileAccess } from '../fileAccess';
import type { ScanResult } from '../records';
import type { RecordScannerOptions } from '../scanner';
import { forEachScan, LocalRangeScanner, type RangeRead, type RangeScan, type RangeScanner } from './rangeScan';

/**
 * Segments are shared out between this thread and the other. Their size
 * bounds memory: the other thread's segments are held, as bytes, until the
 * fold reaches them, so a segment holds about LINES_PER_SEGMENT lines whatever
 * the line length, and at most MAX_SEGMENT_BYTES, so neither thread waits long
 * for the other at the end; and at least MIN_SEGMENT_BYTES, so a segment's
 * set-up (a file handle, a message between threads) does not show.
 */
const LINES_PER_SEGMENT = 16 * 1024;
export const MAX_SEGMENT_BYTES = 64 * 1024 * 1024;
const MIN_SEGMENT_BYTES = 1024 * 1024;
/** Bytes read at the middle of the file to estimate the length of its lines. */
const SAMPLE_BYTES = 1024 * 1024;
/** The other thread is kept this many segments ahead, so it never waits for a request. */
const REMOTE_IN_FLIGHT = 2;
/** This thread reads at most this many segments past the fold, holding them, before it waits for the other. */
const MAX_AHEAD = 3;

export interface ParallelReadOptions {
  files: FileAccess;
  path: string;
  /** The size seen at the start: the read covers [0, size). */
  size: number;
  other: RangeScanner;
  scanner?: RecordScannerOptions;
  /** Fixed segment size; by default one from the file's line lengths (see LINES_PER_SEGMENT). */
  segmentBytes?: number;
}

/** A read that covered [0, size) exactly. */
export interface ParallelRead {
  /** Bytes of an unfinished last line. */
  partialBytes: number;
}

/** A segment the other thread was asked for; `result` once it answered. */
interface Pending {
  promise: Promise<RangeScan | undefined>;
  result?: { range: RangeScan | undefined };
}

/**
 * Reads [0, size) as segments and hands every line's scan to `onScan` in file
 * order (the summary is order-dependent). Both threads take the next segment
 * as they come free, the other thread kept REMOTE_IN_FLIGHT segments ahead;
 * this one folds each segment in order: its own lines as it reads them when
 * the segment is next in order (as a one-thread read does), else held as
 * bytes, like the other thread's, until the fold reaches them. This thread
 * runs at most MAX_AHEAD segments ahead of the fold, then waits for the other.
 * Undefined when the file changed under the read (the segments' lines do not
 * tile the file) or the other thread failed: the caller then starts over in
 * one thread, and reports what changed as it always has.
 */
export async function readSegmentsInParallel(opts: ParallelReadOptions, onScan: (scan: ScanResult) => void): Promise<ParallelRead | undefined> {
  const limit = opts.size;
  const segmentBytes = opts.segmentBytes ?? (await segmentBytesFor(opts.files, opts.path, limit));
  // Segment k holds the lines that start in [k * segmentBytes, (k + 1) * segmentBytes):
  // its reader finds its first line itself, so no bounds are looked up beforehand.
  const count = Math.max(1, Math.ceil(limit / segmentBytes));
  const from = (k: number) => k * segmentBytes;
  const to = (k: number) => (k === count - 1 ? limit : (k + 1) * segmentBytes);
  const local = new LocalRangeScanner(opts.files, opts.scanner);
  const remote = new Map<number, Pending>();
  const held = new Map<number, RangeScan>();
  let next = 0;
  let folded = 0;
  /** Where the next segment's lines must start for the segments to tile the file. */
  let expected = 0;
  let partialBytes = 0;
  const topUpRemote = (): void => {
    for (let inFlight = [...remote.values()].filter((p) => !p.result).length; inFlight < REMOTE_IN_FLIGHT && next < count; inFlight++) {
      const k = next++;
      // Caught at once: a failure must not be an unhandled rejection while this thread reads.
      const pending: Pending = { promise: opts.other.scanRange(opts.path, from(k), to(k), limit).catch(() => undefined) };
      void pending.promise.then((range) => (pending.result = { range }));
      remote.set(k, pending);
    }
  };
  /** Checks that a folded segment's lines start where the last one's ended. */
  const tiles = (read: RangeRead): boolean => {
    if (read.start !== expected) return false;
    expected = read.end + read.partialBytes;
    // Only the segment that reaches the limit can end in an unfinished line.
    if (read.partialBytes > 0) partialBytes = read.partialBytes;
    return true;
  };
  const foldBytes = (range: RangeScan | undefined, owner: RangeScanner): boolean => {
    if (range === undefined || !tiles(range)) return false;
    forEachScan(range, onScan);
    owner.recycle?.(range);
    folded += 1;
    return true;
  };
  try {
    while (folded < count) {
      const mine = held.get(folded);
      if (mine !== undefined) {
        held.delete(folded);
        if (!foldBytes(mine, local)) return undefined;
        continue;
      }
      const theirs = remote.get(folded);
      if (theirs?.result) {
        remote.delete(folded);
        if (!foldBytes(theirs.result.range, opts.other)) return undefined;
        continue;
      }
      if (next === folded) {
        // Next in order and nobody's: read it here and fold as it is read.
        next += 1;
        topUpRemote();
        const read = await local.foldRange(opts.path, from(folded), to(folded), limit, onScan).catch(() => undefined);
        if (read === undefined || !tiles(read)) return undefined;
        folded += 1;
        continue;
      }
      topUpRemote();
      if (next < count && next - folded <= MAX_AHEAD) {
        const k = next++;
        const range = await local.scanRange(opts.path, from(k), to(k), limit).catch(() => undefined);
        if (range === undefined) return undefined; // unreadable now: the one-thread read says how
        held.set(k, range);
        continue;
      }
      // Nothing to take: wait for the other thread's segment at the fold.
      await theirs!.promise;
    }
    if (expected !== limit) return undefined;
    return { partialBytes };
  } finally {
    // Nothing is left running unobserved: the other thread's answers are awaited (their failures are caught).
    await Promise.all([...remote.values()].map((p) => p.promise));
  }
}

/** LINES_PER_SEGMENT lines' worth of bytes, as lines run in a sample from the middle of the file. */
async function segmentBytesFor(files: FileAccess, path: string, size: number): Promise<number> {
  const handle = await files.open(path);
  let newlines = 0;
  let sampled = 0;
  try {
    const sample = Buffer.alloc(Math.min(SAMPLE_BYTES, size));
    sampled = await handle.read(sample, 0, sample.length, Math.floor((size - sample.length) / 2));
    for (let at = sample.indexOf(0x0a); at !== -1 && at < sampled; at = sample.indexOf(0x0a, at + 1)) newlines += 1;
  } finally {
    await handle.close();
  }
  const bytesPerLine = sampled / Math.max(1, newlines);
  return Math.min(MAX_SEGMENT_BYTES, Math.max(MIN_SEGMENT_BYTES, Math.round(bytesPerLine * LINES_PER_SEGMENT)));
}
