import { createHash, type Hash } from 'node:crypto';
import type { LineScanner } from '../../../src/core/tailTypes';

/**
 * Test collaborators of the tail: what it pushes is the thing observed, so
 * these record it rather than interpret it.
 */

/** Keeps each line's exact bytes (copying, as the contract asks), and the pushed partial. */
export class BytesScanner implements LineScanner<Buffer> {
  private parts: Buffer[] = [];
  resets = 0;
  largestChunk = 0;

  push(chunk: Buffer): void {
    this.largestChunk = Math.max(this.largestChunk, chunk.length);
    this.parts.push(Buffer.from(chunk));
  }
  finish(): Buffer {
    const line = Buffer.concat(this.parts);
    this.parts = [];
    return line;
  }
  reset(): void {
    this.parts = [];
    this.resets += 1;
  }
  /** Bytes pushed since the last finish or reset. */
  pending(): Buffer {
    return Buffer.concat(this.parts);
  }
}

export interface LineDigest {
  bytes: number;
  sha256: string;
  chunks: number;
}

/** For huge lines: keeps a running hash and counts, never the bytes. */
export class DigestScanner implements LineScanner<LineDigest> {
  private hash: Hash = createHash('sha256');
  private bytes = 0;
  private chunks = 0;
  largestChunk = 0;
  totalPushed = 0;

  push(chunk: Buffer): void {
    this.hash.update(chunk);
    this.bytes += chunk.length;
    this.chunks += 1;
    this.totalPushed += chunk.length;
    this.largestChunk = Math.max(this.largestChunk, chunk.length);
  }
  finish(): LineDigest {
    const digest = { bytes: this.bytes, sha256: this.hash.digest('hex'), chunks: this.chunks };
    this.reset();
    return digest;
  }
  reset(): void {
    this.hash = createHash('sha256');
    this.bytes = 0;
    this.chunks = 0;
  }
}

/** Pushes `line` to `scanner` in chunks cut at `cuts` (each taken modulo the line's length + 1, in order), then finishes it. */
export function scanInChunks<T>(scanner: { push(chunk: Buffer): void; finish(): T }, line: Buffer, cuts: readonly number[]): T {
  let start = 0;
  for (const cut of cuts.map((c) => c % (line.length + 1)).sort((a, b) => a - b)) {
    scanner.push(line.subarray(start, Math.max(start, cut)));
    start = Math.max(start, cut);
  }
  scanner.push(line.subarray(start));
  return scanner.finish();
}
