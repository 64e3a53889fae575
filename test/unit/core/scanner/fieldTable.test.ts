import * as assert from 'node:assert/strict';
import { codesOf, FIELD_TABLE, FIELDS, ID_CAP, type FieldLine } from '../../../../src/core/scanner/fieldTable';
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
    assert.deepEqual(FIELDS.perCall.map((l) => l.key), ['requestedModel']);
    assert.equal(FIELDS.longestKey, 'requestSessionId'.length);
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
