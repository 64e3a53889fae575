import { strict as assert } from 'node:assert';
import { PlainScreenLog, ttyFrame } from '../../../src/cli/terminalDemo';
import { liveScreen } from '../../../src/presentation/liveScreen';
import { heldCall, session, stats, writtenCall } from '../helpers/presentationSnapshots';

const NOW = 1_800_000_000_000;
const opts = { warnAfterMs: 2000 };

describe('terminal demo: the live screen', () => {
  it('shows a held call with its age and where it will land, a landed call with its lag, shape and line, and the waits seen / behind', () => {
    const s = session({
      last_line: 24,
      held: [heldCall('toolu_held', NOW - 1250, { hook_mode: 'probe' })],
      recent: [writtenCall('toolu_done', 25, NOW - 5000, { lag_ms: 2400, shape: 'before_result', wait: { outcome: 'behind', polls: 10, waited_ms: 1000 } })],
      stats: stats({ waits_seen: 3, waits_behind: 1, held_now: 1, calls_written: 1, lag_p50_ms: 2400 }),
    });
    const screen = liveScreen([s], NOW, opts);
    assert.equal(screen.status, '◷ 1 held · 1.2s');
    const [row] = screen.sessions;
    assert.equal(row.summary, '1 held · waits 3 seen / 1 behind · 1 call landed · lag p50 2.4s');
    const held = row.calls.find((c) => c.kind === 'held')!;
    assert.deepEqual([held.tool, held.description, held.where], ['Bash', 'held 1.2s · hook waiting', 'after line 24']);
    const landed = row.calls.find((c) => c.kind === 'landed')!;
    assert.deepEqual([landed.tool, landed.description, landed.where, landed.behind], ['Read', 'behind · lag 2.4s · before result', 'line 25', true]);
  });

  it('says a held call lands after line 0 of an empty transcript, not after line 1', () => {
    const [row] = liveScreen([session({ last_line: 0, held: [heldCall('toolu_first', NOW - 10)] })], NOW, opts).sessions;
    assert.equal(row.calls[0].where, 'after line 0');
  });

  it('says the waits seen / behind of a session before any wait has ended', () => {
    const [row] = liveScreen([session()], NOW, opts).sessions;
    assert.equal(row.summary, 'in sync · waits 0 seen / 0 behind');
  });

  it('strips control characters from what the transcript names: titles and tool names', () => {
    const s = session({
      title: 'fix \x1b]52;c;ZXZpbA==\x07the\x1b[2J parser\u202e',
      held: [heldCall('toolu_x', NOW - 10, { tool_name: 'Ba\x1b[31msh\x9b' })],
    });
    const screen = liveScreen([s], NOW, opts);
    const text = [screen.sessions[0].name, ...screen.sessions[0].calls.map((c) => `${c.tool} ${c.description}`)].join(' | ');
    assert.doesNotMatch(text, /[\x00-\x1f\x7f-\x9f\u202e]/);
    assert.match(screen.sessions[0].name, /^fix \]52;c;ZXZpbA==the\[2J parser/);
    const frame = ttyFrame(screen, 'heading', ['a note'], 200, 40).join('\n');
    // The frame's own colours are the only escapes: each starts a known SGR sequence.
    assert.doesNotMatch(frame.replace(/\x1b\[(\d+)m/g, ''), /[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
  });

  it('fits every frame line to the terminal width and the frame to its height', () => {
    const sessions = Array.from({ length: 6 }, (_, i) =>
      session({ session_id: `s${i}`, title: `a long title ${'x'.repeat(100)}`, held: [heldCall(`toolu_${i}`, NOW - 100, { session_id: `s${i}` })] }),
    );
    const frame = ttyFrame(liveScreen(sessions, NOW, opts), 'heading', [], 40, 12);
    assert.equal(frame.length, 11);
    for (const line of frame) assert.ok([...line.replace(/\x1b\[\d+m/g, '')].length <= 40, line);
    assert.match(frame.at(-1)!, /more lines/);
  });

  it('in a log, prints a row when it appears or changes, and a held call again only as each whole second of its hold passes', () => {
    const log = new PlainScreenLog();
    const at = (ageMs: number) => liveScreen([session({ held: [heldCall('toolu_h', NOW - ageMs)] })], NOW, opts);
    const first = log.lines(at(100));
    assert.equal(first.length, 2);
    assert.match(first[1], /^s1  held +Bash +held 100 ms · hook fired · after line 40$/);
    assert.deepEqual(log.lines(at(600)), []);
    assert.match(log.lines(at(1100)).join('\n'), /held 1\.1s/);
    const landed = log.lines(liveScreen([session({ recent: [writtenCall('toolu_h', 41, NOW, { tool_name: 'Bash', shape: 'with_result' })], stats: stats({ calls_written: 1 }) })], NOW, opts));
    assert.match(landed.join('\n'), /^s1  landed +Bash +lag 300 ms · with result · line 41$/m);
  });
});
