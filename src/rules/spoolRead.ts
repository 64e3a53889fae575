// Named imports, not `import * as`: esbuild would copy every export of the module at each start (the hook's SessionStart folds too).
import { join } from 'node:path';
import type { Clock } from './clock';
import { type FileAccess, NotASmallFileError, readSmallFileAndIdentity } from './fileAccess';
import { spoolFileName } from './modContract';
import { claimedAt, claimedSpoolName, parseSpoolName, SPOOL_NAME, type SpoolName } from './spoolNames';

/**
 * Reading the mod's spool (./spoolNames.ts) in the order its events go to the channel: a listing
 * planned into runs (an instance's files by seq, the budget shared fairly among sessions), the runs
 * read, and merged by `at`. For the fold (./spoolFold.ts) and `analyze --channel`, which reads the
 * events where they lie. Pure: the file system comes in as a FileAccess.
 */

/** A file that does not parse may be one the mod is still writing ($.fs.write is not atomic); past this it is garbage. */
export const SPOOL_UNFINISHED_GRACE_MS = 10_000;
/** A claimed file still there this long after its claim was made (the time its name carries): its folder died, or could not remove it. */
export const SPOOL_STALE_CLAIM_MS = 60_000;
/** Files read per fold at most: the rest waits for the next tick, so a full spool never stalls one. */
export const DEFAULT_SPOOL_FILES_PER_FOLD = 2_000;
/** A spool file holds one event of a few hundred bytes; anything past this is not one. */
export const SPOOL_MAX_FILE_BYTES = 64 * 1024;

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
  /** Sessions left out of this read (their appends were refused: the engine tries them again at its next poll, not on every change). */
  skipSessions?: ReadonlySet<string>;
  /** Sessions of which only the first file is read (a refused session tried again: one file says whether its channel file takes appends now). */
  probeSessions?: ReadonlySet<string>;
  /**
   * Whether a session's files are read at all, asked once per session listed (the plugin's SessionStart
   * reads only the sessions the mod no longer runs: src/hook/spoolAtStart.ts). Undefined: every session.
   */
  readSession?: (sessionId: string) => boolean;
}

export interface SpoolRead {
  /** Events ready, in fold order (session by session). */
  ready: SpoolEntry[];
  /** Files to delete: garbage past the grace, stale claims (full paths). */
  garbage: string[];
  /** Files older than the channel's maximum age (full paths), whatever they hold. */
  expired: string[];
  /** Files were left unread for the budget: another fold has work at once. */
  more: boolean;
}

type Loaded =
  | { kind: 'event'; entry: SpoolEntry; mtimeMs: number }
  | { kind: 'unfinished'; mtimeMs: number }
  | { kind: 'garbage'; mtimeMs?: number }
  | { kind: 'gone' }
  | { kind: 'unreadable' };

/** `last`: per key, the string value the event loaded before had (see below). */
async function load(files: FileAccess, p: string, n: SpoolName, last: Map<string, string>): Promise<Loaded> {
  let text: string;
  let mtimeMs: number;
  try {
    const read = await readSmallFileAndIdentity(files, p, SPOOL_MAX_FILE_BYTES);
    text = read.bytes.toString('utf8');
    mtimeMs = read.identity.mtimeMs;
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
    return { kind: 'unfinished', mtimeMs };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { kind: 'garbage', mtimeMs };
  const event = value as Record<string, unknown>;
  // The channel file it goes to is the name's session: an event of another session there would be refused anyway.
  if (event.session_id !== n.sessionId) return { kind: 'garbage', mtimeMs };
  // Held until the fold appends it: a value the event loaded before has too (its session, transcript,
  // source: a read takes an instance's files in a row) is one string for both, not a copy each (a
  // fold's 10,000 events are held long enough to be promoted to old space).
  for (const key in event) {
    const value = event[key];
    if (typeof value !== 'string') continue;
    if (last.get(key) === value) event[key] = last.get(key);
    else last.set(key, value);
  }
  const at = typeof event.at === 'number' && Number.isFinite(event.at) ? event.at : 0;
  // Named field by field: `{ ...n, path, event, at }` gives each entry a hidden class of its own in V8, in old space (see callEvent).
  // The name as the end of the path: one string for both (the chosen name was made of five joined pieces).
  const entry: SpoolEntry = { name: p.slice(p.length - n.name.length), sessionId: n.sessionId, instance: n.instance, seq: n.seq, path: p, event, at };
  return { kind: 'event', entry, mtimeMs };
}

/** Files read (or renamed, or removed) at once: enough to keep the thread pool busy, few enough for any descriptor limit. */
export const SPOOL_IO_AT_ONCE = 16;

/** `fn` over `items`, at most `atOnce` running at a time; results in the items' order. */
export async function mapAtMost<T, R>(items: readonly T[], atOnce: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, items.length) }, worker));
  return out;
}

/**
 * Shares `budget` among demands fairly: every demand gets the same share, or all it asks when
 * that is less, and what those leave goes round the rest (a session with 20,000 files waiting
 * takes no more of a fold than one with 40, while the other has any).
 */
export function fairShares(demands: readonly number[], budget: number): number[] {
  const shares = demands.map(() => 0);
  let left = Math.max(0, Math.floor(budget));
  let open = demands.map((_, i) => i).filter((i) => demands[i] > 0);
  while (left > 0 && open.length > 0) {
    const each = Math.max(1, Math.floor(left / open.length));
    for (const i of open) {
      if (left === 0) break;
      const give = Math.min(each, demands[i] - shares[i], left);
      shares[i] += give;
      left -= give;
    }
    open = open.filter((i) => shares[i] < demands[i]);
  }
  return shares;
}

/** What one listing of the spool says to read: the runs (an instance's files, by seq), those the budget cut short, the claims seen. */
interface SpoolPlan {
  runs: SpoolRun[];
  /** Runs the budget cut short: their unread files may come before what other runs read. */
  cut: Set<number>;
  claims: string[];
  /** Files were left unread for the budget. */
  more: boolean;
}

/**
 * One instance's files in a listing. A file named as the mod names it
 * (spoolFileName) is kept as its seq alone, its name made again if it is
 * chosen: a listing of 100,000 files keeps 100,000 numbers, not 100,000
 * names, each with an object, from the first name listed to the last.
 */
interface InstanceFiles {
  sessionId: string;
  instance: string;
  /** Seqs of the files named as the mod names them. */
  seqs: number[];
  /** Files named otherwise (their seq padded otherwise), kept whole. */
  others: SpoolName[];
}

const countOf = (f: InstanceFiles): number => f.seqs.length + f.others.length;

/**
 * An instance's files chosen for a read, in seq order: each a seq (a file
 * named as the mod names it, its name made when it is read) or a file named
 * otherwise.
 */
interface SpoolRun {
  files: InstanceFiles;
  chosen: (number | SpoolName)[];
}

function spoolNameOf(f: InstanceFiles, pick: number | SpoolName): SpoolName {
  return typeof pick === 'number' ? { name: spoolFileName(f.sessionId, f.instance, pick), sessionId: f.sessionId, instance: f.instance, seq: pick } : pick;
}

/** The first `n` of an instance's files by seq (equal seqs, only ever named otherwise: by name, as a sorted listing had them). */
function firstFiles(f: InstanceFiles, n: number): (number | SpoolName)[] {
  if (f.others.length === 0) return f.seqs.sort((a, b) => a - b).slice(0, n);
  return [...f.seqs.map((seq) => spoolNameOf(f, seq)), ...f.others]
    .sort((a, b) => a.seq - b.seq || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .slice(0, n);
}

/**
 * Lists the spool and chooses what readSpool reads. Its own function, and
 * the listing streamed when the file access can (a fold lists the whole
 * spool: 100,000 names), each name parsed as it comes and kept as a number:
 * held as names and objects until every file was read, a listing was promoted
 * to V8's old space at every fold and piled up there (issue 30).
 */
async function planSpoolRead(opts: SpoolReadOptions): Promise<SpoolPlan> {
  /** session -> instance -> its files */
  const sessions = new Map<string, Map<string, InstanceFiles>>();
  /** Each `<session>.<instance>` listed: its files, or null when they are not read (another session, one skipped). */
  const instances = new Map<string, InstanceFiles | null>();
  const claims: string[] = [];
  /** readSession's answer per session: asked once, however many instances a session has. */
  const asked = new Map<string, boolean>();
  const readable = (sessionId: string): boolean => {
    if (opts.readSession === undefined) return true;
    let yes = asked.get(sessionId);
    if (yes === undefined) asked.set(sessionId, (yes = opts.readSession(sessionId)));
    return yes;
  };
  const take = (name: string): void => {
    // test, not exec: no match array for each name.
    if (!SPOOL_NAME.test(name)) {
      if (opts.sessionId === undefined && claimedSpoolName(name) !== undefined) claims.push(name);
      return;
    }
    const dot = name.indexOf('.'); // the session's end: it holds no dot
    const key = name.slice(0, dot + 9);
    let files = instances.get(key);
    if (files === undefined) {
      const n = parseSpoolName(name);
      const read = n !== undefined && (opts.sessionId === undefined || n.sessionId === opts.sessionId) && !opts.skipSessions?.has(n.sessionId) && readable(n.sessionId);
      files = read ? { sessionId: n.sessionId, instance: n.instance, seqs: [], others: [] } : null;
      instances.set(key, files);
      if (files) {
        let ofSession = sessions.get(files.sessionId);
        if (!ofSession) sessions.set(files.sessionId, (ofSession = new Map()));
        ofSession.set(files.instance, files);
      }
    }
    if (files === null) return;
    const from = dot + 10;
    const to = name.length - '.json'.length;
    let seq = 0;
    for (let i = from; i < to; i++) seq = seq * 10 + (name.charCodeAt(i) - 48);
    // As the mod names it: 8 digits, zero-padded, or more without a leading zero.
    if (to - from === 8 || (to - from > 8 && name.charCodeAt(from) !== 48)) files.seqs.push(seq);
    else files.others.push({ name, sessionId: files.sessionId, instance: files.instance, seq });
  };
  // A listing that fails part way chooses nothing: what it missed may come before what it saw.
  const listed = await opts.files.readdir(opts.spoolDir, take).then(
    (names) => {
      for (const name of names) take(name);
      return true;
    },
    () => false,
  );
  if (!listed) return { runs: [], cut: new Set(), claims: [], more: false };
  // Which files each instance may read this time: the sessions' fair shares, each shared among its instances.
  const sessionIds = [...sessions.keys()].sort();
  const sessionCounts = sessionIds.map((id) => [...(sessions.get(id) as Map<string, InstanceFiles>).values()].reduce((sum, f) => sum + countOf(f), 0));
  const sessionShares = fairShares(
    sessionCounts.map((n, i) => (opts.probeSessions?.has(sessionIds[i]) ? Math.min(n, 1) : n)),
    opts.maxFiles ?? DEFAULT_SPOOL_FILES_PER_FOLD,
  );
  const plan: SpoolPlan = { runs: [], cut: new Set(), claims, more: false };
  sessionIds.forEach((id, i) => {
    if (sessionShares[i] < sessionCounts[i]) plan.more = true;
    const ofSession = sessions.get(id) as Map<string, InstanceFiles>;
    const lists = [...ofSession.keys()].sort().map((k) => ofSession.get(k) as InstanceFiles);
    const shares = fairShares(lists.map(countOf), sessionShares[i]);
    lists.forEach((f, j) => {
      if (shares[j] === 0) return;
      if (shares[j] < countOf(f)) plan.cut.add(plan.runs.length);
      plan.runs.push({ files: f, chosen: firstFiles(f, shares[j]) });
    });
  });
  return plan;
}

/**
 * Lists the spool and reads what is ready, in fold order: per instance by
 * seq, stopping at the first file not finished yet (what follows it waits,
 * so an instance's order holds); across instances by `at` (ties: instance,
 * then seq). At most `maxFiles` files are read, shared fairly among the
 * sessions (and a session's share among its instances), so one session's
 * backlog never holds up another's events. `skipSessions`, and those `readSession` says no to, are not read at all.
 */
export async function readSpool(opts: SpoolReadOptions, maxAgeMs: number): Promise<SpoolRead> {
  const { files, spoolDir } = opts;
  const now = opts.clock.now();
  const out: SpoolRead = { ready: [], garbage: [], expired: [], more: false };
  const { runs, cut, claims, more } = await planSpoolRead(opts);
  out.more = more;
  for (const name of claims) {
    const p = join(spoolDir, name);
    const claimed = claimedAt(name);
    const a = claimed === undefined ? await files.stat(p).then((st) => (st ? now - st.mtimeMs : undefined), () => undefined) : now - claimed;
    if (a !== undefined && a > SPOOL_STALE_CLAIM_MS) out.garbage.push(p);
  }
  // A file's name and path are made as it is read: held from the plan on, they were promoted with the read.
  const picks = runs.flatMap((r) => r.chosen);
  const owners = runs.flatMap((r) => r.chosen.map(() => r.files));
  const last = new Map<string, string>();
  const loaded = await mapAtMost([...picks.keys()], SPOOL_IO_AT_ONCE, (i) => {
    const n = spoolNameOf(owners[i], picks[i]);
    return load(files, join(spoolDir, n.name), n, last);
  });
  const pathOf = (run: SpoolRun, k: number): string => join(spoolDir, spoolNameOf(run.files, run.chosen[k]).name);
  let at = 0;
  const heads: { entries: SpoolEntry[]; cut: boolean; sessionId: string }[] = [];
  for (const [r, run] of runs.entries()) {
    const results = loaded.slice(at, (at += run.chosen.length));
    const ready: SpoolEntry[] = [];
    for (let k = 0; k < run.chosen.length; k++) {
      const l = results[k];
      if (l.kind === 'gone') continue;
      const age = 'mtimeMs' in l && l.mtimeMs !== undefined ? now - l.mtimeMs : undefined;
      if (maxAgeMs > 0 && age !== undefined && age > maxAgeMs) {
        out.expired.push(pathOf(run, k));
        continue;
      }
      if (l.kind === 'event') {
        ready.push(l.entry);
        continue;
      }
      if (l.kind === 'garbage' || (l.kind === 'unfinished' && age !== undefined && age > SPOOL_UNFINISHED_GRACE_MS)) {
        out.garbage.push(pathOf(run, k));
        continue;
      }
      // Still being written (or unreadable for now): the instance's later files wait for it.
      break;
    }
    if (ready.length > 0 || cut.has(r)) heads.push({ entries: ready, cut: cut.has(r), sessionId: run.files.sessionId });
  }
  out.ready = mergeByAt(heads);
  return out;
}

/**
 * Merges runs each in their own order into one: the run whose next entry has the smallest `at`
 * goes first. A session's entries stop where a run of it the budget cut short has nothing more
 * read: its next file, unread, may come before anything else of the session left (it is folded
 * next time, in its place). Other sessions go on: their events go to channel files of their own.
 * (Stopping them too made a poll's probe of a refused session, one file, fold nothing else at all.)
 */
function mergeByAt(runs: { entries: SpoolEntry[]; cut: boolean; sessionId: string }[]): SpoolEntry[] {
  const next = runs.map(() => 0);
  /** Sessions with a cut run that has nothing more read. */
  const stopped = new Set<string>();
  const merged: SpoolEntry[] = [];
  for (;;) {
    for (let i = 0; i < runs.length; i++) if (runs[i].cut && next[i] >= runs[i].entries.length) stopped.add(runs[i].sessionId);
    let best = -1;
    for (let i = 0; i < runs.length; i++) {
      if (next[i] >= runs[i].entries.length || stopped.has(runs[i].sessionId)) continue;
      if (best === -1 || runs[i].entries[next[i]].at < runs[best].entries[next[best]].at) best = i;
    }
    if (best === -1) return merged;
    merged.push(runs[best].entries[next[best]++]);
  }
}

