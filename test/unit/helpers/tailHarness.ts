import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { FileAccess } from '../../../src/core/fileAccess';
import { FileTail } from '../../../src/core/tail';
import type { LineScanner, TailLine, TailRead } from '../../../src/core/tailTypes';
import { nodeFileAccess } from '../../../src/platform/nodeFileAccess';
import { BytesScanner } from './lineScanners';
import { ManualClock } from './manualClock';

/** A fresh folder under the OS temp dir; remove it with removeTempDir. */
export function makeTempDir(prefix = 'tail-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function removeTempDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

export interface TailRig<T> {
  tail: FileTail<T>;
  clock: ManualClock;
  scanner: LineScanner<T>;
}

export function bytesTail(
  file: string,
  opts: { files?: FileAccess; chunkSize?: number; clock?: ManualClock } = {},
): TailRig<Buffer> & { scanner: BytesScanner } {
  const clock = opts.clock ?? new ManualClock();
  const scanner = new BytesScanner();
  const tail = new FileTail<Buffer>({ path: file, files: opts.files ?? nodeFileAccess, clock, scanner, chunkSize: opts.chunkSize });
  return { tail, clock, scanner };
}

/** The text of each line (the tests write ASCII/UTF-8 unless they say otherwise). */
export function texts(lines: TailLine<Buffer>[]): string[] {
  return lines.map((l) => l.scan.toString('utf8'));
}

/** Every read of `tail` until it says there is no more, then closes it. */
export async function readToEnd<T>(tail: FileTail<T>): Promise<TailRead<T>[]> {
  const reads: TailRead<T>[] = [];
  try {
    for (;;) {
      const read = await tail.read();
      reads.push(read);
      if (!read.more) return reads;
    }
  } finally {
    await tail.close();
  }
}
