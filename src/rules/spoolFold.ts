// Named imports, not `import * as`: esbuild would copy every export of the module at each start (the hook's SessionStart folds too).
import { mapAtMost, readSpool, SPOOL_IO_AT_ONCE, type SpoolEntry, type SpoolReadOptions } from './spoolRead';

/**
 * Folding the mod's spool (./spoolNames.ts) into the channel: the engine and `watch` (and the plugin's
 * SessionStart) claim each session's ready events (read in order by ./spoolRead.ts), append them to
 * its channel file and remove them. Pure: the writes come in as a SpoolFolding (./nodeSpoolFolding.ts
 * on the real file system).
 */

/** What folding needs beyond reading: the writes, injected (./nodeSpoolFolding.ts on the real file system). */
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
  /**
   * Appends the events, in order, one line each, to `<channelDir>/<session_id>.jsonl` as the
   * hook appends (one write for them all); false when refused, and then nothing was written.
   */
  append(channelDir: string, sessionId: string, events: readonly object[]): Promise<boolean>;
  remove(path: string): Promise<void>;
}

export interface SpoolFoldResult {
  /** Events appended, per session. */
  folded: Map<string, number>;
  /** Files removed as garbage or expired. */
  removed: number;
  /** Sessions whose channel file refused the append: their files were put back. */
  refused: Set<string>;
  /** Files were left for the budget: folding again now has work. */
  more: boolean;
}

export interface SpoolFoldOptions extends SpoolReadOptions {
  channelDir: string;
  ops: SpoolFolding;
  maxAgeMs: number;
  /** Checked between sessions: a stop does not wait for the rest of a fold. */
  stopped?: () => boolean;
}

/**
 * Folds the spool into the channel: each session's ready events, in order,
 * are claimed, appended to its channel file in one write and removed; only
 * the folder whose claim wins appends a file, so two folders racing append
 * each event once. A claim refused leaves that file and the session's later
 * ones for the next fold; an append refused puts the session's files back and
 * says so (`refused`), so its later events never go before them. Garbage and
 * expired files are removed.
 */
export async function foldSpool(opts: SpoolFoldOptions): Promise<SpoolFoldResult> {
  const read = await readSpool(opts, opts.maxAgeMs);
  const result: SpoolFoldResult = { folded: new Map(), removed: 0, refused: new Set(), more: read.more };
  const bySession = new Map<string, SpoolEntry[]>();
  for (const entry of read.ready) {
    let list = bySession.get(entry.sessionId);
    if (!list) bySession.set(entry.sessionId, (list = []));
    list.push(entry);
  }
  // A session's events are let go once it is folded, so the fold holds fewer as it goes (V8 sizes its
  // old space by what is live at a collection).
  read.ready = [];
  const { ops } = opts;
  for (const [sessionId, entries] of bySession) {
    bySession.delete(sessionId);
    if (opts.stopped?.()) return result;
    const at = opts.clock.now();
    // Refused (on Windows: held open by a scanner) is not taken: it and what follows it stay for the next fold.
    const claims = await mapAtMost(entries, SPOOL_IO_AT_ONCE, (e) => ops.claim(e.path, at).then((p) => ({ p }), () => ({ refused: true as const })));
    const firstRefused = claims.findIndex((c) => 'refused' in c);
    const upTo = firstRefused === -1 ? entries.length : firstRefused;
    const claimed: { entry: SpoolEntry; path: string }[] = [];
    const putBack: { entry: SpoolEntry; path: string }[] = [];
    claims.forEach((c, i) => {
      if (!('p' in c) || c.p === undefined) return; // another folder's now
      (i < upTo ? claimed : putBack).push({ entry: entries[i], path: c.p });
    });
    let appended = false;
    if (claimed.length > 0) {
      appended = await ops.append(opts.channelDir, sessionId, claimed.map((c) => c.entry.event)).catch(() => false);
      if (appended) result.folded.set(sessionId, claimed.length);
      else {
        result.refused.add(sessionId);
        putBack.push(...claimed);
      }
    }
    await mapAtMost(putBack, SPOOL_IO_AT_ONCE, (c) => ops.unclaim(c.path, c.entry.path).catch(() => undefined));
    if (appended) await mapAtMost(claimed, SPOOL_IO_AT_ONCE, (c) => ops.remove(c.path).catch(() => undefined));
  }
  const removed = await mapAtMost([...read.garbage, ...read.expired], SPOOL_IO_AT_ONCE, (p) => ops.remove(p).then(() => 1, () => 0));
  result.removed = removed.reduce<number>((a, b) => a + b, 0);
  return result;
}
