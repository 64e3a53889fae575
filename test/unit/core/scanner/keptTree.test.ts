import * as assert from 'node:assert/strict';
import { C_BLOCK, C_CONTENT, C_MESSAGE, C_ROOT, KeptTree, SL_TOP } from '../../../../src/core/scanner/keptTree';
import { REFS_CAP } from '../../../../src/core/scanner/fields';

/** The streaming tokenizer's kept tree, driven as the tokenizer drives it. */
describe('record scanner: the kept tree of a huge line', () => {
  it('holds only the content blocks that change what is read: a million-block array costs no memory', () => {
    const tree = new KeptTree();
    assert.equal(tree.openContainer(true, SL_TOP), C_ROOT);
    tree.storeString(tree.keySlot(C_ROOT, 'type'), 'assistant');
    assert.equal(tree.openContainer(true, tree.keySlot(C_ROOT, 'message')), C_MESSAGE);
    assert.equal(tree.openContainer(false, tree.keySlot(C_MESSAGE, 'content')), C_CONTENT);
    for (let i = 0; i < 1_000_000; i++) {
      assert.equal(tree.openContainer(true, tree.elementSlot(C_CONTENT)), C_BLOCK);
      const kind = i % 1000 === 1 ? 'tool_use' : i === 5 ? 'text' : i === 7 ? 'tool_result' : 'thinking';
      tree.storeString(tree.keySlot(C_BLOCK, 'type'), kind);
      tree.storeString(tree.keySlot(C_BLOCK, 'id'), `toolu_${i}`);
      tree.storeString(tree.keySlot(C_BLOCK, 'text'), `t${i}`);
      tree.closeContainer(C_BLOCK);
    }
    const kept = (tree.root.message as { content: unknown[] }).content;
    // 1000 tool uses (REFS_CAP of them count), one text block, one tool result: nothing else is kept.
    assert.equal(kept.length, REFS_CAP + 2);
    const fields = tree.fields();
    assert.equal(fields.toolUses.length, REFS_CAP);
    assert.equal(fields.toolUses[0]!.id, 'toolu_1');
    assert.equal(fields.firstText, 't5');
    assert.equal(fields.hasToolResultBlock, true);
  });
});
