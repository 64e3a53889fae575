// Named imports, not `import * as`: esbuild would copy every export of the module at each start.
import { closeSync, constants, fchmodSync, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { COMPLETE_TOOL_FILE_NAME, HOOK_BIN_DIR_NAME, HOOK_FILE_NAME, HOOK_LAUNCHER_FILE_NAME, MESSAGE_TOOL_FILE_NAME, STATUSLINE_FILE_NAME } from './channelConstants';
import { atomicTempMaker } from './renameReplacing';

/**
 * The channel folder's bin/: the programs Claude Code runs for us live there (install-hook's hook
 * copy, install-statusline's status line copy, the plugin's message tool, which a reviewing hook
 * runs). Whoever may write in it, or in the channel folder above it (and so swap bin/ for another
 * folder or a symlink), decides what runs as the user at the next tool call. So a copy is written
 * there only when both are real folders of the user's that nobody else may write:
 *
 * - bin/ a symlink, not a folder, or another user's (or the channel folder another user's, or not
 *   a folder): refused, nothing written. A symlink is not followed even to a folder of ours: we
 *   write only where we made the folder, and the link's target is the user's business.
 * - ours but writable by the group or others (a `mkdir` under umask 002, a `chmod`): those write
 *   bits are taken away, the rest of the mode kept, through a descriptor of the folder we checked
 *   (no swap between the check and the chmod). Refusing instead would leave the tool uncopied and
 *   say nothing to a hook that runs silently; the folder is the user's own, and a narrower mode
 *   keeps everything they could do. A file planted while it was open is judged by the copier (a
 *   copy not of ours is replaced).
 *
 * Windows has no owner uid or POSIX mode to go by: there only the symlink (or junction) is refused.
 */

/**
 * A temp file of our copies is stale once the process its name names is gone (the SessionStart
 * watchdog ended it mid-copy, a kill), or at this age whatever it names (a pid reused since). One
 * younger whose process runs may be a copy in progress: a copy takes milliseconds.
 */
export const STALE_BIN_TEMP_MS = 60_000;

/** The files we copy into bin/ atomically: their temp files (`<name>.<pid>.<hex>.tmp`) are ours to sweep. */
const BIN_FILE_NAMES = [HOOK_FILE_NAME, HOOK_LAUNCHER_FILE_NAME, STATUSLINE_FILE_NAME, MESSAGE_TOOL_FILE_NAME, COMPLETE_TOOL_FILE_NAME];

export type BinFolder =
  /** `fixed`: folders whose group or world write bit was taken away. `swept`: stale temp files removed. */
  | { dir: string; fixed: string[]; swept: string[] }
  | { refused: string };

// O_NONBLOCK is meaningless for a folder but keeps a FIFO planted in its place from blocking the open.
const OPEN_FOLDER = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NONBLOCK ?? 0);
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;

/** Why `path` is not a folder to write in, or undefined when it is (its mode narrowed when `fixed` is given and it was too open). */
function checkFolder(path: string, follow: boolean, uid: number | undefined, fixed: string[]): string | undefined {
  const st = (() => {
    try {
      return follow ? statSync(path) : lstatSync(path);
    } catch {
      return undefined;
    }
  })();
  if (st === undefined) return `${path} cannot be read`;
  if (st.isSymbolicLink()) return `${path} is a symbolic link`;
  if (!st.isDirectory()) return `${path} is not a folder`;
  if (uid === undefined) return undefined;
  // The check that counts is on the descriptor: the path may have been swapped since the lstat.
  let fd: number | undefined;
  try {
    fd = openSync(path, follow ? OPEN_FOLDER : OPEN_FOLDER | NO_FOLLOW);
    const held = fstatSync(fd);
    if (!held.isDirectory()) return `${path} is not a folder`;
    if (held.uid !== uid) return `${path} is another user's (uid ${held.uid})`;
    if ((held.mode & 0o022) !== 0) {
      fchmodSync(fd, held.mode & 0o7755);
      fixed.push(path);
    }
    return undefined;
  } catch (err) {
    return `${path} cannot be used (${(err as NodeJS.ErrnoException).code ?? 'error'})`;
  } finally {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        // nothing to undo
      }
    }
  }
}

/** Whether a process with this pid runs (signal 0 only asks; EPERM: it runs, as another user). */
function isRunning(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes our copies' temp files left in `dir` (a copy cut short: the SessionStart watchdog, a kill), once they are stale. */
function sweepTemps(dir: string, now: number): string[] {
  const swept: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return swept;
  }
  for (const name of names) {
    const maker = BIN_FILE_NAMES.map((base) => atomicTempMaker(name, base)).find((pid) => pid !== undefined);
    if (maker === undefined) continue;
    const p = join(dir, name);
    try {
      const st = lstatSync(p);
      if (!st.isFile()) continue;
      // ctime, not mtime: a copy may carry its source's mtime (macOS copies it), while ctime is the temp file's own making.
      if (now - st.ctimeMs < STALE_BIN_TEMP_MS && isRunning(maker)) continue;
      unlinkSync(p);
      swept.push(p);
    } catch {
      // gone meanwhile, or not ours to remove: left as it is
    }
  }
  return swept;
}

/**
 * Makes `<channelDir>/bin/` (0700) when it is not there and says whether a copy may be written in it
 * (above); stale temp files of our copies in it are removed. Never throws.
 */
export function ownBinFolder(channelDir: string, now: number = Date.now(), uid: number | undefined = process.getuid?.()): BinFolder {
  const dir = join(channelDir, HOOK_BIN_DIR_NAME);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch {
    // what is there is judged below
  }
  const fixed: string[] = [];
  const refused = checkFolder(channelDir, true, uid, fixed) ?? checkFolder(dir, false, uid, fixed);
  if (refused !== undefined) return { refused };
  return { dir, fixed, swept: sweepTemps(dir, now) };
}

/** ownBinFolder for install-hook and install-statusline: the folder, or an error that says why nothing may be copied there. */
export function requireOwnBinFolder(channelDir: string): string {
  const bin = ownBinFolder(channelDir);
  if ('refused' in bin) throw new Error(`${bin.refused}: Claude Code would run what is copied there, so nothing was; make it a folder of yours that others cannot write`);
  return bin.dir;
}
