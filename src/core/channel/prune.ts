import { sessionIdOfChannelFile } from '../../rules/channelPaths';

export interface ChannelDirEntry {
  name: string;
  mtimeMs: number;
}

/** Default age after which an untouched session file is pruned: a week. */
export const DEFAULT_CHANNEL_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Channel files whose last write is older than `maxAgeMs` at `now`. Only our
 * own `<session_id>.jsonl` files are ever chosen: foreign files and folders
 * (bin/) in the channel folder are left alone. A file with a future mtime
 * (clock skew) is kept.
 */
export function chooseChannelFilesToPrune(entries: readonly ChannelDirEntry[], now: number, maxAgeMs = DEFAULT_CHANNEL_MAX_AGE_MS): string[] {
  if (!(maxAgeMs > 0)) return [];
  return entries
    .filter((e) => sessionIdOfChannelFile(e.name) !== undefined && now - e.mtimeMs > maxAgeMs)
    .map((e) => e.name)
    .sort();
}
