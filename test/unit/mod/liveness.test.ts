import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { messageFor } from '../../../src/cli/message';
import { freshModLiveness, MOD_LIVE_EVERY_MS, MOD_LIVE_FRESH_MS } from '../../../src/rules/modContract';
import { ModHarness, SESSION } from './modHarness';

// The mod's liveness file (src/rules/modContract.ts): written at session start, kept fresh while the
// session lives, removed when it ends; `transcript-lag message --json` says `mod` from it.
describe('mod: the liveness file a reviewing hook asks about', () => {
  let h: ModHarness;
  afterEach(() => h?.dispose());

  const liveFile = (sessionId = SESSION) => h.real(h.claudePath('transcript-lag', 'mod', `${sessionId}.live.json`));
  const liveText = (sessionId = SESSION) => (fs.existsSync(liveFile(sessionId)) ? fs.readFileSync(liveFile(sessionId), 'utf8') : undefined);
  const modSays = (id = 'toolu_01Asked') =>
    messageFor({ session_id: SESSION, transcript_path: h.real(h.transcript), tool_use_id: id, hook_event_name: 'PreToolUse' }, Date.now()).mod;

  it('written at session start, before any hook runs; rewritten every 5 s, so it stays fresh for as long as the session lives', async () => {
    h = new ModHarness();
    await h.start();
    const first = JSON.parse(liveText()!);
    assert.deepEqual({ ...first, at: undefined }, { v: 1, session_id: SESSION, at: undefined, every_ms: MOD_LIVE_EVERY_MS, keep_held_messages: true });
    assert.ok(Math.abs(first.at - Date.now()) < 1000);
    assert.equal(modSays(), true, 'a call the mod has not listed: the liveness file says it runs');
    await h.tick(MOD_LIVE_EVERY_MS);
    const gap = JSON.parse(liveText()!).at - first.at;
    assert.ok(gap >= MOD_LIVE_EVERY_MS && gap < MOD_LIVE_EVERY_MS + 500, `rewritten ${gap} ms later`);
    // A long quiet session: never stale.
    for (let i = 0; i < 12; i++) {
      await h.tick(MOD_LIVE_EVERY_MS);
      assert.ok(freshModLiveness(liveText(), SESSION, Date.now()), `fresh after ${(i + 2) * MOD_LIVE_EVERY_MS} ms`);
    }
  });

  it('removed at session end, and nothing rewrites it after; message then says the mod is not there', async function () {
    if (process.platform === 'win32') this.skip(); // rm: POSIX
    h = new ModHarness();
    await h.start();
    assert.equal(modSays(), true);
    await h.emit('session.end', {});
    await h.settle();
    assert.equal(fs.existsSync(liveFile()), false);
    assert.deepEqual(h.runs.at(-1), ['rm', '-f', liveFile()]);
    await h.tick(3 * MOD_LIVE_EVERY_MS);
    assert.equal(fs.existsSync(liveFile()), false, 'the timer stopped with the session');
    assert.equal(modSays(), false);
  });

  it('a mod that stopped without its session end (killed): stale once three refreshes are missed', async () => {
    h = new ModHarness();
    await h.start();
    const text = liveText();
    const at = JSON.parse(text!).at as number;
    assert.ok(freshModLiveness(text, SESSION, at + MOD_LIVE_FRESH_MS - 1));
    assert.equal(freshModLiveness(text, SESSION, at + MOD_LIVE_FRESH_MS), undefined);
    assert.equal(freshModLiveness(text, SESSION, at - MOD_LIVE_FRESH_MS), undefined, 'dated ahead by the bound: not fresh either');
    assert.equal(freshModLiveness(text, 'another-session', at), undefined, 'another session\'s');
  });

  it('says when the mod keeps no held messages (keepHeldMessages off)', async () => {
    h = new ModHarness({ options: { keepHeldMessages: false } });
    await h.start();
    assert.equal(JSON.parse(liveText()!).keep_held_messages, false);
    const a = messageFor({ session_id: SESSION, transcript_path: h.real(h.transcript), tool_use_id: 'toolu_01Asked' }, Date.now());
    assert.deepEqual([a.mod, a.source, a.reason], [true, null, 'not on disk yet and no held message (the mod runs, but its option keepHeldMessages is off)']);
  });

  it('/clear or /resume (another session in the same process): the new session\'s file is written, the old one\'s removed', async () => {
    h = new ModHarness();
    await h.start();
    const other = '3e55a9e0-0000-4000-8000-0000000000b2';
    const otherTranscript = path.join(path.dirname(h.transcript), `${other}.jsonl`);
    fs.writeFileSync(otherTranscript, '');
    await h.emit('classic.SessionStart', { transcript_path: otherTranscript });
    await h.settle();
    assert.equal(liveText(), undefined);
    assert.equal(JSON.parse(liveText(other)!).session_id, other);
    await h.tick(MOD_LIVE_EVERY_MS);
    assert.equal(liveText(), undefined, 'the refresh follows the session');
    assert.ok(freshModLiveness(liveText(other), other, Date.now()));
  });

  it('a Windows Claude dir: the file is named with backslashes, and at the end removed by del, else emptied (an empty file is not fresh)', async () => {
    h = new ModHarness({ claudeDir: 'C:\\Users\\me\\.claude' });
    await h.start();
    assert.equal(JSON.parse(liveText()!).session_id, SESSION);
    await h.emit('session.end', {});
    await h.settle();
    assert.deepEqual(h.runs.at(-1), ['cmd.exe', '/d', '/c', 'del', '/f', '/q', h.claudePath('transcript-lag', 'mod', `${SESSION}.live.json`)]);
    // The harness does not run cmd.exe: the file is still there, so it was emptied.
    assert.equal(liveText(), '');
    assert.equal(freshModLiveness(liveText(), SESSION, Date.now()), undefined);
  });
});
