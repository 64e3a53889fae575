import * as path from 'node:path';
import { watch as chokidarWatch, type FSWatcher } from 'chokidar';
import type { ChangeSource, Disposable } from '../core/changeSource';
import { SPOOL_DIR_NAME } from '../core/channel/constants';

export interface ChokidarChangeSourceOptions {
  /** How deep under each folder to watch: projects/<slug>/<session>/subagents/agent-*.jsonl needs 4 (checked: 3 misses it). */
  depth?: number;
  /** Called once the initial scan is done and changes are being reported (tests wait for it). */
  onReady?: () => void;
  /** Delay of the trailing notification after a path's last change event (default: chokidar's throttle + 10 ms). */
  trailingMs?: number;
}

/**
 * The files whose changes matter: transcripts and channel files (`.jsonl`),
 * and the mod's spool files (`spool/*.json`, one event each).
 */
export function isWatchedFile(p: string): boolean {
  return p.endsWith('.jsonl') || (p.endsWith('.json') && path.basename(path.dirname(p)) === SPOOL_DIR_NAME);
}

/** chokidar's own suppression window for repeated change events of one path. */
const CHOKIDAR_THROTTLE_MS = 50;

/**
 * File-change notifications from chokidar: the low-latency path. Best effort by
 * design — the engine's stat poll catches whatever a watcher misses (network
 * file systems, WSL), so errors here are swallowed rather than fatal.
 */
export function chokidarChangeSource(opts: ChokidarChangeSourceOptions = {}): ChangeSource {
  return {
    watch(folders: string[], onChange: (path: string) => void): Disposable {
      if (folders.length === 0) return { dispose: () => undefined };
      const watcher: FSWatcher = chokidarWatch(folders, {
        ignoreInitial: true,
        persistent: true,
        depth: opts.depth ?? 4,
        // Transcripts grow by appends: report each write at once, never wait for the writer to finish.
        awaitWriteFinish: false,
        alwaysStat: false,
        // Only transcripts, channel and spool files matter; skip everything else (tool-results folders, backups).
        ignored: (p: string, stats?: { isFile(): boolean }) => stats?.isFile() === true && !isWatchedFile(p),
      });
      // chokidar reports a path's first change, then drops that path's change events for
      // 50 ms (index.js, _throttle(CHANGE, path, 50)), with no trailing event. Claude Code
      // writes in bursts, so the write after the first would wait for the next stat poll
      // (a second). A trailing notification after the window closes catches it.
      const trailing = new Map<string, NodeJS.Timeout>();
      const forward = (p: string) => {
        onChange(p);
        clearTimeout(trailing.get(p));
        const timer = setTimeout(() => {
          trailing.delete(p);
          onChange(p);
        }, opts.trailingMs ?? CHOKIDAR_THROTTLE_MS + 10);
        timer.unref?.();
        trailing.set(p, timer);
      };
      watcher.on('add', forward).on('change', forward).on('unlink', forward).on('addDir', forward);
      // chokidar's `raw` events are fs.watch's own, unthrottled: a write right after a reported
      // one is read at once instead of at the trailing notification (figures in BENCHMARKS.md).
      // `name` is the entry that changed and `watchedPath` the file or folder fs.watch was given.
      watcher.on('raw', (_event, name, details) => {
        const watched = (details as { watchedPath?: unknown } | undefined)?.watchedPath;
        if (typeof watched !== 'string') return;
        if (!name) return;
        const changed = path.basename(watched) === name ? watched : path.join(watched, name);
        if (isWatchedFile(changed)) onChange(changed);
      });
      watcher.on('error', () => undefined);
      if (opts.onReady) watcher.once('ready', opts.onReady);
      return {
        dispose: () => {
          for (const timer of trailing.values()) clearTimeout(timer);
          trailing.clear();
          return watcher.close();
        },
      };
    },
  };
}
