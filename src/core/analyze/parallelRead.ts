import type { FileAccess } from '../fileAccess';
import type { ScanResult } from '../records';
import type { RecordScannerOptions } from '../scanner';
import { forEachScan, LocalRangeScanner, nextLineStart, type RangeScan, type RangeScanner } from './rangeScan';

/**
 * Segments are shared out between this thread and the other. Their size
 * bounds memory: a segment's scans are held until the fold reaches it, so a
 * segment holds about LINES_PER_SEGMENT lines (a few MB of scans) whatever the
 * line length, and at most MAX_SEGMENT_BYTES, so neither thread waits long
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
/** This thread stops taking segments this far ahead of the fold, and waits for the other one instead. */
const MAX_HELD = 4;

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
 * Reads [0, size) as segments split at line starts, this thread and `other`
 * each taking the next segment as they come free, and hands every line's scan
 * to `onScan` in file order (the summary is order-dependent). Undefined when
 * the file changed under the read (a segment came up short, or a line did not
 * end where a segment does) or the other thread failed: the caller then reads
 * the file alone, and reports what changed as it always has.
 */
export async function readSegmentsInParallel(opts: ParallelReadOptions, onScan: (scan: ScanResult) => void): Promise<ParallelRead | undefined> {
  const segmentBytes = opts.segmentBytes ?? (await segmentBytesFor(opts.files, opts.path, opts.size));
  const bounds = await segmentBounds(opts.files, opts.path, opts.size, segmentBytes);
  const count = bounds.length - 1;
  const remote = new Map<number, Promise<RangeScan | undefined>>();
  /** Scanned segments waiting for the fold, with the scanner that made them (to recycle their buffers). */
  const held = new Map<number, { range: RangeScan; from: RangeScanner }>();
  let next = 0;
  let folded = 0;
  let partialBytes = 0;
  const local = new LocalRangeScanner(opts.files, opts.scanner);
  const topUpRemote = (): void => {
    while (next < count && remote.size < REMOTE_IN_FLIGHT) {
      const k = next++;
      // Caught at once: a failure must not be an unhandled rejection while this thread scans.
      remote.set(k, opts.other.scanRange(opts.path, bounds[k]!, bounds[k + 1]!).catch(() => undefined));
    }
  };
  while (folded < count) {
    const waiting = held.get(folded);
    if (waiting !== undefined) {
      held.delete(folded);
      const ready = waiting.range;
      const last = folded === count - 1;
      if (ready.bytes !== bounds[folded + 1]! - bounds[folded]! || (!last && ready.partialBytes > 0)) return undefined;
      forEachScan(ready, onScan);
      waiting.from.recycle?.(ready);
      if (last) partialBytes = ready.partialBytes;
      folded += 1;
      continue;
    }
    topUpRemote();
    if (next < count && next - folded < MAX_HELD) {
      const k = next++;
      const scan = await local.scanRange(opts.path, bounds[k]!, bounds[k + 1]!).catch(() => undefined);
      if (scan === undefined) return undefined; // unreadable now: the one-thread read says how
      held.set(k, { range: scan, from: local });
      continue;
    }
    // Every segment below `next` is folded, held or with the other thread: this one is there.
    const scan = await remote.get(folded)!;
    remote.delete(folded);
    if (scan === undefined) {
      await Promise.all(remote.values());
      return undefined;
    }
    held.set(folded, { range: scan, from: opts.other });
  }
  return { bytes: opts.size, partialBytes };
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

/** [0, b1, …, size]: line starts near every multiple of segmentBytes, increasing. */
async function segmentBounds(files: FileAccess, path: string, size: number, segmentBytes: number): Promise<number[]> {
  const bounds = [0];
  for (let at = segmentBytes; at < size; at += segmentBytes) {
    const last = bounds[bounds.length - 1]!;
    if (at <= last) continue; // a huge line took the segment start past this multiple
    const start = await nextLineStart(files, path, at, size);
    if (start === undefined) break;
    bounds.push(start);
  }
  bounds.push(size);
  return bounds;
}
