import type { OpenFile } from './fileAccess';

/** A read that failed, as a value, so a read running ahead never rejects unobserved. */
class ReadFailure {
  constructor(readonly error: unknown) {}
}

/**
 * Reads running ahead of the one being consumed. Two: while one chunk is
 * scanned, the next two are read on libuv's threads, so when scanning
 * outruns reading (a huge line's string interiors scan faster than one thread
 * copies from the page cache) two copies run at once; with one read ahead,
 * a cold index spends a noticeable share of its time waiting (BENCHMARKS.md).
 */
export const READS_AHEAD = 2;

/**
 * Whole chunks kept free per chunk size, between reads, by every tail of the
 * process together: one read's worth, twice, so two tails reading at once
 * (indexing beside a tick) do not allocate afresh.
 */
export const READ_BUFFERS_KEPT = 2 * (READS_AHEAD + 1);

/** Free chunk-sized read buffers by size, shared by every FileTail that brings no buffers of its own. */
const freeChunks = new Map<number, Buffer[]>();

/**
 * Read buffers for one readAhead of `span` bytes, each lent only while the
 * read runs (`release()` when it ends). A tail holds no buffer between reads:
 * a process following 20,000 transcripts holds the buffers of the reads
 * running now, not 20,000 chunks. A read shorter than a chunk gets one buffer
 * of its own length (a live append is a few KiB); chunk-sized ones are taken
 * from, and given back to, a small free list kept across tails. Never zeroed:
 * readAhead hands over only the bytes a read filled.
 */
export function lendReadBuffers(chunkSize: number, span: number): { buffer: (index: number) => Buffer; release: () => void } {
  const lent: Buffer[] = [];
  if (span < chunkSize) {
    return { buffer: (index) => (lent[index] ??= Buffer.allocUnsafe(Math.max(1, span))), release: () => undefined };
  }
  return {
    buffer: (index) => (lent[index] ??= freeChunks.get(chunkSize)?.pop() ?? Buffer.allocUnsafeSlow(chunkSize)),
    release: () => {
      let free = freeChunks.get(chunkSize);
      if (!free) freeChunks.set(chunkSize, (free = []));
      for (const b of lent.splice(0)) if (b !== undefined && free.length < READ_BUFFERS_KEPT) free.push(b);
    },
  };
}

interface Ahead {
  /** Which buffer: buffers(index) gives it, at issue and again when consumed. */
  index: number;
  position: number;
  length: number;
  result: Promise<number | ReadFailure>;
}

/**
 * Reads [from, target) of a file chunk by chunk and hands each chunk to
 * `consume`, with up to READS_AHEAD reads of the following chunks running
 * meanwhile. A read ahead assumes the reads before it come back full; one that
 * comes back short (the file shrank) is where reading goes on from, and the
 * reads issued after it are dropped. None is left running on return, even when
 * `consume` throws. A chunk is a view into a buffer reused once it is consumed:
 * `buffer(i)` gives buffer i (0 … READS_AHEAD), asked for only when first
 * needed, and again for each use, so an owner may hand out a fresh view of the
 * same memory (a wasm memory that grew replaces its views).
 *
 * Returns the read error (reading stops there), or undefined; a read of 0
 * bytes (the file shrank), or `consume` returning false, ends it early.
 */
export async function readAhead(
  handle: OpenFile,
  buffer: (index: number) => Buffer,
  from: number,
  target: number,
  consume: (chunk: Buffer) => boolean | void,
): Promise<unknown> {
  const free: number[] = [0];
  let used = 1;
  const ahead: Ahead[] = [];
  let next = from;
  const issue = (): void => {
    while (ahead.length < READS_AHEAD + 1 && next < target) {
      if (free.length === 0) {
        if (used > READS_AHEAD) return;
        free.push(used++);
      }
      const index = free.pop()!;
      const into = buffer(index);
      const length = Math.min(into.length, target - next);
      const result = handle.read(into, 0, length, next).then(
        (n) => n,
        (err: unknown) => new ReadFailure(err),
      );
      ahead.push({ index, position: next, length, result });
      next += length;
    }
  };
  try {
    issue();
    while (ahead.length > 0) {
      const read = ahead.shift()!;
      const n = await read.result;
      if (n instanceof ReadFailure) return n.error ?? new Error('read failed');
      if (n === 0) break; // shrank since the stat; the next read re-checks
      if (n < read.length) {
        // Short: the reads issued after this one assumed it full. Drop them and go on from here.
        for (const dropped of ahead.splice(0)) {
          await dropped.result;
          free.push(dropped.index);
        }
        next = read.position + n;
      }
      issue();
      const more = consume(buffer(read.index).subarray(0, n));
      free.push(read.index);
      if (more === false) break;
    }
  } finally {
    await Promise.all(ahead.map((a) => a.result));
  }
  return undefined;
}
