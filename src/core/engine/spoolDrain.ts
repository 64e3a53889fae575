import type { Clock } from '../../rules/clock';
import type { FileAccess } from '../fileAccess';
import { DEFAULT_CHANNEL_MAX_AGE_MS } from '../../rules/channelConstants';
import { channelDirOf, spoolDirOf } from '../../rules/channelPaths';
import { type SpoolFolding, type SpoolFoldResult, foldSpool } from '../../rules/spoolFold';

/** Spool files a drain's later folds read at once (its first keeps to the poll's budget, DEFAULT_SPOOL_FILES_PER_FOLD). */
const DRAIN_FILES_PER_FOLD = 10_000;

/** What a drain works with, asked at each fold: the engine's options and readers change with a reconfigure. */
export interface SpoolDrainHost {
  files(): FileAccess;
  clock(): Clock;
  claudeDir(): string;
  /** The writes that fold (src/rules/spoolFold.ts); undefined: the spool is left alone. */
  spool(): SpoolFolding | undefined;
  channelMaxAgeMs(): number | undefined;
  /** The engine is stopping: no new fold, and a fold under way ends between sessions. */
  stopping(): boolean;
  /** A fold appended to these sessions' channel files: read them now. */
  folded(sessionIds: Iterable<string>): Promise<void>;
}

/**
 * Drains the mod's spool into the channel files (src/rules/spoolFold.ts) for the engine: a fold, the
 * channel files it appended to read at once, and another fold while the last one left files for its
 * budget or a change came in. One drain at a time: a call during one asks it for one more fold and
 * returns. Otherwise resolves once the first fold is done, so a poll reads the channel after it; the
 * rest goes on beside the poll's reads, and a stop ends it between sessions, never waiting for it.
 */
export class SpoolDrain {
  /** The spool is being drained now (folds while there is work), and whether a change came in meanwhile (one more fold then). */
  private draining: Promise<void> | undefined;
  private foldAgain = false;
  /** Sessions whose channel file refused the fold's append: left out of folds until the next poll tries one file of each. */
  private readonly appendRefused = new Set<string>();
  /** The next fold tries one file of each refused session (a poll asked). */
  private probeRefused = false;

  constructor(private readonly host: SpoolDrainHost) {}

  /**
   * `retryRefused`: the sessions whose channel file refused an append are tried again (the poll's
   * once a poll; a change notification's never: the files put back would notify again, a loop).
   */
  drain(retryRefused: boolean): Promise<void> {
    const host = this.host;
    if (!host.spool() || host.stopping()) return Promise.resolve();
    if (retryRefused) this.probeRefused = true;
    if (this.draining) {
      this.foldAgain = true;
      return Promise.resolve();
    }
    let firstDone!: () => void;
    const first = new Promise<void>((resolve) => (firstDone = resolve));
    const drain = async () => {
      let first = true;
      for (;;) {
        this.foldAgain = false;
        // The first fold within a poll's budget; the drain's next ones take more at once (fewer listings of a large spool).
        const done = await this.fold(first ? undefined : DRAIN_FILES_PER_FOLD);
        first = false;
        firstDone();
        if (done === undefined || host.stopping()) return;
        await host.folded(done.folded.keys());
        // Files left for the budget: on at once, as long as a fold gets somewhere (unfinished files wait for a change or a poll).
        const progress = done.folded.size > 0 || done.removed > 0;
        if (!((done.more && progress) || this.foldAgain) || host.stopping()) return;
      }
    };
    this.draining = drain()
      .catch(() => undefined)
      .finally(() => {
        firstDone();
        this.draining = undefined;
      });
    return first;
  }

  /** One fold of the spool; the sessions whose channel file refused it are left out until the next poll. */
  async fold(maxFiles?: number): Promise<SpoolFoldResult | undefined> {
    const host = this.host;
    const ops = host.spool();
    if (!ops) return undefined;
    const probe = this.probeRefused;
    this.probeRefused = false;
    const claudeDir = host.claudeDir();
    const done = await foldSpool({
      files: host.files(),
      clock: host.clock(),
      spoolDir: spoolDirOf(claudeDir),
      channelDir: channelDirOf(claudeDir),
      ops,
      maxAgeMs: host.channelMaxAgeMs() ?? DEFAULT_CHANNEL_MAX_AGE_MS,
      ...(probe ? { probeSessions: new Set(this.appendRefused) } : { skipSessions: new Set(this.appendRefused) }),
      ...(maxFiles !== undefined ? { maxFiles } : {}),
      stopped: () => host.stopping(),
    }).catch(() => undefined);
    for (const id of done?.folded.keys() ?? []) this.appendRefused.delete(id);
    for (const id of done?.refused ?? []) this.appendRefused.add(id);
    if (this.appendRefused.size > 10_000) this.appendRefused.clear(); // bounded: forgetting one costs a retry, not an event
    return done;
  }
}
