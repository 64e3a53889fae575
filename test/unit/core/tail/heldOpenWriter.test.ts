import { strict as assert } from 'node:assert';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FileTail } from '../../../../src/core/tail';
import type { TailLine, TailRead } from '../../../../src/core/tailTypes';
import { bytesTail, makeTempDir, removeTempDir, texts } from '../../helpers/tailHarness';

// Claude Code is another process that opens the transcript for appending and keeps it open
// while it writes a session's records, some of them in more than one write. On Windows two
// processes share a file only as far as each one's share mode lets the other (issue 26, item 5):
// the writer here is a second Node (node.exe under the Windows lane), holding one handle from
// its open to its close, and the tail is the real FileTail on the real file system.

/** The writer's side: opens argv[1] for appending once, writes what stdin asks through that one handle, answers on stdout. */
const WRITER = `
const fs = require('node:fs');
const fd = fs.openSync(process.argv[1], 'a');
const answer = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
answer({ opened: true });
let pending = '';
process.stdin.on('data', (chunk) => {
  pending += chunk;
  for (let nl; (nl = pending.indexOf('\\n')) !== -1; ) {
    const ask = JSON.parse(pending.slice(0, nl));
    pending = pending.slice(nl + 1);
    if (ask.close) {
      fs.closeSync(fd);
      answer({ closed: true });
      process.exit(0);
    }
    const bytes = Buffer.from(ask.write, 'base64');
    answer({ wrote: fs.writeSync(fd, bytes), size: fs.fstatSync(fd).size });
  }
});
`;

/** How long one answer of the writer may take: a node.exe start under Wine takes seconds. */
const ANSWER_BOUND_MS = 15_000;

class HeldOpenWriter {
  private answers: string[] = [];
  private waiting: (() => void) | undefined;
  private stderr = '';
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;

  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      for (let nl; (nl = out.indexOf('\n')) !== -1; ) {
        this.answers.push(out.slice(0, nl));
        out = out.slice(nl + 1);
      }
      this.waiting?.();
    });
    child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
    child.on('exit', (code, signal) => {
      this.exit = { code, signal };
      this.waiting?.();
    });
  }

  /** A writer process that has opened `file` for appending (creating it) and holds it. */
  static async open(file: string): Promise<HeldOpenWriter> {
    const writer = new HeldOpenWriter(spawn(process.execPath, ['-e', WRITER, file], { stdio: ['pipe', 'pipe', 'pipe'] }));
    assert.deepEqual(await writer.answer(), { opened: true });
    return writer;
  }

  /** Still running, so still holding the file open. */
  get holding(): boolean {
    return this.exit === undefined;
  }

  /** One write through the held handle; resolves once it is in the file, with the file's size then. */
  async write(text: string): Promise<number> {
    const bytes = Buffer.from(text, 'utf8');
    this.child.stdin.write(`${JSON.stringify({ write: bytes.toString('base64') })}\n`);
    const done = (await this.answer()) as { wrote: number; size: number };
    assert.equal(done.wrote, bytes.length);
    return done.size;
  }

  async close(): Promise<void> {
    this.child.stdin.write(`${JSON.stringify({ close: true })}\n`);
    assert.deepEqual(await this.answer(), { closed: true });
    await this.until(() => this.exit !== undefined, 'exit');
    assert.deepEqual(this.exit, { code: 0, signal: null });
  }

  /** Ends the writer if it still runs (a failed test), and waits for it: Windows keeps a running process's files. */
  async stop(): Promise<void> {
    if (!this.holding) return;
    this.child.kill();
    await this.until(() => this.exit !== undefined, 'exit').catch(() => undefined);
  }

  private async answer(): Promise<unknown> {
    await this.until(() => this.answers.length > 0, 'answer');
    return JSON.parse(this.answers.shift()!);
  }

  /** Waits for `done`, bounded; the writer exiting first is a failure. */
  private until(done: () => boolean, what: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => finish(new Error(`the writer gave no ${what} within ${ANSWER_BOUND_MS} ms: ${this.stderr}`)), ANSWER_BOUND_MS);
      const finish = (err?: Error) => {
        clearTimeout(timer);
        this.waiting = undefined;
        if (err) reject(err);
        else resolve();
      };
      const check = () => {
        if (done()) finish();
        else if (this.exit !== undefined) finish(new Error(`the writer exited (${this.exit.code ?? this.exit.signal}) before its ${what}: ${this.stderr}`));
      };
      this.waiting = check;
      check();
    });
  }
}

const record = (n: number, text: string) => JSON.stringify({ type: 'assistant', uuid: `a${n}`, message: { content: [{ type: 'text', text }] } });
const R1 = record(1, 'first');
const R2 = record(2, 'second, in the same write as the first');
const R3 = record(3, 'split across two writes: héllo ✓ 日本語');
const R4 = record(4, 'in the write that completes the third');
const R5 = record(5, 'last, just before the writer closes');
/** The start of a sixth record that the writer never finishes. */
const UNFINISHED = '{"type":"assistant","uuid":"a6"';
const UNFINISHED_BYTES = Buffer.byteLength(UNFINISHED);

describe('FileTail: a transcript another process holds open for writing', () => {
  let dir: string;
  let file: string;
  let writer: HeldOpenWriter | undefined;
  let tail: FileTail<Buffer> | undefined;
  beforeEach(() => {
    dir = makeTempDir();
    file = path.join(dir, 'session.jsonl');
  });
  afterEach(async () => {
    await writer?.stop();
    await tail?.close();
    writer = undefined;
    tail = undefined;
    removeTempDir(dir);
  });

  /**
   * The writer's records in several writes, each followed by one read of the tail: once a
   * write is in the file, the next read must deliver every line it completed, and nothing of a
   * line not yet complete, all while the writer holds the file open. Then the writer closes.
   */
  async function followWrites(rig: ReturnType<typeof bytesTail>, held: HeldOpenWriter, before: string[]): Promise<void> {
    const delivered: TailLine<Buffer>[] = [];
    const readOnce = async (): Promise<TailRead<Buffer>> => {
      const read = await rig.tail.read();
      assert.deepEqual(read.changes, [], 'the same file throughout: no truncation, replacement or unreadability');
      assert.equal(read.more, undefined, 'one read takes all the writer has written');
      delivered.push(...read.lines);
      return read;
    };
    const step = async (text: string, expected: string[], partialBytes: number) => {
      const size = await held.write(text);
      const read = await readOnce();
      assert.deepEqual(texts(read.lines), expected, `after writing ${JSON.stringify(text.slice(0, 40))}…`);
      assert.equal(rig.tail.offset, size, 'read up to the size the writer saw after its write');
      assert.equal(rig.tail.partialBytes, partialBytes);
      assert.ok(held.holding, 'the writer still holds the file open');
    };

    await step(`${R1}\n${R2}\n`, [R1, R2], 0);
    await step(R3.slice(0, 40), [], Buffer.byteLength(R3.slice(0, 40)));
    rig.clock.advance(250);
    await step(`${R3.slice(40)}\n${R4}\n`, [R3, R4], 0);
    assert.deepEqual(delivered.slice(-2).map((l) => l.partialDwellMs), [250, 0], 'the third line sat partial from the read that first saw it');
    await step(`${R5}\n`, [R5], 0);
    // The start of a line that is never finished: held back, while the writer holds the file and after it closes.
    await step(UNFINISHED, [], UNFINISHED_BYTES);
    await held.close();
    assert.ok(!held.holding);
    const afterClose = await readOnce();
    assert.deepEqual(afterClose.lines, []);
    assert.equal(rig.tail.partialBytes, UNFINISHED_BYTES);

    const all = [...before, R1, R2, R3, R4, R5];
    assert.deepEqual(texts(delivered), all.slice(before.length), 'every complete line once, in order');
    assert.equal(rig.tail.generation, 1);
    assert.equal(rig.tail.lineCount, all.length);
    // Contiguous numbers and byte ranges: no line dropped, repeated or merged.
    let byte = before.reduce((n, r) => n + Buffer.byteLength(r) + 1, 0);
    delivered.forEach((line, i) => {
      assert.equal(line.line, before.length + i + 1);
      assert.equal(line.byteStart, byte);
      byte = line.byteEnd;
    });
    assert.equal(byte + UNFINISHED_BYTES, fs.statSync(file).size);
  }

  it('delivers every complete line once while the writer holds the file, the partial one only once completed', async () => {
    writer = await HeldOpenWriter.open(file);
    const rig = bytesTail(file, { chunkSize: 16 });
    tail = rig.tail;
    // The writer created the file and holds it: the tail opens it while that handle is open.
    assert.deepEqual(await rig.tail.read(), { lines: [], changes: [] });
    await followWrites(rig, writer, []);
  });

  it('follows a transcript it already holds when the writer opens it again to append (a resumed session)', async () => {
    const history = [record(0, 'written before this session resumed')];
    fs.writeFileSync(file, `${history[0]}\n`);
    const rig = bytesTail(file, { chunkSize: 16 });
    tail = rig.tail;
    assert.deepEqual(texts((await rig.tail.read()).lines), history);
    // The tail's handle is open: the writer's open for appending must not be refused, nor refuse the tail's reads.
    writer = await HeldOpenWriter.open(file);
    await followWrites(rig, writer, history);
  });
});
