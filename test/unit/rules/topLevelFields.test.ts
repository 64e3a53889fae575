import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { PayloadCollector, parseHookInput } from '../../../src/rules/stdin';
import { topLevelFields, topLevelFieldsFromEnd, type FieldValues } from '../../../src/rules/topLevelFields';

const WANTED = new Set(['session_id', 'agent_id', 'prompt_id', 'tool_use_id']);
/** Keys at every depth: the wanted ones nested inside values too, like a tool_input that names them. */
const key = fc.constantFrom('session_id', 'agent_id', 'prompt_id', 'tool_use_id', 'tool_input', 'x', 'a "b"', 'é\\');
const leaf = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom('', '"', '\\', '\\"', '"agent_id":"evil"', '}', '{', ']', ',', '\n'),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
const { value } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(key, tie('value'), { maxKeys: 4 })),
}));
const topObject = fc.dictionary(key, value, { maxKeys: 6 });
const indent = fc.constantFrom<undefined | number | string>(undefined, 1, '\t', ' \r\n');

/** What JSON.parse gives for the wanted top-level keys: the string, or null for a value of another type. */
function expected(text: string): FieldValues | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const out: FieldValues = new Map();
  for (const [k, x] of Object.entries(v)) if (WANTED.has(k)) out.set(k, typeof x === 'string' ? x : null);
  return out;
}

function assertSubset(got: FieldValues | undefined, whole: FieldValues): void {
  assert.ok(got, 'the edge of a valid object is not refused');
  for (const [k, v] of got) assert.deepEqual(v, whole.get(k), `${k} is the top-level value`);
}

describe('hook input: top-level fields without parsing the rest', () => {
  it('a whole object gives exactly what JSON.parse gives, whatever is nested inside', () => {
    fc.assert(
      fc.property(topObject, indent, (obj, space) => {
        const text = JSON.stringify(obj, null, space);
        assert.deepEqual(topLevelFields(Buffer.from(text), WANTED), expected(text));
      }),
      { numRuns: 500 },
    );
  });

  it('is as strict as JSON.parse: a damaged document gives fields exactly when JSON.parse accepts it', () => {
    const damage = fc.record({ at: fc.nat(), drop: fc.nat({ max: 3 }), insert: fc.string({ unit: fc.constantFrom('"', '\\', '{', '}', '[', ']', ',', ':', ' ', '1', '-', 'e', '.', 'n', 't', 'u', '\u0001', 'x'), maxLength: 2 }) });
    fc.assert(
      fc.property(topObject, damage, (obj, d) => {
        const text = JSON.stringify(obj);
        const at = d.at % (text.length + 1);
        const damaged = text.slice(0, at) + d.insert + text.slice(at + d.drop);
        const bytes = Buffer.from(damaged);
        // The hook gets bytes: a surrogate pair cut in two is U+FFFD there, as JSON.parse of the decoded bytes sees it.
        assert.deepEqual(topLevelFields(bytes, WANTED), expected(bytes.toString('utf8')), damaged);
      }),
      { numRuns: 2000 },
    );
  });

  it('the first bytes of an object give only top-level members, and only whole ones', () => {
    fc.assert(
      fc.property(topObject, indent, fc.nat(), (obj, space, cut) => {
        const bytes = Buffer.from(JSON.stringify(obj, null, space));
        assertSubset(topLevelFields(bytes.subarray(0, cut % (bytes.length + 1)), WANTED, true), expected(bytes.toString())!);
      }),
      { numRuns: 1000 },
    );
  });

  it('the last bytes of an object give only top-level members, and only whole ones', () => {
    fc.assert(
      fc.property(topObject, indent, fc.nat(), (obj, space, cut) => {
        const bytes = Buffer.from(JSON.stringify(obj, null, space));
        const whole = expected(bytes.toString())!;
        assertSubset(topLevelFieldsFromEnd(bytes.subarray(cut % (bytes.length + 1)), WANTED), whole);
        // All of it: every member is found.
        assert.deepEqual(topLevelFieldsFromEnd(bytes, WANTED), whole);
      }),
      { numRuns: 1000 },
    );
  });

  it('of duplicate keys the last counts, as with JSON.parse, from either end', () => {
    const text = '{"session_id":"first","tool_input":{},"session_id":"last","agent_id":"a","agent_id":7}';
    const b = Buffer.from(text);
    assert.deepEqual(topLevelFields(b, WANTED), expected(text));
    assert.deepEqual(topLevelFieldsFromEnd(b, WANTED), expected(text));
    assert.equal(topLevelFields(b, WANTED)!.get('session_id'), 'last');
  });

  it('a field too long to be valid is not decoded', () => {
    const text = JSON.stringify({ session_id: 'x'.repeat(100_000), agent_id: 'a' });
    assert.deepEqual([...topLevelFields(Buffer.from(text), WANTED)!], [['session_id', null], ['agent_id', 'a']]);
  });

  it('the end of a document that is not an object, or not JSON, is refused', () => {
    for (const text of ['[1,2]', '{"a":1]', '{"a":1,}', '{"a":1}x', '"x"', '{"a" 1}', '{"a":"b"c"}']) {
      assert.equal(topLevelFieldsFromEnd(Buffer.from(text), WANTED), undefined, text);
    }
  });
});

describe('hook input: over the size kept whole', () => {
  /** A payload fed in chunks as a pipe delivers it. */
  function collect(text: string): ReturnType<PayloadCollector['bytes']> {
    const bytes = Buffer.from(text);
    const c = new PayloadCollector();
    for (let i = 0; i < bytes.length; i += 1 << 20) c.push(bytes.subarray(i, i + (1 << 20)));
    return c.bytes();
  }

  it('over 64 MB: agent_id and prompt_id inside tool_input never reach the input; the top-level ones do', () => {
    const big = 'A"\\\n'.repeat(17 * 1024 * 1024);
    const text = JSON.stringify({
      session_id: 's-1',
      transcript_path: '/t.jsonl',
      hook_event_name: 'PreToolUse',
      tool_name: 'Write',
      tool_input: { agent_id: 'from-tool-input', prompt_id: 'from-tool-input', content: big, tool_use_id: 'toolu_INSIDE' },
      tool_use_id: 'toolu_TOP',
    });
    assert.ok(text.length > 64 * 1024 * 1024);
    const bytes = collect(text);
    assert.ok(bytes.head && bytes.tail, 'only the edges are kept');
    assert.deepEqual(parseHookInput(bytes), { session_id: 's-1', transcript_path: '/t.jsonl', hook_event_name: 'PreToolUse', tool_name: 'Write', tool_use_id: 'toolu_TOP' });

    const withTop = text.slice(0, -1) + ',"agent_id":"agent-top","prompt_id":"p-top"}';
    assert.deepEqual(parseHookInput(collect(withTop)), {
      session_id: 's-1',
      transcript_path: '/t.jsonl',
      hook_event_name: 'PreToolUse',
      tool_name: 'Write',
      tool_use_id: 'toolu_TOP',
      agent_id: 'agent-top',
      prompt_id: 'p-top',
    });
  });

  it('a tool_use_id inside a trailing tool_response is not the call\'s', () => {
    const text = JSON.stringify({
      session_id: 's-2',
      transcript_path: '/t.jsonl',
      hook_event_name: 'PostToolUse',
      tool_name: 'Read',
      tool_input: { file_path: '/f' },
      tool_response: { content: 'x'.repeat(5 * 1024 * 1024), tool_use_id: 'toolu_INSIDE' },
    });
    assert.equal(parseHookInput(collect(text))?.tool_use_id, undefined);
  });

  it('a deeply nested tool_input is never handed to JSON.parse', () => {
    // 20 MB of `[{"a":` … `}]`: JSON.parse takes seconds on it, and no timer (the watchdog) fires meanwhile.
    const depth = 2_700_000;
    const nested = '[{"a":'.repeat(depth) + '1' + '}]'.repeat(depth);
    const base = { session_id: 's-3', transcript_path: '/t.jsonl', hook_event_name: 'PreToolUse', tool_name: 'Bash' };
    const text = JSON.stringify(base).slice(0, -1) + `,"tool_input":${nested},"tool_use_id":"toolu_N"}`;
    assert.ok(text.length > 20 * 1024 * 1024);
    // Also just under the size kept whole: the scan steps over the nesting there too.
    const small = 300_000;
    const smallText = JSON.stringify(base).slice(0, -1) + `,"tool_input":${'[{"a":'.repeat(small) + '1' + '}]'.repeat(small)},"tool_use_id":"toolu_N"}`;
    const parse = JSON.parse;
    let parsedChars = 0;
    JSON.parse = ((s: string, r?: Parameters<typeof parse>[1]) => {
      parsedChars += s.length;
      return parse(s, r);
    }) as typeof JSON.parse;
    try {
      assert.deepEqual(parseHookInput(collect(text)), { ...base, tool_use_id: 'toolu_N' });
      assert.deepEqual(parseHookInput(collect(smallText)), { ...base, tool_use_id: 'toolu_N' });
    } finally {
      JSON.parse = parse;
    }
    assert.ok(parsedChars < 1000, `${parsedChars} characters parsed`);
  });
});
