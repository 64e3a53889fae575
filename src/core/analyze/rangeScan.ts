import type { FileAccess, OpenFile } from '../fileAccess';
import type { ScanResult } from '../records';
import { createRecordScanner, type RecordScannerOptions } from '../scanner';
import { readAhead } from '../tailReadAhead';

const NEWLINE = 0x0a;
const CHUNK_BYTES = 1024 * 1024;

/** What scanning one byte range of a transcript found. */
export interface RangeScan {
  /** The scan of each complete line in the range, in file order. */
  scans: ScanResult[];
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
}

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

  private async scanOne(path: string, start: number, end: number): Promise<RangeScan> {
    const scanner = this.scanner;
    scanner.reset(); // the last range may have ended in an unfinished line
    const scans: ScanResult[] = [];
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
        scans.push(scanner.finish());
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
    return { scans, bytes, partialBytes };
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
