import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { foldFinishedSessions } from '../../../src/hook/spoolAtStart';

/** A channel folder whose spool holds `perSession` events of each session (none of them live). */
function spooled(sessions: string[], perSession: number) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tl-start-fold-')));
  const channelDir = path.join(root, 'transcript-lag');
  const spoolDir = path.join(channelDir, 'spool');
  fs.mkdirSync(spoolDir, { recursive: true });
  const at = Date.now() - 60_000;
  for (const [i, session] of sessions.entries()) {
    for (let seq = 1; seq <= perSession; seq++) {
      const ev = { v: 1, event: 'record', at: at + seq * 10 + i, session_id: session, transcript_path: `/c/projects/-w/${session}.jsonl`, uuid: `${session}-${seq}`, record_type: 'user', source: 'transcript-lag-mod' };
      fs.writeFileSync(path.join(spoolDir, `${session}.0a1b2c3d.${String(seq).padStart(8, '0')}.json`), JSON.stringify(ev));
    }
  }
  const uuids = (session: string): string[] => {
    const file = path.join(channelDir, `${session}.jsonl`);
    return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trimEnd().split('\n').map((l) => (JSON.parse(l) as { uuid: string }).uuid) : [];
  };
  const expected = (session: string) => Array.from({ length: perSession }, (_, k) => `${session}-${k + 1}`);
  return { channelDir, uuids, expected, left: () => fs.readdirSync(spoolDir).length };
}

describe('the plugin\'s SessionStart fold (src/hook/spoolAtStart.ts)', () => {
  it('reads at most its files a start, shared among the sessions; the next starts take the rest, each event once and in order', async () => {
    const t = spooled(['s1', 's2', 's3'], 10);
    const first = await foldFinishedSessions(t.channelDir, { elapsedMs: () => 0, maxFiles: 12 });
    assert.equal(first?.more, true);
    assert.deepEqual([...first!.folded.values()], [4, 4, 4]);
    assert.equal(t.left(), 18);
    for (let i = 0; i < 3; i++) await foldFinishedSessions(t.channelDir, { elapsedMs: () => 0, maxFiles: 12 });
    assert.equal(t.left(), 0);
    for (const s of ['s1', 's2', 's3']) assert.deepEqual(t.uuids(s), t.expected(s));
  });

  it('takes no further session once its time is up, but always the first: the rest waits, whole, for the next start', async () => {
    const t = spooled(['s1', 's2', 's3'], 5);
    // The fold's own clock: 0 when it begins, past the budget from then on (a listing that took its whole time).
    let calls = 0;
    const done = await foldFinishedSessions(t.channelDir, { elapsedMs: () => (calls++ < 1 ? 0 : 1000), budgetMs: 200 });
    assert.equal(done?.folded.size, 1);
    assert.equal(t.left(), 10);
    await foldFinishedSessions(t.channelDir, { elapsedMs: () => 0 });
    assert.equal(t.left(), 0);
    for (const s of ['s1', 's2', 's3']) assert.deepEqual(t.uuids(s), t.expected(s));
  });

  it('no spool folder, or a channel folder that is not there: nothing to do, no throw', async () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tl-start-fold-')));
    const done = await foldFinishedSessions(path.join(root, 'transcript-lag'), { elapsedMs: () => 0 });
    assert.equal(done?.folded.size, 0);
    assert.deepEqual(fs.readdirSync(root), []);
  });
});
