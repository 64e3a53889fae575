/**
 * When a replayed hook first read its transcript copy, told by the copy's access time. A record that
 * lands while a hook runs decides a once-reading hook by whether it came before or after the hook's
 * read; a hook replayed on a busier machine than it ran on (or a slower start: a Python hook) reads
 * later than it did live, so a landing replay puts at the measured latest may still come before its
 * read, and the hook is said to find its call where live it read sooner and did not (field:
 * print-truth-parallel, a shell hook that read 328 ms after its start live, after 1 s replayed).
 * Knowing the read, replay's latest landing waits for it (src/platform/replaySession.ts).
 *
 * Access times: Linux's default `relatime` updates a file's atime on a read when it is not newer than
 * its mtime, so a copy whose atime is set back before the run shows its first read; `noatime`, and
 * file systems that keep no access time, show none (`readsShowIn` says which, once per replay).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** How far back the copy's atime is set: any read after moves it past (NTFS updates a last access only an hour old). */
const SET_BACK_MS = 48 * 3600_000;

/** Whether a read of a file in `dir` moves its atime (probed on a file of our own, removed after). */
export function readsShowIn(dir: string): boolean {
  const probe = path.join(dir, `.first-read-probe-${process.pid}`);
  try {
    fs.writeFileSync(probe, 'x', { mode: 0o600 });
    const watch = new FirstReadWatch(probe);
    fs.readFileSync(probe);
    return watch.readSince();
  } catch {
    return false;
  } finally {
    fs.rmSync(probe, { force: true });
  }
}

/** One run's watch on its copy: set up just before the hook starts. */
export class FirstReadWatch {
  private readonly setBackTo: number;

  constructor(private readonly file: string) {
    const st = fs.statSync(file);
    // In seconds, so the mtime is kept as it is (to the µs): only the atime is set back.
    fs.utimesSync(file, (st.mtimeMs - SET_BACK_MS) / 1000, st.mtimeMs / 1000);
    this.setBackTo = fs.statSync(file).atimeMs;
  }

  /** The copy was read since the watch began. */
  readSince(): boolean {
    try {
      return fs.statSync(this.file).atimeMs > this.setBackTo;
    } catch {
      return false;
    }
  }
}

/** How often a landing that waits for the hook's first read looks for it. */
const FIRST_READ_POLL_MS = 2;

/**
 * Calls `land` `atMs` from now; with `watch`, where the hook has not read its copy by then, once it has
 * and `readingMs` more have passed (after the read, not during it: a reader still going through the file
 * would meet the record appended; field: once.py's read() of a 150 KB copy). `waitedForRead`: it did so.
 */
export function landAfter(atMs: number, watch: FirstReadWatch | undefined, readingMs: number, land: () => void): { cancel(): void; waitedForRead(): boolean } {
  let timer: NodeJS.Timeout | undefined;
  let waited = false;
  timer = setTimeout(() => {
    if (watch === undefined || watch.readSince()) return land();
    waited = true;
    timer = setInterval(() => {
      if (!watch.readSince()) return;
      clearInterval(timer);
      timer = setTimeout(land, readingMs);
    }, FIRST_READ_POLL_MS);
  }, atMs);
  return { cancel: () => clearInterval(timer), waitedForRead: () => waited };
}
