import * as assert from 'node:assert/strict';
import {
  claudeDirOfTranscript,
  heldMessageOf,
  heldMessagePath,
  modCallsPath,
  modListNames,
  parseHeldMessage,
  recordFileOf,
  sessionIdOfTranscript,
  spoolFileName,
  type ConversationRow,
} from '../../../src/rules/modContract';

const row = (role: 'user' | 'assistant', text: string, ids: string[] = []): ConversationRow => ({
  role,
  text,
  toolUses: ids.map((id) => ({ tool_use_id: id, tool: 'Bash', input: { command: id } })),
});

describe('modContract: what the mod and its readers agree on', () => {
  it('finds the claude dir and session id of a transcript, POSIX and Windows', () => {
    assert.equal(claudeDirOfTranscript('/h/.claude/projects/-w/5f0e.jsonl'), '/h/.claude');
    assert.equal(claudeDirOfTranscript('C:\\Users\\me\\.claude\\projects\\C--w\\5f0e.jsonl'), 'C:\\Users\\me\\.claude');
    assert.equal(claudeDirOfTranscript('/h/.claude/elsewhere/-w/5f0e.jsonl'), undefined);
    assert.equal(sessionIdOfTranscript('/h/.claude/projects/-w/5f0e-aa.jsonl'), '5f0e-aa');
    assert.equal(sessionIdOfTranscript('/h/.claude/projects/-w/..jsonl'), undefined);
  });

  it('names held messages only for ids that cannot leave their folder', () => {
    assert.equal(heldMessagePath('/h/.claude', 's1', 'toolu_01'), '/h/.claude/transcript-lag/held/s1/toolu_01.json');
    assert.equal(heldMessagePath('C:\\c', 's1', 'toolu_01'), 'C:\\c\\transcript-lag\\held\\s1\\toolu_01.json');
    assert.equal(heldMessagePath('/h/.claude', 's1', '../x'), undefined);
    assert.equal(heldMessagePath('/h/.claude', '..', 'toolu_01'), undefined);
  });

  it('spool names sort in write order within one instance', () => {
    const names = [1, 2, 10, 9, 100].map((n) => spoolFileName('s1', 'ab12cd34', n));
    assert.deepEqual([...names].sort(), [1, 2, 9, 10, 100].map((n) => spoolFileName('s1', 'ab12cd34', n)));
  });

  it('a subagent call is recorded in its own file, with the transcript path\'s separators', () => {
    assert.equal(recordFileOf('C:\\c\\projects\\w\\s1.jsonl', 's1', 'a1'), 'C:\\c\\projects\\w\\s1\\subagents\\agent-a1.jsonl');
  });

  it('cuts the held message: the run of assistant rows around the call, text blocks in order', () => {
    const rows = [row('user', 'go'), row('assistant', 'Plan, line one.\nline two'), row('assistant', 'Second block.'), row('assistant', '', ['toolu_a']), row('assistant', '', ['toolu_b'])];
    const found = heldMessageOf(rows, 'toolu_a');
    assert.deepEqual(found?.text_blocks, ['Plan, line one.\nline two', 'Second block.']);
    assert.deepEqual(found?.tool_use, { id: 'toolu_a', name: 'Bash', input: { command: 'toolu_a' } });
    assert.equal(found?.complete, true);
  });

  it('gives the message\'s blocks up to the call, in order, with the rows\' uuids and the chain within the message', () => {
    const withUuid = (r: ConversationRow, uuid: string): ConversationRow => ({ ...r, uuid });
    const rows = [
      withUuid(row('user', 'go'), 'u0'),
      withUuid(row('assistant', 'Plan.'), 'u1'),
      withUuid(row('assistant', ''), 'u2'), // a block with no text (thinking): no block of its own, still a link of the chain
      withUuid(row('assistant', '', ['toolu_a']), 'u3'),
      row('assistant', '', ['toolu_b']), // its uuid not given: none written, and none guessed for what follows it
      withUuid(row('assistant', '', ['toolu_c']), 'u5'),
    ];
    assert.deepEqual(heldMessageOf(rows, 'toolu_c')?.blocks, [
      { type: 'text', text: 'Plan.', uuid: 'u1' },
      { type: 'tool_use', id: 'toolu_a', name: 'Bash', input: { command: 'toolu_a' }, uuid: 'u3', parent_uuid: 'u2' },
      { type: 'tool_use', id: 'toolu_b', name: 'Bash', input: { command: 'toolu_b' }, parent_uuid: 'u3' },
      { type: 'tool_use', id: 'toolu_c', name: 'Bash', input: { command: 'toolu_c' }, uuid: 'u5' },
    ]);
    // The first call of the pair: the blocks end with it.
    assert.deepEqual(heldMessageOf(rows, 'toolu_a')?.blocks.map((b) => b.type === 'text' ? b.text : b.id), ['Plan.', 'toolu_a']);
  });

  it('stops at a tool result: the previous message is not this one', () => {
    const rows = [row('assistant', 'old text', ['toolu_old']), row('user', ''), row('assistant', '', ['toolu_new'])];
    assert.deepEqual(heldMessageOf(rows, 'toolu_new')?.text_blocks, []);
  });

  it('says when the rows given may cut the message short', () => {
    assert.equal(heldMessageOf([row('assistant', 'x'), row('assistant', '', ['toolu_a'])], 'toolu_a')?.complete, false);
    assert.equal(heldMessageOf([row('user', 'go')], 'toolu_a'), undefined);
  });

  it('reads back only a held message written for that call', () => {
    const m = { v: 1, tool_use_id: 'toolu_a', session_id: 's', at: 1, text_blocks: ['t'], tool_use: { id: 'toolu_a', name: 'Bash', input: {} } };
    assert.equal(parseHeldMessage(JSON.stringify(m), 'toolu_a')?.text_blocks[0], 't');
    assert.equal(parseHeldMessage(JSON.stringify(m), 'toolu_b'), undefined);
    assert.equal(parseHeldMessage('', 'toolu_a'), undefined);
    assert.equal(parseHeldMessage(JSON.stringify({ ...m, text_blocks: [1] }), 'toolu_a'), undefined);
  });
});

describe('the mod\'s list of the calls it reports', () => {
  it('names a call only when the list holds it; anything else is no list', () => {
    assert.equal(modCallsPath('/h/.claude', 's1'), '/h/.claude/transcript-lag/mod/s1.json');
    assert.equal(modCallsPath('/h/.claude', '../s1'), undefined);
    assert.equal(modListNames('{"v":1,"calls":["toolu_a","toolu_b"]}', 'toolu_b'), true);
    assert.equal(modListNames('{"v":1,"calls":["toolu_a"]}', 'toolu_b'), false);
    assert.equal(modListNames('{"v":1,"calls":["toolu_a"', 'toolu_a'), false);
    assert.equal(modListNames(undefined, 'toolu_a'), false);
    assert.equal(modListNames('{"calls":"toolu_a"}', 'toolu_a'), false);
  });
});
