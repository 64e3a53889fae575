import { CHANNEL_SCHEMA_VERSION } from './channelConstants';

/**
 * The fields every channel event starts with (docs/CHANNEL.md): the schema version, the event, when
 * (ms since epoch, whole), and whose session and transcript. The hook, the landing watcher, the
 * receiver's callers and the mod build their events on it; the key order only serves people reading
 * the file. Pure: the mod, which has no Node, uses it too.
 */
export function channelEventHead<E extends string>(event: E, at: number, sessionId: string, transcriptPath: string) {
  return { v: CHANNEL_SCHEMA_VERSION, event, at: Math.round(at), session_id: sessionId, transcript_path: transcriptPath };
}
