import type { FileAccess, OpenFile } from '../fileAccess';
import type { ScanResult } from '../records';
import { createRecordScanner, type RecordScannerOptions } from '../scanner';
import { ownReadBuffers, readAhead, utf8BomLength } from '../tailReadAhead';
import { decodeScan, encodeScan, ScanCodecState } from './scanCodec';

const NEWLINE = 0x0a;
const CHUNK_BYTES = 1024 * 1024;

/**
 * What reading the lines of one range found: they run from `start` to `end`.
 * Ranges that tile a file give reads that chain (one's end is the next's start).
 */
export interface RangeRead {
  /** Where the range's first line starts (the range's limit when none does). */
  start: number;
  /** Just past the newline of its last complete line; `start` when it has none. */
  end: number;
  /** Bytes of an unfinished line after `end`, up to the limit. */
  partialBytes: number;
}

/** What scanning one byte range of a transcript found. */
export interface RangeScan extends RangeRead {
  /**
   * The scan of each complete line in the range, in file order, as UTF-8 text,
   * one line each, holding what analyze's summary reads (./scanCodec.ts; see
   * forEachScan). A segment's scans wait until the fold reaches them; as
   * objects (or strings) they would be promoted to V8's old generation in both
   * threads, whose lazy collection grew a gigabyte's analysis by tens of MB.
   * Bytes outside the heap cost only themselves, cross threads without a
   * copy, and the objects parsed from them at the fold die young.
   */
  scans: Uint8Array;
  /** How many lines `scans` holds. */
  count: number;
}

/**
 * Scans somewhere else (another thread) the lines of a transcript that start
 * in [from, to), reading no byte at or past `limit`. `analyze` hands such a
 * scanner segments of a large file while it reads others: a line is scanned
 * without any state from the lines before it, and in JSON Lines every 0x0A
 * byte ends a line (JSON strings cannot hold a raw newline), so a reader
 * dropped anywhere finds the next line start by itself.
 */
export interface RangeScanner {
  scanRange(path: string, from: number, to: number, limit: number): Promise<RangeScan>;
  /**
   * Takes back a range's `scans` once they are folded, to write later ranges
   * into: the buffers go round instead of piling up as garbage (outside the
   * heap, V8 frees them late, and a gigabyte left tens of MB of them behind).
   */
  recycle?(range: RangeScan): void;
}

/** Buffers a LocalRangeScanner keeps for later ranges. */
const SPARE_SCAN_BUFFERS = 4;

/**
 * Scans ranges of transcripts in this thread, one after another: the same
 * FileTail-style split at newlines and the same record scanner as the tail, so
 * a line's ScanResult is the same whichever thread read it. Its read buffers
 * and its scanner serve every range (a gigabyte is read as 16 ranges or
 * more), so ranges asked for at once are scanned one after the other.
 */
export class LocalRangeScanner implements RangeScanner {
  private readonly scanner;
  private readonly readBuffer = ownReadBuffers(CHUNK_BYTES);
  private queue: Promise<unknown> = Promise.resolve();
  private readonly spareScanBuffers: ArrayBuffer[] = [];

  constructor(
    private readonly files: FileAccess,
    scannerOptions: RecordScannerOptions = {},
  ) {
    this.scanner = createRecordScanner(scannerOptions);
  }

  scanRange(path: string, from: number, to: number, limit: number): Promise<RangeScan> {
    return this.enqueue(async () => {
      const scans = new ScanWriter(this.spareScanBuffers.pop());
      const read = await this.scanOne(path, from, to, limit, (scan) => scans.add(scan));
      return { scans: scans.bytes(), count: scans.count, ...read };
    });
  }

  /** The same read, each line's scan handed to `onScan` as it is read (nothing is held). */
  foldRange(path: string, from: number, to: number, limit: number, onScan: (scan: ScanResult) => void): Promise<RangeRead> {
    return this.enqueue(() => this.scanOne(path, from, to, limit, onScan));
  }

  private enqueue<T>(work: () => Promise<T>): Promise<T> {
    const result = this.queue.then(work);
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

  /**
   * The lines starting in [from, to): a range that begins inside a line leaves
   * that line to the range before it, and reads its own last line to its end,
   * past `to` if need be, but never past `limit`.
   */
  private async scanOne(path: string, from: number, to: number, limit: number, onScan: (scan: ScanResult) => void): Promise<RangeRead> {
    const scanner = this.scanner;
    scanner.reset(); // the last range may have ended in an unfinished line
    // Reading from the byte before `from`: if it is a newline, a line starts at `from`.
    let position = Math.max(0, from - 1);
    let start = from === 0 ? 0 : -1;
    let end = start;
    let partialBytes = 0;
    const consume = (chunk: Buffer): boolean => {
      const base = position;
      position += chunk.length;
      let pos = base === 0 ? utf8BomLength(chunk) : 0;
      if (start === -1) {
        const newline = chunk.indexOf(NEWLINE);
        if (newline === -1) return true; // still in the line the range before reads
        start = end = base + newline + 1;
        if (start >= to) return false;
        pos = newline + 1;
      }
      while (pos < chunk.length) {
        const newline = chunk.indexOf(NEWLINE, pos);
        if (newline === -1) {
          scanner.push(chunk.subarray(pos));
          partialBytes += chunk.length - pos;
          break;
        }
        onScan(scanner.finishLine(chunk, pos, newline));
        partialBytes = 0;
        pos = newline + 1;
        end = base + pos;
        if (end >= to) return false; // the next line starts in the next range
      }
      return true;
    };
    const handle: OpenFile = await this.files.open(path);
    try {
      const failure = await readAhead(handle, this.readBuffer, position, limit, consume);
      if (failure !== undefined) throw failure;
    } finally {
      await handle.close();
    }
    if (start === -1) start = end = Math.max(from, position);
    return { start, end, partialBytes };
  }
}

/** Appends scans as JSON lines to a growing buffer outside the V8 heap. */
class ScanWriter {
  private buffer: Uint8Array;
  private used = 0;
  private readonly codec = new ScanCodecState();
  count = 0;

  /** `reuse`: a buffer of earlier scans, already folded. */
  constructor(reuse?: ArrayBuffer) {
    this.buffer = new Uint8Array(reuse ?? new ArrayBuffer(256 * 1024));
  }

  add(scan: ScanResult): void {
    const text = encodeScan(scan, this.codec);
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
 * Each scan of RangeScan.scans, in order, with what the summary reads of it
 * (./scanCodec.ts). JSON keeps those values exactly (strings, null, arrays and
 * finite numbers; JSON.stringify escapes a lone surrogate, so the UTF-8 is
 * well-formed), except that an apiBlockIndex of -0 comes back 0.
 */
export function forEachScan(range: RangeScan, onScan: (scan: ScanResult) => void): void {
  const bytes = range.scans;
  const codec = new ScanCodecState();
  // JSON.stringify escapes every newline inside a value: each 0x0A ends a scan.
  for (let start = 0, n = 0; n < range.count; n++) {
    const end = bytes.indexOf(NEWLINE, start);
    onScan(decodeScan(decoder.decode(bytes.subarray(start, end)), codec));
    start = end + 1;
  }
}
