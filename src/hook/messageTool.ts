/**
 * `hook.js --plugin --install-message-tool`: the plugin's SessionStart hook. It keeps the message tool
 * (`transcript-lag message` on its own: the committed build beside this hook, plugin/bin/) at a stable
 * path a settings hook can name, `<claude dir>/transcript-lag/bin/transcript-lag-message.js`, the
 * folder of the status line's copy. Only into a bin/ that is a real folder of the user's nobody else
 * may write (src/rules/binFolder.ts: a symlink or another user's folder is left alone, the tool
 * uncopied; a group- or world-writable one of the user's is narrowed first). A copy of ours whose
 * bytes are the plugin's is left alone; any other is replaced atomically (a temp file renamed over
 * it: a hook starting meanwhile runs the old file or the new one, never half of one). Part of the
 * SessionStart bundle (./sessionStart.ts): the copy's modules (fs/promises, crypto) stay out of every
 * tool call's hook.
 */
// Named imports, not `import * as`: esbuild would copy every export of the module at each start.
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { MESSAGE_TOOL_FILE_NAME } from '../rules/channelConstants';
import { ownBinFolder } from '../rules/binFolder';
import { isOwnChannelFile } from '../rules/channelWriter';
import { copyAtomically } from '../rules/renameReplacing';
import { readBounded } from '../rules/boundedRead';

/** The tool is a few tens of KiB; a larger file at either end is not ours to compare, and is replaced. */
const MAX_TOOL_BYTES = 4 * 1024 * 1024;

export type MessageToolCopy = 'copied' | 'current' | 'no-source' | 'unsafe-folder' | 'failed';

/** Whether the copy at `dest` is a file of ours nobody else may write (one planted while bin/ was open is not). */
function ownCopy(dest: string): boolean {
  try {
    return isOwnChannelFile(lstatSync(dest), process.getuid?.());
  } catch {
    return false;
  }
}

/**
 * Copies `sourceDir/<fileName>` (the message tool, or the completing wrapper
 * transcript-lag-complete.js, kept the same way) to `channelDir/bin/` unless the copy there is ours with
 * the same bytes. Never throws: the hook must not stand in a session's way.
 */
export async function installMessageTool(sourceDir: string, channelDir: string, fileName: string = MESSAGE_TOOL_FILE_NAME): Promise<MessageToolCopy> {
  const source = join(sourceDir, fileName);
  const ours = readBounded(source, MAX_TOOL_BYTES, 'whole');
  if (ours === undefined) return 'no-source';
  const bin = ownBinFolder(channelDir);
  if ('refused' in bin) return 'unsafe-folder';
  const dest = join(bin.dir, fileName);
  // A symlink at dest is not followed: it is replaced by a regular file like any other difference.
  const there = readBounded(dest, MAX_TOOL_BYTES, 'whole', true);
  if (there !== undefined && there.bytes.equals(ours.bytes) && ownCopy(dest)) return 'current';
  try {
    await copyAtomically(source, dest);
    return 'copied';
  } catch {
    return 'failed';
  }
}
