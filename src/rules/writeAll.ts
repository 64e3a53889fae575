// Named imports, not `import * as`: esbuild would copy every export of the module at each start.
import { writeSync } from 'node:fs';

/**
 * How long a command's output may wait for its reader: a pipe made non-blocking that stays full
 * this long (nobody reads it) ends the write, and the command exits 1. Long enough for any reader
 * that reads at all; a blocking write would have waited for ever.
 */
export const WRITE_WAIT_MS = 10_000;

/** Replaces WRITE_WAIT_MS (decimal milliseconds), so a test need not wait 10 s for a reader that never reads. */
export const WRITE_WAIT_ENV = 'TRANSCRIPT_LAG_WRITE_WAIT_MS';

/** When the output must be written by (performance.now() time, which no clock change moves). */
export function writeDeadline(env: NodeJS.ProcessEnv): number {
  const v = env[WRITE_WAIT_ENV];
  return performance.now() + (v !== undefined && /^\d{1,7}$/.test(v) ? Number(v) : WRITE_WAIT_MS);
}

/**
 * writeDeadline, read only if a write has to wait: `performance` loads perf_hooks (a dozen internal
 * modules, about 1 ms) the first time it is touched, which a command whose write never waits (the
 * status line, once a second) need not pay. The same deadline: the time since this call, on the
 * same monotonic clock (process.hrtime, which loads nothing), is taken off when it is read.
 */
export function lazyWriteDeadline(env: NodeJS.ProcessEnv): () => number {
  const since = process.hrtime.bigint();
  return () => writeDeadline(env) - Number(process.hrtime.bigint() - since) / 1e6;
}

/** Waits on a shared word nobody changes: a sleep of `ms` that neither spins nor needs the event loop. */
let sleeper: Int32Array | undefined;
function sleep(ms: number): void {
  sleeper ??= new Int32Array(new SharedArrayBuffer(4));
  Atomics.wait(sleeper, 0, 0, ms);
}

/**
 * Writes all of `text` to `fd` before `deadline` (a number, or lazyWriteDeadline's), synchronously. Returns true when it was all
 * written, or when the reader has gone (EPIPE: it chose to read no more, as `| head` does; nobody
 * is left to take a cut answer for a whole one); false when some of it could not be written:
 * the caller must then not exit 0, as its reader holds a cut line.
 *
 * The wait is why this exists: O_NONBLOCK belongs to the pipe, not to a process, so a Node parent
 * that shares its stdout with us (stdio 'inherit', then its own process.stdout) makes our fd 1
 * non-blocking, and a writeSync into a full pipe throws EAGAIN instead of waiting: a plain write
 * loop left what the pipe held (64 KiB of a 1 MiB answer) and exited 0. Here EAGAIN waits 1 ms,
 * doubling to 16 ms, and tries again until the deadline.
 */
export function writeAll(fd: number, text: string | Uint8Array, deadline: number | (() => number)): boolean {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  let off = 0;
  let pause = 1;
  while (off < bytes.length) {
    try {
      off += writeSync(fd, bytes, off, bytes.length - off);
      pause = 1;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') return true;
      if (typeof deadline === 'function') deadline = deadline();
      const left = deadline - performance.now();
      if ((code !== 'EAGAIN' && code !== 'EWOULDBLOCK') || left <= 0) return false;
      sleep(Math.min(pause, left));
      pause = Math.min(pause * 2, 16);
    }
  }
  return true;
}
