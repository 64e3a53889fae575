// Named imports, not `import * as`: esbuild would copy every export of the module at each start.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { lineKind, toolUseIdNeedle } from './onDiskCheck';

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
  /** Bytes read per look (default READ_BYTES): the receiver, which runs many watches in one process, reads less at a time. */
  readBytes?: number;
  /** Checked before each look: true ends the watch with no evidence (the receiver stopping). */
  cancelled?: () => boolean;
}

export interface Landing {
  /** When the look that found the record's line ran. */
  at: number;
  with_result: boolean;
}

/** Bytes read per look at most: a look that has more to read goes on at once. */
const READ_BYTES = 4 * 1024 * 1024;
/** A partial line kept across looks at most; a longer one is not the record (records are small), only its tail matters. */
const CARRY_BYTES = 2 * 1024 * 1024;
const NEWLINE = 0x0a;
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function watchLanding(path: string, toolUseId: string, opts: LandingOptions, now = Date.now): Promise<Landing | undefined> {
  const needle = toolUseIdNeedle(toolUseId);
  const started = now();
  let offset = opts.fromByte;
  // The first CARRY_BYTES of a line begun in an earlier read: a call's ids sit near a line's start.
  let head: Buffer[] = [];
  let headBytes = 0;
  let truncated = false;
  const readBytes = opts.readBytes ?? READ_BYTES;
  const buf = Buffer.allocUnsafe(readBytes);
  while (now() < opts.deadline && !opts.cancelled?.()) {
    let record = false;
    let result = false;
    let fd: number | undefined;
    try {
      fd = openSync(path, OPEN_FLAGS);
      const st = fstatSync(fd);
      if (!st.isFile() || st.size < offset) return undefined; // replaced or truncated under us: no evidence
      while (offset < st.size) {
        const n = readSync(fd, buf, 0, Math.min(readBytes, st.size - offset), offset);
        if (n <= 0) break;
        offset += n;
        let pos = 0;
        while (pos < n) {
          const nl = buf.indexOf(NEWLINE, pos);
          const end = nl === -1 || nl >= n ? n : nl;
          const room = CARRY_BYTES - headBytes;
          if (end - pos > room) truncated = true;
          if (room > 0 && end > pos) {
            head.push(Buffer.from(buf.subarray(pos, pos + Math.min(room, end - pos))));
            headBytes += Math.min(room, end - pos);
          }
          if (end === n) break;
          const line = head.length === 1 ? head[0]! : Buffer.concat(head);
          if (line.includes(needle)) {
            const kind = lineKind(line, toolUseId, truncated);
            if (kind === 'record') record = true;
            else if (kind === 'result') result = true;
          }
          head = [];
          headBytes = 0;
          truncated = false;
          pos = end + 1;
        }
      }
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
