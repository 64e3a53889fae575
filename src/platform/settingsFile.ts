import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { SettingsError } from '../core/settings/hookSettings';

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
}

export interface UpdateSettingsOptions {
  /** Runs once the edit is known to be valid, before anything is written (e.g. put the hook file in place first). */
  afterValidate?: () => Promise<void>;
}

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

/**
 * Applies a pure text edit to a settings file, safely: a missing file is
 * created (mode 0600, folder included); invalid JSON, a non-file, or a
 * read-only file that would change is refused untouched; otherwise the old content is kept in
 * `<file>.transcript-lag.bak` and the new one replaces it atomically (temp file
 * in the same folder, same mode, rename). A symlinked settings.json (dotfile
 * managers) is written through to its target, not replaced by a plain file.
 */
export async function updateSettingsFile(
  settingsPath: string,
  edit: (text: string) => string,
  opts: UpdateSettingsOptions = {},
): Promise<SettingsFileUpdate> {
  let target = path.resolve(settingsPath);
  try {
    target = await fsp.realpath(target);
  } catch {
    // missing: created at the given path
  }
  let before: string | undefined;
  let mode = 0o600;
  const stat = await fsp.stat(target).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (stat) {
    if (!stat.isFile()) throw new SettingsFileError('not-a-file', `${settingsPath} is not a regular file; left untouched`);
    mode = stat.mode & 0o7777;
    before = await fsp.readFile(target, 'utf8');
  }

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
  if (before !== undefined && after === before) return { path: target, changed: false, created: false };

  const dir = path.dirname(target);
  await fsp.mkdir(dir, { recursive: true });
  let backupPath: string | undefined;
  if (before !== undefined) {
    backupPath = target + SETTINGS_BACKUP_SUFFIX;
    await fsp.writeFile(backupPath, before, { mode });
    await fsp.chmod(backupPath, mode);
  }
  const temp = path.join(dir, `.${path.basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const handle = await fsp.open(temp, 'wx', mode);
    try {
      await handle.writeFile(after, 'utf8');
      await handle.chmod(mode); // the umask may have narrowed it on creation
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fsp.rename(temp, target);
  } catch (err) {
    await fsp.rm(temp, { force: true });
    throw err;
  }
  return { path: target, changed: true, created: before === undefined, backupPath };
}
