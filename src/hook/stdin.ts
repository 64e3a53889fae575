/**
 * Reads Claude Code's hook JSON from stdin within a time bound. tool_use_id
 * comes after tool_input, which can be tens of MB, so the whole stream is read;
 * but a stdin that never closes must not hold the tool call, so the read ends at
 * the deadline with whatever arrived.
 */

/** Above this we do not JSON.parse the payload; we pick the small fields from its head and tail. */
const MAX_PARSE_BYTES = 64 * 1024 * 1024;
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

export interface StdinBytes {
  /** The whole payload when it ended in time and was under the parse cap. */
  whole?: Buffer;
  /** First and last bytes of an over-cap payload. */
  head?: Buffer;
  tail?: Buffer;
}

export function readStdin(stream: NodeJS.ReadableStream, timeoutMs: number): Promise<StdinBytes> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let head: Buffer | undefined;
    let tail = Buffer.alloc(0);
    let done = false;
    // Also at the deadline: what arrived may be a complete JSON value whose
    // writer never closed the pipe, so the parser judges it either way.
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      stream.removeAllListeners('data');
      stream.pause();
      resolve(head ? { head, tail } : { whole: Buffer.concat(chunks, total) });
    };
    const timer = setTimeout(finish, Math.max(0, timeoutMs));
    stream.on('data', (chunk: Buffer | string) => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      if (head) {
        tail = Buffer.concat([tail, buf]);
        if (tail.length > EDGE_BYTES) tail = tail.subarray(tail.length - EDGE_BYTES);
        return;
      }
      chunks.push(buf);
      total += buf.length;
      if (total > MAX_PARSE_BYTES) {
        // Keep only the edges from here on, so memory stays bounded whatever arrives.
        const all = Buffer.concat(chunks, total);
        chunks.length = 0;
        head = Buffer.from(all.subarray(0, EDGE_BYTES));
        tail = Buffer.from(all.subarray(all.length - EDGE_BYTES));
      }
    });
    stream.on('end', finish);
    stream.on('error', finish);
  });
}

export function parseHookInput(bytes: StdinBytes): HookInput | undefined {
  if (bytes.whole) {
    let value: unknown;
    try {
      value = JSON.parse(bytes.whole.toString('utf8'));
    } catch {
      return undefined;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    const obj = value as Record<string, unknown>;
    const out: HookInput = {};
    for (const key of FIELDS) {
      const v = obj[key];
      if (typeof v === 'string') out[key] = v;
    }
    return out;
  }
  if (bytes.head && bytes.tail) return pickFromEdges(bytes.head.toString('utf8'), bytes.tail.toString('utf8'));
  return undefined;
}

/**
 * An over-cap payload: Claude Code writes the common fields before tool_input
 * and tool_use_id after it, so the first occurrence in the head and the last in
 * the tail are the top-level ones. Escaped quotes inside tool_input cannot match
 * because the pattern needs an unescaped quote before the key.
 */
function pickFromEdges(head: string, tail: string): HookInput | undefined {
  const out: HookInput = {};
  for (const key of FIELDS) {
    const re = new RegExp(`(?:^|[^\\\\])"${key}"\\s*:\\s*"((?:[^"\\\\]|\\\\.){0,4096})"`, 'g');
    const fromTail = key === 'tool_use_id';
    const text = fromTail ? tail : head;
    let found: string | undefined;
    for (const m of text.matchAll(re)) {
      found = m[1];
      if (!fromTail) break;
    }
    if (found === undefined) continue;
    try {
      out[key] = JSON.parse(`"${found}"`) as string;
    } catch {
      // a malformed escape: leave the field out
    }
  }
  return out.session_id ? out : undefined;
}
