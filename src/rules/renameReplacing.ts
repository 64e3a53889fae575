import { randomBytes } from 'node:crypto';
import { constants as fsConstants, promises as fsp } from 'node:fs';

/**
 * Codes Windows gives a rename over a file that another process holds open without
 * FILE_SHARE_DELETE (an editor saving, an antivirus scanner, the search indexer): they clear
 * within moments. The same rule as graceful-fs's on win32, bounded much shorter.
 */
const TRANSIENT = new Set(['EPERM', 'EBUSY', 'EACCES']);
/** Waits between tries: about 1.5 s in all, then the error stands. */
export const RENAME_RETRY_DELAYS_MS = [10, 20, 40, 80, 150, 250, 400, 500] as const;

export interface RenameDeps {
  rename: (from: string, to: string) => Promise<void>;
  sleep: (ms: number) => Promise<void>;
}

/** The real file system and clock. */
export const nodeRenameDeps: RenameDeps = {
  rename: (from, to) => fsp.rename(from, to),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * Renames `from` over `to`, trying again while the answer is one Windows gives for a file held
 * open elsewhere. On POSIX a rename over an open file succeeds, so these codes mean a real
 * refusal there and cost only the waits before it is reported.
 */
export async function renameReplacing(from: string, to: string, deps: RenameDeps = nodeRenameDeps): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await deps.rename(from, to);
      return;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (!code || !TRANSIENT.has(code) || attempt >= RENAME_RETRY_DELAYS_MS.length) throw err;
      await deps.sleep(RENAME_RETRY_DELAYS_MS[attempt]);
    }
  }
}

/** replaceAtomically's temp file for `dest`: beside it, named for it, the process and a random part. */
function atomicTempOf(dest: string): string {
  return `${dest}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
}
/** What follows the file's name in atomicTempOf's; the pid captured. */
const TEMP_TAIL = /^\.([0-9]{1,10})\.[0-9a-f]{8}\.tmp$/;

/**
 * When `name` is a temp file replaceAtomically made for a file named `destName` (one a copy cut short
 * leaves), the pid of the process that made it; else undefined.
 */
export function atomicTempMaker(name: string, destName: string): number | undefined {
  if (!name.startsWith(destName)) return undefined;
  const pid = TEMP_TAIL.exec(name.slice(destName.length))?.[1];
  return pid === undefined ? undefined : Number(pid);
}

/**
 * Fills a temp file beside `dest` (created anew, 0600) and renames it over `dest` (renameReplacing), so
 * a reader (a hook starting, a receiver reading http.json) never sees half a file. The temp file is
 * removed when anything fails. The one way we replace a file we own; settings.json, which keeps a
 * backup and its user's mode, has its own (settingsFile.ts replaceWithMode).
 */
async function replaceAtomically(dest: string, fill: (temp: string) => Promise<void>, deps?: RenameDeps): Promise<void> {
  const temp = atomicTempOf(dest);
  try {
    await fill(temp);
    await fsp.chmod(temp, 0o600);
    await renameReplacing(temp, dest, deps);
  } catch (err) {
    await fsp.rm(temp, { force: true });
    throw err;
  }
}

/** Copies `source` over `dest` (replaceAtomically). */
export function copyAtomically(source: string, dest: string, deps?: RenameDeps): Promise<void> {
  return replaceAtomically(dest, (temp) => fsp.copyFile(source, temp, fsConstants.COPYFILE_EXCL), deps);
}

/** Writes `text` over `dest` (replaceAtomically). */
export function writeAtomically(dest: string, text: string, deps?: RenameDeps): Promise<void> {
  return replaceAtomically(dest, (temp) => fsp.writeFile(temp, text, { mode: 0o600, flag: 'wx' }), deps);
}
