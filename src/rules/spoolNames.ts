// Named imports, not `import * as`: esbuild would copy every export of the module at each start (the hook's SessionStart folds too).
import { basename, dirname, join } from 'node:path';
import type { FileAccess } from './fileAccess';
import { CHANNEL_FILE_SUFFIX, SAFE_SESSION_ID, SPOOL_DIR_NAME } from './channelConstants';

/**
 * The mod's spool (issue 23): when no receiver answers, the in-process mod
 * writes each channel event as one small file,
 * `<claude dir>/transcript-lag/spool/<session_id>.<instance>.<seq>.json`
 * (instance: 8 hex chars per loaded copy of the mod; seq: from 1, zero-padded
 * to 8 digits). The mod cannot append or delete, so readers put the events in
 * order here: by seq within an instance, by the event's `at` across instances.
 * The engine and `watch` fold them into the session's channel file
 * (foldSpool); `analyze --channel` reads them where they lie (readSpool).
 * This file: the spool files' names, and the names a claim gives them; the read is ./spoolRead.ts,
 * the fold ./spoolFold.ts.
 */

/** A spool file's name as the mod makes it (./modContract.ts spoolFileName): `<session_id>.<instance>.<seq>.json`. */
export const SPOOL_NAME = /^([A-Za-z0-9][A-Za-z0-9_-]{0,127})\.([0-9a-f]{8})\.([0-9]{1,12})\.json$/;
const CLAIMED_MARK = '.claimed-';

/** What a spool file's name says; undefined for anything else in the folder. */
export interface SpoolName {
  name: string;
  sessionId: string;
  instance: string;
  seq: number;
}

export function parseSpoolName(name: string): SpoolName | undefined {
  // test, not exec: no match array and captures for each name of a listing (100,000 of them; see planSpoolRead).
  if (!SPOOL_NAME.test(name)) return undefined;
  const dot = name.indexOf('.'); // the session's end: it holds no dot
  const sessionId = name.slice(0, dot);
  if (!SAFE_SESSION_ID.test(sessionId)) return undefined;
  return { name, sessionId, instance: name.slice(dot + 1, dot + 9), seq: Number(name.slice(dot + 10, -'.json'.length)) };
}

/** The spool folder beside a channel file and the session the file is of; undefined for a file not named as a session's. */
export function spoolOfChannelFile(channelPath: string): { spoolDir: string; sessionId: string } | undefined {
  const name = basename(channelPath);
  if (!name.endsWith(CHANNEL_FILE_SUFFIX)) return undefined;
  const sessionId = name.slice(0, -CHANNEL_FILE_SUFFIX.length);
  if (!SAFE_SESSION_ID.test(sessionId)) return undefined;
  return { spoolDir: join(dirname(channelPath), SPOOL_DIR_NAME), sessionId };
}

/** Whether the spool holds a file of the session (an event nobody has folded into its channel file yet). */
export async function spoolHoldsSession(files: FileAccess, spoolDir: string, sessionId: string): Promise<boolean> {
  const names = await files.readdir(spoolDir).catch(() => [] as string[]);
  return names.some((name) => parseSpoolName(name)?.sessionId === sessionId);
}

/** A claimed file's original name, for one a folder renamed to claim it; undefined for any other name. */
export function claimedSpoolName(name: string): string | undefined {
  const at = name.indexOf(CLAIMED_MARK);
  if (at <= 0) return undefined;
  const original = name.slice(0, at);
  return parseSpoolName(original) ? original : undefined;
}

/**
 * When a claimed file was claimed: its name says (`<name>.claimed-<ms>-…`), as a rename keeps the
 * file's mtime, which is its writing's. Undefined for a name without it.
 */
export function claimedAt(name: string): number | undefined {
  const at = name.indexOf(CLAIMED_MARK);
  const ms = at === -1 ? undefined : /^(\d{10,16})-/.exec(name.slice(at + CLAIMED_MARK.length))?.[1];
  return ms === undefined ? undefined : Number(ms);
}

