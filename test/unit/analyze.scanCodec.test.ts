import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { decodeScan, encodeScan, ScanCodecState } from '../../src/core/analyze/scanCodec';
import { TranscriptSummary } from '../../src/core/analyze/transcriptSummary';
import type { ScannedRecord, ScanResult } from '../../src/core/records';

const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const id = fc.constantFrom('toolu_1', 'toolu_2', 'toolu_3', 'toolu_é"\\', 'toolu_\ud800');

const record: fc.Arbitrary<ScanResult> = fc
  .record({
    type: opt(fc.constantFrom('user', 'assistant', 'last-prompt', 'mode', 'ai-title', 'attachment')),
    sessionId: opt(fc.constantFrom('s1', 's2', 's3')),
    title: opt(fc.string({ maxLength: 8 })),
    prompt: opt(fc.string({ maxLength: 8 })),
    isMetadata: fc.boolean(),
    toolUses: fc.array(fc.record({ id, name: fc.constantFrom('Edit', 'Bash', '') }), { maxLength: 3 }),
    toolResults: fc.array(id, { maxLength: 3 }),
    messageId: opt(fc.constantFrom('m1', 'm2')),
    // -0 is the one value JSON does not keep (documented in forEachScan); no record carries it.
    apiBlockIndex: opt(fc.integer({ min: 0, max: 5 })),
    timestamp: opt(fc.constantFrom('2026-11-30T10:00:00.000Z', '2026-11-30T10:00:01.000Z')),
    stopReason: fc.constantFrom(undefined, null, 'tool_use', 'end_turn'),
    isSidechain: opt(fc.boolean()),
    agentId: opt(fc.constantFrom('a1', 'a2')),
    // A fork's copies name their parent's session here.
    requestSessionId: opt(fc.constantFrom('s1', 's2', 'p0')),
    // A field the summary never reads: the codec may drop it.
    cwd: opt(fc.constantFrom('/home/dev/app')),
  })
  .map((r) => {
    const rec: ScannedRecord = { kind: 'record', toolUses: r.toolUses, toolResults: r.toolResults, isMetadata: r.isMetadata };
    for (const [k, v] of Object.entries(r)) if (v !== undefined && !(k in rec)) (rec as unknown as Record<string, unknown>)[k] = v;
    return rec;
  });
const scan: fc.Arbitrary<ScanResult> = fc.oneof(
  { weight: 6, arbitrary: record },
  { weight: 1, arbitrary: fc.constantFrom('not JSON', 'truncated', 'not an object').map((reason): ScanResult => ({ kind: 'malformed', reason })) },
);

const summarize = (scans: ScanResult[]) => {
  const summary = new TranscriptSummary();
  scans.forEach((s, i) => summary.add(i + 1, s));
  return summary.finish();
};

describe('analyze: the scan codec between threads', () => {
  it('what the summary makes of decoded scans is what it makes of the scans (property)', () => {
    fc.assert(
      fc.property(fc.array(scan, { maxLength: 40 }), (scans) => {
        const out = new ScanCodecState();
        const back = new ScanCodecState();
        const decoded = scans.map((s) => decodeScan(encodeScan(s, out), back));
        assert.deepEqual(summarize(decoded), summarize(scans));
      }),
      { numRuns: 500 },
    );
  });

  it('a line without tool uses carries no call fields, and a repeated session id is not repeated', () => {
    const state = new ScanCodecState();
    const base: ScannedRecord = { kind: 'record', type: 'user', sessionId: 's1', timestamp: 't', messageId: 'm', isSidechain: false, toolUses: [], toolResults: ['toolu_1'], isMetadata: false };
    assert.equal(encodeScan(base, state), '{"t":"user","s":"s1","r":["toolu_1"]}');
    assert.equal(encodeScan(base, state), '{"t":"user","r":["toolu_1"]}');
    assert.equal(encodeScan({ ...base, sessionId: undefined }, state), '{"t":"user","s":null,"r":["toolu_1"]}');
  });
});
