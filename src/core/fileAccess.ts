/**
 * The engine's only way to the file system. Production code passes
 * `nodeFileAccess` (src/platform/nodeFileAccess.ts); tests pass the same over
 * real temp files, or a wrapper that injects faults.
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
  open(path: string): Promise<OpenFile>;
  /** Entry names of a directory; [] when it does not exist. */
  readdir(path: string): Promise<string[]>;
  readFile(path: string): Promise<Buffer>;
}
