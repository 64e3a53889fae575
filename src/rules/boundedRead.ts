// Named imports, not `import * as`: esbuild would copy every export of the module at each start.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/** O_NONBLOCK: a FIFO planted where a file should be never blocks the open. */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
/** O_NOFOLLOW: the open fails on a symlink (0 where the platform has none: the caller lstat()s first). */
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;

export interface BoundedBytes {
  bytes: Buffer;
  /** Where `bytes` starts in the file. */
  start: number;
  /** The file's size when it was opened. */
  size: number;
}

/**
 * At most `maxBytes` of a regular file: its end (`from: 'end'`), or all of it
 * when it is no larger (`from: 'whole'`: a larger one is not read at all).
 * Never throws: a missing file, a FIFO, a device or an unreadable one gives
 * undefined. Every file the hook and the status line read is someone else's
 * input, so this is the only way they read one. `noFollow`: a symlink at
 * `path` is not opened (a file we expect to be written only where it is).
 */
export function readBounded(path: string, maxBytes: number, from: 'end' | 'whole', noFollow = false): BoundedBytes | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, noFollow ? OPEN_FLAGS | NO_FOLLOW : OPEN_FLAGS);
    const st = fstatSync(fd);
    if (!st.isFile() || (from === 'whole' && st.size > maxBytes)) return undefined;
    const start = Math.max(0, st.size - maxBytes);
    const buf = Buffer.allocUnsafe(st.size - start);
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, start + got);
      if (n <= 0) break;
      got += n;
    }
    return { bytes: buf.subarray(0, got), start, size: st.size };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        // already closed or never ours: nothing to do
      }
    }
  }
}

/**
 * The complete lines of what was read: from the first line that starts in it
 * to its last newline. A line cut by the start of the window is not whole, and
 * a partial last line is not on disk yet (no reader takes it).
 */
export function completeLines(read: BoundedBytes): { lines: Buffer; end: number } {
  const { bytes, start } = read;
  const from = start === 0 ? 0 : bytes.indexOf(0x0a) + 1;
  const to = bytes.lastIndexOf(0x0a) + 1;
  const lines = from > 0 || start === 0 ? bytes.subarray(from, Math.max(from, to)) : Buffer.alloc(0);
  return { lines, end: start + Math.max(from, to) };
}
