import { strict as assert } from 'node:assert';
import { revealTargetFor, statusClickTarget } from '../../../src/presentation/callChoice';
import { heldCall, session, writtenCall } from '../helpers/presentationSnapshots';

const NOW = 1_750_000_000_000;

describe('presentation: line choice', () => {
  it('opens a held call at the last line on disk, a written call at its record', () => {
    const s = session({ last_line: 120 });
    const held = revealTargetFor(s, heldCall('h', NOW - 10));
    assert.deepEqual([held.line, held.held], [120, true]);
    const written = revealTargetFor(s, writtenCall('w', 37, NOW));
    assert.deepEqual([written.line, written.held], [37, false]);
    assert.equal(written.transcript_path, s.transcript_path);
  });

  it('opens an empty transcript at its first line', () => {
    assert.equal(revealTargetFor(session({ last_line: 0 }), heldCall('h', NOW)).line, 1);
  });

  it('status click goes to the oldest held call of any session, else the newest written call', () => {
    const a = session({ session_id: 'a', last_line: 10, held: [heldCall('a1', NOW - 100)], recent: [writtenCall('a0', 9, NOW - 50)] });
    const b = session({ session_id: 'b', last_line: 77, held: [heldCall('b1', NOW - 900)] });
    assert.deepEqual(
      [statusClickTarget([a, b])?.session_id, statusClickTarget([a, b])?.line, statusClickTarget([a, b])?.tool_use_id],
      ['b', 77, 'b1'],
    );
    const c = session({ session_id: 'c', recent: [writtenCall('c1', 5, NOW - 400)] });
    const d = session({ session_id: 'd', recent: [writtenCall('d1', 66, NOW - 20)] });
    assert.equal(statusClickTarget([c, d])?.tool_use_id, 'd1');
    assert.equal(statusClickTarget([c, d])?.line, 66);
    assert.equal(statusClickTarget([session()]), undefined);
  });
});
