/**
 * A what-if for the engine owner, measured beside the shipped adapter: the
 * same chokidar watch, but forwarding chokidar's unthrottled `raw` events too.
 * chokidar 4 drops any `change` of a path within 50 ms of the previous one
 * (FSWatcher._throttle, no trailing event), so a record appended soon after
 * another waits for the next write or the 1 s tick. Bench only.
 */
import * as path from 'node:path';
import { watch } from 'chokidar';
import type { ChangeSource } from '../src/core/changeSource';

export function rawEventsChangeSource(): ChangeSource {
  return {
    watch(folders, onChange) {
      if (folders.length === 0) return { dispose: () => undefined };
      const watcher = watch(folders, { ignoreInitial: true, depth: 3 });
      watcher.on('add', onChange).on('change', onChange).on('unlink', onChange).on('addDir', onChange);
      watcher.on('raw', (_event, name, details) => {
        const watched = (details as { watchedPath?: string } | undefined)?.watchedPath;
        if (!watched || !name) return;
        const full = path.basename(watched) === name ? watched : path.join(watched, name);
        if (full.endsWith('.jsonl')) onChange(full);
      });
      watcher.on('error', () => undefined);
      return { dispose: () => watcher.close() };
    },
  };
}
