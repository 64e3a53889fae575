import { randomBytes } from 'node:crypto';
import { constants as fsConstants, promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { HTTP_CONFIG_FILE } from '../rules/channelConstants';
import { type HttpHookConfig, MAX_HTTP_CONFIG_BYTES, parseHttpHookConfig } from '../rules/httpConfigText';
import { channelDirOf } from '../rules/channelPaths';
import { writeAtomically, type RenameDeps } from '../rules/renameReplacing';

/**
 * Where install-hook --http tells the receivers (watch, the extension) which
 * port to serve and which secret to require: `<claude dir>/transcript-lag/http.json`,
 * 0600 in the 0700 channel folder, as private as settings.json that holds the
 * same secret in its header.
 */
export type { HttpHookConfig };

export { HTTP_CONFIG_FILE };
/** The receiver's port unless install-hook --http --port says otherwise. */
export const DEFAULT_HTTP_HOOK_PORT = 41877;

export function httpConfigPathOf(claudeDir: string): string {
  return path.join(channelDirOf(claudeDir), HTTP_CONFIG_FILE);
}

/**
 * What reading http.json found. `unreadable` (EMFILE, EIO, ...) says nothing
 * about whether the hooks are installed: a receiver keeps doing what it did.
 */
export type HttpHookConfigRead =
  | { state: 'found'; config: HttpHookConfig; /** Said once to the user: what was wrong with the file and what was done. */ warning?: string }
  | { state: 'none' }
  | { state: 'refused'; reason: string }
  | { state: 'unreadable'; code: string };

const MAX_CONFIG_BYTES = MAX_HTTP_CONFIG_BYTES;
// No symlink (O_NOFOLLOW), and a FIFO in its place must not wait for a writer (O_NONBLOCK). Windows has neither.
const OPEN_CONFIG = fsConstants.O_RDONLY | (fsConstants.O_NOFOLLOW ?? 0) | (fsConstants.O_NONBLOCK ?? 0);

const parseConfig = parseHttpHookConfig;

/**
 * Reads http.json as hostile input: a regular file of ours, never through a
 * symlink, at most 4 KiB. One others may write, or another user's, is refused
 * (a chmod cannot undo what others wrote); one others may read is made 0600,
 * and said, since the secret in it may have been read.
 */
export async function loadHttpHookConfig(claudeDir: string): Promise<HttpHookConfigRead> {
  const file = httpConfigPathOf(claudeDir);
  let handle: FileHandle;
  try {
    handle = await fsp.open(file, OPEN_CONFIG);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'EIO';
    if (code === 'ENOENT' || code === 'ENOTDIR') return { state: 'none' };
    if (code === 'ELOOP') return { state: 'refused', reason: `${file} is a symbolic link; not used` };
    return { state: 'unreadable', code };
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) return { state: 'refused', reason: `${file} is not a regular file; not used` };
    const uid = process.getuid?.();
    if (uid !== undefined && (st.uid !== uid || (st.mode & 0o022) !== 0)) {
      return { state: 'refused', reason: `${file} is ${st.uid !== uid ? "another user's" : `writable by others (mode ${(st.mode & 0o777).toString(8)})`}; not used. Run install-hook --http again` };
    }
    if (st.size > MAX_CONFIG_BYTES) return { state: 'refused', reason: `${file} is larger than ${MAX_CONFIG_BYTES} bytes; not used` };
    const buffer = Buffer.alloc(MAX_CONFIG_BYTES + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const config = bytesRead <= MAX_CONFIG_BYTES ? parseConfig(buffer.subarray(0, bytesRead).toString('utf8')) : undefined;
    if (!config) return { state: 'refused', reason: `${file} is not what install-hook --http writes; not used` };
    if (uid !== undefined && (st.mode & 0o077) !== 0) {
      const was = (st.mode & 0o777).toString(8).padStart(4, '0');
      await handle.chmod(0o600);
      return { state: 'found', config, warning: `${file} was readable by others (mode ${was}), and it holds the hooks' secret: made it 0600` };
    }
    return { state: 'found', config };
  } catch (err) {
    return { state: 'unreadable', code: (err as NodeJS.ErrnoException).code ?? 'EIO' };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** The config, or undefined when there is none or it cannot be used (never throws: it is only input). */
export async function readHttpHookConfig(claudeDir: string): Promise<HttpHookConfig | undefined> {
  const read = await loadHttpHookConfig(claudeDir);
  return read.state === 'found' ? read.config : undefined;
}

/** Removes the config (uninstall): no receiver serves the port any more. */
export async function removeHttpHookConfig(claudeDir: string): Promise<boolean> {
  const file = httpConfigPathOf(claudeDir);
  const st = await fsp.lstat(file).catch(() => undefined);
  if (!st) return false;
  await fsp.rm(file, { force: true });
  return true;
}

export function newHttpHookSecret(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Writes the config beside its name and renames it over, so a receiver never reads half of it.
 * `renameDeps`: the rename over it and its waits between tries; replaced by tests to answer as Windows does.
 */
export async function writeHttpHookConfig(claudeDir: string, config: HttpHookConfig, renameDeps?: RenameDeps): Promise<string> {
  const file = httpConfigPathOf(claudeDir);
  await fsp.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  // On Windows a file open elsewhere (an antivirus scan, an editor) refuses the rename for a moment: writeAtomically waits.
  await writeAtomically(file, `${JSON.stringify(config)}\n`, renameDeps);
  return file;
}
