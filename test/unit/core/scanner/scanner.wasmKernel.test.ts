import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { StreamingRecordParser } from '../../../../src/core/scanner/streamingParser';
import { WasmInteriorSkipper } from '../../../../src/core/scanner/interiorSkipper';
import { scanInChunks } from '../../helpers/lineScanners';

/** The plain definition: past plain bytes and complete valid escapes, stopping at anything else or n. */
function skipInteriorByByte(bytes: Buffer, k: number, n: number): number {
  const hex = (c: number) => /[0-9a-fA-F]/.test(String.fromCharCode(c));
  while (k < n) {
    const c = bytes[k]!;
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c) {
      k++;
      continue;
    }
    if (c !== 0x5c || k + 1 >= n) return k;
    const e = bytes[k + 1]!;
    if ('"\\/bfnrt'.includes(String.fromCharCode(e))) k += 2;
    else if (e === 0x75 && k + 5 < n && [2, 3, 4, 5].every((d) => hex(bytes[k + d]!))) k += 6;
    else return k;
  }
  return n;
}

/** Pieces of string interiors: plain runs of every length around 16, valid, bad and cut escapes, controls, non-ASCII. */
const piece = fc.oneof(
  fc.constantFrom('\\n', '\\"', '\\\\', '\\/', '\\b', '\\f', '\\r', '\\t', '\\u00e9', '\\uABCD', '\\u12', '\\u12g4', '\\uzzzz', '\\x', '\\', '"', '\x00', '\x01', '\x1f', ' ', '!', '#', '[', ']', '\x7f', '\x80', '\xff', 'é'),
  fc.integer({ min: 1, max: 40 }).map((len) => 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH'.slice(0, len)),
);
/**
 * Escape-dense text: runs of backslashes of any length at any offset (a run
 * escapes every other byte), escaped bytes of every kind, across 16-byte block
 * edges, so the kernel's bit-arithmetic fast path meets every case.
 */
const densePiece = fc.oneof(
  fc.integer({ min: 1, max: 7 }).map((len) => '\\'.repeat(len)),
  fc.constantFrom('\\', 'n', 't', 'u', 'u00e9', '1', 'x', '"', '/', 'b', 'f', 'r', 'a', 'ab', 'abc', '\x01', '\x7f', '\xe9', '\x00'),
  fc.integer({ min: 1, max: 17 }).map((len) => 'abcdefghijklmnopq'.slice(0, len)),
  fc.integer({ min: 0, max: 255 }).map((byte) => String.fromCharCode(byte)),
);
const interior = fc.oneof(fc.array(piece, { maxLength: 40 }), fc.array(densePiece, { maxLength: 60 })).map((pieces) =>
  Buffer.from(pieces.join(''), 'latin1'),
);

describe('record scanner: wasm SIMD string-interior kernel', () => {
  it('runs on this Node (wasm SIMD), so the tests below test the kernel', () => {
    assert.ok(WasmInteriorSkipper.create());
  });

  it('matches the byte-by-byte definition for any start and end in a chunk', () => {
    const skipper = WasmInteriorSkipper.create()!;
    fc.assert(
      fc.property(interior, fc.nat(), fc.nat(), (body, a, b) => {
        const k = a % (body.length + 1);
        const n = k + (b % (body.length - k + 1));
        // The chunk is a view of a larger memory whose bytes past n are specials: the kernel must ignore them.
        const memory = Buffer.alloc(body.length + 64, 0x22);
        body.copy(memory);
        skipper.setChunk(memory.subarray(0, n));
        assert.equal(skipper.skipInterior(k, n), skipInteriorByByte(body, k, n));
      }),
      { numRuns: 5000 },
    );
  });

  it('follows backslash runs across 64-byte block edges, with the end anywhere, inside a run too', () => {
    const skipper = WasmInteriorSkipper.create()!;
    // The kernel takes 64 bytes at a time from k and carries a run's parity from block to block.
    const filler = fc.constantFrom('abcdefgh', 'a\\nb\\"cd', '\\\\\\/xyz', 'ab\\u00e9c');
    const escapedByte = fc.constantFrom('n', '"', '/', 'u00e9', 'u12', 'uABCx', 'x', '\x01', '\xe9', 'abc', '');
    const pastEnd = fc.constantFrom(0x22, 0x5c, 0x75, 0x00, 0x61);
    fc.assert(
      fc.property(
        filler, fc.integer({ min: 0, max: 140 }), fc.integer({ min: 1, max: 70 }), escapedByte, fc.integer({ min: 0, max: 3 }), fc.integer({ min: -2, max: 80 }), pastEnd,
        (fill, before, run, after, start, endFromRun, past) => {
          const body = Buffer.from(fill.repeat(20).slice(0, before) + '\\'.repeat(run) + after + 'tail', 'latin1');
          const k = Math.min(start, before);
          const n = Math.min(body.length, Math.max(k, before + endFromRun));
          const memory = Buffer.alloc(body.length + 64, past);
          body.copy(memory, 0, 0, n);
          skipper.setChunk(memory.subarray(0, n));
          assert.equal(skipper.skipInterior(k, n), skipInteriorByByte(body, k, n));
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('walks chunk after chunk: a larger chunk grows the memory, a smaller one leaves no stale bytes in play', () => {
    const skipper = WasmInteriorSkipper.create()!;
    const sizes = [10, 300_000, 17, 70_000, 3];
    for (const size of sizes) {
      const chunk = Buffer.alloc(size, 0x61);
      chunk[size - 1] = 0x22;
      skipper.setChunk(chunk);
      assert.equal(skipper.skipInterior(0, size), size - 1);
      assert.equal(skipper.skipInterior(0, size - 1), size - 1);
    }
  });
});

describe('record scanner: the tokenizer with and without the wasm kernel (properties)', () => {
  it('agrees on strings with random escapes split across random chunks, and with JSON.parse', () => {
    const withWasm = new StreamingRecordParser();
    const withJs = new StreamingRecordParser({ wasm: false });
    fc.assert(
      fc.property(interior, fc.array(fc.nat(), { maxLength: 6 }), (body, cuts) => {
        // A tool result (skipped, not kept) holding the interior, then a kept field after it.
        const line = Buffer.concat([
          Buffer.from('{"type":"user","message":{"content":[{"type":"tool_result","content":"'),
          body,
          Buffer.from('"}]},"uuid":"u1"}'),
        ]);
        const viaWasm = scanInChunks(withWasm, line, cuts);
        assert.deepEqual(viaWasm, scanInChunks(withJs, line, cuts));
        let valid = true;
        try {
          JSON.parse(line.toString('utf8'));
        } catch {
          valid = false;
        }
        assert.equal(viaWasm.kind === 'record', valid, `line: ${JSON.stringify(line.toString('latin1'))}`);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('record scanner: tokenizers share one wasm kernel', () => {
  it('interleaved pushes of two tokenizers each give that line’s result', () => {
    const a = new StreamingRecordParser();
    const b = new StreamingRecordParser();
    fc.assert(
      fc.property(interior, interior, fc.integer({ min: 1, max: 64 }), (bodyA, bodyB, size) => {
        const line = (body: Buffer, id: string) =>
          Buffer.concat([Buffer.from(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"${id}","content":"`), body, Buffer.from('"}]}}')]);
        const lineA = line(bodyA, 'toolu_a');
        const lineB = line(bodyB, 'toolu_b');
        const alone = (l: Buffer) => scanInChunks(new StreamingRecordParser(), l, []);
        // Chunk by chunk, alternately, through one Buffer object whose bytes change, as a reused read buffer's do.
        const scratch = Buffer.alloc(size);
        const pushVia = (parser: StreamingRecordParser, l: Buffer, at: number) => {
          const piece = l.subarray(at, at + size);
          if (piece.length < size) return parser.push(piece);
          piece.copy(scratch);
          parser.push(scratch);
        };
        for (let at = 0; at < Math.max(lineA.length, lineB.length); at += size) {
          if (at < lineA.length) pushVia(a, lineA, at);
          if (at < lineB.length) pushVia(b, lineB, at);
        }
        assert.deepEqual(a.finish(), alone(lineA));
        assert.deepEqual(b.finish(), alone(lineB));
      }),
      { numRuns: 500 },
    );
  });
});
