// Named imports, not `import * as`: esbuild would copy every export of the module at each start (the hook's SessionStart reads through this too).
import { close, closeSync, constants, fstat, fstatSync, open, opendir, opendirSync, openSync, read, readdir, readdirSync, readSync, realpath, realpathSync, stat, statSync, type Dir, type Dirent, type Stats } from 'node:fs';
import type { FileAccess, FileIdentity, OpenFile } from './fileAccess';

// The callback API, wrapped here, rather than fs/promises: loading fs/promises
// is a cost at every CLI start, and its FileHandle wraps each read in more
// objects than one callback does.

function identity(s: Stats): FileIdentity {
  return { ino: s.ino, dev: s.dev, size: s.size, mtimeMs: s.mtimeMs, isFile: s.isFile(), isDirectory: s.isDirectory() };
}

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** A promise of what a Node callback API call hands its callback. */
function call<T>(start: (done: (err: NodeJS.ErrnoException | null, value: T) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => start((err, value) => (err ? reject(err) : resolve(value))));
}

function openFile(fd: number): OpenFile {
  let closing: Promise<void> | undefined;
  return {
    read: (buffer, offset, length, position) => call<number>((done) => read(fd, buffer, offset, length, position, done)),
    stat: async () => identity(await call<Stats>((done) => fstat(fd, done))),
    // Once: a descriptor number is reused by the next open, so a second close could close someone else's file.
    close: () => (closing ??= call<void>((done) => close(fd, (err) => done(err, undefined)))),
  };
}

// O_NONBLOCK: opening a FIFO that has no writer would otherwise wait for one,
// holding a libuv thread (and the caller) forever. It changes nothing for a
// regular file. Windows has no such flag and no FIFOs to open.
const OPEN_READ = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/** Names a streamed listing reads per call into the thread pool. */
const LISTED_AT_ONCE = 1024;

/** The real file system, for the CLI, the extension and tests over temp files. */
export const nodeFileAccess: FileAccess = {
  async stat(path) {
    try {
      return identity(await call<Stats>((done) => stat(path, done)));
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  },
  async open(path): Promise<OpenFile> {
    return openFile(await call<number>((done) => open(path, OPEN_READ, done)));
  },
  async realpath(path) {
    try {
      return await call<string>((done) => realpath.native(path, done));
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  },
  async readdir(path, each) {
    let dir: Dir | undefined;
    try {
      if (!each) return await call<string[]>((done) => readdir(path, done));
      // Streamed: fs.readdir gathers every name in a libuv thread's malloc arena first, which keeps
      // that memory (a listing of the spool's 100,000 names left each of the four arenas it ran in grown).
      dir = await call<Dir>((done) => opendir(path, { bufferSize: LISTED_AT_ONCE }, done));
    } catch (err) {
      if (isMissing(err)) return [];
      throw err;
    }
    // A failure once names were handed over throws: the caller has only part of the folder.
    try {
      for (;;) {
        // One read in the thread pool fills the buffer, the rest of it is taken as it lies: an
        // entry at a time through promises allocated a hundred times the names' own size.
        const first = await call<Dirent | null>((done) => dir.read(done));
        if (first === null) return [];
        each(first.name);
        for (let k = 1; k < LISTED_AT_ONCE; k++) {
          const next = dir.readSync();
          if (next === null) return [];
          each(next.name);
        }
      }
    } finally {
      await call<void>((done) => dir.close((err) => done(err ?? null, undefined))).catch(() => undefined);
    }
  },
};

function openFileSync(fd: number): OpenFile {
  let closed = false;
  return {
    read: async (buffer, offset, length, position) => readSync(fd, buffer, offset, length, position),
    stat: async () => identity(fstatSync(fd)),
    // Once, as openFile's: the number may be another file's after the first close.
    close: async () => {
      if (closed) return;
      closed = true;
      closeSync(fd);
    },
  };
}

/**
 * The real file system through the synchronous calls, each answer a settled promise: for a process that
 * does one job and leaves (the plugin's SessionStart fold, src/hook/spoolAtStart.ts), where the thread
 * pool's hand-off each way costs more than the call and the event loop has nothing else to do. Folding
 * a session's 74 spool files took 50 ms of CPU through nodeFileAccess on a busy 2-core machine (BENCHMARKS.md).
 * Reads the same, opened the same way (no FIFO waits for a writer).
 */
export const nodeFileAccessSync: FileAccess = {
  async stat(path) {
    try {
      return identity(statSync(path));
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  },
  open: async (path) => openFileSync(openSync(path, OPEN_READ)),
  async realpath(path) {
    try {
      return realpathSync.native(path);
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  },
  async readdir(path, each) {
    let dir: Dir;
    try {
      if (!each) return readdirSync(path);
      // Streamed as nodeFileAccess streams it: the names are handed over as read, never all held.
      dir = opendirSync(path, { bufferSize: LISTED_AT_ONCE });
    } catch (err) {
      if (isMissing(err)) return [];
      throw err;
    }
    try {
      for (let entry = dir.readSync(); entry !== null; entry = dir.readSync()) each(entry.name);
      return [];
    } finally {
      dir.closeSync();
    }
  },
};
