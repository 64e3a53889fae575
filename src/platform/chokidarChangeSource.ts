import { promises as fsp, watch as fsWatch, type FSWatcher as NodeWatcher } from 'node:fs';
import * as path from 'node:path';
import { watch as chokidarWatch, type FSWatcher } from 'chokidar';
import type { ChangeSource, Disposable } from '../core/changeSource';
import { SPOOL_DIR_NAME } from '../rules/channelConstants';

export interface ChokidarChangeSourceOptions {
  /** How deep under each folder to watch: projects/<slug>/<session>/subagents/agent-*.jsonl needs 4 (checked: 3 misses it). */
  depth?: number;
  /** Called once the initial scan is done and changes are being reported (tests wait for it). */
  onReady?: () => void;
}

/**
 * The files whose changes matter: transcripts and channel files (`.jsonl`),
 * and the mod's spool files (`spool/*.json`, one event each).
 */
export function isWatchedFile(p: string): boolean {
  return p.endsWith('.jsonl') || (p.endsWith('.json') && path.basename(path.dirname(p)) === SPOOL_DIR_NAME);
}

/**
 * File-change notifications from chokidar: the low-latency path. Best effort by
 * design — the engine's stat poll catches whatever a watcher misses (network
 * file systems, WSL), so errors here are swallowed rather than fatal.
 */
export function chokidarChangeSource(opts: ChokidarChangeSourceOptions = {}): ChangeSource {
  return {
    watch(folders: string[], onChange: (path: string) => void): Disposable {
      if (folders.length === 0) return { dispose: () => undefined };
      // One watcher per folder: given a folder that does not exist (the hook channel's, before any
      // hook is installed), one chokidar watcher said `ready` at once and reported nothing at all,
      // for the folders that do exist either (chokidar 4.0.3).
      const watchers: FSWatcher[] = folders.map((folder) => watchFolder(folder, opts.depth ?? 4, onChange));
      const spools = folders.map((folder) => new SpoolWatch(path.join(folder, SPOOL_DIR_NAME), onChange));
      for (const [i, w] of watchers.entries()) {
        // The spool folder made (or made again) after the watch began: watched from then on.
        w.on('raw', (_event, name, details) => name === SPOOL_DIR_NAME && (details as { watchedPath?: unknown } | undefined)?.watchedPath === folders[i] && spools[i].arm());
      }
      let waiting = watchers.length;
      if (opts.onReady) {
        const onReady = opts.onReady;
        for (const w of watchers) {
          w.once('ready', () => {
            if (--waiting === 0) onReady();
          });
        }
      }
      return {
        dispose: async () => {
          for (const sw of spools) sw.close();
          await Promise.all(watchers.map((w) => w.close()));
        },
      };
    },
  };
}

function watchFolder(folder: string, depth: number, onChange: (path: string) => void): FSWatcher {
  const watcher: FSWatcher = chokidarWatch(folder, {
    ignoreInitial: true,
    persistent: true,
    depth,
    // Transcripts grow by appends: report each write at once, never wait for the writer to finish.
    awaitWriteFinish: false,
    alwaysStat: false,
    // Folders only. A folder's own watch reports every write to a file in it (the `raw` events
    // below); a watch per file as well cost ~2 KB and an inotify watch per transcript, and
    // chokidar's first scan of 20,000 of them delayed every notification by seconds (BENCHMARKS.md).
    // Not the spool folder (SpoolWatch below): chokidar lists a folder again on each change in it
    // and lstats every entry, so a spool of 100,000 files cost a core (BENCHMARKS.md, "Spool soak").
    ignored: (p: string, stats?: { isFile(): boolean }) => p.endsWith('.jsonl') || path.basename(p) === SPOOL_DIR_NAME || stats?.isFile() === true,
  });
  // A folder made after the watch began (a session's subagents/): files written into it
  // before its watch was set up are reported from a listing of it.
  watcher.on('addDir', (dir: string) => {
    onChange(dir);
    fsp.readdir(dir).then(
      (names) => {
        for (const name of names) if (isWatchedFile(path.join(dir, name))) onChange(path.join(dir, name));
      },
      () => undefined,
    );
  });
  // fs.watch's own events (chokidar's `raw`), unthrottled: every write to a file in a watched
  // folder, read at once (figures in BENCHMARKS.md). `name` is the entry that changed and
  // `watchedPath` the folder fs.watch was given.
  watcher.on('raw', (_event, name, details) => {
    const watched = (details as { watchedPath?: unknown } | undefined)?.watchedPath;
    if (typeof watched !== 'string') return;
    if (!name) return;
    const changed = path.basename(watched) === name ? watched : path.join(watched, name);
    if (isWatchedFile(changed)) onChange(changed);
  });
  watcher.on('error', () => undefined);
  return watcher;
}

/**
 * The mod's spool folder, watched with fs.watch alone: its events name the file, and nothing is
 * listed or stat'ed per event (chokidar would, per change, for every file waiting). Armed at
 * start when the folder is there, and again whenever its parent says it was made; armed late,
 * one file it already holds is reported, so what was spooled before is folded at once.
 */
class SpoolWatch {
  private watcher: NodeWatcher | undefined;
  private closed = false;

  constructor(
    private readonly dir: string,
    private readonly onChange: (path: string) => void,
  ) {
    this.arm(false);
  }

  arm(late = true): void {
    if (this.closed) return;
    this.watcher?.close();
    this.watcher = undefined;
    try {
      const w = fsWatch(this.dir, (_event, name) => {
        // The name first, no path made for it: two of a folded file's three events name its claim (renamed, then removed).
        const entry = name?.toString();
        if (!entry || !(entry.endsWith('.json') || entry.endsWith('.jsonl'))) return;
        const p = path.join(this.dir, entry);
        if (isWatchedFile(p)) this.onChange(p);
      });
      w.on('error', () => {
        w.close();
        if (this.watcher === w) this.watcher = undefined;
      });
      this.watcher = w;
    } catch {
      return; // not there (yet): its parent's watch says when it is made
    }
    if (!late) return;
    void fsp.opendir(this.dir).then(
      async (d) => {
        try {
          for await (const entry of d) {
            const p = path.join(this.dir, entry.name);
            if (isWatchedFile(p)) return this.onChange(p);
          }
        } catch {
          // gone again: nothing to report
        }
      },
      () => undefined,
    );
  }

  close(): void {
    this.closed = true;
    this.watcher?.close();
    this.watcher = undefined;
  }
}
