/**
 * Reads Claude Code's hook JSON from stdin within a time bound. tool_use_id
 * comes after tool_input, which can be tens of MB, so the whole stream is read;
 * but a stdin that never closes must not hold the tool call, so the read ends at
 * the deadline with whatever arrived.
 *
 * The hook runs on every tool call, so it loads no module bare `node` does not
 * (test/unit/hook/hookModules.test.ts): `process.stdin` would bring net and streams
 * (~30 modules to compile). A regular file is read with readSync; a pipe or
 * socket with libuv's own stream handle, which, unlike a blocking `fs.read` in
 * the threadpool, can be dropped at the deadline: node's exit joins the
 * threadpool, so a read stuck on a stdin that never closes would hold the exit.
 */
// Named imports, not `import * as`: esbuild would copy every export of the module at each start.
import { fstatSync, readSync, type Stats } from 'node:fs';
import { topLevelFields, topLevelFieldsFromEnd, type FieldValues } from './topLevelFields';

/**
 * Up to this size the whole payload is kept and scanned (and validated) end to
 * end; above it only its edges, where the small fields live. The scan is
 * linear, but at a few hundred MB/s in JavaScript: this bound keeps it a few
 * tens of ms on a loaded machine, so the hook's 1 s holds whatever the shape.
 */
const MAX_WHOLE_BYTES = 4 * 1024 * 1024;
/** Bytes kept from each end of an over-cap payload: the small fields live there. */
const EDGE_BYTES = 64 * 1024;

/** The only fields we ever keep; tool_input and tool_response are never retained. */
export interface HookInput {
  hook_event_name?: string;
  session_id?: string;
  transcript_path?: string;
  tool_use_id?: string;
  tool_name?: string;
  prompt_id?: string;
  agent_id?: string;
}

const FIELDS: (keyof HookInput)[] = [
  'hook_event_name',
  'session_id',
  'transcript_path',
  'tool_use_id',
  'tool_name',
  'prompt_id',
  'agent_id',
];
const WANTED: ReadonlySet<string> = new Set(FIELDS);

export interface StdinBytes {
  /** The whole payload when it ended in time and was no larger than MAX_WHOLE_BYTES. */
  whole?: Buffer;
  /** First and last bytes of an over-cap payload. */
  head?: Buffer;
  tail?: Buffer;
}

/** Keeps the whole payload up to MAX_WHOLE_BYTES, then only its edges, so memory stays bounded whatever arrives. */
export class PayloadCollector {
  private chunks: Buffer[] = [];
  private total = 0;
  private head: Buffer | undefined;
  private tail = Buffer.alloc(0);

  push(buf: Buffer): void {
    if (this.head) {
      this.tail = Buffer.concat([this.tail, buf]);
      if (this.tail.length > EDGE_BYTES) this.tail = this.tail.subarray(this.tail.length - EDGE_BYTES);
      return;
    }
    this.chunks.push(buf);
    this.total += buf.length;
    if (this.total > MAX_WHOLE_BYTES) {
      const all = Buffer.concat(this.chunks, this.total);
      this.chunks = [];
      this.head = Buffer.from(all.subarray(0, EDGE_BYTES));
      this.tail = Buffer.from(all.subarray(all.length - EDGE_BYTES));
    }
  }

  bytes(): StdinBytes {
    return this.head ? { head: this.head, tail: this.tail } : { whole: Buffer.concat(this.chunks, this.total) };
  }
}

/** Starts delivering the bytes of fd; calls onEnd once at end of input or on an error. Returns how to stop early. */
type StartReading = (fd: number, onData: (buf: Buffer) => void, onEnd: () => void) => () => void;

const READ_BYTES = 64 * 1024;

/** A regular file (`hook < payload.json`) cannot block: read it at once. */
const readFileSync: StartReading = (fd, onData, onEnd) => {
  try {
    for (;;) {
      const buf = Buffer.allocUnsafe(READ_BYTES);
      const n = readSync(fd, buf, 0, READ_BYTES, null);
      if (n <= 0) break;
      onData(buf.subarray(0, n));
    }
  } catch {
    // an unreadable stdin ends the input like EOF
  }
  onEnd();
  return () => undefined;
};

interface PipeHandle {
  open(fd: number): number;
  readStart(): number;
  readStop(): number;
  close(): void;
  onread: (arrayBuffer: ArrayBuffer | undefined) => void;
}

interface StreamBindings {
  Pipe: new (type: number) => PipeHandle;
  pipeType: number;
  state: Int32Array;
  kReadBytesOrError: number;
  kArrayBufferOffset: number;
}

/**
 * The handle `process.stdin` would wrap in a net.Socket, without net: the
 * pipe_wrap and stream_wrap bindings (in process.binding's allow-list on
 * Node 18-22). Undefined when this runtime does not offer them as expected.
 */
function streamBindings(): StreamBindings | undefined {
  try {
    const binding = (process as unknown as { binding?: (name: string) => Record<string, unknown> }).binding;
    if (typeof binding !== 'function') return undefined;
    const pipeWrap = binding('pipe_wrap');
    const streamWrap = binding('stream_wrap');
    const pipeType = (pipeWrap.constants as Record<string, unknown> | undefined)?.SOCKET;
    const { streamBaseState, kReadBytesOrError, kArrayBufferOffset } = streamWrap;
    if (typeof pipeWrap.Pipe !== 'function' || typeof pipeType !== 'number') return undefined;
    if (!(streamBaseState instanceof Int32Array) || typeof kReadBytesOrError !== 'number' || typeof kArrayBufferOffset !== 'number') return undefined;
    return { Pipe: pipeWrap.Pipe as StreamBindings['Pipe'], pipeType, state: streamBaseState, kReadBytesOrError, kArrayBufferOffset };
  } catch {
    return undefined;
  }
}

/** A pipe or socket through libuv's stream handle; undefined when that cannot be set up (the caller falls back). */
function readPipeHandle(fd: number, onData: (buf: Buffer) => void, onEnd: () => void): (() => void) | undefined {
  const b = streamBindings();
  if (!b) return undefined;
  let handle: PipeHandle | undefined;
  try {
    const h = new b.Pipe(b.pipeType);
    handle = h;
    if (h.open(fd) !== 0) throw new Error('pipe open failed');
    h.onread = (arrayBuffer) => {
      const n = b.state[b.kReadBytesOrError];
      // n < 0 is UV_EOF or a read error: either way the input has ended.
      if (n < 0) onEnd();
      else if (n > 0 && arrayBuffer) onData(Buffer.from(arrayBuffer, b.state[b.kArrayBufferOffset], n));
    };
    if (h.readStart() !== 0) throw new Error('pipe read failed');
    return () => {
      h.readStop();
      h.close();
    };
  } catch {
    try {
      handle?.close();
    } catch {
      // nothing to undo
    }
    return undefined;
  }
}

/** The slow general path (a TTY, or a runtime without the bindings): `process.stdin`, which loads net and streams. */
function readProcessStdin(onData: (buf: Buffer) => void, onEnd: () => void): () => void {
  const stream = process.stdin;
  stream.on('data', (chunk: Buffer | string) => onData(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
  stream.on('end', onEnd);
  stream.on('error', onEnd);
  return () => {
    stream.removeAllListeners('data');
    stream.pause();
  };
}

const readStdinFd: StartReading = (fd, onData, onEnd) => {
  let st: Stats;
  try {
    st = fstatSync(fd);
  } catch {
    // no stdin at all (closed fd 0): an empty payload
    onEnd();
    return () => undefined;
  }
  if (st.isFile()) return readFileSync(fd, onData, onEnd);
  if (st.isFIFO() || st.isSocket()) {
    const stop = readPipeHandle(fd, onData, onEnd);
    if (stop) return stop;
  }
  return readProcessStdin(onData, onEnd);
};

/** Reads stdin (fd 0) until it ends or timeoutMs passes, whichever comes first. */
export function readStdin(timeoutMs: number): Promise<StdinBytes> {
  return new Promise((resolve) => {
    const collector = new PayloadCollector();
    let stop: (() => void) | undefined;
    let done = false;
    // Also at the deadline: what arrived may be a complete JSON value whose
    // writer never closed the pipe, so the parser judges it either way.
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      stop?.();
      resolve(collector.bytes());
    };
    const timer = setTimeout(finish, Math.max(0, timeoutMs));
    stop = readStdinFd(0, (buf) => collector.push(buf), finish);
    // A reader that ended synchronously has nothing left to stop.
    if (done) stop();
  });
}

/**
 * The kept fields of the hook input: only top-level keys, never one inside
 * tool_input or tool_response, and without building those values
 * (./topLevelFields.ts). A payload over MAX_WHOLE_BYTES keeps only its edges: Claude Code
 * writes the common fields before tool_input and tool_use_id after it, so the
 * head is read forwards and the tail backwards from the closing brace, each
 * until it runs into the huge value.
 */
export function parseHookInput(bytes: StdinBytes): HookInput | undefined {
  let fields: FieldValues | undefined;
  if (bytes.whole) fields = topLevelFields(bytes.whole, WANTED);
  else if (bytes.head && bytes.tail) {
    const head = topLevelFields(bytes.head, WANTED, true);
    const tail = topLevelFieldsFromEnd(bytes.tail, WANTED);
    // The tail's members come later in the document: of a key in both, JSON.parse would keep the tail's.
    fields = head && tail && new Map([...head, ...tail]);
    if (!fields?.get('session_id')) return undefined;
  }
  if (!fields) return undefined;
  const out: HookInput = {};
  for (const key of FIELDS) {
    const v = fields.get(key);
    if (typeof v === 'string') out[key] = v;
  }
  return out;
}
