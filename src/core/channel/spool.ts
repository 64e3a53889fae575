import * as path from 'node:path';
import type { Clock } from '../clock';
import { type FileAccess, NotASmallFileError, readSmallFile } from '../fileAccess';
import { CHANNEL_FILE_SUFFIX, SAFE_SESSION_ID, SPOOL_DIR_NAME } from './constants';

/**
 * The mod's spool (issue 23): when no receiver answers, the in-process mod
 * writes each channel event as one small file,
 * `<claude dir>/transcript-lag/spool/<session_id>.<instance>.<seq>.json`
 * (instance: 8 hex chars per loaded copy of the mod; seq: from 1, zero-padded
 * to 8 digits). The mod cannot append or delete, so readers put the events in
 * order here: by seq within an instance, by the event's `at` across instances.
 * The engine and `watch` fold them into the session's channel file
 * (foldSpool); `analyze --channel` reads them where they lie (readSpool).
 * Pure: the file system comes in as a FileAccess and SpoolFolding.
 */

/** A file that does not parse may be one the mod is still writing ($.fs.write is not atomic); past this it is garbage. */
export const SPOOL_UNFINISHED_GRACE_MS = 10_000;
/** A claimed file still there this long after its claim was made (the time its name carries): its folder died, or could not remove it. */
export const SPOOL_STALE_CLAIM_MS = 60_000;
/** Files read per fold at most: the rest waits for the next tick, so a full spool never stalls one. */
export const DEFAULT_SPOOL_FILES_PER_FOLD = 2_000;
/** A spool file holds one event of a few hundred bytes; anything past this is not one. */
export const SPOOL_MAX_FILE_BYTES = 64 * 1024;

const SPOOL_NAME = /^([A-Za-z0-9][A-Za-z0-9_-]{0,127})\.([0-9a-f]{8})\.([0-9]{1,12})\.json$/;
const CLAIMED_MARK = '.claimed-';

/** What a spool file's name says; undefined for anything else in the folder. */
export interface SpoolName {
  name: string;
  sessionId: string;
  instance: string;
  seq: number;
}

export function parseSpoolName(name: string): SpoolName | undefined {
  const m = SPOOL_NAME.exec(name);
  if (!m || !SAFE_SESSION_ID.test(m[1])) return undefined;
  return { name, sessionId: m[1], instance: m[2], seq: Number(m[3]) };
}

/** The spool folder beside a channel file and the session the file is of; undefined for a file not named as a session's. */
export function spoolOfChannelFile(channelPath: string): { spoolDir: string; sessionId: string } | undefined {
  const name = path.basename(channelPath);
  if (!name.endsWith(CHANNEL_FILE_SUFFIX)) return undefined;
  const sessionId = name.slice(0, -CHANNEL_FILE_SUFFIX.length);
  if (!SAFE_SESSION_ID.test(sessionId)) return undefined;
  return { spoolDir: path.join(path.dirname(channelPath), SPOOL_DIR_NAME), sessionId };
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

/** One event ready to fold, in fold order. */
export interface SpoolEntry extends SpoolName {
  path: string;
  /** The file's JSON value: an object naming the session of its file name. */
  event: Record<string, unknown>;
  /** The event's `at` (0 when it has none: the channel reader refuses it then). */
  at: number;
}

export interface SpoolReadOptions {
  files: FileAccess;
  clock: Clock;
  spoolDir: string;
  /** Only this session's files (analyze --channel). */
  sessionId?: string;
  maxFiles?: number;
}

export interface SpoolRead {
  /** Events ready, in fold order. */
  ready: SpoolEntry[];
  /** Files to delete: garbage past the grace, stale claims (full paths). */
  garbage: string[];
  /** Files older than the channel's maximum age (full paths), whatever they hold. */
  expired: string[];
}

type Loaded = { kind: 'event'; entry: SpoolEntry } | { kind: 'unfinished' } | { kind: 'garbage' } | { kind: 'gone' } | { kind: 'unreadable' };

async function load(files: FileAccess, p: string, n: SpoolName): Promise<Loaded> {
  let text: string;
  try {
    text = (await readSmallFile(files, p, SPOOL_MAX_FILE_BYTES)).toString('utf8');
  } catch (err) {
    // Not a regular file, or too large: never an event.
    if (err instanceof NotASmallFileError) return { kind: 'garbage' };
    const code = (err as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'gone' };
    // Out of descriptors, no permission: nothing is known of it; it is tried again, never deleted for it.
    return { kind: 'unreadable' };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'unfinished' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { kind: 'garbage' };
  const event = value as Record<string, unknown>;
  // The channel file it goes to is the name's session: an event of another session there would be refused anyway.
  if (event.session_id !== n.sessionId) return { kind: 'garbage' };
  const at = typeof event.at === 'number' && Number.isFinite(event.at) ? event.at : 0;
  return { kind: 'event', entry: { ...n, path: p, event, at } };
}

/**
 * Lists the spool and reads what is ready, in fold order: per instance by
 * seq, stopping at the first file not finished yet (what follows it waits,
 * so an instance's order holds); across instances by `at` (ties: instance,
 * then seq). At most `maxFiles` files are read.
 */
export async function readSpool(opts: SpoolReadOptions, maxAgeMs: number): Promise<SpoolRead> {
  const { files, spoolDir } = opts;
  const now = opts.clock.now();
  let budget = opts.maxFiles ?? DEFAULT_SPOOL_FILES_PER_FOLD;
  const out: SpoolRead = { ready: [], garbage: [], expired: [] };
  const instances = new Map<string, SpoolName[]>();
  const claims: string[] = [];
  for (const name of await files.readdir(spoolDir).catch(() => [] as string[])) {
    const n = parseSpoolName(name);
    if (n) {
      if (opts.sessionId !== undefined && n.sessionId !== opts.sessionId) continue;
      const key = `${n.sessionId}.${n.instance}`;
      let list = instances.get(key);
      if (!list) instances.set(key, (list = []));
      list.push(n);
    } else if (opts.sessionId === undefined && claimedSpoolName(name) !== undefined) claims.push(name);
  }
  const age = async (p: string): Promise<number | undefined> => {
    const st = await files.stat(p).catch(() => undefined);
    return st ? now - st.mtimeMs : undefined;
  };
  for (const name of claims) {
    const p = path.join(spoolDir, name);
    const claimed = claimedAt(name);
    const a = claimed === undefined ? await age(p) : now - claimed;
    if (a !== undefined && a > SPOOL_STALE_CLAIM_MS) out.garbage.push(p);
  }
  const heads: SpoolEntry[][] = [];
  for (const key of [...instances.keys()].sort()) {
    const list = (instances.get(key) as SpoolName[]).sort((a, b) => a.seq - b.seq);
    const ready: SpoolEntry[] = [];
    for (const n of list) {
      if (budget <= 0) break;
      budget--;
      const p = path.join(spoolDir, n.name);
      const a = await age(p);
      if (a === undefined) continue;
      if (maxAgeMs > 0 && a > maxAgeMs) {
        out.expired.push(p);
        continue;
      }
      const loaded = await load(files, p, n);
      if (loaded.kind === 'gone') continue;
      if (loaded.kind === 'event') {
        ready.push(loaded.entry);
        continue;
      }
      if (loaded.kind === 'garbage' || (loaded.kind === 'unfinished' && a > SPOOL_UNFINISHED_GRACE_MS)) {
        out.garbage.push(p);
        continue;
      }
      // Still being written (or unreadable for now): the instance's later files wait for it.
      break;
    }
    if (ready.length > 0) heads.push(ready);
  }
  out.ready = mergeByAt(heads);
  return out;
}

/** Merges runs each in their own order into one: the run whose next entry has the smallest `at` goes first. */
function mergeByAt(runs: SpoolEntry[][]): SpoolEntry[] {
  const next = runs.map(() => 0);
  const merged: SpoolEntry[] = [];
  for (;;) {
    let best = -1;
    for (let i = 0; i < runs.length; i++) {
      if (next[i] >= runs[i].length) continue;
      if (best === -1 || runs[i][next[i]].at < runs[best][next[best]].at) best = i;
    }
    if (best === -1) return merged;
    merged.push(runs[best][next[best]++]);
  }
}

/** What folding needs beyond reading: the writes, injected (src/platform/spoolFolding.ts). */
export interface SpoolFolding {
  /**
   * Claims a spool file by renaming it to a name of its own that says when
   * (`<name>.claimed-<at>-<pid>-<random>`); the new path, or undefined when the
   * file is gone (another folder claimed it first). Throws when the rename is
   * refused (on Windows: the file is open elsewhere): it stays for a later fold.
   */
  claim(path: string, at: number): Promise<string | undefined>;
  /** Renames a claimed file back to its spool name (its append failed: it is folded later). */
  unclaim(claimedPath: string, path: string): Promise<void>;
  /** Appends one event as one line to `<channelDir>/<session_id>.jsonl` as the hook does; false when refused. */
  append(channelDir: string, sessionId: string, event: object): Promise<boolean>;
  remove(path: string): Promise<void>;
}

export interface SpoolFoldResult {
  /** Events appended, per session. */
  folded: Map<string, number>;
  /** Files removed as garbage or expired. */
  removed: number;
}

/**
 * Folds the spool into the channel: each ready event, in order, is claimed,
 * appended to its session's channel file and removed; only the folder whose
 * claim wins appends it, so two folders racing append each event once. A
 * claim refused leaves the file, and an append refused puts it back; either
 * stops that session for this fold, so its later events never go before it.
 * Garbage and expired files are removed.
 */
export async function foldSpool(opts: SpoolReadOptions & { channelDir: string; ops: SpoolFolding; maxAgeMs: number }): Promise<SpoolFoldResult> {
  const read = await readSpool(opts, opts.maxAgeMs);
  const result: SpoolFoldResult = { folded: new Map(), removed: 0 };
  const stopped = new Set<string>();
  for (const entry of read.ready) {
    if (stopped.has(entry.sessionId)) continue;
    let claimed: string | undefined;
    try {
      claimed = await opts.ops.claim(entry.path, opts.clock.now());
    } catch {
      // Refused, not taken (on Windows: held open by a scanner): it stays for the next fold, and so do the session's later events.
      stopped.add(entry.sessionId);
      continue;
    }
    if (claimed === undefined) continue;
    const appended = await opts.ops.append(opts.channelDir, entry.sessionId, entry.event).catch(() => false);
    if (!appended) {
      stopped.add(entry.sessionId);
      await opts.ops.unclaim(claimed, entry.path).catch(() => undefined);
      continue;
    }
    result.folded.set(entry.sessionId, (result.folded.get(entry.sessionId) ?? 0) + 1);
    await opts.ops.remove(claimed).catch(() => undefined);
  }
  for (const p of [...read.garbage, ...read.expired]) {
    await opts.ops.remove(p).then(
      () => result.removed++,
      () => undefined,
    );
  }
  return result;
}
