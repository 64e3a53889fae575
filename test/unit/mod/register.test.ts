import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ModHarness, messageRows } from './modHarness';
import { VERSION_WAIT_MS } from '../../../src/mod/heldMessage';

// The mod as Claude Code runs it, outside Claude Code (modHarness.ts): its files are real.
describe('mod (src/mod/register.ts)', () => {
  let h: ModHarness;
  afterEach(() => h?.dispose());

  it('a call: pre spooled and the call listed, its held message in a 0700 folder before its hooks run; landed, post and the message removed once its record is on disk', async function () {
    if (process.platform === 'win32') this.skip(); // modes and rm: POSIX
    h = new ModHarness();
    await h.start();
    h.rows = messageRows('toolu_01A', 'Plan: list the folder.');
    const call = await h.call('toolu_01A');
    // What the call's PreToolUse hooks find.
    assert.deepEqual(h.spooled().map((e) => `${e.event} ${e.tool_use_id}`), ['pre toolu_01A']);
    assert.deepEqual(h.listed(), ['toolu_01A']);
    const held = JSON.parse(fs.readFileSync(h.heldFile('toolu_01A'), 'utf8'));
    assert.deepEqual([held.tool_use_id, held.text_blocks], ['toolu_01A', ['Plan: list the folder.']]);
    for (const dir of [path.dirname(h.heldFile('toolu_01A')), h.claudePath('transcript-lag', 'held'), h.claudePath('transcript-lag')]) {
      assert.equal(fs.statSync(dir).mode & 0o777, 0o700, dir);
    }
    await call.finish();
    h.appendRecord('toolu_01A');
    await h.tick(200);
    assert.deepEqual(h.spooled().map((e) => `${e.event} ${e.tool_use_id}`), ['pre toolu_01A', 'post toolu_01A', 'landed toolu_01A']);
    // Its post says the call's hooks had its held message (replay's live runs follow it).
    assert.equal(h.spooled().find((e) => e.event === 'post')?.held_message, true);
    assert.equal(fs.existsSync(h.heldFile('toolu_01A')), false);
    assert.deepEqual(h.runs.at(-1), ['rm', '-f', h.heldFile('toolu_01A')]);
  });

  it("the held message carries the build's version where $.session.version() gives it, for the records complete writes; none where the build has no such call", async function () {
    if (process.platform === 'win32') this.skip(); // modes: POSIX
    for (const version of ['2.1.332', undefined]) {
      h?.dispose();
      h = new ModHarness({ version });
      await h.start();
      h.rows = messageRows('toolu_01V', 'Plan.');
      await h.call('toolu_01V');
      const held = JSON.parse(fs.readFileSync(h.heldFile('toolu_01V'), 'utf8'));
      assert.equal(held.version, version);
      assert.equal('version' in held, version !== undefined);
    }
  });

  it("a build whose $.session.version() never answers holds back no held message: written without version after VERSION_WAIT_MS, the next at once", async function () {
    if (process.platform === 'win32') this.skip(); // modes: POSIX
    h = new ModHarness({ versionHangs: true });
    await h.start();
    h.rows = messageRows('toolu_01H', 'Plan.');
    let reached = false;
    const calling = h.call('toolu_01H').then((c) => ((reached = true), c));
    await h.settle();
    assert.equal(reached, false, 'waiting for the version');
    await h.tick(VERSION_WAIT_MS);
    await calling;
    const held = JSON.parse(fs.readFileSync(h.heldFile('toolu_01H'), 'utf8'));
    assert.equal('version' in held, false);
    // Asked once: the next call's message is not held back again (no tick here).
    h.rows = messageRows('toolu_01J', 'More.');
    await h.call('toolu_01J');
    assert.equal(fs.existsSync(h.heldFile('toolu_01J')), true);
  });

  it("a build before 2.1.326 (no $.session.info, messages refusing `last`): the transcript from classic.SessionStart, the message asked bare, held all the same", async function () {
    if (process.platform === 'win32') this.skip(); // modes: POSIX
    h = new ModHarness({ before326: true });
    await h.start();
    h.rows = messageRows('toolu_01O', 'Plan: an older build.');
    const call = await h.call('toolu_01O');
    assert.deepEqual(h.spooled().map((e) => `${e.event} ${e.tool_use_id}`), ['pre toolu_01O']);
    const held = JSON.parse(fs.readFileSync(h.heldFile('toolu_01O'), 'utf8'));
    assert.deepEqual([held.tool_use_id, held.text_blocks], ['toolu_01O', ['Plan: an older build.']]);
    // Refused once with `last`, then bare: the next call asks bare at once.
    assert.deepEqual(h.messageAsks, [{ last: 64 }, undefined]);
    await call.finish();
    h.rows = messageRows('toolu_01P', 'Plan: again.');
    await h.call('toolu_01P');
    assert.deepEqual(h.messageAsks, [{ last: 64 }, undefined, undefined]);
    assert.deepEqual(JSON.parse(fs.readFileSync(h.heldFile('toolu_01P'), 'utf8')).text_blocks, ['Plan: again.']);
  });

  it('a build before 2.1.326 in print mode (classic.SessionStart before session.start): the transcript it named is kept, the message held', async function () {
    if (process.platform === 'win32') this.skip(); // modes: POSIX
    h = new ModHarness({ before326: true, print: true });
    await h.start();
    h.rows = messageRows('toolu_01Q', 'Plan: print mode.');
    await h.call('toolu_01Q');
    assert.deepEqual(h.spooled().map((e) => `${e.event} ${e.tool_use_id}`), ['pre toolu_01Q']);
    assert.deepEqual(JSON.parse(fs.readFileSync(h.heldFile('toolu_01Q'), 'utf8')).text_blocks, ['Plan: print mode.']);
  });

  it("a call whose message the conversation does not hold: no held message, and its post says so", async () => {
    h = new ModHarness();
    await h.start();
    h.rows = messageRows('toolu_01X', 'Another call.');
    const call = await h.call('toolu_01Y');
    assert.equal(fs.existsSync(h.heldFile('toolu_01Y')), false);
    await call.finish();
    assert.equal(h.spooled().find((e) => e.event === 'post' && e.tool_use_id === 'toolu_01Y')?.held_message, false);
  });

  it('posts to the receiver http.json names, and spools what it refuses', async () => {
    h = new ModHarness();
    fs.mkdirSync(h.claudePath('transcript-lag'), { recursive: true });
    fs.writeFileSync(h.claudePath('transcript-lag', 'http.json'), JSON.stringify({ port: 4321, secret: 's'.repeat(32) }));
    const posted: string[] = [];
    h.fetch = async (url, body) => {
      posted.push(`${url} ${JSON.parse(body).event}`);
      return { ok: JSON.parse(body).event === 'pre', status: 200 };
    };
    await h.start();
    const call = await h.call('toolu_01B');
    await call.finish();
    assert.deepEqual(posted, ['http://127.0.0.1:4321/mod pre', 'http://127.0.0.1:4321/mod post']);
    assert.deepEqual(h.spooled().map((e) => e.event), ['post']);
  });
});
