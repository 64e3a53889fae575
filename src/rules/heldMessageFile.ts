/**
 * Reading one call's held message file (docs/HELD-MESSAGE.md), the one way `transcript-lag message`
 * and `transcript-lag complete` read it: only as a regular file at its own path (a symlink is not
 * followed), bounded, taken only when it parses as the mod's file for this call and is younger than
 * the TTL either way.
 */
// Named imports, not `import * as`: esbuild would copy every export of the module at each start.
import { lstatSync, unlinkSync } from 'node:fs';
import { readBounded } from './boundedRead';
import { HELD_MESSAGE_SINCE, claudeCodeSince } from './claudeCodeSince';
import { HELD_MESSAGE_TTL_MS, heldMessagePath, parseHeldMessage, type HeldMessage } from './modContract';

/** The mod writes a held message with `$.fs.write`, which takes at most 4 MiB: a bigger file is not the mod's. */
export const HELD_FILE_MAX_BYTES = 4 * 1024 * 1024;

/**
 * Why a call has neither its record on disk nor a held message, where nothing says whether the mod runs
 * (`message`, `complete`): the versions measured to hand a hook its held message (npm run compat).
 */
export const NO_HELD_MESSAGE_REASON = `not on disk yet and no held message (is the transcript-lag plugin's mod loaded? it hands hooks held messages on ${claudeCodeSince(HELD_MESSAGE_SINCE)})`;

/** The held message, or `ignored`: why a file that is there was not taken (absent: there is none). */
export type HeldFileLook = { held: HeldMessage } | { ignored?: string };

/** Younger than the TTL, and not from further in the future than that (a clock set back). */
function isFresh(at: number, now: number): boolean {
  const age = now - at;
  return Number.isFinite(age) && age < HELD_MESSAGE_TTL_MS && age > -HELD_MESSAGE_TTL_MS;
}

/**
 * Why a held file that lstat found a moment ago could not be read, from a second look at it. Most
 * often it is gone: the mod removes it as soon as the call's record lands.
 */
function whyUnreadable(path: string): string {
  try {
    const st = lstatSync(path);
    if (!st.isFile()) return 'the held message is not a regular file';
    if (st.size > HELD_FILE_MAX_BYTES) return 'the held message is over 4 MiB (the mod writes at most 4 MiB)';
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'the held message was gone before it could be read';
  }
  return 'the held message cannot be read';
}

/**
 * The mod's held message for the call. `removeStale`: one the mod left behind older than the TTL
 * (its record never landed while the mod ran) is removed (`message` does; docs/HELD-MESSAGE.md).
 * `read`: the bounded read, replaced by tests to remove the file between the look and the read.
 */
export function readHeldMessageFile(
  claudeDir: string,
  sessionId: string,
  toolUseId: string,
  now: number,
  removeStale: boolean,
  read: typeof readBounded = readBounded,
): HeldFileLook {
  const path = heldMessagePath(claudeDir, sessionId, toolUseId);
  if (path === undefined) return { ignored: 'the session or tool use id cannot name a held message file' };
  let regular: boolean;
  try {
    regular = lstatSync(path).isFile();
  } catch {
    return {};
  }
  if (!regular) return { ignored: 'the held message is not a regular file' };
  const bytes = read(path, HELD_FILE_MAX_BYTES, 'whole', true);
  if (bytes === undefined) return { ignored: whyUnreadable(path) };
  const held = parseHeldMessage(bytes.bytes.toString('utf8'), toolUseId);
  if (held === undefined) return { ignored: 'the held message is not one the mod wrote for this call (or is empty, or half written)' };
  if (isFresh(held.at, now)) return { held };
  if (now - held.at < HELD_MESSAGE_TTL_MS) {
    // Left alone: the mod still owns it, and a clock set back makes every held file look like this.
    return { ignored: 'the held message is dated more than its TTL in the future (clock skew?)' };
  }
  if (removeStale) {
    try {
      if (lstatSync(path).isFile()) unlinkSync(path);
    } catch {
      // gone already, or not ours to remove
    }
  }
  return { ignored: 'the held message is older than its TTL' };
}
