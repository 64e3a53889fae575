import * as path from 'node:path';
import { CHANNEL_DIR_NAME, CHANNEL_FILE_SUFFIX, HOOK_BIN_DIR_NAME, HOOK_FILE_NAME, SAFE_SESSION_ID, SPOOL_DIR_NAME } from './channelConstants';

// Pure path arithmetic (node:path only, no file system), shared by the engine,
// the installer and the extension.

export function channelDirOf(claudeDir: string): string {
  return path.join(claudeDir, CHANNEL_DIR_NAME);
}

/** Where install-hook keeps the stable copy of the hook that settings.json runs. */
export function installedHookPathOf(claudeDir: string): string {
  return path.join(channelDirOf(claudeDir), HOOK_BIN_DIR_NAME, HOOK_FILE_NAME);
}

/** The session id a channel file belongs to, or undefined for anything else in the folder (foreign files, temp files, bin/). */
export function sessionIdOfChannelFile(name: string): string | undefined {
  if (!name.endsWith(CHANNEL_FILE_SUFFIX)) return undefined;
  const id = name.slice(0, -CHANNEL_FILE_SUFFIX.length);
  return SAFE_SESSION_ID.test(id) ? id : undefined;
}

/**
 * Whether a transcript_path from a channel line may be opened: only a `.jsonl`
 * strictly inside `<claudeDir>/projects/` once resolved, so a channel line can
 * never make the extension open an arbitrary file. Symlinks inside projects/ are
 * not followed here (no file system): the engine judges what it opens by real
 * path (src/core/engine/projectsConfinement.ts).
 */
export function isTranscriptPathAllowed(transcriptPath: string, claudeDir: string, pathApi: path.PlatformPath = path): boolean {
  if (!transcriptPath || transcriptPath.includes('\0')) return false;
  if (!pathApi.isAbsolute(transcriptPath)) return false;
  const projects = pathApi.resolve(claudeDir, 'projects');
  const resolved = pathApi.resolve(transcriptPath);
  const rel = pathApi.relative(projects, resolved);
  if (!rel || rel === '..' || rel.startsWith('..' + pathApi.sep) || pathApi.isAbsolute(rel)) return false;
  return resolved.endsWith(CHANNEL_FILE_SUFFIX);
}

/** Where the mod spools events when no receiver answers (./spoolNames.ts). */
export function spoolDirOf(claudeDir: string): string {
  return path.join(channelDirOf(claudeDir), SPOOL_DIR_NAME);
}
