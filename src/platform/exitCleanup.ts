/**
 * Work that must be undone however this process ends: the hooks `replay` runs lead process groups of
 * their own (so a timeout kills their children), which outlive us unless killed, and its temp folder
 * holds copies of a transcript. A normal end undoes both itself; this is for the other ends: a closed
 * pipe (`replay … | head -n1` exits through `process.exit`), an uncaught error, the extension host
 * shutting down mid-replay. Node runs 'exit' listeners on each of those, synchronously: each undo here
 * must be synchronous too (process.kill, fs.rmSync, spawnSync).
 */

type Undo = () => void;

const pending = new Set<Undo>();
let listening = false;

function runAll(): void {
  for (const undo of [...pending]) {
    pending.delete(undo);
    try {
      undo();
    } catch {
      // Nothing more can be done while the process exits; the next undo still runs.
    }
  }
}

/** Runs `undo` if the process exits before the returned function is called (which forgets it). */
export function undoAtExit(undo: Undo): () => void {
  if (!listening) {
    listening = true;
    process.on('exit', runAll);
  }
  pending.add(undo);
  return () => {
    pending.delete(undo);
  };
}
