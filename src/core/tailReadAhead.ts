import type { OpenFile } from './fileAccess';

/** A read that failed, as a value, so a read running ahead never rejects unobserved. */
class ReadFailure {
  constructor(readonly error: unknown) {}
}

/**
 * Reads [from, target) of a file chunk by chunk and hands each chunk to
 * `consume`, reading the next chunk into the other buffer while one is being
 * consumed: half of a cold index was waiting on reads. The next position is
 * known only once a read returns (it may come up short), so at most one read is
 * ever ahead, and none is left running on return, even when `consume` throws.
 * A chunk is a view into a buffer reused two chunks later.
 *
 * Returns the read error (reading stops there), or undefined; a read of 0
 * bytes (the file shrank), or `consume` returning false, ends it early.
 */
export async function readAhead(
  handle: OpenFile,
  buffers: { first: Buffer; second: () => Buffer },
  from: number,
  target: number,
  consume: (chunk: Buffer) => boolean | void,
): Promise<unknown> {
  const readAt = (buffer: Buffer, position: number): Promise<number | ReadFailure> =>
    handle.read(buffer, 0, Math.min(buffer.length, target - position), position).then(
      (n) => n,
      (err: unknown) => new ReadFailure(err),
    );
  let current = buffers.first;
  let position = from;
  let pending = position < target ? readAt(current, position) : undefined;
  try {
    while (pending) {
      const n = await pending;
      pending = undefined;
      if (n instanceof ReadFailure) return n.error ?? new Error('read failed');
      if (n === 0) break; // shrank since the stat; the next read re-checks
      position += n;
      let other: Buffer | undefined;
      if (position < target) {
        other = current === buffers.first ? buffers.second() : buffers.first;
        pending = readAt(other, position);
      }
      if (consume(current.subarray(0, n)) === false) break;
      if (other) current = other;
    }
  } finally {
    if (pending) await pending;
  }
  return undefined;
}
