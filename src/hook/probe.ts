// Named imports, not `import * as`: esbuild would copy every export of the module at each start.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { LineCursor } from '../rules/lineCursor';
import { readNewLines } from '../rules/newLines';
import { ToolUseFinder } from './toolUseFinder';

export interface ProbeOptions {
  polls: number;
  pollMs: number;
  /** Date.now() after which no further read starts: keeps the probe within polls × interval + 1 s. */
  deadline: number;
}

export interface ProbeOutcome {
  outcome: 'seen' | 'behind' | 'error';
  polls: number;
  waited_ms: number;
  bytes_on_disk: number;
  /**
   * Its last look: when the look that found the record ended (`seen`: on disk by then), or when the
   * last look that read the whole file without it began (`behind`: not on disk then). Left out of a
   * `behind` when no look read it all (the deadline cut the read).
   */
  checked_at?: number;
  line?: number;
  error?: string;
}

/** A plain timer: node:timers/promises is one more module to load. */
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const READ_BYTES = 1024 * 1024;
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/**
 * Polls the transcript for the call's own tool_use record the way a reviewing
 * hook does: each poll opens the file, reads only the bytes it has not read yet,
 * and checks them. The transcript never being there is an `error`, not `behind`:
 * the table counts waits that could have seen the call.
 */
export async function probeTranscript(transcriptPath: string, toolUseId: string, opts: ProbeOptions): Promise<ProbeOutcome> {
  const started = Date.now();
  const finder = new ToolUseFinder(toolUseId);
  const cursor = new LineCursor();
  const buf = Buffer.allocUnsafe(READ_BYTES);
  let size = 0;
  let everOpened = false;
  let lastError: string | undefined;
  /** When the last look that read the file through its size, and missed, began. */
  let missedAt: number | undefined;
  let poll = 0;
  while (poll < opts.polls) {
    poll += 1;
    let fd: number | undefined;
    // Before the open and the stat: the size read up to was on disk by then, so a miss holds from here.
    const lookStart = Date.now();
    try {
      fd = openSync(transcriptPath, OPEN_FLAGS);
      everOpened = true;
      const file = fd;
      const look = await readNewLines(
        cursor,
        {
          stat: () => {
            const st = fstatSync(file);
            if (!st.isFile()) throw Object.assign(new Error('transcript is not a regular file'), { code: 'ENOTFILE' });
            size = st.size;
            return { size, identity: `${st.dev}:${st.ino}` };
          },
          read: (offset, length) => buf.subarray(0, readSync(file, buf, 0, length, offset)),
        },
        finder,
        {
          readBytes: READ_BYTES,
          // Truncated or replaced: line numbers restart.
          onLook: (r) => {
            if (r.restarted !== undefined) finder.reset();
          },
          stop: () => finder.foundLine !== undefined || Date.now() >= opts.deadline,
        },
      );
      // Read to the size it saw without the record: not on disk when the look began.
      if (finder.foundLine === undefined && look.done) missedAt = lookStart;
      lastError = undefined;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      lastError = code === 'ENOENT' ? 'transcript not found' : code ?? 'read failed';
      if (code !== 'ENOENT') return { outcome: 'error', polls: poll, waited_ms: Date.now() - started, bytes_on_disk: size, error: lastError };
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
    if (finder.foundLine !== undefined) {
      const now = Date.now();
      return { outcome: 'seen', polls: poll, waited_ms: now - started, bytes_on_disk: size, checked_at: now, line: finder.foundLine };
    }
    if (poll >= opts.polls || Date.now() + opts.pollMs > opts.deadline) break;
    await sleep(opts.pollMs);
  }
  const waited_ms = Date.now() - started;
  if (!everOpened) return { outcome: 'error', polls: poll, waited_ms, bytes_on_disk: 0, error: lastError ?? 'transcript not found' };
  return missedAt === undefined ? { outcome: 'behind', polls: poll, waited_ms, bytes_on_disk: size } : { outcome: 'behind', polls: poll, waited_ms, bytes_on_disk: size, checked_at: missedAt };
}
