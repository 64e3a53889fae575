import type { FileAccess, OpenFile } from '../../../src/core/fileAccess';
import { nodeFileAccess } from '../../../src/platform/nodeFileAccess';

/**
 * The real file system, where reads of one file stop at a gate: the first
 * `passBefore` reads of it go through, the next ones wait until release().
 * So a test can hold the engine in the middle of indexing a file's history,
 * deterministically, and act meanwhile.
 */
export class GatedFileAccess implements FileAccess {
  /** Reads of the gated file issued so far. */
  reads = 0;
  private released = false;
  private waiting: (() => void)[] = [];
  /** Resolves once a read of the gated file is waiting at the gate. */
  readonly reachedGate: Promise<void>;
  private reached!: () => void;

  constructor(
    private readonly gated: (path: string) => boolean,
    private readonly passBefore: number,
    private readonly inner: FileAccess = nodeFileAccess,
  ) {
    this.reachedGate = new Promise((resolve) => (this.reached = resolve));
  }

  /** Lets every waiting and later read through. */
  release(): void {
    this.released = true;
    for (const go of this.waiting.splice(0)) go();
  }

  /** Per path, the furthest byte any read has returned. */
  readonly readEnds = new Map<string, number>();

  async open(path: string): Promise<OpenFile> {
    const file = await this.inner.open(path);
    const gated = this.gated(path);
    return {
      read: async (buffer, offset, length, position) => {
        if (gated && !this.released && this.reads++ >= this.passBefore) {
          this.reached();
          await new Promise<void>((resolve) => this.waiting.push(resolve));
        }
        const n = await file.read(buffer, offset, length, position);
        this.readEnds.set(path, Math.max(this.readEnds.get(path) ?? 0, position + n));
        return n;
      },
      stat: () => file.stat(),
      close: () => file.close(),
    };
  }

  stat(path: string) {
    return this.inner.stat(path);
  }
  readdir(path: string) {
    return this.inner.readdir(path);
  }
  realpath(path: string) {
    return this.inner.realpath(path);
  }
}
