import { randomBytes } from 'node:crypto';
import { constants as fsConstants, promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { SettingsError } from '../core/settings/hookEntries';
import { decodeLossless, encodeLossless } from '../core/settings/losslessText';
import { renameReplacing, type RenameDeps } from '../rules/renameReplacing';

export const SETTINGS_BACKUP_SUFFIX = '.transcript-lag.bak';

export type SettingsFileErrorKind = 'invalid' | 'read-only' | 'not-a-file';

/** A refusal; the file was left exactly as it was. The message is meant for the user. */
export class SettingsFileError extends Error {
  override name = 'SettingsFileError';
  constructor(
    readonly kind: SettingsFileErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export interface SettingsFileUpdate {
  path: string;
  changed: boolean;
  created: boolean;
  /** The copy of the previous content, when there was one and it changed. */
  backupPath?: string;
  /** `private`: the file's mode before it was made readable by its owner only (it held others' read bits). */
  madePrivateFrom?: number;
}

export interface UpdateSettingsOptions {
  /** Runs once the edit is known to be valid, before anything is written (e.g. put the hook file in place first). */
  afterValidate?: () => Promise<void>;
  /**
   * The new content holds a secret (install-hook --http): the file and its backup are left readable
   * by their owner only (group and other bits cleared; nothing else about the file changes).
   */
  private?: boolean;
  /** Writes a new file that must not exist yet; replaced by tests to fail a write part way (a full disk). */
  writeNewFile?: (file: string, data: Buffer, mode: number) => Promise<void>;
  /** The rename over the file and its waits between tries; replaced by tests to answer as Windows does. */
  renameDeps?: RenameDeps;
}

/**
 * Bigger than any settings file a person keeps (a 110,000-line one is ~4 MB);
 * what is bigger is not read into memory.
 */
export const MAX_SETTINGS_BYTES = 64 * 1024 * 1024;

// As nodeFileAccess opens: a FIFO in the settings file's place must not wait for a writer.
const OPEN_READ = fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0) | (fsConstants.O_NOCTTY ?? 0);

async function writable(file: string, mode: number): Promise<boolean> {
  // root passes access(W_OK) on a 0444 file: a file with no write bit is read-only for us too.
  if ((mode & 0o222) === 0) return false;
  try {
    await fsp.access(file, 2 /* W_OK */);
    return true;
  } catch {
    return false;
  }
}

const isMissing = (err: unknown) => (err as NodeJS.ErrnoException).code === 'ENOENT';

/**
 * The file a write to `file` must land in: `file` itself, or the end of its
 * symlink chain, even when that end does not exist yet (a dotfiles repo's
 * settings.json not checked out): writing there keeps the link a link.
 */
async function writeTarget(file: string): Promise<string> {
  let current = path.resolve(file);
  for (let hops = 0; hops < 40; hops++) {
    const st = await fsp.lstat(current).catch((err: unknown) => {
      if (isMissing(err)) return undefined;
      throw err;
    });
    if (!st?.isSymbolicLink()) return current;
    // A relative link is relative to the folder the link is really in (its path may pass through linked folders, and `..` follows those).
    const folder = await fsp.realpath(path.dirname(current));
    current = path.resolve(folder, await fsp.readlink(current));
  }
  throw new SettingsFileError('not-a-file', `${file}: too many levels of symbolic links; left untouched`);
}

interface CurrentFile {
  bytes: Buffer;
  mode: number;
  /** More than one name: replacing the file by rename would cut the other names off. */
  hardLinked: boolean;
}

/** The file's bytes when it is a regular file of bounded size; undefined when missing. Opens once, checks what it opened. */
async function readCurrent(settingsPath: string, target: string): Promise<CurrentFile | undefined> {
  let handle: FileHandle;
  try {
    handle = await fsp.open(target, OPEN_READ);
  } catch (err) {
    if (isMissing(err)) return undefined;
    if ((err as NodeJS.ErrnoException).code === 'EISDIR') throw new SettingsFileError('not-a-file', `${settingsPath} is not a regular file; left untouched`);
    throw err;
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new SettingsFileError('not-a-file', `${settingsPath} is not a regular file; left untouched`);
    if (st.size > MAX_SETTINGS_BYTES) throw new SettingsFileError('invalid', `${settingsPath} is larger than ${MAX_SETTINGS_BYTES} bytes; left untouched`);
    const buffer = Buffer.alloc(st.size + 1);
    let length = 0;
    // Up to one byte past the size fstat gave: a file growing meanwhile is refused, not read without end.
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > st.size) throw new SettingsFileError('invalid', `${settingsPath} changed while it was read; left untouched. Run again.`);
    return { bytes: buffer.subarray(0, length), mode: st.mode & 0o7777, hardLinked: st.nlink > 1 };
  } finally {
    await handle.close();
  }
}

/** Creates `file` (it must not exist) with `data`, flushed to disk. */
async function writeNewFileDurably(file: string, data: Buffer, mode: number): Promise<void> {
  const handle = await fsp.open(file, 'wx', mode);
  try {
    await handle.writeFile(data);
    await handle.chmod(mode); // the umask may have narrowed it on creation
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Puts `data` at `dest` by writing a temp file beside it and renaming it over:
 * whatever was at `dest` stays whole until the new content is whole on disk
 * (a full disk fails the temp file, not `dest`).
 */
async function replaceWithMode(dest: string, data: Buffer, mode: number, writeNewFile: NonNullable<UpdateSettingsOptions['writeNewFile']>, renameDeps?: RenameDeps): Promise<void> {
  const temp = path.join(path.dirname(dest), `.${path.basename(dest)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeNewFile(temp, data, mode);
    // On Windows a file open elsewhere (an editor, an antivirus scan) refuses the rename for a moment.
    await renameReplacing(temp, dest, renameDeps);
  } catch (err) {
    await fsp.rm(temp, { force: true });
    throw err;
  }
}

/**
 * Rewrites a hard-linked file in place, so every name keeps seeing it. Not
 * atomic: the caller has the old bytes safely in the backup first.
 */
async function rewriteInPlace(file: string, data: Buffer): Promise<void> {
  const handle = await fsp.open(file, 'r+');
  try {
    await handle.write(data, 0, data.length, 0);
    await handle.truncate(data.length);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Clears group and other bits of each file there is (a missing backup is fine); never follows a symlink it finds. */
async function makePrivate(files: string[]): Promise<void> {
  for (const file of files) {
    const st = await fsp.lstat(file).catch(() => undefined);
    if (st?.isFile() && (st.mode & 0o077) !== 0) await fsp.chmod(file, st.mode & 0o7700);
  }
}

/** The error with what failed said first (a bare `ENOSPC: ..., write` names no file); its code kept. */
function saying(err: unknown, what: string): Error {
  if (!(err instanceof Error)) return new Error(`${what}: ${String(err)}`);
  return Object.assign(new Error(`${what}: ${err.message}`, { cause: err }), { code: (err as NodeJS.ErrnoException).code });
}

/**
 * Applies a pure text edit to a settings file, safely: a missing file is
 * created (mode 0600, folder included); invalid JSON, a non-file, or a
 * read-only file that would change is refused untouched. Otherwise the old
 * bytes are copied to `<file>.transcript-lag.bak` (itself replaced by rename,
 * so a failed write never costs the previous backup) and the new content
 * replaces the file atomically (temp file in the same folder, same mode,
 * rename). Bytes the edit does not touch stay as they were, invalid UTF-8
 * included (see losslessText.ts). A symlinked settings.json (dotfile
 * managers) is written through to its target, dangling or not, and stays a
 * link; a hard-linked one is rewritten in place, so the link holds.
 */
export async function updateSettingsFile(
  settingsPath: string,
  edit: (text: string) => string,
  opts: UpdateSettingsOptions = {},
): Promise<SettingsFileUpdate> {
  const writeNewFile = opts.writeNewFile ?? writeNewFileDurably;
  const target = await writeTarget(settingsPath);
  const current = await readCurrent(settingsPath, target);
  const before = current ? decodeLossless(current.bytes) : undefined;
  const mode = current?.mode ?? 0o600;

  let after: string;
  try {
    after = edit(before ?? '');
  } catch (err) {
    if (err instanceof SettingsError) throw new SettingsFileError('invalid', `${settingsPath}: ${err.message}; left untouched. Fix it and run again.`);
    throw err;
  }
  // Nothing to write is fine even for a read-only file; a write to one is refused before anything moves.
  if (before !== undefined && after !== before && !(await writable(target, mode))) {
    throw new SettingsFileError(
      'read-only',
      `${settingsPath} is read-only (mode ${mode.toString(8).padStart(4, '0')}); left untouched. Make it writable, or add the hook entries by hand.`,
    );
  }
  await opts.afterValidate?.();
  // A secret is never left readable by others: the mode loses its group and other bits, the bytes stay.
  const newMode = opts.private ? mode & ~0o077 : mode;
  const madePrivate = current !== undefined && newMode !== mode ? { madePrivateFrom: mode } : {};
  const backupPath = current ? target + SETTINGS_BACKUP_SUFFIX : undefined;
  if (before !== undefined && after === before) {
    if (opts.private) await makePrivate([target, target + SETTINGS_BACKUP_SUFFIX]);
    return { path: target, changed: false, created: false, ...madePrivate };
  }

  await fsp.mkdir(path.dirname(target), { recursive: true });
  if (current && backupPath) {
    await replaceWithMode(backupPath, current.bytes, newMode, writeNewFile, opts.renameDeps).catch((err: unknown) => {
      throw saying(err, `could not write the backup ${backupPath}; ${settingsPath} and the previous backup are left as they were`);
    });
  }
  const bytes = encodeLossless(after);
  await (current?.hardLinked ? rewriteInPlace(target, bytes) : replaceWithMode(target, bytes, newMode, writeNewFile, opts.renameDeps)).catch((err: unknown) => {
    throw saying(err, current?.hardLinked ? `could not rewrite ${settingsPath} in place; its old content is in ${backupPath}` : `could not write ${settingsPath}; it is left as it was`);
  });
  if (opts.private && current?.hardLinked) await makePrivate([target]);
  return { path: target, changed: true, created: current === undefined, backupPath, ...madePrivate };
}
