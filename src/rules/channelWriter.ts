// Named imports, not `import * as`: esbuild would copy every export of the module at each start.
import { closeSync, constants, fstatSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CHANNEL_DIR_NAME, CHANNEL_FILE_SUFFIX, SAFE_SESSION_ID } from './channelConstants';

/** `--channel-dir` (written by install-hook), else `$CLAUDE_CONFIG_DIR/transcript-lag`, else `~/.claude/transcript-lag`. */
export function resolveChannelDir(argDir: string | undefined, env: NodeJS.ProcessEnv): string {
  if (argDir) return resolve(argDir);
  const configDir = env.CLAUDE_CONFIG_DIR;
  if (configDir) return resolve(configDir, CHANNEL_DIR_NAME);
  // Required here, not imported: node's start-up does not load os, and install-hook always passes --channel-dir.
  const os = require('node:os') as typeof import('node:os');
  return join(os.homedir(), '.claude', CHANNEL_DIR_NAME);
}

// Windows has no O_NOFOLLOW / O_NONBLOCK; there the flags are simply absent.
const APPEND_FLAGS =
  constants.O_WRONLY |
  constants.O_APPEND |
  constants.O_CREAT |
  (constants.O_NOFOLLOW ?? 0) |
  (constants.O_NONBLOCK ?? 0);

/**
 * Whether a channel file we opened is one to append to. Another user's file,
 * one others may write (0666: anyone could forge events in it), or one with a
 * second name (a hard link planted to make us append to a file elsewhere) is
 * not ours: refused rather than repaired, since a chmod cannot undo what
 * others wrote, and a hard link cannot be told from the original. The hook
 * itself creates 0600 files with one link. Windows has no owner uid or POSIX
 * mode bits to go by: there only the link count is checked.
 */
export function isOwnChannelFile(st: { uid: number; mode: number; nlink: number }, uid: number | undefined): boolean {
  if (st.nlink !== 1) return false;
  if (uid === undefined) return true;
  return st.uid === uid && (st.mode & 0o022) === 0;
}

/** Appends one event as one line: appendChannelLines with one event. */
export function appendChannelLine(dir: string, sessionId: string, event: object): boolean {
  return appendChannelLines(dir, sessionId, [event]);
}

/**
 * Appends events, one line each, with one write, so concurrent hooks of the same
 * session never interleave inside a line (the spool's fold appends a session's
 * waiting events at once this way). Returns false (and writes nothing)
 * when the session id could name a path outside the folder, or the folder or
 * file cannot be used. O_NOFOLLOW refuses a planted symlink; O_NONBLOCK keeps a
 * planted FIFO from blocking the open; a file that is not ours is left alone
 * (isOwnChannelFile).
 */
export function appendChannelLines(dir: string, sessionId: string, events: readonly object[]): boolean {
  if (!SAFE_SESSION_ID.test(sessionId)) return false;
  let fd: number | undefined;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    fd = openSync(join(dir, sessionId + CHANNEL_FILE_SUFFIX), APPEND_FLAGS, 0o600);
    const st = fstatSync(fd);
    if (!st.isFile() || !isOwnChannelFile(st, process.getuid?.())) return false;
    const bytes = Buffer.from(events.map((e) => JSON.stringify(e) + '\n').join(''), 'utf8');
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    return true;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        // nothing to do: the hook must exit 0 regardless
      }
    }
  }
}
