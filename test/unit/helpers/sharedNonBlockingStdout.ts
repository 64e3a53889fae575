// Runs a bundled command the way a Node hook that shares its stdout with it does, so the command's
// stdout is a full, non-blocking pipe whose reader is slow, or never reads.
import { type ChildProcessByStdio, execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';

/** The first line the parent writes on stderr once the shared pipe is non-blocking and full. */
export const SHARED_READY = 'shared stdout: non-blocking, full';

/**
 * The parent: spawns `node <argv>` with stdout 'inherit' (libuv makes a child's stdio blocking at
 * spawn), then opens its own process.stdout, which makes the pipe, and so the child's fd 1,
 * non-blocking: O_NONBLOCK belongs to the pipe, not to a process. It fills the pipe until EAGAIN,
 * says so on stderr, and only then hands the child its stdin, so the child's first write meets a
 * full pipe whatever the pipe's size. It exits with the child's code.
 */
const PARENT = `
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const input = fs.readFileSync(0);
const child = spawn(process.execPath, process.argv.slice(1), { stdio: ['pipe', 'inherit', 'inherit'] });
child.on('exit', (code) => { process.exitCode = code ?? 128; });
process.stdout;
// The test proves nothing unless the pipe is non-blocking now (and the fill below would block).
try {
  const flags = parseInt(/flags:\\s*(\\d+)/.exec(fs.readFileSync('/proc/self/fdinfo/1', 'utf8'))[1], 8);
  if ((flags & 0o4000) === 0) throw new Error('process.stdout left the pipe blocking');
} catch (err) {
  if (err.code !== 'ENOENT') throw err;
}
// 4 KiB writes, then single bytes: full even for a line shorter than the room a 4 KiB write left.
for (const size of [4096, 1]) {
  const dots = Buffer.alloc(size, 0x2e);
  for (;;) {
    try {
      fs.writeSync(1, dots);
    } catch (err) {
      if (err.code !== 'EAGAIN') throw err;
      break;
    }
  }
}
fs.writeSync(2, ${JSON.stringify(`${SHARED_READY}\n`)});
child.stdin.end(input);
`;

export interface SharedRun {
  code: number | null;
  /** What the command wrote to stdout, the parent's fill removed. */
  stdout: string;
  /** The command's stderr, the parent's ready line removed. */
  stderr: string;
  /** The parent's ready line came first: the pipe was non-blocking and full before the command wrote. */
  ready: boolean;
}

/**
 * Runs `node <argv>` (stdin `input`, environment `env`) under that parent, its stdout a FIFO that
 * this side reads with plain non-blocking reads (no stream reading ahead into its buffer), and only
 * `readAfterMs` after the pipe is full, or, with `readAfterMs` undefined, once the parent has
 * exited: a reader that never reads while the command runs.
 */
export async function runWithSharedNonBlockingStdout(argv: string[], input: string, env: NodeJS.ProcessEnv, readAfterMs?: number): Promise<SharedRun> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-shared-stdout-'));
  const fifo = path.join(dir, 'stdout');
  execFileSync('mkfifo', [fifo]);
  const readFd = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  const writeFd = fs.openSync(fifo, fs.constants.O_WRONLY);
  try {
    const child = spawn(process.execPath, ['-e', PARENT, ...argv], { env, stdio: ['pipe', writeFd, 'pipe'] }) as ChildProcessByStdio<Writable, null, Readable>;
    fs.closeSync(writeFd);
    let err = '';
    const ready = new Promise<void>((resolve) =>
      child.stderr.setEncoding('utf8').on('data', (d: string) => {
        err += d;
        resolve();
      }),
    );
    const exited = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
    // Not one byte is read before the reader's time.
    await (readAfterMs === undefined ? exited : Promise.race([ready.then(() => sleep(readAfterMs)), exited]));
    const out: Buffer[] = [];
    const buf = Buffer.alloc(64 * 1024);
    for (;;) {
      let n: number;
      try {
        n = fs.readSync(readFd, buf, 0, buf.length, null);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
        await sleep(2);
        continue;
      }
      if (n === 0) break; // every writer (the parent, the command) is gone
      out.push(Buffer.from(buf.subarray(0, n)));
    }
    const code = await exited;
    await closed;
    const wasReady = err.startsWith(`${SHARED_READY}\n`);
    return { code, stdout: Buffer.concat(out).toString('utf8').replace(/^\.+/, ''), stderr: wasReady ? err.slice(SHARED_READY.length + 1) : err, ready: wasReady };
  } finally {
    fs.closeSync(readFd);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
