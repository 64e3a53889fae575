/**
 * `hook.js --plugin --install-message-tool`: the plugin's SessionStart hook. It keeps the message tool
 * (`transcript-lag message` on its own: the committed build beside this hook, plugin/bin/) at a stable
 * path a settings hook can name, `<claude dir>/transcript-lag/bin/transcript-lag-message.js`, the
 * folder of the status line's copy. A copy whose bytes are the plugin's is left alone; any other is
 * replaced atomically (a temp file renamed over it: a hook starting meanwhile runs the old file or
 * the new one, never half of one). Required by main.ts only in this mode: the copy's modules
 * (fs/promises, crypto) stay out of every tool call's hook.
 */
// Named imports, not `import * as`: esbuild would copy every export of the module at each start.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { HOOK_BIN_DIR_NAME, MESSAGE_TOOL_FILE_NAME } from '../rules/channelConstants';
import { copyAtomically } from '../rules/renameReplacing';
import { readBounded } from '../rules/boundedRead';

/** The tool is a few tens of KiB; a larger file at either end is not ours to compare, and is replaced. */
const MAX_TOOL_BYTES = 4 * 1024 * 1024;

export type MessageToolCopy = 'copied' | 'current' | 'no-source' | 'failed';

/**
 * Copies `sourceDir/transcript-lag-message.js` to `channelDir/bin/` unless the copy there has the same
 * bytes. Never throws: the hook must not stand in a session's way.
 */
export async function installMessageTool(sourceDir: string, channelDir: string): Promise<MessageToolCopy> {
  const source = join(sourceDir, MESSAGE_TOOL_FILE_NAME);
  const dest = join(channelDir, HOOK_BIN_DIR_NAME, MESSAGE_TOOL_FILE_NAME);
  const ours = readBounded(source, MAX_TOOL_BYTES, 'whole');
  if (ours === undefined) return 'no-source';
  // A symlink at dest is not followed: it is replaced by a regular file like any other difference.
  const there = readBounded(dest, MAX_TOOL_BYTES, 'whole', true);
  if (there !== undefined && there.bytes.equals(ours.bytes)) return 'current';
  try {
    mkdirSync(join(channelDir, HOOK_BIN_DIR_NAME), { recursive: true, mode: 0o700 });
    await copyAtomically(source, dest);
    return 'copied';
  } catch {
    return 'failed';
  }
}
