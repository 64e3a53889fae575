import { randomBytes } from 'node:crypto';
import { promises as fsp, renameSync, unlinkSync } from 'node:fs';
import type { SpoolFolding } from './spoolFold';
import { appendChannelLines } from './channelWriter';
import { nodeRenameDeps, renameReplacing, type RenameDeps } from './renameReplacing';

/**
 * The writes folding the mod's spool needs (./spoolFold.ts), on the
 * real file system. A claim is a rename to a name no other folder can make:
 * when two race, one rename finds the file gone (ENOENT) and only the other
 * appends. The append is the hook's own (one write of the session's lines, O_APPEND, a
 * file that is not ours refused), so folded lines are like the hook's.
 * `renameDeps`: the renames and the waits between tries; replaced by tests to
 * answer as Windows does. `unlink`: the removal.
 */
export function spoolFoldingOn(renameDeps: RenameDeps = nodeRenameDeps, unlink: (path: string) => Promise<void> = (path) => fsp.unlink(path)): SpoolFolding {
  return {
    async claim(path, at) {
      const claimed = `${path}.claimed-${Math.round(at)}-${process.pid}-${randomBytes(4).toString('hex')}`;
      try {
        // Not renameReplacing: a claim refused (held open on Windows) throws, and foldSpool leaves the file and its session's later events to the next fold rather than wait.
        await renameDeps.rename(path, claimed);
        return claimed;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
        throw err;
      }
    },
    // Retried while held open: the claimed name is ours alone, and one left unrenamed is swept as a stale claim (its event lost).
    unclaim: (claimedPath, path) => renameReplacing(claimedPath, path, renameDeps),
    append: async (channelDir, sessionId, events) => appendChannelLines(channelDir, sessionId, events),
    remove: unlink,
  };
}

export const nodeSpoolFolding: SpoolFolding = spoolFoldingOn();

/**
 * The same through the synchronous calls, for the plugin's SessionStart fold, which reads through
 * nodeFileAccessSync (src/rules/nodeFileAccess.ts: why). The waits between a refused rename's tries stay timers.
 */
export const nodeSpoolFoldingSync: SpoolFolding = spoolFoldingOn(
  { rename: async (from, to) => renameSync(from, to), sleep: nodeRenameDeps.sleep },
  async (path) => unlinkSync(path),
);
