import { watch as chokidarWatch, type FSWatcher } from 'chokidar';
import type { ChangeSource, Disposable } from '../core/changeSource';

export interface ChokidarChangeSourceOptions {
  /** How deep under each folder to watch: projects/<slug>/<session>/subagents/agent-*.jsonl needs 4 (checked: 3 misses it). */
  depth?: number;
  /** Called once the initial scan is done and changes are being reported (tests wait for it). */
  onReady?: () => void;
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
      const watcher: FSWatcher = chokidarWatch(folders, {
        ignoreInitial: true,
        persistent: true,
        depth: opts.depth ?? 4,
        // Transcripts grow by appends: report each write at once, never wait for the writer to finish.
        awaitWriteFinish: false,
        alwaysStat: false,
        // Only transcripts and channel files matter; skip everything else (tool-results folders, backups).
        ignored: (p: string, stats?: { isFile(): boolean }) => stats?.isFile() === true && !p.endsWith('.jsonl'),
      });
      const forward = (p: string) => onChange(p);
      watcher.on('add', forward).on('change', forward).on('unlink', forward).on('addDir', forward);
      watcher.on('error', () => undefined);
      if (opts.onReady) watcher.once('ready', opts.onReady);
      return { dispose: () => watcher.close() };
    },
  };
}
