import type { FileAccess } from '../fileAccess';
import type { ScanResult } from '../records';
import type { RecordScannerOptions } from '../scanner';
import { LocalRangeScanner, nextLineStart, type RangeScan, type RangeScanner } from './rangeScan';

/**
 * Segments of about this size are shared out between this thread and the
 * other: small enough that neither waits long for the other at the end and
 * that the scans held out of order stay few, large enough that a segment's
 * set-up (a file handle, two read buffers, a message) does not show.
 */
export const SEGMENT_BYTES = 64 * 1024 * 1024;
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
  const bounds = await segmentBounds(opts.files, opts.path, opts.size, opts.segmentBytes ?? SEGMENT_BYTES);
  const count = bounds.length - 1;
  const remote = new Map<number, Promise<RangeScan | undefined>>();
  const held = new Map<number, RangeScan>();
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
    const ready = held.get(folded);
    if (ready !== undefined) {
      held.delete(folded);
      const last = folded === count - 1;
      if (ready.bytes !== bounds[folded + 1]! - bounds[folded]! || (!last && ready.partialBytes > 0)) return undefined;
      for (const scan of ready.scans) onScan(scan);
      if (last) partialBytes = ready.partialBytes;
      folded += 1;
      continue;
    }
    topUpRemote();
    if (next < count && next - folded < MAX_HELD) {
      const k = next++;
      const scan = await local.scanRange(opts.path, bounds[k]!, bounds[k + 1]!).catch(() => undefined);
      if (scan === undefined) return undefined; // unreadable now: the one-thread read says how
      held.set(k, scan);
      continue;
    }
    // Every segment below `next` is folded, held or with the other thread: this one is there.
    const scan = await remote.get(folded)!;
    remote.delete(folded);
    if (scan === undefined) {
      await Promise.all(remote.values());
      return undefined;
    }
    held.set(folded, scan);
  }
  return { bytes: opts.size, partialBytes };
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
