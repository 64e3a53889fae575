import { strict as assert } from 'node:assert';
import { parseChannelLine } from '../../../../src/core/channel/reader';
import { MAX_HOOK_LABEL_LENGTH, MAX_HOOKS_MS } from '../../../../src/rules/channelConstants';
import { lenientCallEvent } from '../../../../src/rules/channelLineHead';

// `hook_run` (issue 39 §4): the completing wrapper's report of one wrapped hook's run. The schema
// takes it; a line that breaks it is dropped as any invalid line; the status line, which needs no
// hook runs, skips it.
const valid = {
  v: 1,
  event: 'hook_run',
  at: 1_796_025_927_011,
  session_id: '31fe55b3-0000-4000-8000-000000000000',
  transcript_path: '/home/me/.claude/projects/-w/31fe55b3-0000-4000-8000-000000000000.jsonl',
  source: 'transcript-lag-complete',
  tool_use_id: 'toolu_01A',
  tool_name: 'Bash',
  hook: 'review.sh',
  ms: 1412,
  decision: 'block',
  exit_code: 2,
  completed: true,
};
const line = (over: Record<string, unknown>, drop: string[] = []) => {
  const o: Record<string, unknown> = { ...valid, ...over };
  for (const k of drop) delete o[k];
  return JSON.stringify(o);
};

describe('the channel schema: hook_run', () => {
  it('is an event, its fields as written', () => {
    const l = parseChannelLine(line({}));
    assert.equal(l.kind, 'event');
    assert.deepEqual(l.kind === 'event' ? l.event : undefined, valid);
  });

  it('a signal instead of an exit code, and no decision (one too long to read), are valid', () => {
    assert.equal(parseChannelLine(line({ exit_code: null, signal: 'SIGTERM', decision: 'error' })).kind, 'event');
    assert.equal(parseChannelLine(line({}, ['decision'])).kind, 'event');
  });

  const invalid: Array<[string, string]> = [
    ['an empty label', line({ hook: '' })],
    ['a label over the bound', line({ hook: 'h'.repeat(MAX_HOOK_LABEL_LENGTH + 1) })],
    ['a negative time', line({ ms: -1 })],
    ['a time over a day', line({ ms: MAX_HOOKS_MS + 1 })],
    ['a fractional time', line({ ms: 1.5 })],
    ['a decision Claude Code has not', line({ decision: 'maybe' })],
    ['no exit code', line({}, ['exit_code'])],
    ['no completed', line({}, ['completed'])],
    ['no tool_use_id', line({}, ['tool_use_id'])],
  ];
  for (const [what, text] of invalid) {
    it(`${what}: dropped as invalid`, () => assert.equal(parseChannelLine(text).kind, 'invalid'));
  }

  it("the status line's reader skips it (it reads call events it needs, and no hook run)", () => {
    assert.equal(lenientCallEvent(line({})), undefined);
  });
});
