import * as assert from 'node:assert/strict';
import { lenientCallEvent } from '../../../src/rules/channelLineHead';
import { parseChannelLine } from '../../../src/core/channel/reader';

/**
 * The status line reads channel lines without zod (src/rules/channelLineHead.ts); the engine's
 * reader reads the head the same way, then zod. For the call events the status line uses, the two
 * must take the same lines: one with every field, then each field removed and set to values
 * schema.ts refuses and takes.
 */
const T = 1_796_000_000_000;
const base = { v: 1, at: T, session_id: 's-1', transcript_path: '/c/projects/-w/s-1.jsonl', agent_id: 'a1', source: 'transcript-lag-hook', tool_use_id: 'toolu_1', tool_name: 'Bash' };
const onDisk = { checked_at: T + 5, bytes_on_disk: 100, record_on_disk: false, result_on_disk: false, record_path: '/c/projects/-w/s-1/subagents/agent-a1.jsonl', transport: 'command' };
const full: Record<string, Record<string, unknown>> = {
  pre: { ...base, ...onDisk, event: 'pre', prompt_id: 'p-1', mode: 'probe', timeout_ms: 6000 },
  post: { ...base, ...onDisk, event: 'post', hooks_ms: 2004, hooks_decision: 'deny' },
  hooks: { ...base, event: 'hooks', transport: 'mod', hooks_ms: 2004, hooks_decision: 'allow' },
  landed: { ...base, event: 'landed', with_result: true, record_path: onDisk.record_path, watched_from: 'pre', missed_at: T + 400, fired_at: T },
  wait: { ...base, event: 'wait', outcome: 'seen', polls: 3, waited_ms: 225, bytes_on_disk: 100, checked_at: T + 300, line: 22, max_polls: 10, poll_ms: 100, error: 'x' },
};
const long = (n: number) => 'x'.repeat(n);
/** Values to try in every field: of each type, at the schema's edges. */
const VALUES: unknown[] = [null, true, false, 0, -1, 1.5, 1, T, '', 'x', long(200), long(201), long(4096), long(4097), 'command', 'http', 'mod', 'other', 'pre', 'post', 'announce', 'probe', 'allow', 'ask', 'deny', 'seen', 'behind', 'error', long(500), long(501), 86_400_000, 86_400_001, [], {}];

function agree(obj: Record<string, unknown>, what: string): void {
  const line = JSON.stringify(obj);
  const engine = parseChannelLine(line);
  const ours = lenientCallEvent(line);
  const engineTakes = engine.kind === 'event' && engine.event.event !== 'record';
  assert.equal(ours !== undefined, engineTakes, `${what}: the status line ${ours ? 'takes' : 'drops'} it, the engine ${engineTakes ? 'takes' : 'drops'} it (${engine.kind === 'invalid' ? engine.reason : engine.kind})`);
  if (!ours || engine.kind !== 'event') return;
  for (const [k, v] of Object.entries(ours)) assert.deepEqual(v, (engine.event as Record<string, unknown>)[k], `${what}: ${k}`);
}

describe('channel line head: the status line takes the call events the engine takes', () => {
  it('every field of pre, post, hooks, wait and landed, removed or set to any of a range of values', () => {
    let tried = 0;
    for (const [event, obj] of Object.entries(full)) {
      agree(obj, event);
      for (const field of Object.keys(obj)) {
        if (field === 'event') continue;
        const { [field]: _dropped, ...without } = obj;
        agree(without, `${event} without ${field}`);
        for (const v of VALUES) {
          agree({ ...obj, [field]: v }, `${event}.${field} = ${JSON.stringify(v)?.slice(0, 20)}`);
          tried++;
        }
      }
    }
    assert.ok(tried > 500);
  });

  it('versions, other events, blank and broken lines; a line glued to a killed write keeps its later event', () => {
    const pre = JSON.stringify(full.pre);
    for (const [text, takes] of [
      [pre, true],
      [JSON.stringify({ ...full.pre, v: 2 }), false],
      [JSON.stringify({ ...full.pre, event: 'wait' }), false],
      [JSON.stringify({ ...full.pre, event: 'record' }), false],
      [JSON.stringify({ ...full.pre, event: 'held' }), false],
      ['', false],
      ['   ', false],
      ['[1]', false],
      ['{"v":1,"event":"pre"', false],
      [`{"v":1,"event":"pre","at":${pre}`, true],
      [`  ${pre}  `, true],
    ] as const) {
      assert.equal(lenientCallEvent(text) !== undefined, takes, text.slice(0, 60));
      const engine = parseChannelLine(text);
      assert.equal(engine.kind === 'event' && engine.event.event === 'pre', takes, text.slice(0, 60));
    }
  });
});
