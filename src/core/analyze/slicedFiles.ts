import type { FileAccess, FileIdentity, OpenFile } from '../fileAccess';

/**
 * Shows FileTail one file as if it were still being written: its size is
 * capped at `limit`, which the caller raises one slice at a time. FileTail
 * reads up to the size it sees in one read() and returns every line of that
 * read together; slicing keeps a multi-GB transcript from becoming millions of
 * TailLine objects held at once, while the tail itself stays untouched.
 */
export class SlicedFileAccess implements FileAccess {
  limit = 0;

  constructor(
    private readonly inner: FileAccess,
    private readonly slicedPath: string,
  ) {}

  private cap(id: FileIdentity): FileIdentity {
    return id.size > this.limit ? { ...id, size: this.limit } : id;
  }

  async stat(path: string): Promise<FileIdentity | undefined> {
    const id = await this.inner.stat(path);
    return id && path === this.slicedPath ? this.cap(id) : id;
  }

  async open(path: string): Promise<OpenFile> {
    const file = await this.inner.open(path);
    if (path !== this.slicedPath) return file;
    return {
      read: (buffer, offset, length, position) => file.read(buffer, offset, length, position),
      stat: async () => this.cap(await file.stat()),
      close: () => file.close(),
    };
  }

  readdir(path: string): Promise<string[]> {
    return this.inner.readdir(path);
  }

  readFile(path: string): Promise<Buffer> {
    return this.inner.readFile(path);
  }
}
