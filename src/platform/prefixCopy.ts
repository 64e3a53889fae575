/**
 * A file that holds the first N bytes of another, for `replay`: the transcript as a hook saw it.
 * Calls come in file order, so from one call to the next a copy mostly grows by what was appended
 * between them: it is grown by appending from the source and shrunk by truncating, never copied
 * whole again, unless something else changed it meanwhile (a hook wrote to or removed the copy it
 * was handed), which a look at its identity after each use tells; then it is made again from 0.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const CHUNK = 1024 * 1024;
/** The buffer copies are made through (PrefixCopy.setLength), made at the first. */
let chunkBuffer: Buffer | undefined;
const OPEN_SOURCE = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0) | (fs.constants.O_NOCTTY ?? 0);

/** The source, opened once: a regular file, read by offset. */
export class SourceFile {
  readonly fd: number;
  readonly size: number;

  constructor(readonly path: string) {
    this.fd = fs.openSync(path, OPEN_SOURCE);
    const st = fs.fstatSync(this.fd);
    if (!st.isFile()) {
      fs.closeSync(this.fd);
      throw new Error(`${path}: not a regular file`);
    }
    this.size = st.size;
  }

  /** Bytes [start, end) of the source. */
  read(start: number, end: number): Buffer {
    return this.readInto(Buffer.allocUnsafe(end - start), start, end);
  }

  /** Bytes [start, end) of the source into the head of `buf` (at least that long); that part of it. */
  readInto(buf: Buffer, start: number, end: number): Buffer {
    const length = end - start;
    let got = 0;
    while (got < length) {
      const n = fs.readSync(this.fd, buf, got, length - got, start + got);
      if (n <= 0) throw new Error(`${this.path}: ended at ${start + got} bytes, ${end} expected (truncated while replayed?)`);
      got += n;
    }
    return buf.subarray(0, length);
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}

interface Written {
  length: number;
  ino: number;
  size: number;
  mtimeMs: number;
}

export class PrefixCopy {
  private written: Written | undefined;

  constructor(
    private readonly source: SourceFile,
    readonly dest: string,
  ) {}

  /** Makes the copy hold exactly the source's first `length` bytes. */
  setLength(length: number): void {
    if (length > this.source.size) throw new Error(`${this.source.path}: ${length} bytes asked of a file of ${this.source.size}`);
    let from = this.intactLength();
    if (from === undefined) {
      fs.mkdirSync(path.dirname(this.dest), { recursive: true, mode: 0o700 });
      fs.rmSync(this.dest, { recursive: true, force: true });
      from = 0;
    }
    const fd = fs.openSync(this.dest, fs.constants.O_WRONLY | fs.constants.O_CREAT | (fs.constants.O_NOFOLLOW ?? 0), 0o600);
    try {
      if (length < from) fs.ftruncateSync(fd, length);
      else {
        if (from === 0) fs.ftruncateSync(fd, 0);
        // One buffer for every chunk of every copy: a buffer a chunk is garbage V8 counts only as external memory,
        // which grew replay's RSS by tens of MB while a session's copies grew (BENCHMARKS.md, "Replay memory").
        const buffer = (chunkBuffer ??= Buffer.allocUnsafeSlow(CHUNK));
        for (let at = from; at < length; at += CHUNK) {
          const end = Math.min(length, at + CHUNK);
          const bytes = this.source.readInto(buffer, at, end);
          let done = 0;
          while (done < bytes.length) done += fs.writeSync(fd, bytes, done, bytes.length - done, at + done);
        }
      }
      const st = fs.fstatSync(fd);
      this.written = { length, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs };
    } finally {
      fs.closeSync(fd);
    }
  }

  /** The copy's times were set by us (./firstRead.ts sets its atime back, its mtime to the µs): still intact. */
  timesSetByUs(): void {
    if (this.written === undefined) return;
    try {
      const st = fs.lstatSync(this.dest);
      if (st.isFile() && st.ino === this.written.ino && st.size === this.written.size) this.written.mtimeMs = st.mtimeMs;
    } catch {
      // gone: made again at the next setLength
    }
  }

  /** How much of the copy is still what was written, when nothing else changed it; else undefined. */
  private intactLength(): number | undefined {
    if (this.written === undefined) return undefined;
    let st: fs.Stats;
    try {
      st = fs.lstatSync(this.dest);
    } catch {
      return undefined;
    }
    const w = this.written;
    return st.isFile() && st.ino === w.ino && st.size === w.size && st.mtimeMs === w.mtimeMs ? w.length : undefined;
  }
}
