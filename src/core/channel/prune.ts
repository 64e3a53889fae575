import { DEFAULT_CHANNEL_MAX_AGE_MS } from '../../rules/channelConstants';
import { sessionIdOfChannelFile } from '../../rules/channelPaths';

export interface ChannelDirEntry {
  name: string;
  mtimeMs: number;
}

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
