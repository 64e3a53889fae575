/**
 * The engine's only way to the file system, and the spool fold's (src/rules/spoolFold.ts, which the
 * plugin's SessionStart hook runs too). Production code passes `nodeFileAccess`
 * (src/rules/nodeFileAccess.ts); tests pass the same over real temp files, or a wrapper that
 * injects faults. No imports: the hook bundle takes it.
 */
export interface FileIdentity {
  /** Inode and device: a different pair means the path now names another file. */
  ino: number;
  dev: number;
  size: number;
  mtimeMs: number;
  isFile: boolean;
  isDirectory: boolean;
}

export interface OpenFile {
  /** Reads up to `length` bytes at `position` into `buffer` at `offset`; returns bytes read. */
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<number>;
  stat(): Promise<FileIdentity>;
  close(): Promise<void>;
}

export interface FileAccess {
  /** Undefined when the path does not exist (ENOENT/ENOTDIR); other errors throw. */
  stat(path: string): Promise<FileIdentity | undefined>;
  /**
   * Opens for reading without waiting: a FIFO with no writer opens at once
   * (callers then refuse it on its fstat) instead of blocking a thread forever.
   */
  open(path: string): Promise<OpenFile>;
  /**
   * Entry names of a directory; [] when it does not exist. With `each`, an
   * access may hand it the names as it reads them instead (and return only
   * what it did not hand over): a folder of 100,000 names is then never held
   * at once. One that cannot returns them all.
   */
  readdir(path: string, each?: (name: string) => void): Promise<string[]>;
  /** The path with every symlink resolved; undefined when it does not exist (ENOENT/ENOTDIR); other errors throw. */
  realpath(path: string): Promise<string | undefined>;
}

/** A small file that is not one: not a regular file, or bigger than its reader allows. */
export class NotASmallFileError extends Error {
  override name = 'NotASmallFileError';
  constructor(
    readonly path: string,
    readonly reason: 'not a regular file' | 'too large',
  ) {
    super(`${path}: ${reason}`);
  }
}

/**
 * The whole content of a small regular file, at most `maxBytes`: metadata such
 * as a worktree's `gitdir`. Checks the descriptor it reads (fstat after open,
 * so a swap between a stat and the open changes nothing), and never reads past
 * `maxBytes + 1` bytes even when the file grows meanwhile: a FIFO, a device
 * (/dev/zero) or a huge file is refused, not read.
 */
export async function readSmallFile(files: FileAccess, path: string, maxBytes: number): Promise<Buffer> {
  return (await readSmallFileAndIdentity(files, path, maxBytes)).bytes;
}

/** readSmallFile, with what the descriptor's fstat said (its mtime, for one). */
export async function readSmallFileAndIdentity(files: FileAccess, path: string, maxBytes: number): Promise<{ bytes: Buffer; identity: FileIdentity }> {
  const handle = await files.open(path);
  try {
    const identity = await handle.stat();
    if (!identity.isFile) throw new NotASmallFileError(path, 'not a regular file');
    if (identity.size > maxBytes) throw new NotASmallFileError(path, 'too large');
    // Sized to the file (plus one byte, to see it grew); grown to the bound only when it did.
    let buffer = Buffer.alloc(identity.size + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (buffer.length > maxBytes) break;
        const grown = Buffer.alloc(maxBytes + 1);
        buffer.copy(grown);
        buffer = grown;
      }
      const n = await handle.read(buffer, length, buffer.length - length, length);
      if (n === 0) break;
      length += n;
    }
    if (length > maxBytes) throw new NotASmallFileError(path, 'too large');
    return { bytes: buffer.subarray(0, length), identity };
  } finally {
    await handle.close();
  }
}
