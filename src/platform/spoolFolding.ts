import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import type { SpoolFolding } from '../core/channel/spool';
import { appendChannelLine } from '../hook/channelWriter';

/**
 * The writes folding the mod's spool needs (src/core/channel/spool.ts), on the
 * real file system. A claim is a rename to a name no other folder can make:
 * when two race, one rename finds the file gone (ENOENT) and only the other
 * appends. The append is the hook's own (one write of one line, O_APPEND, a
 * file that is not ours refused), so folded lines are like the hook's.
 */
export const nodeSpoolFolding: SpoolFolding = {
  async claim(path, at) {
    const claimed = `${path}.claimed-${Math.round(at)}-${process.pid}-${randomBytes(4).toString('hex')}`;
    try {
      await fsp.rename(path, claimed);
      return claimed;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw err;
    }
  },
  unclaim: (claimedPath, path) => fsp.rename(claimedPath, path),
  append: async (channelDir, sessionId, event) => appendChannelLine(channelDir, sessionId, event),
  remove: (path) => fsp.unlink(path),
};
