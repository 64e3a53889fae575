import { strict as assert } from 'node:assert';
import { jsonEscapingUnprintable, printable } from '../../../src/rules/printable';
import { sessionTitle, toolLabel, sessionPickItems } from '../../../src/presentation/sessionLabel';
import { treeModel } from '../../../src/presentation/treeModel';
import { statusView } from '../../../src/presentation/statusView';
import { buildReport } from '../../../src/presentation/reportModel';
import { heldCall, session, writtenCall } from '../helpers/presentationSnapshots';

const ESC = '\u001b';
const BEL = '\u0007';
/** What a hostile transcript can put in a title or tool name: clipboard write (OSC 52), clear screen, C1 CSI, bidi override. */
export const HOSTILE = `a${ESC}]52;c;ZXZpbA==${BEL}b${ESC}[2Jc\u009b31md\u202eevil\u2066x\u2069\u007f`;
/** Every character the sanitizer must take out. */
export const UNPRINTABLE_CHARS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('printable: text from transcripts, safe on a terminal and in labels', () => {
  it('removes C0, DEL, C1 (CSI U+009B) and bidi overrides/isolates; keeps everything else', () => {
    assert.equal(printable(HOSTILE), 'a]52;c;ZXZpbA==b[2Jc31mdevilx');
    for (let c = 0; c < 0x2100; c++) {
      const ch = String.fromCharCode(c);
      const out = printable(`x${ch}y`);
      assert.doesNotMatch(out, UNPRINTABLE_CHARS, `U+${c.toString(16)}`);
      if (!UNPRINTABLE_CHARS.test(ch)) assert.equal(out, `x${ch}y`, `U+${c.toString(16)} kept`);
    }
    assert.equal(printable('héllo 日本 🎉 ‏'), 'héllo 日本 🎉 ‏');
  });

  it('turns line breaks and tabs into spaces, so two words stay two', () => {
    assert.equal(printable('a\nb\tc\r\nd\u0085e'), 'a b c  d e');
  });

  it('JSON: DEL, C1 and bidi written as escapes, the value unchanged', () => {
    const json = JSON.stringify({ t: HOSTILE });
    const escaped = jsonEscapingUnprintable(json);
    assert.doesNotMatch(escaped, UNPRINTABLE_CHARS);
    assert.deepEqual(JSON.parse(escaped), { t: HOSTILE });
    assert.equal(jsonEscapingUnprintable('{"a":"\u202e"}'), '{"a":"\\u202e"}');
  });

  it('session titles, tool names and picker items are printable', () => {
    assert.equal(sessionTitle({ session_id: 's', title: HOSTILE, first_prompt: null } as never), 'a]52;c;ZXZpbA==b[2Jc31mdevilx');
    assert.equal(toolLabel(`Ba${ESC}[2Jsh`), 'Ba[2Jsh');
    assert.equal(toolLabel(ESC), 'tool call');
    const s = session({ title: HOSTILE, cwd: `/w${ESC}[2J`, git_branch: `b\u202e` });
    for (const item of sessionPickItems([s], 0)) assert.doesNotMatch(JSON.stringify(item).replace(/\\u00[01][0-9a-f]/g, ''), UNPRINTABLE_CHARS);
  });

  it('tree labels, descriptions and tooltips, the status bar and the report carry no control or bidi character', () => {
    const tool = { tool_name: `Bash${ESC}]52;c;eA==${BEL}\u202e` };
    const s = session({
      title: HOSTILE,
      cwd: `/w${ESC}[2J`,
      git_branch: `main\u2066`,
      held: [heldCall(`toolu_h${ESC}[2J`, 1000, tool)],
      recent: [writtenCall(`toolu_w\u009b2J`, 3, 2000, { ...tool, copied_from: `p${ESC}[2Jxxxxxxxxx` })],
    });
    const texts: string[] = [];
    const walk = (nodes: ReturnType<typeof treeModel>) => {
      for (const n of nodes) {
        texts.push(n.label, n.description ?? '', n.tooltip ?? '');
        walk(n.children);
      }
    };
    walk(treeModel([s], 5000));
    const status = statusView([s], 5000, { warnAfterMs: 1000 } as never);
    texts.push(status.text, status.tooltip);
    const report = buildReport(s, [], 5000);
    texts.push(report.title);
    assert.ok(texts.some((t) => t.includes('Bash]52;c;eA==')), 'the tool name is shown, made printable');
    // Tooltips are lines: their own line breaks are the only control characters allowed.
    for (const t of texts.flatMap((t) => t.split('\n'))) assert.doesNotMatch(t, UNPRINTABLE_CHARS, JSON.stringify(t));
  });
});
