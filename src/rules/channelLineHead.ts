import { CHANNEL_SCHEMA_VERSION, CHANNEL_TRANSPORTS, HOOKS_DECISIONS, type HooksDecision, MAX_HOOKS_MS, MAX_ID_LENGTH, MAX_PATH_LENGTH } from './channelConstants';

/**
 * The first, zod-free step of reading a channel line, shared by the engine's reader (src/core/channel/reader.ts,
 * which then validates the whole event with zod) and the status line (src/cli/statusline.ts, which
 * starts every second and loads no zod): JSON, an object, a version we know, an event we know, and
 * the later event of two lines a killed write glued together. So both take the same lines.
 */

export const KNOWN_EVENTS: ReadonlySet<string> = new Set(['pre', 'post', 'hooks', 'hook_run', 'wait', 'landed', 'record', 'measured']);
/** Every line our hook writes starts so; a line that also holds it later is two lines glued by a killed write. */
const EVENT_START = '{"v":';

export type ChannelLineHead =
  | { kind: 'candidate'; obj: Record<string, unknown>; event: string }
  | { kind: 'malformed' }
  | { kind: 'unknown-version'; v: unknown }
  | { kind: 'unknown-event'; event: string }
  | { kind: 'invalid'; reason: string };

/** What a line is before its fields are checked. */
export function channelLineHead(text: string): ChannelLineHead {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'malformed' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { kind: 'malformed' };
  const obj = value as Record<string, unknown>;
  if (obj.v !== CHANNEL_SCHEMA_VERSION) {
    return 'v' in obj ? { kind: 'unknown-version', v: obj.v } : { kind: 'invalid', reason: 'no v' };
  }
  if (typeof obj.event !== 'string' || !KNOWN_EVENTS.has(obj.event)) {
    return typeof obj.event === 'string' ? { kind: 'unknown-event', event: obj.event.slice(0, 100) } : { kind: 'invalid', reason: 'no event' };
  }
  return { kind: 'candidate', obj, event: obj.event };
}

/**
 * A hook killed mid-write leaves a partial line; the next append then lands on the same line. The
 * later event is intact: its text, for a line that did not parse, when there is one.
 */
export function gluedTail(text: string): string | undefined {
  const start = text.lastIndexOf(EVENT_START);
  return start > 0 ? text.slice(start) : undefined;
}

/** The fields of a call's `pre`, `post`, `hooks`, `wait` or `landed` event the status line reads, each checked as schema.ts checks it. */
export interface LenientCallEvent {
  event: 'pre' | 'post' | 'hooks' | 'wait' | 'landed';
  at: number;
  tool_use_id: string;
  transcript_path: string;
  agent_id?: string;
  transport?: (typeof CHANNEL_TRANSPORTS)[number];
  checked_at?: number;
  record_on_disk?: boolean;
  result_on_disk?: boolean;
  with_result?: boolean;
  watched_from?: 'pre' | 'post';
  missed_at?: number;
  fired_at?: number;
  hooks_ms?: number;
  hooks_decision?: HooksDecision;
  /** A `wait`'s (required there). */
  outcome?: 'seen' | 'behind' | 'error';
}

const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;
const str = (min: number, max: number) => (v: unknown) => typeof v === 'string' && v.length >= min && v.length <= max;
const isBool = (v: unknown): v is boolean => typeof v === 'boolean';
const isHooksMs = (v: unknown): v is number => isTime(v) && v <= MAX_HOOKS_MS;
const isPositiveInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v > 0;
/** A count or a size: a whole number ≥ 0, as a time is. */
const isCount = isTime;
const oneOf = (values: readonly unknown[]) => (v: unknown) => values.includes(v);

type Rule = (v: unknown) => boolean;
/** Every field schema.ts gives a `pre`, `post`, `hooks`, `wait` or `landed` event, as it checks it; `true`: required. */
const BASE: Record<string, [Rule, boolean]> = {
  at: [isTime, true],
  session_id: [str(1, MAX_ID_LENGTH), true],
  transcript_path: [str(1, MAX_PATH_LENGTH), true],
  agent_id: [str(0, MAX_ID_LENGTH), false],
  source: [str(0, MAX_ID_LENGTH), false],
  tool_use_id: [str(1, MAX_ID_LENGTH), true],
  tool_name: [str(0, MAX_ID_LENGTH), false],
};
const ON_DISK: Record<string, [Rule, boolean]> = {
  checked_at: [isTime, false],
  bytes_on_disk: [isTime, false],
  record_on_disk: [isBool, false],
  result_on_disk: [isBool, false],
  record_path: [str(1, MAX_PATH_LENGTH), false],
  transport: [oneOf(CHANNEL_TRANSPORTS), false],
};
const FIELDS: Record<LenientCallEvent['event'], Record<string, [Rule, boolean]>> = {
  pre: {
    ...BASE,
    ...ON_DISK,
    prompt_id: [str(0, MAX_ID_LENGTH), false],
    mode: [oneOf(['announce', 'probe']), false],
    timeout_ms: [isPositiveInt, false],
  },
  post: { ...BASE, ...ON_DISK, hooks_ms: [isHooksMs, false], hooks_decision: [oneOf(HOOKS_DECISIONS), false] },
  hooks: { ...BASE, transport: [oneOf(CHANNEL_TRANSPORTS), false], hooks_ms: [isHooksMs, true], hooks_decision: [oneOf(HOOKS_DECISIONS), false] },
  wait: {
    ...BASE,
    outcome: [oneOf(['seen', 'behind', 'error']), true],
    polls: [isCount, true],
    waited_ms: [(v) => typeof v === 'number' && Number.isFinite(v) && v >= 0, true],
    bytes_on_disk: [isCount, true],
    checked_at: [isTime, false],
    line: [isPositiveInt, false],
    max_polls: [isPositiveInt, false],
    poll_ms: [isPositiveInt, false],
    error: [str(0, 500), false],
  },
  landed: {
    ...BASE,
    with_result: [isBool, true],
    record_path: [str(1, MAX_PATH_LENGTH), false],
    watched_from: [oneOf(['pre', 'post']), false],
    missed_at: [isTime, false],
    fired_at: [isTime, false],
  },
};

type FieldCheck = readonly [field: string, ok: Rule, required: boolean];
/** FIELDS as lists, made once: a status line start reads about 400 lines, each checked cold (interpreted). */
const CHECKS: Record<LenientCallEvent['event'], readonly FieldCheck[]> = {
  pre: Object.entries(FIELDS.pre).map(([field, [ok, required]]) => [field, ok, required] as const),
  post: Object.entries(FIELDS.post).map(([field, [ok, required]]) => [field, ok, required] as const),
  hooks: Object.entries(FIELDS.hooks).map(([field, [ok, required]]) => [field, ok, required] as const),
  wait: Object.entries(FIELDS.wait).map(([field, [ok, required]]) => [field, ok, required] as const),
  landed: Object.entries(FIELDS.landed).map(([field, [ok, required]]) => [field, ok, required] as const),
};
/** The optional fields LenientCallEvent keeps, of those each event has. */
const KEPT_FIELDS = ['agent_id', 'transport', 'checked_at', 'record_on_disk', 'result_on_disk', 'with_result', 'watched_from', 'missed_at', 'fired_at', 'hooks_ms', 'hooks_decision', 'outcome'] as const;
const KEPT: Record<LenientCallEvent['event'], readonly (typeof KEPT_FIELDS)[number][]> = {
  pre: KEPT_FIELDS.filter((f) => f in FIELDS.pre),
  post: KEPT_FIELDS.filter((f) => f in FIELDS.post),
  hooks: KEPT_FIELDS.filter((f) => f in FIELDS.hooks),
  wait: KEPT_FIELDS.filter((f) => f in FIELDS.wait),
  landed: KEPT_FIELDS.filter((f) => f in FIELDS.landed),
};

/**
 * A `pre`, `post`, `hooks`, `wait` or `landed` line read without zod: the head (above), then every field checked
 * as schema.ts checks it (test/unit/rules/channelLineHead.test.ts holds the two to the same lines),
 * so the status line takes exactly the call events the engine takes.
 */
export function lenientCallEvent(text: string): LenientCallEvent | undefined {
  // A line starting with `{` is not blank: no trimmed copy of every line.
  if (text.charCodeAt(0) !== 0x7b && text.trim() === '') return undefined;
  let head = channelLineHead(text);
  if (head.kind === 'malformed') {
    const tail = gluedTail(text);
    if (tail !== undefined) head = channelLineHead(tail);
  }
  if (head.kind !== 'candidate' || (head.event !== 'pre' && head.event !== 'post' && head.event !== 'hooks' && head.event !== 'wait' && head.event !== 'landed')) return undefined;
  const o = head.obj;
  const checks = CHECKS[head.event];
  for (let i = 0; i < checks.length; i++) {
    // Indexed, not destructured: an array pattern runs the iterator protocol, objects for every field, cold.
    const check = checks[i];
    const v = o[check[0]];
    if (v === undefined ? check[2] : !check[1](v)) return undefined;
  }
  const out: LenientCallEvent = { event: head.event, at: o.at as number, tool_use_id: o.tool_use_id as string, transcript_path: o.transcript_path as string };
  const kept = KEPT[head.event];
  for (let i = 0; i < kept.length; i++) {
    const field = kept[i];
    if (o[field] !== undefined) (out as unknown as Record<string, unknown>)[field] = o[field];
  }
  return out;
}
