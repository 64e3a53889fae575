import type { FileAccess, FileIdentity, OpenFile } from './fileAccess';

/** What the engine says when the system's limit on open files got in its way. */
export interface FileLimitNotice {
  /** EMFILE (this process's limit) or ENFILE (the system's). */
  code: string;
  path: string;
  /** Handles this access held open when it was hit. */
  openHandles: number;
  /** Whether closing idle handles made room (the open went through), or the open failed. */
  recovered: boolean;
}

export const DEFAULT_MAX_OPEN_FILES = 256;

function isFileLimit(err: unknown): string | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EMFILE' || code === 'ENFILE' ? code : undefined;
}

/** The path no longer names the file first opened: reading it again would read another file. */
class ReplacedError extends Error {
  readonly code = 'ESTALE';
  constructor(path: string) {
    super(`ESTALE: ${path} was replaced while its handle was closed`);
  }
}

/**
 * A FileAccess whose open files hold a descriptor only while needed: at most
 * `maxOpen` at once, the least recently used idle one closed to make room and
 * opened again by path on its next use, where its device and inode must still
 * be the ones first opened (else the operation fails, as on a file that went
 * away, so the tail's replacement and truncation checks keep their meaning).
 *
 * A followed transcript or channel file is idle nearly all the time: hundreds
 * of sessions then need only as many descriptors as are read at once. When the
 * system refuses an open anyway (EMFILE/ENFILE: the process shares its limit
 * with others, e.g. the extension host), idle handles are closed and the open
 * tried again, the bound is lowered to what fitted, and `onLimit` is told, so
 * hitting the limit is never silent.
 *
 * The cost: a file replaced or deleted while its handle is closed cannot be
 * read to its end any more (the tail drains an open one before switching), so
 * lines appended to it after our last read and before it went are not seen.
 */
export class BoundedFileAccess implements FileAccess {
  /** Handles holding a descriptor, least recently used first. */
  private readonly lru = new Set<PooledFile>();
  private maxOpen: number;
  /** Opens under way: they count against the bound before they hold a descriptor (two readers may open at once). */
  private opening = 0;

  constructor(
    private readonly inner: FileAccess,
    maxOpen: number = DEFAULT_MAX_OPEN_FILES,
    private readonly onLimit: (notice: FileLimitNotice) => void = () => undefined,
  ) {
    if (!Number.isInteger(maxOpen) || maxOpen < 1) throw new RangeError(`maxOpen must be a positive integer, got ${maxOpen}`);
    this.maxOpen = maxOpen;
  }

  /** Descriptors held now. */
  get openHandles(): number {
    return this.lru.size;
  }

  /** The bound in force (lowered when the system refused an open below it). */
  get limit(): number {
    return this.maxOpen;
  }

  stat(path: string): Promise<FileIdentity | undefined> {
    return this.inner.stat(path);
  }

  realpath(path: string): Promise<string | undefined> {
    return this.inner.realpath(path);
  }

  readdir(path: string, each?: (name: string) => void): Promise<string[]> {
    return this.withRoom(path, () => this.inner.readdir(path, each));
  }

  async open(path: string): Promise<OpenFile> {
    const file = new PooledFile(this, path);
    await file.attach();
    return file;
  }

  /** Opens the path's descriptor for `file`, making room first. */
  async openFor(file: PooledFile): Promise<OpenFile> {
    while (this.lru.size + this.opening >= this.maxOpen && (await this.evictIdle())) {
      // closed one idle handle; look again
    }
    this.opening++;
    try {
      const handle = await this.withRoom(file.path, () => this.inner.open(file.path));
      this.lru.add(file);
      return handle;
    } finally {
      this.opening--;
    }
  }

  /** Runs an operation that takes a descriptor; on EMFILE/ENFILE closes idle handles and tries again. */
  private async withRoom<T>(path: string, run: () => Promise<T>): Promise<T> {
    for (;;) {
      try {
        return await run();
      } catch (err) {
        const code = isFileLimit(err);
        if (code === undefined) throw err;
        const held = this.lru.size;
        if (!(await this.evictIdle())) {
          this.onLimit({ code, path, openHandles: held, recovered: false });
          throw err;
        }
        // What was open when the system said no is what fits: stay below it from now on.
        if (held <= this.maxOpen) {
          this.maxOpen = Math.max(1, held - 1);
          this.onLimit({ code, path, openHandles: held, recovered: true });
        }
      }
    }
  }

  touch(file: PooledFile): void {
    this.lru.delete(file);
    this.lru.add(file);
  }

  release(file: PooledFile): void {
    this.lru.delete(file);
  }

  /** Closes the least recently used handle not in an operation; false when every one is busy. */
  private async evictIdle(): Promise<boolean> {
    for (const file of this.lru) {
      if (file.busy) continue;
      this.lru.delete(file);
      await file.detach();
      return true;
    }
    return false;
  }
}

class PooledFile implements OpenFile {
  private handle: OpenFile | undefined;
  /** Operations running on the descriptor: it is not closed under them. */
  busy = 0;
  private closed = false;
  /** Which file this handle is: from its first fstat (every reader checks what it opened before reading it). */
  private first: { dev: number; ino: number } | undefined;

  constructor(
    private readonly pool: BoundedFileAccess,
    readonly path: string,
  ) {}

  /** The first open. */
  async attach(): Promise<void> {
    // Busy from the start: the pool lists the descriptor before this holds it, and must not close it in between.
    this.busy++;
    try {
      this.handle = await this.pool.openFor(this);
    } catch (err) {
      this.closed = true;
      throw err;
    } finally {
      this.busy--;
    }
  }

  /** Closes the descriptor; the next operation opens the path again. */
  async detach(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close().catch(() => undefined);
  }

  private async use<T>(op: (handle: OpenFile) => Promise<T>): Promise<T> {
    if (this.closed) throw new Error(`${this.path}: handle closed`);
    this.busy++;
    try {
      let handle = this.handle;
      if (handle) this.pool.touch(this);
      else {
        handle = this.handle = await this.pool.openFor(this);
        const id = await handle.stat().catch(async (err: unknown) => {
          await this.dropHandle();
          throw err;
        });
        // Unknown identity (closed before its first fstat) counts as replaced: nothing proves it is the same file.
        if (id.dev !== this.first?.dev || id.ino !== this.first?.ino) {
          await this.dropHandle();
          throw new ReplacedError(this.path);
        }
      }
      return await op(handle);
    } finally {
      this.busy--;
    }
  }

  private async dropHandle(): Promise<void> {
    this.pool.release(this);
    await this.detach();
  }

  read(buffer: Buffer, offset: number, length: number, position: number): Promise<number> {
    return this.use((h) => h.read(buffer, offset, length, position));
  }

  async stat(): Promise<FileIdentity> {
    const id = await this.use((h) => h.stat());
    this.first ??= { dev: id.dev, ino: id.ino };
    return id;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.dropHandle();
  }
}
