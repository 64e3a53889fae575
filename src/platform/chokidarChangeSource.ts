import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { watch as chokidarWatch, type FSWatcher } from 'chokidar';
import type { ChangeSource, Disposable } from '../core/changeSource';
import { SPOOL_DIR_NAME } from '../core/channel/constants';

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
      let waiting = watchers.length;
      if (opts.onReady) {
        const onReady = opts.onReady;
        for (const w of watchers) {
          w.once('ready', () => {
            if (--waiting === 0) onReady();
          });
        }
      }
      return { dispose: async () => void (await Promise.all(watchers.map((w) => w.close()))) };
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
    ignored: (p: string, stats?: { isFile(): boolean }) => p.endsWith('.jsonl') || stats?.isFile() === true,
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
