// Named imports, not `import * as`: esbuild would copy every export of the module at each start.
import { join } from 'node:path';
import { readBounded } from './boundedRead';
import { SAFE_SESSION_ID } from './channelConstants';
import { MOD_CALLS_DIR_NAME, claudeDirOfTranscript, freshModLiveness, modCallsPath, modListNames, modLiveFileName, modLivePath, type ModLiveness } from './modContract';

/**
 * Reading the files the mod keeps for its readers (src/rules/modContract.ts), as the hook, the
 * receiver and `message` read them. The mod rewrites each whole, not atomically ($.fs.write), so a
 * read in the middle of a write gets part of it: what does not parse is read once more, a moment
 * later. Bounded, regular files only, never through a symlink.
 */

/** The mod's list is a few KiB; a larger file is not ours to read. */
const MAX_MOD_LIST_BYTES = 64 * 1024;
/** The liveness file is a few hundred bytes; a larger file is not the mod's. */
const MAX_LIVENESS_BYTES = 4096;
/** How long before the one read again: a write of a few KiB is over by then. */
const REREAD_AFTER_MS = 5;

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The file's text, read once more a moment later when it does not parse; undefined when it is not there or not one to read. */
export function readModFile(path: string, maxBytes: number): string | undefined {
  const read = () => readBounded(path, maxBytes, 'whole', true)?.bytes.toString('utf8');
  const text = read();
  if (text === undefined || parses(text)) return text;
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, REREAD_AFTER_MS);
  return read();
}

/**
 * Whether the mod (Claude Code 2.1.286+ as measured, in process) reports this call: it lists each call before
 * the call's settings hooks run, so a command hook in announce mode or the http receiver that finds
 * its call there stands aside and the call is reported once, with the mod's fire time.
 */
export function modReportsCall(input: { session_id?: string; transcript_path?: string; tool_use_id?: string }): boolean {
  const { session_id, transcript_path, tool_use_id } = input;
  if (!session_id || !transcript_path || !tool_use_id) return false;
  const claudeDir = claudeDirOfTranscript(transcript_path);
  const file = claudeDir && modCallsPath(claudeDir, session_id);
  if (!file) return false;
  return modListNames(readModFile(file, MAX_MOD_LIST_BYTES), tool_use_id);
}

/** The session's liveness file, when it is the mod's and fresh. */
export function readModLiveness(claudeDir: string, sessionId: string, now: number): ModLiveness | undefined {
  const path = modLivePath(claudeDir, sessionId);
  return path === undefined ? undefined : freshModLiveness(readModFile(path, MAX_LIVENESS_BYTES), sessionId, now);
}

/** readModLiveness from the channel folder (`<claude dir>/transcript-lag`), which is what the hook is given. */
export function readModLivenessIn(channelDir: string, sessionId: string, now: number): ModLiveness | undefined {
  if (!SAFE_SESSION_ID.test(sessionId)) return undefined;
  return freshModLiveness(readModFile(join(channelDir, MOD_CALLS_DIR_NAME, modLiveFileName(sessionId)), MAX_LIVENESS_BYTES), sessionId, now);
}
