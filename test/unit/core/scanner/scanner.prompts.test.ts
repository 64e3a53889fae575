import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import type { ScanResult } from '../../../../src/core/records';
import { createRecordScanner, scanLine, type RecordLineScanner, type RecordScannerOptions } from '../../../../src/core/scanner';
import { createCaptureScanner } from '../../../../src/core/analyze/capture/captureScanner';

/**
 * RecordScannerOptions.prompts: a line whose prompt is not wanted gives the
 * record it gives otherwise, without `prompt`, on every scan path (the wasm
 * values, JSON.parse of the whole line, the streaming
 * tokenizer, and the tail's finishLine).
 */
const PATHS: Array<[string, (opts: RecordScannerOptions) => RecordLineScanner]> = [
  ['wasm capture', (opts) => createCaptureScanner(opts)],
  ['JSON.parse', (opts) => createRecordScanner(opts)],
  ['streaming', (opts) => createRecordScanner({ ...opts, streamThreshold: 0 })],
];

function withoutPrompt(r: ScanResult): ScanResult {
  if (r.kind !== 'record') return r;
  const { prompt: _dropped, ...rest } = r;
  return rest;
}

function finishLine(line: Buffer, scanner: RecordLineScanner): ScanResult {
  const before = Buffer.from('{"type":"x"}\n');
  const buffer = Buffer.concat([before, line, Buffer.from('\n{"type":"user","message":{"content":"next"}}')]);
  return scanner.finishLine(buffer, before.length, before.length + line.length);
}

function checkWithoutPrompt(line: Buffer): void {
  const wanted = scanLine(line);
  for (const [name, scanner] of PATHS) {
    assert.deepEqual(scanLine(line, scanner({ prompts: () => true })), wanted, `${name}, prompts wanted`);
    assert.deepEqual(scanLine(line, scanner({ prompts: () => false })), withoutPrompt(wanted), `${name}, no prompts`);
    assert.deepEqual(finishLine(line, scanner({ prompts: () => false })), withoutPrompt(wanted), `${name} finishLine, no prompts`);
  }
}

const text = fc.oneof(fc.string({ maxLength: 300 }), fc.string({ unit: 'binary', maxLength: 60 }), fc.constantFrom('fix "the" build\\n\\u00e9', 'é→✓', ''));
const record = fc.record(
  {
    type: fc.constantFrom('user', 'assistant', 'last-prompt', 'ai-title', 'mode'),
    isMeta: fc.boolean(),
    lastPrompt: text,
    aiTitle: text,
    message: fc.record(
      {
        content: fc.oneof(
          text,
          fc.array(
            fc.oneof(
              fc.record({ type: fc.constant('text'), text }),
              fc.record({ type: fc.constant('tool_result'), tool_use_id: fc.constantFrom('toolu_1', 'toolu_2'), content: text }),
              fc.record({ type: fc.constant('tool_use'), id: fc.constantFrom('toolu_1', 'toolu_2'), name: fc.constant('Bash'), input: fc.object() }),
            ),
            { maxLength: 4 },
          ),
        ),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: ['type'] },
);

describe('record scanner: prompts only where wanted', () => {
  it('a line whose prompt is not wanted is the same record without it, on every path (property)', () => {
    fc.assert(
      fc.property(record, (r) => checkWithoutPrompt(Buffer.from(JSON.stringify(r)))),
      { numRuns: 300 },
    );
  });

  it('prompts of every kind are left out: a typed prompt, a first text block, a last-prompt; titles stay', () => {
    const lines = [
      { type: 'user', message: { content: 'fix the "build"\nplease' } },
      { type: 'user', message: { content: [{ type: 'text', text: 'and the tests' }] } },
      { type: 'last-prompt', lastPrompt: 'what is left' },
      { type: 'ai-title', aiTitle: 'Fixing the build' },
    ];
    for (const r of lines) {
      const line = Buffer.from(JSON.stringify(r));
      const wanted = scanLine(line);
      assert.ok(wanted.kind === 'record');
      if (r.type === 'ai-title') assert.equal(wanted.title, 'Fixing the build');
      else assert.notEqual(wanted.prompt, undefined, r.type);
      checkWithoutPrompt(line);
    }
  });

  it('asks once per line, as the line ends, so an owner can stop wanting prompts mid-file', () => {
    const lines = ['{"type":"user","message":{"content":"first"}}', '{"type":"user","message":{"content":"second"}}', '{"type":"assistant"}', 'not json'];
    for (const [name, createScanner] of PATHS) {
      let asked = 0;
      let want = true;
      const scanner = createScanner({
        prompts: () => {
          asked += 1;
          return want;
        },
      });
      const prompts: Array<string | undefined> = [];
      for (const text of lines) {
        scanner.push(Buffer.from(text));
        const r = scanner.finish();
        prompts.push(r.kind === 'record' ? r.prompt : 'malformed');
        want = false; // the owner has its prompt once the first line is read
      }
      assert.deepEqual(prompts, ['first', undefined, undefined, 'malformed'], name);
      assert.equal(asked, lines.length, name);
    }
  });
});
