import * as fs from 'node:fs';
import type { RenameDeps } from '../../../src/rules/renameReplacing';

export type HeldOpenRename = RenameDeps & {
  /** The waits asked for between tries, in order. */
  waits: number[];
  /** Renames refused so far. */
  refused: number;
};

/**
 * A file system that answers renames as Windows does while another process (an editor, an
 * antivirus scanner) holds `heldPath` open without FILE_SHARE_DELETE: a rename from or over it
 * fails with `code`, `refusals` times (Infinity: for good), then renames for real. The waits
 * are recorded, not slept.
 */
export function heldOpenByAnother(heldPath: string, code: string, refusals: number): HeldOpenRename {
  let left = refusals;
  const deps: HeldOpenRename = {
    waits: [],
    refused: 0,
    async rename(from, to) {
      if ((from === heldPath || to === heldPath) && left > 0) {
        left--;
        deps.refused++;
        throw Object.assign(new Error(`${code}: operation not permitted, rename '${from}' -> '${to}'`), { code, syscall: 'rename', path: from, dest: to });
      }
      fs.renameSync(from, to);
    },
    async sleep(ms) {
      deps.waits.push(ms);
    },
  };
  return deps;
}
