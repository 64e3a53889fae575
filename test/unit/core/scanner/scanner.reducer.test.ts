import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { createRecordScanner, scanLine } from '../../../../src/core/scanner';
import { createCaptureScanner } from '../../../../src/core/analyze/capture/captureScanner';
import { fieldsFromParsed } from '../../../../src/core/scanner/fields';
import { LineReducer, REDUCE_FULL, REDUCE_INVALID } from '../../../../src/core/analyze/capture/lineReducer';
import { FIELD_TABLE, FIELDS } from '../../../../src/core/scanner/fieldTable';
import { fixturesDir } from '../../helpers/fixtures';

/**
 * The wasm capture (src/core/analyze/capture/wasm/capture.c) must change nothing: for
 * any line, the scan of the kept values it lists (read into fields without
 * JSON.parse) is the scan of the whole line by JSON.parse, and it tells valid
 * from invalid exactly as JSON.parse does.
 * Lines are built as bytes, not by JSON.stringify, so they hold what real
 * writers and garbage can: repeated and escaped keys, raw non-ASCII and
 * invalid UTF-8 in strings, `\u` escapes, deep nesting, whitespace anywhere.
 */

const WHOLE = { streamThreshold: Number.MAX_SAFE_INTEGER };
const CAPTURED = { streamThreshold: Number.MAX_SAFE_INTEGER };
const reducer = LineReducer.create();

function checkSame(line: Buffer): void {
  const whole = scanLine(line, WHOLE);
  const captured = scanLine(line, createCaptureScanner(CAPTURED));
  // The message only on failure: building it for every megabyte line costs more than the test.
  if (!isDeepStrictEqual(captured, whole)) assert.deepEqual(captured, whole, `kept values, line: ${JSON.stringify(line.toString('latin1'))}`);
}

/** What JSON.parse says of the line: 'object', 'other' (valid, no object) or 'invalid'. */
function oracle(line: Buffer): 'object' | 'other' | 'invalid' {
  let v: unknown;
  try {
    v = JSON.parse(line.toString('latin1'));
  } catch {
    return 'invalid';
  }
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? 'object' : 'other';
}

/** The capture's answer, checked against JSON.parse's grammar: it says "invalid" exactly when JSON.parse throws. */
function checkValidator(line: Buffer): number | 'captured' {
  const r = reducer!.capture(line);
  const says = oracle(line);
  if (r === REDUCE_FULL) return r;
  if ((r === REDUCE_INVALID) !== (says === 'invalid')) assert.fail(`capture ${String(r)} vs JSON.parse ${says}: ${JSON.stringify(line.toString('latin1'))}`);
  if (typeof r !== 'number') assert.equal(says, 'object', 'a captured line is a JSON object');
  return typeof r === 'number' ? r : 'captured';
}

// --- generators of line bytes -------------------------------------------------

const b = (s: string) => Buffer.from(s, 'latin1');
const cat = (parts: Buffer[]) => Buffer.concat(parts);
const ws = fc.oneof({ weight: 4, arbitrary: fc.constant('') }, fc.constantFrom(' ', '\t', '\n', '\r', ' \r\n\t ')).map(b);

/** String interiors: plain text, every escape, raw multibyte and invalid UTF-8, sometimes huge. */
const piece = fc.oneof(
  fc.constantFrom('a', 'Bash', 'tool_use', ' ', '{}[],:').map(b),
  fc.constantFrom('\\"', '\\\\', '\\/', '\\b', '\\f', '\\n', '\\r', '\\t', '\\u0041', '\\u00e9', '\\ud83d', '\\ude00', '\\u0000', '\\uFFFF').map(b),
  fc.constantFrom('é', '€', '😀', '→').map((s) => Buffer.from(s, 'utf8')),
  fc.constantFrom([0xff], [0x80], [0xc3], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf0, 0x9f, 0x98]).map((x) => Buffer.from(x)),
);
const interior = fc.oneof(
  { weight: 80, arbitrary: fc.array(piece, { maxLength: 12 }).map(cat) },
  { weight: 1, arbitrary: fc.tuple(piece, fc.integer({ min: 1000, max: 20000 })).map(([p, n]) => Buffer.alloc(n * p.length, p)) },
);
const str = interior.map((i) => cat([b('"'), i, b('"')]));

const number = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }).map(String), fc.constantFrom('0', '-0', '1e5', '2.5E-3', '-12.0e+7', '3')).map(b);
const scalar = fc.oneof(str, number, fc.constantFrom('true', 'false', 'null').map(b));

/** Nested arrays and objects around a value, as deep as `depth`. */
const deep = fc.tuple(fc.integer({ min: 1, max: 3000 }), scalar, fc.boolean()).map(([depth, v, objects]) =>
  objects ? cat([b('{"a":'.repeat(depth)), v, b('}'.repeat(depth))]) : cat([b('['.repeat(depth)), v, b(']'.repeat(depth))]),
);

/** Any JSON value, with whitespace around its tokens. */
const { anyValue } = fc.letrec<{ anyValue: Buffer }>((tie) => ({
  anyValue: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 6, arbitrary: scalar },
    { weight: 2, arbitrary: fc.array(fc.tuple(ws, tie('anyValue'), ws), { maxLength: 4 }).map((xs) => cat([b('['), ...join(xs.map((x) => cat(x)), b(',')), b(']')])) },
    { weight: 2, arbitrary: fc.array(fc.tuple(ws, str, ws, ws, tie('anyValue'), ws), { maxLength: 4 }).map((ms) => objectOf(ms.map(([w1, k, w2, w3, v, w4]) => cat([w1, k, w2, b(':'), w3, v, w4])))) },
    { weight: 1, arbitrary: deep },
  ),
}));

function join(parts: Buffer[], sep: Buffer): Buffer[] {
  return parts.flatMap((p, i) => (i === 0 ? [p] : [sep, p]));
}

function objectOf(members: Buffer[]): Buffer {
  return cat([b('{'), ...join(members, b(',')), b('}')]);
}

/** `"name"`; rarely written with its last letter escaped (JSON.parse still reads the name). */
function keyOf(name: string): fc.Arbitrary<Buffer> {
  const escaped = `"${name.slice(0, -1)}\\u${name.charCodeAt(name.length - 1).toString(16).padStart(4, '0')}"`;
  return fc.oneof({ weight: 80, arbitrary: fc.constant(b(`"${name}"`)) }, fc.constant(b(escaped)));
}

function member(key: fc.Arbitrary<Buffer>, value: fc.Arbitrary<Buffer>): fc.Arbitrary<Buffer> {
  return fc.tuple(ws, key, ws, ws, value, ws).map(([w1, k, w2, w3, v, w4]) => cat([w1, k, w2, b(':'), w3, v, w4]));
}

/**
 * An object with each kept key 0-2 times (a value of its usual kind, or any)
 * and keys nobody reads, in random order: repeated keys, last one wins.
 */
function objectWith(kept: Record<string, fc.Arbitrary<Buffer>>): fc.Arbitrary<Buffer> {
  const other = fc.constantFrom('other', 'toolUseResult', 'input', '', 'Type', 'typ\xe9', 'message ', '__proto__').map((n) => b(`"${n}"`));
  const placed = (m: fc.Arbitrary<Buffer>) => fc.array(fc.tuple(fc.nat(), m), { maxLength: 2 });
  const members = Object.entries(kept).map(([name, usual]) => placed(member(keyOf(name), fc.oneof({ weight: 4, arbitrary: usual }, anyValue))));
  return fc
    .tuple(...members, placed(member(other, anyValue)))
    .map((lists) => objectOf(lists.flat().sort((x, y) => x[0] - y[0]).map(([, m]) => m)));
}

const id = fc.oneof(fc.constantFrom('"toolu_1"', '"toolu_2"', '"msg_1"').map(b), str);
const block = objectWith(
  { type: fc.constantFrom('"tool_use"', '"tool_result"', '"text"', '"thinking"').map(b), id, name: id, tool_use_id: id, text: str },
);
const content = fc.oneof(
  { weight: 4, arbitrary: fc.array(fc.tuple(ws, fc.oneof({ weight: 4, arbitrary: block }, anyValue), ws), { maxLength: 5 }).map((xs) => cat([b('['), ...join(xs.map(cat), b(',')), b(']')])) },
  str,
);
const message = objectWith({ id, stop_reason: fc.constantFrom('null', '"tool_use"', '"end_turn"').map(b), content });
const bool = fc.constantFrom('true', 'false').map(b);
/** A record-like line: kept keys at all levels, repeated, sometimes escaped, with values of every type. */
const recordLine = fc
  .tuple(
    ws,
    objectWith(
      {
        type: fc.constantFrom('"user"', '"assistant"', '"last-prompt"', '"ai-title"', '"custom-title"', '"summary"').map(b),
        ...Object.fromEntries(['timestamp', 'sessionId', 'requestSessionId', 'version', 'cwd', 'agentId', 'aiTitle', 'customTitle', 'lastPrompt'].map((k) => [k, str])),
        // The field table's per-call keys (requestedModel), as the table says they are kept.
        ...Object.fromEntries(FIELDS.perCall.filter((l) => l.in === 'root').map((l) => [l.key, l.as === 'string' ? str : l.as === 'boolean' ? bool : number])),
        isSidechain: bool,
        isMeta: bool,
        apiBlockIndex: number,
        message,
      },
    ),
    ws,
  )
  .map(cat);

// --- properties -----------------------------------------------------------------

describe('record scanner: the wasm line reducer changes no result (properties)', () => {
  before(function () {
    if (reducer === undefined) this.skip(); // no wasm SIMD here: the scanner parses whole lines, nothing to compare
  });

  it('on record-like objects: kept keys at all levels, every value type, repeated and escaped keys, raw bytes, deep nesting', () => {
    let reduced = 0;
    fc.assert(
      fc.property(recordLine, (line) => {
        if (typeof checkValidator(line) !== 'number') reduced += 1;
        checkSame(line);
      }),
      { numRuns: 1500 },
    );
    // Most generated lines carry no escaped key: the reducer, not the fallback, was tested.
    assert.ok(reduced > 750, `only ${reduced} of 1500 lines reduced`);
  });

  it('on any JSON value as the line (objects, arrays, scalars, deep nesting)', () => {
    fc.assert(
      fc.property(fc.tuple(ws, anyValue, ws), (parts) => {
        const line = cat(parts);
        checkValidator(line);
        checkSame(line);
      }),
      { numRuns: 1000 },
    );
  });

  it('on cut, flipped, inserted and removed bytes', () => {
    const byte = fc.oneof(
      fc.constantFrom(...b('{}[]":,\\/ \t\r\n0-.eEu+tfn'), 0x00, 0x0b, 0x0c, 0x1f, 0x7f, 0x80, 0xa0, 0xc3, 0xff),
      fc.nat(255),
    );
    const mutated = fc
      .tuple(recordLine, fc.array(fc.tuple(fc.nat(), byte, fc.constantFrom('cut', 'flip', 'replace', 'insert', 'remove')), { minLength: 1, maxLength: 3 }))
      .map(([line, edits]) => {
        let out = line;
        for (const [at, x, op] of edits) {
          const i = at % (out.length + 1);
          if (op === 'cut') out = out.subarray(0, i);
          else if (op === 'flip' && i < out.length) out = cat([out.subarray(0, i), Buffer.from([out[i] ^ (x || 1)]), out.subarray(i + 1)]);
          else if (op === 'replace' && i < out.length) out = cat([out.subarray(0, i), Buffer.from([x]), out.subarray(i + 1)]);
          else if (op === 'insert') out = cat([out.subarray(0, i), Buffer.from([x]), out.subarray(i)]);
          else out = cat([out.subarray(0, i), out.subarray(i + 1)]);
        }
        return out;
      });
    fc.assert(
      fc.property(mutated, (line) => {
        checkValidator(line);
        checkSame(line);
      }),
      { numRuns: 3000 },
    );
  });

  it('on garbage built from JSON tokens, numbers and literals, some broken', () => {
    const token = fc.constantFrom(
      '{', '}', '[', ']', ',', ':', ' ', '\t', '\r', '"type"', '"message"', '"content"', '"text"', '"id"', '"a\x01b"', '"\\x"',
      '"\\u12"', '"\\u00e9"', '"\\', '"', '\\', 'true', 'tru', 'truex', 'trUe', 'null', 'nul', 'nulL', 'false', 'fals', 'falsy', 'True', '0', '-', '-0', '01', '1.',
      '.5', '1e', '1e+', '1E5', '2.5e-3', '+1', '0x1', 'Infinity', 'NaN', '1.5.2', '--1', '"\xc3\xa9"', '"\xff"', '\xc3', '\xa0', '\x00', '\f', '\v', '[1}', '{"a":1]',
    );
    const wrap = fc.constantFrom(['', ''], ['{"x":', '}'], ['{"type":', '}'], ['{"message":{"content":[', ']}}'], ['{"message":{"content":[{"text":', '}]}}']);
    const line = fc.tuple(fc.array(token, { maxLength: 25 }), wrap).map(([ts, [open, close]]) => b(open + ts.join('') + close));
    fc.assert(
      fc.property(line, (l) => {
        checkValidator(l);
        checkSame(l);
      }),
      { numRuns: 4000 },
    );
  });
});

describe('record scanner: the wasm line reducer on named cases', () => {
  before(function () {
    if (reducer === undefined) this.skip();
  });

  it('reads the kept keys past unread values and containers of every kind', () => {
    const line = b(
      '{"parentUuid":null,"type" : "user","toolUseResult":{"stdout":"x"},"uuid":{"a":[1]},"message":{"role":"user",' +
        '"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"big"}]},"s",[1,[2]],7],"id":[]},"type":"assistant"}',
    );
    assert.equal(typeof reducer!.capture(line), 'object');
    checkSame(line);
  });

  it('keeps every key fields.ts reads, at every level (a key read there must be listed by capture.c too)', () => {
    const read = { root: new Set<string>(), message: new Set<string>(), block: new Set<string>() };
    const spy = (level: keyof typeof read, target: Record<string, unknown>) =>
      new Proxy(target, {
        get(t, key) {
          if (typeof key === 'string') read[level].add(key);
          return t[key as string];
        },
      });
    fieldsFromParsed(spy('root', { type: 'assistant', message: spy('message', { content: [{ type: 'tool_use', id: 't' }, { type: 'tool_result' }, { type: 'text' }].map((block) => spy('block', block)) }) }));
    const members = (keys: Set<string>, nested: Record<string, string>) =>
      [...keys].map((k) => `${JSON.stringify(k)}:${nested[k] ?? '"x"'}`).join(',');
    const block = `{${members(read.block, {})},"input":{"a":1}}`;
    const message = `{${members(read.message, { content: `[${block}]` })},"usage":{}}`;
    assert.ok(read.root.size >= 12 && read.block.size >= 5, 'the spy saw the reads');
    // The one table the capture's matcher (written at load) and codes come from names exactly these keys.
    const listed = (level: string) => FIELD_TABLE.filter((f) => f.in === level).map((f) => f.key).sort();
    assert.deepEqual([...read.root].sort(), listed('root'));
    assert.deepEqual([...read.message].sort(), listed('message'));
    assert.deepEqual([...read.block].sort(), listed('block'));
    // Each key alone, its value one fieldsFromParsed reads (a string; `message` and `content` containers):
    // the capture must give what JSON.parse gives, so a key it did not list would show.
    const nested = { message: `{"content":[{"type":"tool_use","id":"t","name":"n"}],"id":"m","stop_reason":"tool_use"}`, content: '[{"type":"text","text":"hi"}]' };
    const values: Record<string, string> = { isSidechain: 'true', isMeta: 'true', apiBlockIndex: '3' };
    // Each key first, then a type that reads it and a call (some keys are read only for a call's record).
    for (const k of read.root) {
      for (const type of ['user', 'assistant', 'ai-title', 'custom-title', 'last-prompt']) {
        checkSame(b(`{${JSON.stringify(k)}:${nested[k as 'message'] ?? values[k] ?? '"v"'},"type":"${type}","message":{"content":[{"type":"tool_use","id":"t","name":"n"}]}}`));
      }
    }
    for (const k of read.message) checkSame(b(`{"type":"user","message":{${JSON.stringify(k)}:${nested[k as 'content'] ?? '"v"'}}}`));
    for (const k of read.block) for (const type of ['tool_use', 'tool_result', 'text']) checkSame(b(`{"type":"user","message":{"content":[{"type":"${type}",${JSON.stringify(k)}:"v"}]}}`));
    checkSame(b(`{${members(read.root, { message })},"toolUseResult":"big"}`));
  });

  it('reads kept values like JSON.parse: caps cutting multibyte text and surrogate pairs, escapes, bad UTF-8, resets', () => {
    const utf8 = (s: string) => Buffer.from(s, 'utf8');
    const texts = [
      utf8('"' + 'é'.repeat(300) + '"'),
      utf8('"a' + '😀'.repeat(150) + '"'),
      utf8('"' + '€'.repeat(199) + '😀x"'),
      b('"' + '\\ud83d\\ude00'.repeat(150) + '"'),
      cat([b('"'), Buffer.alloc(700, 0xe2), b('"')]),
      cat([b('"\\n'), utf8('naïve → '.repeat(40)), Buffer.from([0xf0, 0x9f]), b('\\u00e9"')]),
      b('"' + 'x'.repeat(199) + '\\ud83d\\ude00"'),
      b('"\\udc00\\ud800"'),
      // An escape, then 199 units in 230 or 414 bytes: a head of 200 + 32 or 2 x 200 + 16 bytes ends inside the emoji.
      utf8('"\\n' + 'a'.repeat(166) + 'é'.repeat(32) + '😀'.repeat(10) + '"'),
      utf8('"\\n' + '€'.repeat(16) + 'é'.repeat(182) + '😀'.repeat(10) + '"'),
    ];
    for (const t of texts) {
      checkSame(cat([b('{"type":"user","sessionId":'), t, b(',"cwd":'), t, b(',"message":{"id":'), t, b(',"content":'), t, b('}}')]));
      checkSame(cat([b('{"type":"user","message":{"content":[{"type":"text","text":'), t, b('},{"type":"tool_use","id":'), t, b(',"name":'), t, b('}]}}')]));
    }
    // Last one wins at every level: a later message, content or key of another type undoes what came before.
    for (const line of [
      '{"type":"user","message":{"content":[{"type":"text","text":"a"}]},"message":"m"}',
      '{"type":"user","message":{"id":"m1","content":[{"type":"tool_result","tool_use_id":"t"}],"content":"typed"}}',
      '{"type":"user","message":{"content":"typed","content":[{"type":"text","text":"b"},{"type":"text","text":"c"}]}}',
      '{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","id":7},{"type":"tool_use","id":"t2","type":"x"}]}}',
      '{"uuid":"u","uuid":null,"isMeta":true,"isMeta":1,"apiBlockIndex":"3","apiBlockIndex":-0.5e1,"message":{"stop_reason":"x","stop_reason":null}}',
      // As many kept values as the line has room for: the list of them never runs out of space.
      `{"type":"assistant","message":{"content":[${'{},'.repeat(20000)}{"type":"tool_use","id":"t","name":"n"}]}}`,
      `{${'"type":1,'.repeat(5000)}"type":"user","message":{"content":[${'{"text":"a","type":"text"},'.repeat(2000)}{}]}}`,
    ]) {
      checkSame(b(line));
      assert.equal(typeof reducer!.capture(b(line)), 'object');
    }
  });

  it('decodes only the head of a long escaped string, never cut inside an escape (property)', () => {
    // Strings a little past 6 x cap bytes, so the cut lands anywhere among the escapes.
    // Mostly `\\uXXXX`: at 6 bytes a unit, a head any shorter than 6 x cap falls short.
    const piece = fc.oneof(
      { weight: 12, arbitrary: fc.constantFrom('\\u00e9', '\\ud83d\\ude00', '\\udc00') },
      { weight: 4, arbitrary: fc.constantFrom('a', '\\n', '\\\\', '\\"', '\\\\u0041', 'é', '😀', '\\/') },
    );
    const long = (cap: number) =>
      fc.tuple(fc.array(piece, { minLength: cap * 3, maxLength: cap * 3 + 40 }), fc.nat(12)).map(([ps, pad]) => {
        let text = ps.join('');
        while (Buffer.byteLength(text) < 6 * cap + 8 + pad) text = 'x' + text;
        return Buffer.from(`"${text}"`, 'utf8');
      });
    fc.assert(
      fc.property(long(200), long(512), (text, id) => {
        checkSame(cat([b('{"type":"last-prompt","lastPrompt":'), text, b(',"sessionId":'), id, b('}')]));
        checkSame(cat([b('{"type":"user","message":{"content":[{"type":"text","text":'), text, b('},{"type":"tool_use","id":'), id, b(',"name":"n"}]}}')]));
      }),
      { numRuns: 300 },
    );
  });

  it('leaves to the whole-line path an escaped key where keys are matched, and a root that is no object', () => {
    assert.equal(reducer!.capture(b('{"typ\\u0065":"user"}')), REDUCE_FULL);
    assert.equal(reducer!.capture(b('{"message":{"content":[{"t\\u0065xt":"x"}]}}')), REDUCE_FULL);
    assert.equal(reducer!.capture(b('[1]')), REDUCE_FULL);
    // Below the kept levels keys are only skipped, escaped or not.
    assert.equal(typeof reducer!.capture(b('{"toolUseResult":{"typ\\u0065":1},"type":"user"}')), 'object');
    for (const line of ['{"typ\\u0065":"user"}', '{"message":{"content":[{"type":"text","t\\u0065xt":"hi"}]},"type":"user"}', '[1]', '"x"', '', ' ']) {
      checkSame(b(line));
    }
  });

  it('says invalid for what JSON.parse rejects, at any depth, and the whole-line path gives the reason', () => {
    for (const line of ['{', '{"a":1,}', '{"a":01}', '{"a":"\x01"}', '{"a":1} x', '{"a":[1,]}', '{"a":tru}', '{"a":"\\u12"}', '{}\x00']) {
      assert.equal(reducer!.capture(b(line)), REDUCE_INVALID, JSON.stringify(line));
      checkSame(b(line));
    }
    const deep = (n: number) => b(`{"x":${'['.repeat(n)}${']'.repeat(n)}}`);
    assert.equal(typeof reducer!.capture(deep(100000)), 'object');
    assert.equal(reducer!.capture(b(`{"x":${'['.repeat(100000)}${']'.repeat(99999)}}`)), REDUCE_INVALID);
  });

  it('shares the wasm memory with a streaming line in progress: each scanner gets its own line', () => {
    const text = Buffer.alloc(300_000, 'ab\\"cd\\u00e9 ');
    const huge = cat([b('{"type":"user","toolUseResult":"'), text, b('","message":{"content":[{"type":"tool_result","tool_use_id":"big"}]}}')]);
    const small = (i: number) => b(`{"type":"assistant","uuid":"u${i}","message":{"id":"m${i}","content":[{"type":"tool_use","id":"t${i}","name":"Bash","input":{"c":"${'x'.repeat(i * 50)}"}}]}}`);
    const streaming = createRecordScanner();
    const reducing = createCaptureScanner();
    const smallResults = [];
    for (let at = 0, i = 0; at < huge.length; at += 20_000, i += 1) {
      streaming.push(huge.subarray(at, at + 20_000));
      reducing.push(small(i));
      smallResults.push(reducing.finish());
    }
    assert.deepEqual(streaming.finish(), scanLine(huge, WHOLE));
    smallResults.forEach((r, i) => assert.deepEqual(r, scanLine(small(i), WHOLE)));
  });

  it('gives every line of the real and public fixtures the result of the whole-line parse, most of them reduced', () => {
    const files = ['real', 'public'].flatMap((dir) =>
      fs.readdirSync(path.join(fixturesDir, dir), { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.jsonl'))
        .map((f) => path.join(fixturesDir, dir, f)),
    );
    let lines = 0;
    let reduced = 0;
    for (const file of files) {
      for (const line of fs.readFileSync(file).toString('latin1').split('\n')) {
        const bytes = b(line);
        lines += 1;
        if (checkValidator(bytes) === 'captured') reduced += 1;
        checkSame(bytes);
      }
    }
    assert.ok(files.length >= 3 && lines > 100, `${files.length} files, ${lines} lines`);
    assert.ok(reduced > lines * 0.9, `${reduced} of ${lines} lines reduced`);
  });
});

describe("record scanner: the live engine's scanner and analyze's capture scanner give identical records (differential)", () => {
  /** Each line through both default scanners, in pieces of `piece` bytes and the last by finishLine, as the tail hands them over. */
  function checkBoth(lines: Buffer[], piece: number): void {
    const plain = createRecordScanner();
    const capture = createCaptureScanner();
    for (const line of lines) {
      const results = [plain, capture].map((s) => {
        let at = 0;
        for (; line.length - at > piece; at += piece) s.push(line.subarray(at, at + piece));
        return s.finishLine(Buffer.concat([line, b('\n')]), at, line.length);
      });
      if (!isDeepStrictEqual(results[0], results[1])) assert.deepEqual(results[1], results[0], `line: ${JSON.stringify(line.toString('latin1').slice(0, 300))}`);
    }
  }

  it('on generated lines, short and past both stream thresholds, whole and broken, in any pieces (property)', () => {
    const long = fc.tuple(recordLine, fc.integer({ min: 10_000, max: 90_000 })).map(([line, n]) => cat([b('{"toolUseResult":"'), Buffer.alloc(n, 'a\\"b\xe9'), b('",'), line.subarray(line.indexOf(0x7b) + 1)]));
    const anyLine = fc.oneof({ weight: 4, arbitrary: recordLine }, long, fc.tuple(ws, anyValue, ws).map(cat));
    fc.assert(
      fc.property(fc.array(anyLine, { minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 100_000 }), (lines, piece) => checkBoth(lines, piece)),
      { numRuns: 400 },
    );
  });

  it('on every line of the real fixtures (test/fixtures/real), whole and in pieces', () => {
    const files = fs.readdirSync(path.join(fixturesDir, 'real'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.jsonl'));
    assert.ok(files.length >= 3, `${files.length} files`);
    for (const file of files) {
      const lines = fs.readFileSync(path.join(fixturesDir, 'real', file)).toString('latin1').split('\n').map(b);
      checkBoth(lines, Number.MAX_SAFE_INTEGER);
      checkBoth(lines, 4096);
    }
  });
});

describe('capture: git branches (the views tell same-named sessions apart by them)', () => {
  // A plain line (no uuid, call, result or prompt): the scanners share one record per type while session, cwd and branch stay.
  const line = (branch: string) => b(`{"type":"system","gitBranch":"${branch}","sessionId":"s","cwd":"/w"}`);

  it('every record keeps its gitBranch on every scan path; a shared plain record is not reused across branches', () => {
    const scanners = [createRecordScanner(WHOLE), createRecordScanner({ streamThreshold: 0 }), createCaptureScanner(CAPTURED), createCaptureScanner(CAPTURED, false)];
    for (const scanner of scanners) {
      scanLine(line('main'), scanner);
      const main = scanLine(line('main'), scanner);
      const fix = scanLine(line('fix/tail'), scanner);
      assert.ok(main.kind === 'record' && fix.kind === 'record');
      assert.equal(main.gitBranch, 'main');
      assert.equal(fix.gitBranch, 'fix/tail');
    }
  });
});

describe('capture: uuids (the live engine reads them; analyze does not)', () => {
  const line = (uuid: string) => b(`{"type":"assistant","uuid":"${uuid}","timestamp":"2026-01-01T00:00:00.000Z","sessionId":"s","message":{"content":[{"type":"text","text":"hi"}]}}`);

  it('every record with a uuid keeps it and its timestamp, on both scan paths', () => {
    for (const scanned of [scanLine(line('u-1'), WHOLE), scanLine(line('u-1'), createCaptureScanner(CAPTURED))]) {
      assert.ok(scanned.kind === 'record');
      assert.equal(scanned.uuid, 'u-1');
      assert.equal(scanned.timestamp, '2026-01-01T00:00:00.000Z');
    }
  });

  it("analyze's capture (keepsIds false) leaves uuid and a plain record's timestamp out, and shares plain records again", () => {
    const scanner = createCaptureScanner(CAPTURED, false);
    const first = scanLine(line('u-1'), scanner);
    const second = scanLine(line('u-2'), scanner);
    assert.ok(first.kind === 'record' && first.uuid === undefined && first.timestamp === undefined);
    assert.equal(first, second);
  });
});
