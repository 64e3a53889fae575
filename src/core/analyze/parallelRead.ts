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

export interface ParallelRead {
  bytes: number;
  partialBytes: number;
}

/**
 * Reads [0, size) as segments split at line starts and hands every line's scan
 * to `onScan` in file order (the summary is order-dependent). This thread
 * reads the even segments and folds each line as it reads it, as a one-thread
 * read does; `other` reads the odd ones, kept REMOTE_IN_FLIGHT ahead, whose
 * scans come back as bytes and are folded between this thread's segments.
 * Undefined when the file changed under the read (a segment came up short, or
 * a line did not end where a segment does) or the other thread failed: the
 * caller then starts over in one thread, and reports what changed as it always has.
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
  const remote = new Map<number, Promise<RangeScan | undefined>>();
  const ask = (k: number): void => {
    // Caught at once: a failure must not be an unhandled rejection while this thread reads.
    if (k < count && !remote.has(k)) remote.set(k, opts.other.scanRange(opts.path, from(k), to(k), limit).catch(() => undefined));
  };
  /** Where the next segment's lines must start for the reads to tile the file. */
  let expected = 0;
  let partialBytes = 0;
  for (let k = 0; k < count; k++) {
    let read: RangeRead | undefined;
    if (k % 2 === 0) {
      for (let ahead = 0; ahead < REMOTE_IN_FLIGHT; ahead++) ask(k + 1 + 2 * ahead);
      read = await local.foldRange(opts.path, from(k), to(k), limit, onScan).catch(() => undefined);
    } else {
      const range = await remote.get(k)!;
      remote.delete(k);
      if (range !== undefined && range.start === expected) {
        forEachScan(range, onScan);
        opts.other.recycle?.(range);
      }
      read = range;
    }
    // A gap or an overlap: the file changed under the read.
    if (read === undefined || read.start !== expected) return undefined;
    expected = read.end + read.partialBytes;
    // Only the segment that reaches the limit can end in an unfinished line.
    if (read.partialBytes > 0) partialBytes = read.partialBytes;
  }
  if (expected !== limit) return undefined;
  return { bytes: limit, partialBytes };
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
