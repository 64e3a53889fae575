import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { analyzeTranscript } from '../../../../src/core/analyze';
import { createCaptureScanner } from '../../../../src/core/analyze/capture/captureScanner';
import type { PerCallValue, ScanResult } from '../../../../src/core/records';
import { scanLine } from '../../../../src/core/scanner';
import { codesOf, FIELD_TABLE, FIELDS, ID_CAP, type FieldLine } from '../../../../src/core/scanner/fieldTable';
import { nodeFileAccess } from '../../../../src/platform/nodeFileAccess';
import { writeKeyTable } from '../../../../src/core/scanner/keyTable';
import { ownKernel, SCANNER_READ_PAST_END } from '../../../../src/core/scanner/scannerKernel';

/**
 * The field table (src/core/scanner/fieldTable.ts) is the one list of kept keys. Its codes, and the wasm capture's
 * matcher, which reads it at load (src/core/scanner/keyTable.ts into analyze/capture/wasm/keyTable.h): a table
 * written into a fresh instance is what that instance matches, with no compile.
 */

interface Entry {
  code: number;
  type: number;
  text: string;
}

type CaptureExports = { captureLine(line: number, length: number, out: number, outEntries: number, stack: number): number };

/** The entries capture.c lists for `line` on an instance whose key table is `table`'s. */
function entriesOf(table: readonly FieldLine[], line: string): Entry[] | number {
  const kernel = ownKernel(0);
  if (kernel === null) return -99; // no wasm SIMD here
  writeKeyTable(kernel.exports as typeof kernel.exports & { keyTable(): number }, codesOf(table));
  const bytes = Buffer.from(line, 'latin1');
  const entries = bytes.length + 16;
  const out = Math.ceil((bytes.length + SCANNER_READ_PAST_END) / 64) * 64;
  const stack = out + entries * 12;
  const memory = kernel.ensureCapacity(stack + bytes.length);
  const base = kernel.heapBase;
  memory.set(bytes, base);
  const count = (kernel.exports as unknown as CaptureExports).captureLine(base, bytes.length, base + out, entries, base + stack);
  if (count < 0) return count;
  const words = new Uint32Array(memory.buffer, base + out, count * 3);
  return Array.from({ length: count }, (_, i) => ({
    code: words[3 * i]! & 0xff,
    type: (words[3 * i]! >> 8) & 0xff,
    text: bytes.subarray(words[3 * i + 1]!, words[3 * i + 2]!).toString('latin1'),
  }));
}

describe('the field table', () => {
  it('codes lines by level (root, message, block; a content block itself last), per-call lines in table order', () => {
    const levels = FIELDS.lines.map((l) => l.in);
    assert.deepEqual(levels, [...levels].sort((a, b) => ['root', 'message', 'block'].indexOf(a) - ['root', 'message', 'block'].indexOf(b)));
    assert.deepEqual(FIELDS.lines.map((l) => l.code), FIELDS.lines.map((_, i) => i));
    assert.equal(FIELDS.lines.length, FIELD_TABLE.length);
    assert.equal(FIELDS.messageFirst, FIELDS.lines.findIndex((l) => l.in === 'message'));
    assert.equal(FIELDS.blockFirst, FIELDS.lines.findIndex((l) => l.in === 'block'));
    assert.equal(FIELDS.element, FIELD_TABLE.length);
    assert.deepEqual(FIELDS.perCall.map((l) => l.key), (FIELD_TABLE as readonly FieldLine[]).filter((l) => l.perCall).map((l) => l.key));
    assert.equal(FIELDS.longestKey, Math.max(...FIELD_TABLE.map((l) => l.key.length)));
  });

  // The table is the only list of per-call keys: each of its lines, whatever it names, must come out of every
  // scan path on a call's record and, from there, on each of analyze's calls; on no record without a call.
  it("keeps each per-call line's key on a call's record, on every scan path, and on each call of analyze", async () => {
    const perCall = (FIELD_TABLE as readonly FieldLine[]).filter((l) => l.perCall);
    assert.ok(perCall.length > 0, 'the table has per-call lines');
    const valueOf = (l: FieldLine): PerCallValue => (l.as === 'number' ? 7 : l.as === 'boolean' ? true : `v-${l.key}`);
    const expected = Object.fromEntries(perCall.map((l) => [l.key, valueOf(l)]));
    const at = (level: 'root' | 'message') => Object.fromEntries(perCall.filter((l) => l.in === level).map((l) => [l.key, valueOf(l)]));
    const record = (id: string, content: object[]) => JSON.stringify({ type: 'assistant', uuid: `u-${id}`, ...at('root'), message: { id: `m-${id}`, ...at('message'), content } });
    const call = Buffer.from(record('1', [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: {} }]));
    const text = Buffer.from(record('2', [{ type: 'text', text: 'no call' }]));
    const paths: Array<[string, (line: Buffer) => ScanResult]> = [
      ['JSON.parse', (line) => scanLine(line, { streamThreshold: Number.MAX_SAFE_INTEGER })],
      ['streaming', (line) => scanLine(line, { streamThreshold: 0 })],
      ['capture', (line) => scanLine(line, createCaptureScanner({ streamThreshold: Number.MAX_SAFE_INTEGER }))],
    ];
    for (const [name, scan] of paths) {
      const [withCall, without] = [scan(call), scan(text)];
      assert.ok(withCall.kind === 'record' && without.kind === 'record', name);
      assert.deepEqual(withCall.perCall, expected, name);
      assert.equal(without.perCall, undefined, name);
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-field-table-'));
    try {
      const file = path.join(dir, 's.jsonl');
      fs.writeFileSync(file, `${call}\n${text}\n`);
      const a = await analyzeTranscript({ path: file, files: nodeFileAccess, clock: { now: () => 1_800_000_000_000 } });
      assert.deepEqual(a.calls.map((c) => c.record), [expected]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a table the capture could not match or the views could not show, at load', () => {
    const bad: Array<[FieldLine, RegExp]> = [
      [{ key: 'a"b', in: 'root', as: 'string', cap: 5 }, /printable ASCII/],
      [{ key: 'caf\u00e9', in: 'root', as: 'string', cap: 5 }, /printable ASCII/],
      [{ key: 'x'.repeat(65), in: 'root', as: 'string', cap: 5 }, /at most 64/],
      [{ key: 'type', in: 'root', as: 'string', cap: 5 }, /listed twice/],
      [{ key: 'slug', in: 'root', as: 'string' }, /needs a cap/],
      [{ key: 'caller', in: 'block', as: 'string', cap: 5, perCall: true }, /per-call/],
      [{ key: 'stop_sequence', in: 'message', as: 'string|null', cap: 5, perCall: true }, /per-call/],
      [{ key: 'message', in: 'message', as: 'message' }, /sits in the root/],
    ];
    for (const [line, error] of bad) assert.throws(() => codesOf([...FIELD_TABLE, line]), error, JSON.stringify(line));
    assert.throws(() => codesOf(Array.from({ length: 255 }, (_, i) => ({ key: `k${i}`, in: 'root' as const, as: 'boolean' as const }))), /at most 254/);
  });

  it("the wasm capture matches the table written at load: a new line's key is listed with its code, at its level only", function () {
    const requestRef: FieldLine = { key: 'requestRef', in: 'root', as: 'string', cap: ID_CAP, perCall: true };
    const model: FieldLine = { key: 'model', in: 'message', as: 'string', cap: ID_CAP, perCall: true };
    const long: FieldLine = { key: 'k'.repeat(40) + 'Z', in: 'root', as: 'number' };
    const longest: FieldLine = { key: 'y'.repeat(64), in: 'root', as: 'boolean' };
    const table = [...FIELD_TABLE, requestRef, model, long, longest];
    const codes = codesOf(table);
    const line =
      `{"requestRef":"r1","requestRe":"no","requestRefs":"no","requestReF":"no","model":"no","${'k'.repeat(40)}Z":3,"${'k'.repeat(41)}":4,` +
      `"${'y'.repeat(64)}":true,"${'y'.repeat(65)}":false,"type":"assistant","message":{"model":"m1","requestRef":"no","content":[{"type":"tool_use","model":"no"}]}}`;
    const entries = entriesOf(table, line);
    if (entries === -99) return this.skip();
    assert.ok(Array.isArray(entries), `captured: ${String(entries)}`);
    const named = entries.map((e) => [codes.lines[e.code]?.in ?? (e.code === codes.element ? 'element' : '?'), codes.lines[e.code]?.key ?? '', e.text]);
    // A container read into is listed first, with an empty span, then its own entries.
    assert.deepEqual(named, [
      ['root', 'requestRef', 'r1'],
      ['root', long.key, '3'],
      ['root', longest.key, 'true'],
      ['root', 'type', 'assistant'],
      ['root', 'message', ''],
      ['message', 'model', 'm1'],
      ['message', 'content', ''],
      ['element', '', ''],
      ['block', 'type', 'tool_use'],
    ]);
    // The same instance's module with the table as shipped lists none of the new keys.
    const shipped = entriesOf(FIELD_TABLE, line);
    assert.ok(Array.isArray(shipped));
    assert.deepEqual(shipped.map((e) => FIELDS.lines[e.code]?.key ?? 'element'), ['type', 'message', 'content', 'element', 'type']);
  });
});
