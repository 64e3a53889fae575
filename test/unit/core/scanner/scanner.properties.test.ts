import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { createRecordScanner, scanLine } from '../../../../src/core/scanner';
import type { ScanResult } from '../../../../src/core/records';
import { FIELDS } from '../../../../src/core/scanner/fieldTable';
import { scanInChunks } from '../../helpers/lineScanners';

/**
 * The two scan paths (JSON.parse for ordinary lines, the streaming tokenizer for
 * huge ones; a threshold of 0 forces the latter) must give identical results for
 * any bytes, and "is a record" must mean exactly "JSON.parse of the line decoded
 * as UTF-8 (bad sequences → U+FFFD) is an object". Invalid UTF-8 inside strings
 * is therefore accepted and decoded to U+FFFD on both paths.
 */

function oracleIsObject(line: Buffer): boolean {
  try {
    const v: unknown = JSON.parse(line.toString('utf8'));
    return typeof v === 'object' && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}

function scanChunked(line: Buffer, cuts: number[], threshold: number | undefined): ScanResult {
  return scanInChunks(createRecordScanner({ streamThreshold: threshold }), line, cuts);
}

/**
 * As the tail hands a line over: its last bytes with finishLine() on the read
 * buffer, which holds other bytes on both sides; the first `cut` bytes pushed before.
 */
function scanFinishLine(line: Buffer, cut: number, threshold: number | undefined): ScanResult {
  const scanner = createRecordScanner({ streamThreshold: threshold });
  const before = Buffer.from('{"type":"x"}\n{"a":');
  const readBuffer = Buffer.concat([before, line, Buffer.from('\n{"type":"y"}')]);
  if (cut > 0) scanner.push(line.subarray(0, cut));
  return scanner.finishLine!(readBuffer, before.length + cut, before.length + line.length);
}

function checkAgree(line: Buffer, cuts: number[] = []): void {
  const parsed = scanLine(line, { streamThreshold: Number.MAX_SAFE_INTEGER });
  const streamed = scanChunked(line, cuts, 0);
  assert.deepEqual(streamed, parsed, `line: ${JSON.stringify(line.toString('latin1'))}`);
  assert.equal(parsed.kind === 'record', oracleIsObject(line));
  // A threshold inside the line switches path mid-line.
  assert.deepEqual(scanChunked(line, cuts, Math.floor(line.length / 2)), parsed);
  // finishLine(): from the read buffer, whole or after a pushed first part, on either path.
  const cut = cuts.length > 0 ? cuts[0]! % (line.length + 1) : 0;
  assert.deepEqual(scanFinishLine(line, 0, undefined), parsed);
  assert.deepEqual(scanFinishLine(line, cut, undefined), parsed);
  assert.deepEqual(scanFinishLine(line, cut, 0), parsed);
}

const anyString = fc.string({ unit: 'binary', maxLength: 40 });
const anyValue = fc.oneof(anyString, fc.jsonValue({ maxDepth: 3 }), fc.constant(null), fc.boolean(), fc.double(), fc.integer());
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const block = fc.record(
  {
    type: fc.oneof(fc.constantFrom('tool_use', 'tool_result', 'text', 'thinking'), anyValue),
    id: fc.oneof(fc.constantFrom('toolu_1', 'toolu_2'), anyValue),
    name: fc.oneof(fc.constantFrom('Bash', 'Edit'), anyValue),
    tool_use_id: fc.oneof(fc.constantFrom('toolu_1', 'toolu_2'), anyValue),
    text: fc.oneof(anyString, anyValue),
    input: anyValue,
  },
  { requiredKeys: [] },
);
const transcriptRecord = fc.record(
  {
    type: fc.oneof(fc.constantFrom('user', 'assistant', 'last-prompt', 'ai-title', 'custom-title', 'mode', 'attachment'), anyValue),
    uuid: fc.oneof(fc.uuid(), anyValue),
    timestamp: fc.oneof(fc.date({ noInvalidDate: true }).map((d) => d.toISOString()), anyValue),
    sessionId: fc.oneof(fc.uuid(), anyValue),
    requestSessionId: fc.oneof(fc.uuid(), anyValue),
    version: fc.oneof(fc.constantFrom('2.1.280', '2.1.332'), anyValue),
    // Keys one letter short or long of a kept one: never read as it.
    requestSessionI: anyValue,
    requestSessionIdx: anyValue,
    cwd: anyValue,
    isSidechain: anyValue,
    isMeta: anyValue,
    agentId: anyValue,
    apiBlockIndex: fc.oneof(fc.nat(20), anyValue),
    aiTitle: anyValue,
    customTitle: anyValue,
    lastPrompt: anyValue,
    // The field table's per-call keys (requestedModel): kept on records with tool uses.
    ...Object.fromEntries(FIELDS.perCall.filter((l) => l.in === 'root').map((l) => [l.key, fc.oneof(fc.constantFrom('claude-opus-5-5', 7, true), anyValue)])),
    message: fc.oneof(
      fc.record(
        {
          id: fc.oneof(fc.constantFrom('msg_1'), anyValue),
          stop_reason: fc.oneof(fc.constantFrom(null, 'tool_use', 'end_turn'), anyValue),
          content: fc.oneof(anyString, fc.array(fc.oneof(block, anyValue), { maxLength: 5 }), anyValue),
          role: anyValue,
          ...Object.fromEntries(FIELDS.perCall.filter((l) => l.in === 'message').map((l) => [l.key, anyValue])),
        },
        { requiredKeys: [] },
      ),
      anyValue,
    ),
    extra: anyValue,
  },
  { requiredKeys: [] },
);

/** JSON text of an object whose keys may repeat (JSON.stringify cannot write that). */
const withDuplicateKeys = fc
  .array(fc.tuple(fc.constantFrom('type', 'uuid', 'message', 'isSidechain', 'apiBlockIndex', 'requestSessionId', 'version', 'other', ...FIELDS.perCall.map((l) => l.key)), transcriptRecord), { maxLength: 6 })
  .map((pairs) => `{${pairs.map(([k, r]) => `${JSON.stringify(k)}:${JSON.stringify((r as Record<string, unknown>)[k] ?? r)}`).join(',')}}`);

/** An object's JSON text from [key, value text] pairs, keys repeated at will. */
const objectText = (pairs: [string, string][]) => `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;
const valueText = fc.oneof(anyValue, fc.constantFrom('tool_use', 'tool_result', 'text', 'toolu_1')).map((v) => JSON.stringify(v) ?? 'null');
const blockText = fc.array(fc.tuple(fc.constantFrom('type', 'id', 'name', 'tool_use_id', 'text', 'input'), valueText), { maxLength: 8 }).map(objectText);
const messageText = fc
  .array(fc.tuple(fc.constantFrom('id', 'stop_reason', 'content', 'usage'), fc.oneof(valueText, fc.array(fc.oneof(blockText, valueText), { maxLength: 4 }).map((bs) => `[${bs.join(',')}]`))), { maxLength: 6 })
  .map(objectText);
/** Repeated keys at every level a kept key sits: root, message, content blocks. */
const withNestedDuplicateKeys = fc
  .array(fc.tuple(fc.constantFrom('type', 'message', 'isMeta', 'apiBlockIndex', 'sessionId'), fc.oneof(valueText, messageText)), { maxLength: 5 })
  .map((pairs) => objectText([['type', '"user"'], ...pairs]));

const cuts = fc.array(fc.nat(), { maxLength: 4 });
const runs = { numRuns: 400 };

describe('record scanner: both paths agree (properties)', () => {
  it('on any JSON value', () => {
    fc.assert(fc.property(fc.jsonValue(), cuts, (v, c) => checkAgree(Buffer.from(JSON.stringify(v)), c)), runs);
  });

  it('on objects shaped like transcript records, compact or spaced', () => {
    fc.assert(
      fc.property(transcriptRecord, fc.constantFrom(undefined, 1, '\t'), cuts, (r, indent, c) => {
        // Indented JSON holds newlines, which a line never does: flatten them to spaces.
        const text = JSON.stringify(r, null, indent).replace(/\n/g, ' ');
        checkAgree(Buffer.from(text), c);
      }),
      runs,
    );
  });

  it('on repeated keys (the last wins)', () => {
    fc.assert(fc.property(withDuplicateKeys, cuts, (text, c) => checkAgree(Buffer.from(text), c)), runs);
    fc.assert(fc.property(withNestedDuplicateKeys, cuts, (text, c) => checkAgree(Buffer.from(text), c)), { numRuns: 1000 });
  });

  it('on half-written and mutated records', () => {
    // Bytes that matter to JSON (quotes, escapes, control characters, bad UTF-8) come up often.
    const byte = fc.oneof(fc.constantFrom(0x00, 0x09, 0x0d, 0x1f, 0x20, 0x22, 0x2c, 0x3a, 0x5c, 0x5d, 0x7d, 0x7f, 0x80, 0xc3, 0xff), fc.nat(255));
    const mutated = fc
      .tuple(transcriptRecord, fc.nat(), byte, fc.constantFrom('cut', 'replace', 'insert', 'delete'))
      .map(([r, at, b, op]) => {
        const text = Buffer.from(JSON.stringify(r));
        const i = at % (text.length + 1);
        if (op === 'cut') return text.subarray(0, i);
        if (op === 'replace' && i < text.length) return Buffer.concat([text.subarray(0, i), Buffer.from([b]), text.subarray(i + 1)]);
        if (op === 'insert') return Buffer.concat([text.subarray(0, i), Buffer.from([b]), text.subarray(i)]);
        return Buffer.concat([text.subarray(0, i), text.subarray(i + 1)]);
      });
    fc.assert(fc.property(mutated, cuts, (line, c) => checkAgree(line, c)), { numRuns: 1500 });
  });

  it('on garbage built from JSON tokens, some broken', () => {
    // Written as latin1, so '\xc3' is the byte 0xc3 (a UTF-8 lead without its continuation).
    const token = fc.constantFrom(
      '{', '}', '[', ']', ',', ':', ' ', '\t', '\r', '"type"', '"uuid"', '"message"', '"content"', '"tool_use"', '"id"',
      '"a\u0001b"', '"a\tb"', '"\\x"', '"\\u12"', '"\\u00e9"', '"\\q"', '"\x7f"', '"', '\\', 'true', 'tru', 'null',
      'false', '0', '-', '01', '1.', '.5', '-0', '1e5', '1E+', '2.5e-3', '"\xc3\xa9"', '"\xff"', '\xc3', 'x',
    );
    // Wrapped as the value of a key, the garbage alone decides record or malformed.
    const wrap = fc.constantFrom(['', ''], ['{"x":', '}'], ['{"message":{"content":[', ']}}']);
    const line = fc
      .tuple(fc.array(token, { maxLength: 25 }), wrap)
      .map(([ts, [open, close]]) => Buffer.from(open + ts.join('') + close, 'latin1'));
    fc.assert(fc.property(line, cuts, (l, c) => checkAgree(l, c)), { numRuns: 3000 });
  });

  it('on garbage made of JSON-ish bytes, control bytes and invalid UTF-8', () => {
    const alphabet = Buffer.from('{}[]":,\\/ntrufalse0123456789-+.eE \t\rbu');
    const bytes = [...alphabet, 0x00, 0x1f, 0x7f, 0x80, 0xbf, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xed, 0xa0, 0xf0, 0x9f, 0xff];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...bytes), { maxLength: 60 }), cuts, (arr, c) => checkAgree(Buffer.from(arr), c)),
      { numRuns: 1500 },
    );
  });

  it('on records whose captured strings hold raw invalid UTF-8 and escapes', () => {
    const piece = fc.oneof(
      fc.constantFrom('a', 'é', '😀', '\\n', '\\u00e9', '\\ud83d', '\\ude00', '\\"', '\\\\').map((s) => Buffer.from(s)),
      fc.uint8Array({ minLength: 1, maxLength: 3 }).map((u) => Buffer.from(u.filter((x) => x >= 0x80))),
    );
    // Long runs without escapes (several hundred multibyte characters) test the raw-byte cap.
    const rawPiece = fc.constantFrom(
      ...['a', 'é', '€', '😀'].map((t) => Buffer.from(t, 'utf8')),
      Buffer.from([0xff]),
      Buffer.from([0xe2, 0x82]),
    );
    const stringBytes = fc
      .oneof(fc.array(piece, { maxLength: 700 }), fc.array(rawPiece, { minLength: 150, maxLength: 700 }))
      .map((ps) => Buffer.concat(ps));
    fc.assert(
      fc.property(fc.constantFrom('sessionId', 'type', 'lastPrompt'), stringBytes, stringBytes, cuts, (key, a, b, c) => {
        const line = Buffer.concat([
          Buffer.from(`{"type":"last-prompt","${key}":"`),
          a,
          Buffer.from('","message":{"content":[{"type":"text","text":"'),
          b,
          Buffer.from('"}]}}'),
        ]);
        checkAgree(line, c);
      }),
      runs,
    );
  });

  it('on long strings with one special byte anywhere, at every alignment (the skippers work in blocks)', () => {
    const special = fc.constantFrom(0x00, 0x01, 0x0a, 0x1f, 0x20, 0x21, 0x22, 0x23, 0x5b, 0x5c, 0x5d, 0x7f, 0x80, 0xff);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 3000 }), fc.nat(), special, fc.nat(7), (len, at, byte, shift) => {
        const body = Buffer.alloc(len, 'abcdefgh');
        if (len > 0) body[at % len] = byte;
        // A shifted view, so the string's bytes sit at every alignment of the underlying memory.
        const backing = Buffer.alloc(shift + len + 64);
        const line = Buffer.concat([Buffer.from('{"type":"user","x":"'), body, Buffer.from('"}')]);
        line.copy(backing, shift);
        checkAgree(backing.subarray(shift, shift + line.length));
      }),
      { numRuns: 1500 },
    );
  });
});

