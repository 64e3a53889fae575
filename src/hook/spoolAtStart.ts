/**
 * The plugin's SessionStart keeps the mod's spool folded (issue 40 §6). `watch` and the extension fold
 * it as it fills; with the plugin alone nothing did, and every session left its 37–74 spool files
 * toward the 20,000 past which the mod spools nothing and lists no new call. So each session start
 * folds the files of the sessions that have finished into their channel files, with the engine's own
 * fold (src/rules/spoolFold.ts: in order, each file claimed by a rename, appended as the hook appends,
 * removed; a half-written file waits, garbage and files past the channel's age are removed), and the
 * spool holds about the live sessions' files whatever else is installed.
 *
 * Finished: the mod does not run the session now (its liveness file, `mod/<session>.live.json`, is
 * missing or stale: not rewritten for 15 s, three refreshes missed, src/rules/modContract.ts) and it
 * is not the session starting (the mod writes the starting one's before any hook runs; the input's
 * session_id is left out too, should that write have failed). A live session's files are left to
 * a start after it has ended, or to `watch` or a window: folding them would be safe too (the claims
 * decide who appends, as between `watch` and a window), but they would only come back as it goes on.
 *
 * Bounded, so a start is not held up: at most START_FOLD_FILES files read a start (shared fairly
 * among the sessions, as the engine's folds are), and no further session once START_FOLD_BUDGET_MS
 * have passed since the fold began (the first session always is); a backlog goes down by that much at
 * each start. Through the synchronous calls: the process has nothing else to do meanwhile.
 */
// Named imports, not `import * as`: esbuild would copy every export of the module at each start.
import { join } from 'node:path';
import { DEFAULT_CHANNEL_MAX_AGE_MS, SPOOL_DIR_NAME } from '../rules/channelConstants';
import { readModLivenessIn } from '../rules/modFiles';
import { nodeFileAccessSync } from '../rules/nodeFileAccess';
import { foldSpool, type SpoolFoldResult, type SpoolFolding } from '../rules/spoolFold';
import { nodeSpoolFoldingSync } from '../rules/nodeSpoolFolding';

/**
 * Files read per start at most: a session leaves 37–74, so a start folds about three sessions' worth,
 * and a spool at the mod's bound (20,000) is empty after 100 starts. The listing and these reads come
 * before the first session is folded: 35–65 ms for a 20,000-file spool on a busy 2-core machine
 * (with 500 they took the whole budget: BENCHMARKS.md).
 */
export const START_FOLD_FILES = 200;
/** Past this, from the fold's start, no further session is folded (the first always is, so each start gets somewhere). */
export const START_FOLD_BUDGET_MS = 150;

export interface StartFoldOptions {
  /** The session starting (the SessionStart input's session_id), when known. */
  startingSession?: string;
  /** Milliseconds on a monotonic clock, for the budget. */
  elapsedMs: () => number;
  ops?: SpoolFolding;
  maxFiles?: number;
  budgetMs?: number;
}

/** Folds finished sessions' spool files into their channel files in `channelDir`; undefined when the fold failed. Never throws. */
export async function foldFinishedSessions(channelDir: string, opts: StartFoldOptions): Promise<SpoolFoldResult | undefined> {
  const began = opts.elapsedMs();
  const budget = opts.budgetMs ?? START_FOLD_BUDGET_MS;
  let sessions = 0;
  return foldSpool({
    // Synchronous calls: this process has nothing else to do, and the thread pool's hand-offs cost more than the calls.
    files: nodeFileAccessSync,
    clock: { now: () => Date.now() },
    spoolDir: join(channelDir, SPOOL_DIR_NAME),
    channelDir,
    ops: opts.ops ?? nodeSpoolFoldingSync,
    // The engine's default: the hook cannot know a window's setting, and a week-old spool file had a week of starts to be folded.
    maxAgeMs: DEFAULT_CHANNEL_MAX_AGE_MS,
    maxFiles: opts.maxFiles ?? START_FOLD_FILES,
    readSession: (id) => id !== opts.startingSession && readModLivenessIn(channelDir, id, Date.now()) === undefined,
    // Asked before each session: never before the first, so a slow listing still leaves the start some progress.
    stopped: () => sessions++ > 0 && opts.elapsedMs() - began > budget,
  }).catch(() => undefined);
}
