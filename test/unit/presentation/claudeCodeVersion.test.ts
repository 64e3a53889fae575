import * as assert from 'node:assert/strict';
import { CLAUDE_CODE, claudeCodeSentences } from '../../../src/core/compat/claudeCode';
import { sessionNode } from '../../../src/presentation/treeModel';
import { statusTooltip } from '../../../src/presentation/statusView';
import { heldCall, session } from '../helpers/presentationSnapshots';

describe("views: what was measured of the session's Claude Code version", () => {
  // A version with a row of its own: the newest measured.
  const measured = CLAUDE_CODE.versions.at(-1)!.version;

  it("the session's tooltip in the tree names it, from its call records' version", () => {
    const known = claudeCodeSentences(measured);
    assert.ok(known.length > 0, measured);
    const node = sessionNode(session({ claude_version: measured }), 1_000);
    for (const line of known) assert.ok(node.tooltip.includes(`Claude Code ${line}`), node.tooltip);
    assert.match(node.tooltip, new RegExp(`Claude Code ${measured.replace(/\./g, '\\.')} .*\\(measured`));
  });

  it("a version not measured, between a measured one that holds and one that does not: unknown for this version, in so many words", () => {
    // As measured 2026-12-07: 2.1.174 wrote a message's records without waiting, 2.1.186 held them.
    const node = sessionNode(session({ claude_version: '2.1.180' }), 1_000);
    assert.match(node.tooltip, /Claude Code 2\.1\.180: unknown for this version whether it holds a message's records while its PreToolUse hooks run \(not measured; 2\.1\.174 did not, 2\.1\.186 did\)/);
    assert.doesNotMatch(node.tooltip, /2\.1\.180 writes a message's records without waiting/);
  });

  it('says nothing of a session whose records name no version', () => {
    assert.doesNotMatch(sessionNode(session(), 1_000).tooltip, /Claude Code/);
  });

  it("the status bar's tooltip says it while a call is held (why it may be)", () => {
    const held = session({ claude_version: measured, held: [heldCall('toolu_1', 500)] });
    // Markdown: its escapes (`2\.1\.332`, `\(`) render as the characters.
    const tip = statusTooltip([held], 1_000).replace(/\\/g, '');
    assert.match(tip, /Claude Code \d+\.\d+\.\d+ .*\(measured/);
    assert.doesNotMatch(statusTooltip([session({ claude_version: measured })], 1_000), /\(measured/);
  });
});
