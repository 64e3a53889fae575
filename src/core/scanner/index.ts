import type { ScanResult } from '../records';
import type { LineScanner } from '../tailTypes';
import { buildRecord, fieldsFromParsed } from './fields';
import { StreamingRecordParser } from './streamingParser';

/**
 * The transcript record scanner. A line up to `streamThreshold` bytes is
 * buffered and handed to JSON.parse (native, fastest for small records); a
 * longer one switches, mid-line, to StreamingRecordParser, which validates the
 * whole line but keeps only the fields the engine needs, so a 64 MB tool result
 * never becomes a string or an object tree. Both paths fill the same CapturedFields under the
 * same rules (./fields.ts), and the property tests hold them to identical
 * results, including for invalid UTF-8 inside strings (decoded to U+FFFD, not
 * malformed) and for garbage.
 */
/**
 * Measured on transcripts of 200-900 MB (real records, multi-MB tool results,
 * a 64 MB line): from 4-16 KiB up the tokenizer is as fast as JSON.parse plus
 * decoding, and it allocates next to nothing, where JSON.parse builds a whole
 * object tree per line (peak RSS 96 MB at a 1 MiB threshold, ~80 MB here).
 * Small records stay on JSON.parse, whose native loop wins on dense structure.
 */
export const DEFAULT_STREAM_THRESHOLD = 16 * 1024;

export interface RecordScannerOptions {
  /** Lines longer than this many bytes go through the streaming tokenizer. */
  streamThreshold?: number;
}

class RecordScanner implements LineScanner<ScanResult> {
  private readonly threshold: number;
  private buf: Buffer;
  private len = 0;
  private streaming: StreamingRecordParser | undefined;
  private streamingActive = false;

  constructor(opts: RecordScannerOptions) {
    this.threshold = Math.max(0, Math.floor(opts.streamThreshold ?? DEFAULT_STREAM_THRESHOLD));
    this.buf = Buffer.allocUnsafe(Math.min(this.threshold, 64 * 1024));
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    if (this.streamingActive) {
      this.streaming!.push(chunk);
      return;
    }
    const total = this.len + chunk.length;
    if (total > this.threshold) {
      this.streaming ??= new StreamingRecordParser();
      this.streamingActive = true;
      if (this.len > 0) this.streaming.push(this.buf.subarray(0, this.len));
      this.len = 0;
      this.streaming.push(chunk);
      return;
    }
    if (total > this.buf.length) {
      const grown = Buffer.allocUnsafe(Math.min(this.threshold, Math.max(total, this.buf.length * 2)));
      this.buf.copy(grown, 0, 0, this.len);
      this.buf = grown;
    }
    chunk.copy(this.buf, this.len);
    this.len = total;
  }

  finish(): ScanResult {
    if (this.streamingActive) {
      this.streamingActive = false;
      return this.streaming!.finish();
    }
    const line = this.buf.subarray(0, this.len);
    this.len = 0;
    return parseBuffered(line, () => (this.streaming ??= new StreamingRecordParser()));
  }

  reset(): void {
    this.len = 0;
    if (this.streamingActive) this.streaming!.reset();
    this.streamingActive = false;
  }
}

function parseBuffered(line: Buffer, streaming: () => StreamingRecordParser): ScanResult {
  let value: unknown;
  try {
    // Same decoding as the streaming path: invalid UTF-8 becomes U+FFFD.
    value = JSON.parse(line.toString('utf8'));
  } catch {
    // Rare: let the tokenizer say why ("empty", "truncated", "not JSON"), so both paths give one reason.
    const parser = streaming();
    parser.push(line);
    return parser.finish();
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { kind: 'malformed', reason: 'not an object' };
  }
  return buildRecord(fieldsFromParsed(value as Record<string, unknown>));
}

export function createRecordScanner(opts: RecordScannerOptions = {}): LineScanner<ScanResult> {
  return new RecordScanner(opts);
}

/** One whole line (without its newline) at once; for tests and small callers. */
export function scanLine(line: Buffer | string, opts: RecordScannerOptions = {}): ScanResult {
  const scanner = createRecordScanner(opts);
  scanner.push(typeof line === 'string' ? Buffer.from(line, 'utf8') : line);
  return scanner.finish();
}
