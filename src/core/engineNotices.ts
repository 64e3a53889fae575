/**
 * What the engine says about itself rather than about a call: a limit it hit
 * and what it did about it. Never silent, never an EngineEvent (views show
 * calls; these go to a log: the CLI's stderr, the extension's output channel).
 */
export type EngineNotice =
  | {
      kind: 'file_limit';
      at: number;
      /** EMFILE (the process's limit on open files) or ENFILE (the system's). */
      code: string;
      path: string;
      open_handles: number;
      /** Idle files were closed and the open went through; false: the file could not be read this time. */
      recovered: boolean;
      /** Files the engine keeps open at once from now on. */
      max_open: number;
    }
  | {
      kind: 'held_calls_capped';
      at: number;
      session_id: string;
      /** Calls fired and not written kept for the session; past it the one fired first is dropped. */
      max_held: number;
    };

/** One line (no newline) saying what happened and what it means. */
export function engineNoticeText(n: EngineNotice): string {
  switch (n.kind) {
    case 'file_limit':
      return n.recovered
        ? `too many open files (${n.code}) at ${n.open_handles} open: closed idle files, keeping at most ${n.max_open} open from now on`
        : `too many open files (${n.code}): could not open ${n.path} with ${n.open_handles} open; its events wait until a file closes (raise the limit with ulimit -n)`;
    case 'held_calls_capped':
      return `session ${n.session_id}: more than ${n.max_held} calls fired without a record; dropping the oldest (a hook flood, or pre events for calls never written)`;
  }
}
