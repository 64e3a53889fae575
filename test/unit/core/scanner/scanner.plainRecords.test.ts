import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { buildRecord, emptyFields, PlainRecords, type CapturedFields } from '../../../../src/core/scanner/fields';

/** Fields as the scan paths fill them: refs only when a line has some. */
const fields = fc
  .record({
    type: fc.constantFrom(undefined, 'user', 'assistant', 'mode', 'ai-title', 'custom-title', 'last-prompt', 'attachment'),
    sessionId: fc.constantFrom(undefined, 's1', 's2'),
    cwd: fc.constantFrom(undefined, '/a', '/b'),
    aiTitle: fc.constantFrom(undefined, 'T'),
    customTitle: fc.constantFrom(undefined, 'C'),
    lastPrompt: fc.constantFrom(undefined, 'again'),
    contentText: fc.constantFrom(undefined, 'hello'),
    isMeta: fc.constantFrom(undefined, true, false),
    use: fc.constantFrom(undefined, 'toolu_1'),
    result: fc.constantFrom(undefined, 'toolu_1'),
    timestamp: fc.constantFrom(undefined, '2026-11-30T00:00:00.000Z'),
  })
  .map((r): CapturedFields => {
    const f = emptyFields();
    Object.assign(f, { type: r.type, sessionId: r.sessionId, cwd: r.cwd, aiTitle: r.aiTitle, customTitle: r.customTitle, lastPrompt: r.lastPrompt, contentText: r.contentText, isMeta: r.isMeta, timestamp: r.timestamp });
    if (r.use !== undefined) f.toolUses = [{ id: r.use, name: 'Bash' }];
    if (r.result !== undefined) f.toolResults = [r.result];
    return f;
  });

describe('PlainRecords: the records of plain lines, shared', () => {
  it('gives what buildRecord gives, line after line (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fields, fc.boolean()), { maxLength: 40 }), (lines) => {
        const plain = new PlainRecords();
        for (const [f, prompts] of lines) assert.deepEqual(plain.recordOf(f, prompts), buildRecord(f, prompts));
      }),
    );
  });

  it('shares one frozen record per type while session and cwd stay, and never one with refs, a title or a prompt', () => {
    const plain = new PlainRecords();
    const mode = (sessionId: string): CapturedFields => Object.assign(emptyFields(), { type: 'mode', sessionId, cwd: '/a' });
    const first = plain.recordOf(mode('s1'), true);
    assert.equal(plain.recordOf(mode('s1'), true), first);
    assert.ok(Object.isFrozen(first));
    assert.throws(() => first.toolUses.push({ id: 'x', name: 'y' }), TypeError, 'its refs are the shared frozen empty arrays');
    const other = plain.recordOf(mode('s2'), true);
    assert.notEqual(other, first);
    assert.equal(other.sessionId, 's2');

    const withUse = Object.assign(emptyFields(), { type: 'assistant', toolUses: [{ id: 'toolu_1', name: 'Bash' }] });
    assert.notEqual(plain.recordOf(withUse, true), plain.recordOf(withUse, true));
    const titled = Object.assign(emptyFields(), { type: 'ai-title', aiTitle: 'T' });
    assert.notEqual(plain.recordOf(titled, true), plain.recordOf(titled, true));
    const prompt = Object.assign(emptyFields(), { type: 'user', contentText: 'hi' });
    assert.equal(plain.recordOf(prompt, true).prompt, 'hi');
    assert.equal(plain.recordOf(prompt, false).prompt, undefined, 'no prompt wanted: a plain line');
  });
});
