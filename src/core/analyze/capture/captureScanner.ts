import type { ScanResult } from '../../records';
import { PlainRecords } from '../../scanner/fields';
import { RecordScanner, type RecordLineScanner, type RecordScannerOptions } from '../../scanner';
import type { LineBatches } from '../../tail';
import { READS_AHEAD } from '../../tailReadAhead';
import { LineReducer } from './lineReducer';
import { createReadingKernel } from './readingKernel';

/** Lines up to this go to the capture, which builds nothing for the bytes it drops; on longer ones its copy of the line makes the tokenizer as fast (BENCHMARKS.md). */
export const DEFAULT_CAPTURE_STREAM_THRESHOLD = 64 * 1024;

/** The record scanner with analyze's batch entry: whole lines of a read buffer, many at a time (see LineBatches). */
export interface CaptureLineScanner extends RecordLineScanner {
  finishLines: LineBatches<ScanResult>['finishLines'];
}

/** analyze's record scanner: the live engine's (../../scanner), with ordinary lines read by the LineReducer; the property tests hold it to the plain scanner's records. */
class CaptureScanner extends RecordScanner implements CaptureLineScanner {
  private readonly reducer: LineReducer;
  /** The records of captured plain lines, shared (see PlainRecords). */
  private readonly plainRecords = new PlainRecords();

  constructor(opts: RecordScannerOptions, reducer: LineReducer, keepsIds: boolean) {
    super(opts, DEFAULT_CAPTURE_STREAM_THRESHOLD);
    this.reducer = reducer;
    reducer.keepsIds = keepsIds;
  }

  finishLines(chunk: Buffer, start: number, line: (start: number, end: number, value: ScanResult) => void): number {
    // Lines the capture takes in place, many to a call; any other line goes through finishLine.
    if (!this.idle) return start;
    return this.reducer.captureLines(chunk, start, this.threshold, this.promptsWanted, (from, to, fields, prompts) => line(from, to, this.plainRecords.recordOf(fields, prompts)));
  }

  protected override scanBuffered(source: Buffer, start: number, end: number, prompts: boolean): ScanResult {
    const fields = this.reducer.captureRange(source, start, end, prompts);
    // A line the capture leaves (not JSON, an escaped key): JSON.parse decides, and says why.
    return typeof fields === 'number' ? super.scanBuffered(source, start, end, prompts) : this.plainRecords.recordOf(fields, prompts);
  }
}

/**
 * analyze's scanner on `opts.kernel` (default: the shared one); without wasm SIMD, the plain scanner, whose finishLines
 * takes no line. `keepsIds` false: captured lines' records have no `uuid` (LineReducer.keepsIds); the plain scanner's
 * records do, so the property tests compare with it on.
 */
export function createCaptureScanner(opts: RecordScannerOptions = {}, keepsIds = true): CaptureLineScanner {
  const reducer = LineReducer.create(opts.kernel);
  return reducer === undefined ? new WithoutCapture(opts) : new CaptureScanner(opts, reducer, keepsIds);
}

class WithoutCapture extends RecordScanner implements CaptureLineScanner {
  finishLines(_chunk: Buffer, start: number): number {
    return start;
  }
}

/** Scratch past which a reading kernel is not worth its memory (a test's huge streamThreshold): the tail's own buffers then. */
const MAX_READING_SCRATCH = 64 * 1024 * 1024;

export interface CaptureReading {
  scanner: CaptureLineScanner;
  /** For the FileTail: reads into the scanner's wasm memory, whole lines many at a time; undefined where wasm cannot run. */
  batches: LineBatches<ScanResult> | undefined;
}

/**
 * analyze's scanner and its FileTail's read buffers, in one ReadingKernel (./readingKernel.ts); without wasm, or for too
 * large a scratch, the plain scanner and the tail's own buffers. The scratch holds what the scanners put at heapBase: a
 * line of up to streamThreshold bytes with its entries (under 7.2 bytes a byte of line, see LineReducer), or a chunk the string skipper copies in.
 */
export function createCaptureReading(opts: { chunkSize: number; streamThreshold?: number; prompts?: () => boolean }): CaptureReading {
  const { chunkSize, streamThreshold, prompts } = opts;
  const threshold = streamThreshold ?? DEFAULT_CAPTURE_STREAM_THRESHOLD;
  const scratch = Math.max(8 * threshold, chunkSize) + 64 * 1024;
  // A chunk size that is no positive integer: the FileTail says what is wrong with it.
  const kernel = Number.isInteger(chunkSize) && chunkSize >= 1 && scratch <= MAX_READING_SCRATCH ? createReadingKernel(READS_AHEAD + 1, chunkSize, scratch) : null;
  // analyze reads no uuid: its plain lines then share their records.
  const scanner = createCaptureScanner({ streamThreshold, prompts, kernel: kernel ?? undefined }, false);
  if (kernel === null) return { scanner, batches: undefined };
  return { scanner, batches: { readBuffer: (i) => kernel.readBuffer(i), finishLines: (chunk, start, line) => scanner.finishLines(chunk, start, line) } };
}
