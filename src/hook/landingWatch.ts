// Named imports, not `import * as`: esbuild would copy every export of the module at each start.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { LineCursor } from '../rules/lineCursor';
import { readNewLines } from '../rules/newLines';
import { toolUseIdNeedle } from '../rules/onDiskCheck';
import { lineKindOf } from '../rules/recordLine';

/**
 * Watches, after PostToolUse, for a call whose record was not on disk yet:
 * Claude Code appends the tool's result only once PostToolUse hooks have run,
 * so the hook itself cannot see whether the record lands with the result or
 * before it. A detached process (src/hook/main.ts, `--landing`) polls the
 * file's new bytes until the record's line is complete, and says whether the
 * result's line came in the same look: the definition of `with_result` the
 * live engine uses too (one read brought both).
 */
export interface LandingOptions {
  /** Where complete lines ended when the post hook looked: the record is after it. */
  fromByte: number;
  /** Date.now() after which it gives up (no evidence, which readers take as unknown). */
  deadline: number;
  /** Ms between looks, by how long it has watched: fast first, since the result follows the hook at once. */
  pollMs: (elapsedMs: number) => number;
  /** Bytes read at a time (default READ_BYTES): the receiver, which runs many watches in one process, reads less at a time. */
  readBytes?: number;
  /** Checked before each look: true ends the watch with no evidence (the receiver stopping). */
  cancelled?: () => boolean;
}

export interface Landing {
  /** When the look that found the record's line ran. */
  at: number;
  with_result: boolean;
}

/** Bytes read at a time: a look reads all the file gained since the last, in reads of this size. */
const READ_BYTES = 4 * 1024 * 1024;
/** A line's first bytes kept at most; a longer line is not the record (records are small) and is judged by its head. */
const CARRY_BYTES = 2 * 1024 * 1024;
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function watchLanding(path: string, toolUseId: string, opts: LandingOptions, now = Date.now): Promise<Landing | undefined> {
  const needle = toolUseIdNeedle(toolUseId);
  const started = now();
  // The record is after fromByte, where complete lines ended: a line's start. A call's ids sit near a line's start.
  const cursor = new LineCursor({ from: opts.fromByte, lineStart: true, maxLineBytes: CARRY_BYTES });
  const readBytes = opts.readBytes ?? READ_BYTES;
  const buf = Buffer.allocUnsafe(readBytes);
  while (now() < opts.deadline && !opts.cancelled?.()) {
    let record = false;
    let result = false;
    const onLine = (bytes: Uint8Array, cut: boolean) => {
      const line = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
      if (!line.includes(needle)) return;
      const kind = lineKindOf(line, toolUseId, !cut);
      if (kind === 'record') record = true;
      else if (kind === 'result') result = true;
    };
    let fd: number | undefined;
    try {
      const file = (fd = openSync(path, OPEN_FLAGS));
      const look = await readNewLines(
        cursor,
        {
          stat: () => {
            const st = fstatSync(file);
            if (!st.isFile()) throw new Error('not a regular file');
            return { size: st.size, identity: `${st.dev}:${st.ino}` };
          },
          read: (offset, length) => buf.subarray(0, readSync(file, buf, 0, length, offset)),
        },
        onLine,
        // Truncated or replaced under us: no evidence.
        { readBytes, onLook: (r) => r.restarted === undefined },
      );
      if (look.restarted !== undefined) return undefined;
    } catch {
      return undefined;
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
    // Both in one look: what one watcher's read would bring together.
    if (record) return { at: now(), with_result: result };
    // A result without its record: the record is older than where we started, not a landing we can judge.
    if (result) return undefined;
    await sleep(opts.pollMs(now() - started));
  }
  return undefined;
}
