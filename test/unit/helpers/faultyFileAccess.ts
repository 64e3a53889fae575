import type { FileAccess, OpenFile } from '../../../src/core/fileAccess';
import { nodeFileAccess } from '../../../src/platform/nodeFileAccess';

export type FaultOp = 'stat' | 'open' | 'read';

function errnoError(code: string, op: string, path: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`${code}: ${op} '${path}'`);
  err.code = code;
  return err;
}

/**
 * The real file system with switchable faults: while a fault is set, that
 * operation on any path fails with the given errno code (tests run as root, so
 * a real EACCES cannot be had from chmod). Counts reads for tests that care.
 */
export class FaultyFileAccess implements FileAccess {
  private readonly faults = new Map<FaultOp, string>();
  opens = 0;
  reads = 0;
  /** Handles open now (opened, not closed yet). */
  openNow = 0;
  /** Most handles open at once. */
  openPeak = 0;
  private openLimit: { max: number; code: string } | undefined;

  constructor(private readonly inner: FileAccess = nodeFileAccess) {}

  fail(op: FaultOp, code = 'EACCES'): void {
    this.faults.set(op, code);
  }
  heal(op?: FaultOp): void {
    if (op) this.faults.delete(op);
    else this.faults.clear();
  }

  /** Like a process at its descriptor limit: open() fails with `code` while `max` handles are open. */
  limitOpenHandles(max: number, code = 'EMFILE'): void {
    this.openLimit = { max, code };
  }

  private check(op: FaultOp, path: string): void {
    const code = this.faults.get(op);
    if (code) throw errnoError(code, op, path);
  }

  async stat(path: string) {
    this.check('stat', path);
    return this.inner.stat(path);
  }

  async open(path: string): Promise<OpenFile> {
    this.check('open', path);
    if (this.openLimit && this.openNow >= this.openLimit.max) throw errnoError(this.openLimit.code, 'open', path);
    this.openNow += 1;
    let file: OpenFile;
    try {
      file = await this.inner.open(path);
    } catch (err) {
      this.openNow -= 1;
      throw err;
    }
    this.openPeak = Math.max(this.openPeak, this.openNow);
    this.opens += 1;
    let closed = false;
    return {
      read: async (buffer, offset, length, position) => {
        this.check('read', path);
        this.reads += 1;
        return file.read(buffer, offset, length, position);
      },
      stat: () => file.stat(),
      close: () => {
        if (!closed) {
          closed = true;
          this.openNow -= 1;
        }
        return file.close();
      },
    };
  }

  readdir(path: string) {
    return this.inner.readdir(path);
  }

  realpath(path: string) {
    return this.inner.realpath(path);
  }
}
