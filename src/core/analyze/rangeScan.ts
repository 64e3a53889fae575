import type { FileAccess, OpenFile } from '../fileAccess';
import type { ScanResult } from '../records';
import { createRecordScanner, type RecordScannerOptions } from '../scanner';
import { readAhead } from '../tailReadAhead';

const NEWLINE = 0x0a;
const CHUNK_BYTES = 1024 * 1024;

/** What scanning one byte range of a transcript found. */
export interface RangeScan {
  /**
   * The scan of each complete line in the range, in file order, as UTF-8 JSON
   * text, one line each (see forEachScan). A segment's scans wait until the
   * fold reaches them; as objects (or strings) they would be promoted to V8's
   * old generation in both threads, whose lazy collection grew a gigabyte's
   * analysis by some 70 MB. Bytes outside the heap cost only themselves, cross
   * threads without a copy, and the objects parsed from them at the fold die young.
   */
  scans: Uint8Array;
  /** How many lines `scans` holds. */
  count: number;
  /** Bytes read from the range's start (the range's length unless the file shrank). */
  bytes: number;
  /** Bytes after the last newline: an unfinished line. */
  partialBytes: number;
}

/**
 * Scans somewhere else (another thread) the complete lines of [start, end) of a
 * transcript. `analyze` hands such a scanner the second half of a large file
 * while it reads the first: a line is scanned without any state from the lines
 * before it, and in JSON Lines every 0x0A byte ends a line (JSON strings cannot
 * hold a raw newline), so a file splits exactly at any newline.
 */
export interface RangeScanner {
  scanRange(path: string, start: number, end: number): Promise<RangeScan>;
  /**
   * Takes back a range's `scans` once they are folded, to write later ranges
   * into: the buffers go round instead of piling up as garbage (outside the
   * heap, V8 frees them late, and a gigabyte left ~60 MB of them behind).
   */
  recycle?(range: RangeScan): void;
}

/** Buffers a LocalRangeScanner keeps for later ranges. */
const SPARE_SCAN_BUFFERS = 4;

/**
 * Scans ranges of transcripts in this thread, one after another: the same
 * FileTail-style split at newlines and the same record scanner as the tail, so
 * a line's ScanResult is the same whichever thread read it. Its two read
 * buffers and its scanner serve every range (a gigabyte is read as 16 ranges
 * or more), so ranges asked for at once are scanned one after the other.
 */
export class LocalRangeScanner implements RangeScanner {
  private readonly scanner;
  private readonly first = Buffer.alloc(CHUNK_BYTES);
  private second: Buffer | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly spareScanBuffers: ArrayBuffer[] = [];

  constructor(
    private readonly files: FileAccess,
    scannerOptions: RecordScannerOptions = {},
  ) {
    this.scanner = createRecordScanner(scannerOptions);
  }

  /** The scan of [start, end) of `path`, `start` being the first byte of a line. */
  scanRange(path: string, start: number, end: number): Promise<RangeScan> {
    const result = this.queue.then(() => this.scanOne(path, start, end));
    this.queue = result.catch(() => undefined);
    return result;
  }

  recycle(range: RangeScan): void {
    this.recycleBuffer(range.scans.buffer as ArrayBuffer);
  }

  /** A buffer of scans already folded, sent back by the thread that folded them. */
  recycleBuffer(buffer: ArrayBuffer): void {
    if (this.spareScanBuffers.length < SPARE_SCAN_BUFFERS) this.spareScanBuffers.push(buffer);
  }

  private async scanOne(path: string, start: number, end: number): Promise<RangeScan> {
    const scanner = this.scanner;
    scanner.reset(); // the last range may have ended in an unfinished line
    const scans = new ScanWriter(this.spareScanBuffers.pop());
    let partialBytes = 0;
    let bytes = 0;
    const consume = (chunk: Buffer): void => {
      bytes += chunk.length;
      let pos = 0;
      while (pos < chunk.length) {
        const newline = chunk.indexOf(NEWLINE, pos);
        const stop = newline === -1 ? chunk.length : newline;
        if (stop > pos) scanner.push(chunk.subarray(pos, stop));
        partialBytes += stop - pos;
        if (newline === -1) break;
        scans.add(scanner.finish());
        partialBytes = 0;
        pos = newline + 1;
      }
    };
    const handle: OpenFile = await this.files.open(path);
    try {
      const buffers = { first: this.first, second: () => (this.second ??= Buffer.alloc(CHUNK_BYTES)) };
      const failure = await readAhead(handle, buffers, start, end, consume);
      if (failure !== undefined) throw failure;
    } finally {
      await handle.close();
    }
    return { scans: scans.bytes(), count: scans.count, bytes, partialBytes };
  }
}

/**
 * The first line start at or after `from` and before `end`: the byte after the
 * next newline, or undefined when [from, end) holds none.
 */
export async function nextLineStart(files: FileAccess, path: string, from: number, end: number): Promise<number | undefined> {
  if (from <= 0) return 0;
  const handle = await files.open(path);
  try {
    const buffer = Buffer.alloc(64 * 1024);
    // Start one byte early: if that byte is a newline, `from` itself starts a line.
    for (let position = from - 1; position < end; ) {
      const n = await handle.read(buffer, 0, Math.min(buffer.length, end - position), position);
      if (n === 0) return undefined;
      const newline = buffer.subarray(0, n).indexOf(NEWLINE);
      if (newline !== -1) {
        const lineStart = position + newline + 1;
        return lineStart < end ? lineStart : undefined;
      }
      position += n;
    }
    return undefined;
  } finally {
    await handle.close();
  }
}

/** Appends scans as JSON lines to a growing buffer outside the V8 heap. */
class ScanWriter {
  private buffer: Uint8Array;
  private used = 0;
  count = 0;

  /** `reuse`: a buffer of earlier scans, already folded. */
  constructor(reuse?: ArrayBuffer) {
    this.buffer = new Uint8Array(reuse ?? new ArrayBuffer(256 * 1024));
  }

  add(scan: ScanResult): void {
    const text = JSON.stringify(scan);
    // A UTF-16 unit takes at most 3 bytes of UTF-8, plus the newline.
    const room = text.length * 3 + 1;
    if (this.used + room > this.buffer.length) {
      const grown = new Uint8Array(Math.max(this.buffer.length * 2, this.used + room));
      grown.set(this.buffer.subarray(0, this.used));
      this.buffer = grown;
    }
    this.used += encoder.encodeInto(text, this.buffer.subarray(this.used)).written;
    this.buffer[this.used++] = NEWLINE;
    this.count += 1;
  }

  /** The lines written: a view of the whole buffer, handed over (a worker transfers it, recycle() takes it back). */
  bytes(): Uint8Array {
    return this.buffer.subarray(0, this.used);
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Each scan of RangeScan.scans, in order. JSON keeps a ScanResult exactly (its
 * fields are strings, booleans, null, arrays and finite numbers; JSON.stringify
 * escapes a lone surrogate, so the UTF-8 is well-formed), except that an
 * apiBlockIndex of -0 comes back 0.
 */
export function forEachScan(range: RangeScan, onScan: (scan: ScanResult) => void): void {
  const bytes = range.scans;
  // JSON.stringify escapes every newline inside a value: each 0x0A ends a scan.
  for (let start = 0, n = 0; n < range.count; n++) {
    const end = bytes.indexOf(NEWLINE, start);
    onScan(JSON.parse(decoder.decode(bytes.subarray(start, end))) as ScanResult);
    start = end + 1;
  }
}
