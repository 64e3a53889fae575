import type { ScanResult } from '../../records';
import { PlainRecords } from '../../scanner/fields';
import { RecordScanner, type RecordLineScanner, type RecordScannerOptions } from '../../scanner';
import { LineReducer } from '../../scanner/lineReducer';

/**
 * With the capture, which builds nothing for the bytes it drops: on the
 * bench's 16-64 KiB records and on escaped tool output it beats the tokenizer
 * up to 64 KiB, and loses from 256 KiB on, where it costs a copy of the line
 * the tokenizer does not make (figures in BENCHMARKS.md).
 */
export const DEFAULT_CAPTURE_STREAM_THRESHOLD = 64 * 1024;

/** The record scanner with analyze's batch entry: whole lines of a read buffer, many at a time. */
export interface CaptureLineScanner extends RecordLineScanner {
  /**
   * For a scanner holding no partial line: the value of each whole line from
   * `start` of `chunk` on, as many as it takes in one go, each handed to
   * `line` with its bounds (`end`: its newline) in file order. Returns where
   * it stopped: the first line it leaves to push / finishLine (`start` if it
   * took none). `line` must not call the scanner.
   */
  finishLines(chunk: Buffer, start: number, line: (start: number, end: number, value: ScanResult) => void): number;
}

/**
 * analyze's record scanner: the live engine's (../../scanner), with ordinary
 * lines validated in wasm (../../scanner/wasm/capture.c), which lists where the
 * kept values lie so only those strings are decoded (no JSON.parse, no object
 * tree). The property tests hold it to the plain scanner's records.
 */
class CaptureScanner extends RecordScanner implements CaptureLineScanner {
  private readonly reducer: LineReducer;
  /** The records of captured plain lines, shared (see PlainRecords). */
  private readonly plainRecords = new PlainRecords();

  constructor(opts: RecordScannerOptions, reducer: LineReducer) {
    super(opts, DEFAULT_CAPTURE_STREAM_THRESHOLD);
    this.reducer = reducer;
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
 * analyze's scanner on `opts.kernel` (default: the shared one); where
 * WebAssembly SIMD is unavailable, the plain scanner, whose finishLines takes
 * no line.
 */
export function createCaptureScanner(opts: RecordScannerOptions = {}): CaptureLineScanner {
  const reducer = LineReducer.create(opts.kernel);
  return reducer === undefined ? new WithoutCapture(opts) : new CaptureScanner(opts, reducer);
}

class WithoutCapture extends RecordScanner implements CaptureLineScanner {
  finishLines(_chunk: Buffer, start: number): number {
    return start;
  }
}
