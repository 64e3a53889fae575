import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type SpoolFolding, foldSpool } from '../../../src/rules/spoolFold';
import { claimedSpoolName, parseSpoolName } from '../../../src/rules/spoolNames';
import { fairShares, readSpool, SPOOL_UNFINISHED_GRACE_MS } from '../../../src/rules/spoolRead';
import { nodeFileAccess } from '../../../src/rules/nodeFileAccess';
import { nodeSpoolFolding, spoolFoldingOn } from '../../../src/rules/nodeSpoolFolding';
import { heldOpenByAnother } from '../helpers/heldOpenRename';
import { ManualClock } from '../helpers/manualClock';

const S = 'sess-1';
const DAY = 24 * 60 * 60 * 1000;

function setup() {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tl-spool-')));
  const channelDir = path.join(root, 'transcript-lag');
  const spoolDir = path.join(channelDir, 'spool');
  fs.mkdirSync(spoolDir, { recursive: true });
  // File times are real; the clock reads them as the test sets them.
  const clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000);
  const name = (instance: string, seq: number, session = S) => `${session}.${instance}.${String(seq).padStart(8, '0')}.json`;
  const spool = (instance: string, seq: number, event: object | string, opts: { session?: string; ageMs?: number } = {}) => {
    const p = path.join(spoolDir, name(instance, seq, opts.session));
    fs.writeFileSync(p, typeof event === 'string' ? event : JSON.stringify(event));
    const t = (clock.now() - (opts.ageMs ?? 0)) / 1000;
    fs.utimesSync(p, t, t);
    return p;
  };
  const ev = (at: number, tag: string, session = S) => ({ v: 1, event: 'record', at, session_id: session, transcript_path: '/c/projects/-w/s.jsonl', uuid: tag, record_type: 'user', source: 'transcript-lag-mod' });
  const channelTags = (session = S): string[] => {
    const p = path.join(channelDir, `${session}.jsonl`);
    if (!fs.existsSync(p)) return [];
    const text = fs.readFileSync(p, 'utf8');
    assert.ok(text.endsWith('\n'));
    return text.trimEnd().split('\n').map((l) => (JSON.parse(l) as { uuid: string }).uuid);
  };
  const left = () => fs.readdirSync(spoolDir).sort();
  const fold = (ops: SpoolFolding = nodeSpoolFolding, extra: { maxFiles?: number; maxAgeMs?: number } = {}) =>
    foldSpool({ files: nodeFileAccess, clock, spoolDir, channelDir, ops, maxAgeMs: extra.maxAgeMs ?? 7 * DAY, ...(extra.maxFiles ? { maxFiles: extra.maxFiles } : {}) });
  return { root, channelDir, spoolDir, clock, name, spool, ev, channelTags, left, fold };
}

describe('the mod spool (src/rules/spoolNames.ts, spoolRead.ts, spoolFold.ts)', () => {
  it('names: session, instance and seq; claimed names map back; anything else is not ours', () => {
    assert.deepEqual(parseSpoolName('sess-1.0a1b2c3d.00000012.json'), { name: 'sess-1.0a1b2c3d.00000012.json', sessionId: 'sess-1', instance: '0a1b2c3d', seq: 12 });
    for (const bad of ['sess-1.0a1b2c3d.00000012.jsonl', '.x.0a1b2c3d.1.json', 'sess-1.0A1B2C3D.1.json', 'sess-1.0a1b2c3.1.json', '../a.0a1b2c3d.1.json', 'sess-1.json']) assert.equal(parseSpoolName(bad), undefined, bad);
    assert.equal(claimedSpoolName('sess-1.0a1b2c3d.00000012.json.claimed-42-deadbeef'), 'sess-1.0a1b2c3d.00000012.json');
    assert.equal(claimedSpoolName('notes.txt.claimed-1-2'), undefined);
  });

  it('folds in order: by seq within an instance (whatever the times), by `at` across instances; each file removed', async () => {
    const t = setup();
    // Instance a: its own order even where `at` goes back; instance b's events fall between by `at`.
    t.spool('aaaaaaaa', 2, t.ev(300, 'a2'));
    t.spool('aaaaaaaa', 1, t.ev(100, 'a1'));
    t.spool('aaaaaaaa', 10, t.ev(250, 'a10'));
    t.spool('bbbbbbbb', 1, t.ev(200, 'b1'));
    t.spool('bbbbbbbb', 2, t.ev(400, 'b2'));
    t.spool('aaaaaaaa', 3, t.ev(350, 'a3', 'other'), { session: 'other' });
    fs.writeFileSync(path.join(t.spoolDir, 'README'), 'not ours');
    const done = await t.fold();
    assert.deepEqual(t.channelTags(), ['a1', 'b1', 'a2', 'a10', 'b2']);
    assert.deepEqual(t.channelTags('other'), ['a3']);
    assert.deepEqual(Object.fromEntries(done.folded), { [S]: 5, other: 1 });
    assert.deepEqual(t.left(), ['README']);
    // The lines are the events as written, one per line (the channel reader takes them as the hook's).
    const first = JSON.parse(fs.readFileSync(path.join(t.channelDir, `${S}.jsonl`), 'utf8').split('\n')[0]);
    assert.deepEqual(first, t.ev(100, 'a1'));
  });

  it('appends after what the channel already holds, and a second fold finds nothing left', async () => {
    const t = setup();
    fs.writeFileSync(path.join(t.channelDir, `${S}.jsonl`), JSON.stringify(t.ev(1, 'hook')) + '\n', { mode: 0o600 });
    t.spool('aaaaaaaa', 1, t.ev(5, 'a1'));
    await t.fold();
    await t.fold();
    assert.deepEqual(t.channelTags(), ['hook', 'a1']);
  });

  it('two folders racing append each event once', async () => {
    const t = setup();
    const expected: string[] = [];
    for (let i = 1; i <= 60; i++) {
      t.spool('aaaaaaaa', i, t.ev(i, `a${i}`));
      t.spool('bbbbbbbb', i, t.ev(i, `b${i}`));
      expected.push(`a${i}`, `b${i}`);
    }
    const [x, y] = await Promise.all([t.fold(), t.fold()]);
    const tags = t.channelTags();
    assert.deepEqual([...tags].sort(), [...expected].sort());
    assert.equal((x.folded.get(S) ?? 0) + (y.folded.get(S) ?? 0), 120);
    assert.deepEqual(t.left(), []);
  });

  it('an unfinished file (does not parse) waits, and so do its instance\'s later files; past 10 s it is garbage and removed', async () => {
    const t = setup();
    const half = JSON.stringify(t.ev(2, 'a2')).slice(0, 30);
    const partial = t.spool('aaaaaaaa', 2, half);
    t.spool('aaaaaaaa', 1, t.ev(1, 'a1'));
    t.spool('aaaaaaaa', 3, t.ev(3, 'a3'));
    t.spool('bbbbbbbb', 1, t.ev(4, 'b1'));
    t.spool('cccccccc', 1, '');
    await t.fold();
    assert.deepEqual(t.channelTags(), ['a1', 'b1']);
    assert.ok(fs.existsSync(partial));
    // The writer finishes it: folded next time, then the one after it.
    fs.writeFileSync(partial, JSON.stringify(t.ev(2, 'a2')));
    await t.fold();
    assert.deepEqual(t.channelTags(), ['a1', 'b1', 'a2', 'a3']);
    // The empty file never finishes: garbage once older than the grace.
    assert.deepEqual(t.left(), [t.name('cccccccc', 1)]);
    t.clock.advance(SPOOL_UNFINISHED_GRACE_MS + 1);
    await t.fold();
    assert.deepEqual(t.left(), []);
    assert.deepEqual(t.channelTags(), ['a1', 'b1', 'a2', 'a3']);
  });

  it('a file that parses but is no event of its session is garbage at once; a folder or huge file too', async () => {
    const t = setup();
    t.spool('aaaaaaaa', 1, '[1,2]');
    t.spool('aaaaaaaa', 2, t.ev(2, 'wrong', 'elsewhere'));
    t.spool('aaaaaaaa', 3, t.ev(3, 'a3'));
    fs.mkdirSync(path.join(t.spoolDir, t.name('bbbbbbbb', 1)));
    t.spool('cccccccc', 1, JSON.stringify({ ...t.ev(4, 'big'), pad: 'x'.repeat(70 * 1024) }));
    const done = await t.fold();
    assert.deepEqual(t.channelTags(), ['a3']);
    assert.deepEqual(t.channelTags('elsewhere'), []);
    assert.equal(done.removed, 3);
    // The folder is not a file we remove with unlink: it stays, refused each time, harmless.
    assert.deepEqual(t.left(), [t.name('bbbbbbbb', 1)]);
  });

  it('prunes files older than the channel max age without folding them, and stale claims', async () => {
    const t = setup();
    t.spool('aaaaaaaa', 1, t.ev(1, 'old'), { ageMs: 8 * DAY });
    t.spool('aaaaaaaa', 2, t.ev(2, 'new'));
    const stale = path.join(t.spoolDir, `${t.name('bbbbbbbb', 1)}.claimed-1-abcdef12`);
    fs.writeFileSync(stale, JSON.stringify(t.ev(3, 'claimed')));
    const fresh = path.join(t.spoolDir, `${t.name('bbbbbbbb', 2)}.claimed-1-abcdef13`);
    fs.writeFileSync(fresh, JSON.stringify(t.ev(4, 'claimed-now')));
    const past = (t.clock.now() - 61_000) / 1000;
    fs.utimesSync(stale, past, past);
    await t.fold();
    assert.deepEqual(t.channelTags(), ['new']);
    assert.deepEqual(t.left(), [path.basename(fresh)]);
  });

  it('a claim is as old as its name says, not its file (a rename keeps the writing time)', async () => {
    const t = setup();
    const now = t.clock.now();
    const longAgo = (now - 3_600_000) / 1000;
    const fresh = path.join(t.spoolDir, `${t.name('bbbbbbbb', 1)}.claimed-${now - 1000}-7-abcdef12`);
    fs.writeFileSync(fresh, JSON.stringify(t.ev(1, 'claimed-now')));
    fs.utimesSync(fresh, longAgo, longAgo);
    const stale = path.join(t.spoolDir, `${t.name('bbbbbbbb', 2)}.claimed-${now - 61_000}-7-abcdef13`);
    fs.writeFileSync(stale, JSON.stringify(t.ev(2, 'claimed-long-ago')));
    await t.fold();
    assert.deepEqual(t.left(), [path.basename(fresh)]);
  });

  it('max age 0 never prunes', async () => {
    const t = setup();
    t.spool('aaaaaaaa', 1, t.ev(1, 'old'), { ageMs: 30 * DAY });
    await t.fold(nodeSpoolFolding, { maxAgeMs: 0 });
    assert.deepEqual(t.channelTags(), ['old']);
  });

  it('reads a bounded number of files per fold; the rest next time, in order', async () => {
    const t = setup();
    for (let i = 1; i <= 5; i++) t.spool('aaaaaaaa', i, t.ev(i, `a${i}`));
    await t.fold(nodeSpoolFolding, { maxFiles: 2 });
    assert.deepEqual(t.channelTags(), ['a1', 'a2']);
    await t.fold(nodeSpoolFolding, { maxFiles: 2 });
    await t.fold(nodeSpoolFolding, { maxFiles: 2 });
    assert.deepEqual(t.channelTags(), ['a1', 'a2', 'a3', 'a4', 'a5']);
  });

  it('a run the budget cut short holds its own session\'s later events, not other sessions\'', async () => {
    const t = setup();
    t.spool('aaaaaaaa', 1, t.ev(1, 's1'));
    t.spool('aaaaaaaa', 2, t.ev(2, 's2'));
    t.spool('aaaaaaaa', 3, t.ev(30, 's30'));
    t.spool('bbbbbbbb', 1, t.ev(5, 'o5', 'other'), { session: 'other' });
    t.spool('bbbbbbbb', 2, t.ev(6, 'o6', 'other'), { session: 'other' });
    // Two files each: sess-1's run is cut after s2; other's events come later by `at`, in a file of their own.
    await t.fold(nodeSpoolFolding, { maxFiles: 4 });
    assert.deepEqual([t.channelTags(), t.channelTags('other')], [['s1', 's2'], ['o5', 'o6']]);
    await t.fold(nodeSpoolFolding, { maxFiles: 4 });
    assert.deepEqual(t.channelTags(), ['s1', 's2', 's30']);
  });

  it('a refused session probed with one file does not hold the other sessions\' events', async () => {
    const t = setup();
    for (let i = 1; i <= 3; i++) t.spool('aaaaaaaa', i, t.ev(i, `s${i}`));
    for (let i = 1; i <= 3; i++) t.spool('bbbbbbbb', i, t.ev(i + 10, `o${i}`, 'other'), { session: 'other' });
    const ops: SpoolFolding = { ...nodeSpoolFolding, append: async (dir, id, e) => (id === S ? false : nodeSpoolFolding.append(dir, id, e)) };
    const done = await foldSpool({ files: nodeFileAccess, clock: t.clock, spoolDir: t.spoolDir, channelDir: t.channelDir, ops, maxAgeMs: 7 * DAY, probeSessions: new Set([S]) });
    assert.deepEqual([...done.refused], [S]);
    assert.deepEqual(t.channelTags('other'), ['o1', 'o2', 'o3']);
    assert.deepEqual(t.left(), [1, 2, 3].map((i) => t.name('aaaaaaaa', i)));
  });

  it('an append refused puts the file back and holds the session\'s later events; other sessions go on', async () => {
    const t = setup();
    t.spool('aaaaaaaa', 1, t.ev(1, 'a1'));
    t.spool('aaaaaaaa', 2, t.ev(2, 'a2'));
    t.spool('bbbbbbbb', 1, t.ev(3, 'b1', 'other'), { session: 'other' });
    let refuse = true;
    const ops: SpoolFolding = { ...nodeSpoolFolding, append: async (dir, id, e) => (refuse && id === S ? false : nodeSpoolFolding.append(dir, id, e)) };
    await t.fold(ops);
    assert.deepEqual(t.channelTags(), []);
    assert.deepEqual(t.channelTags('other'), ['b1']);
    assert.deepEqual(t.left(), [t.name('aaaaaaaa', 1), t.name('aaaaaaaa', 2)]);
    refuse = false;
    await t.fold(ops);
    assert.deepEqual(t.channelTags(), ['a1', 'a2']);
  });

  it('a claim refused (Windows: the file held open by a scanner) leaves the file and holds the session\'s later events for the next fold; other sessions go on', async () => {
    const t = setup();
    const a1 = t.spool('aaaaaaaa', 1, t.ev(1, 'a1'));
    t.spool('aaaaaaaa', 2, t.ev(2, 'a2'));
    t.spool('bbbbbbbb', 1, t.ev(3, 'b1', 'other'), { session: 'other' });
    const fsWin = heldOpenByAnother(a1, 'EPERM', 1);
    await t.fold(spoolFoldingOn(fsWin));
    assert.deepEqual(t.channelTags(), []);
    assert.deepEqual(t.channelTags('other'), ['b1']);
    assert.deepEqual(t.left(), [t.name('aaaaaaaa', 1), t.name('aaaaaaaa', 2)]);
    assert.deepEqual(fsWin.waits, [], 'the fold does not wait for it');
    await t.fold(spoolFoldingOn(fsWin));
    assert.deepEqual(t.channelTags(), ['a1', 'a2']);
    assert.deepEqual(t.left(), []);
  });

  it('a seq padded otherwise than the mod pads it is read in its place (equal seqs: by name), whether the listing is handed over name by name or whole', async () => {
    const t = setup();
    const write = (digits: string, tag: string) => fs.writeFileSync(path.join(t.spoolDir, `${S}.aaaaaaaa.${digits}.json`), JSON.stringify(t.ev(1, tag)));
    for (const [digits, tag] of [['1', 's1'], ['0002', 's2'], ['00000003', 's3'], ['000000004', 's4'], ['00000005', 's5'], ['7', 's7b'], ['00000007', 's7a'], ['000000000006', 's6'], ['123456789', 's9'], ['0123456789', 's8']]) write(digits, tag);
    const order = ['s1', 's2', 's3', 's4', 's5', 's6', 's7a', 's7b', 's8', 's9'];
    const whole: typeof nodeFileAccess = { ...nodeFileAccess, readdir: (dir) => nodeFileAccess.readdir(dir) };
    for (const files of [nodeFileAccess, whole]) {
      const read = await readSpool({ files, clock: t.clock, spoolDir: t.spoolDir }, 7 * DAY);
      assert.deepEqual(read.ready.map((e) => e.event.uuid), order);
      assert.deepEqual(read.ready.map((e) => path.basename(e.path)), read.ready.map((e) => e.name));
    }
    // A budget that cuts the instance short takes its first files.
    const some = await readSpool({ files: nodeFileAccess, clock: t.clock, spoolDir: t.spoolDir, maxFiles: 4 }, 7 * DAY);
    assert.deepEqual(some.ready.map((e) => e.event.uuid), order.slice(0, 4));
    assert.equal(some.more, true);
  });

  it('a listing that fails part way reads nothing: what it missed may come before what it saw', async () => {
    const t = setup();
    t.spool('aaaaaaaa', 1, t.ev(1, 'a1'));
    t.spool('aaaaaaaa', 2, t.ev(2, 'a2'));
    const failing: typeof nodeFileAccess = {
      ...nodeFileAccess,
      readdir: async (_dir, each) => {
        each?.(t.name('aaaaaaaa', 2));
        throw Object.assign(new Error('EIO'), { code: 'EIO' });
      },
    };
    const read = await readSpool({ files: failing, clock: t.clock, spoolDir: t.spoolDir }, 7 * DAY);
    assert.deepEqual({ ready: read.ready.length, more: read.more }, { ready: 0, more: false });
    await foldSpool({ files: failing, clock: t.clock, spoolDir: t.spoolDir, channelDir: t.channelDir, ops: nodeSpoolFolding, maxAgeMs: 7 * DAY });
    assert.deepEqual(t.left(), [t.name('aaaaaaaa', 1), t.name('aaaaaaaa', 2)]);
  });

  it('readSpool reads one session where it lies and changes nothing', async () => {
    const t = setup();
    t.spool('aaaaaaaa', 1, t.ev(1, 'a1'));
    t.spool('aaaaaaaa', 1, t.ev(1, 'o1', 'other'), { session: 'other' });
    const before = t.left();
    const read = await readSpool({ files: nodeFileAccess, clock: t.clock, spoolDir: t.spoolDir, sessionId: S }, 7 * DAY);
    assert.deepEqual(read.ready.map((e) => e.event.uuid), ['a1']);
    assert.deepEqual(t.left(), before);
  });

  it('fairShares: each demand the same share or all it asks, what is left goes round the rest', () => {
    assert.deepEqual(fairShares([2100, 1], 2000), [1999, 1]);
    assert.deepEqual(fairShares([5, 5, 5], 9), [3, 3, 3]);
    assert.deepEqual(fairShares([100, 2, 0, 7], 20), [11, 2, 0, 7]);
    assert.deepEqual(fairShares([3, 3], 100), [3, 3]);
    assert.deepEqual(fairShares([4, 4, 4], 2), [1, 1, 0]);
    assert.deepEqual(fairShares([], 10), []);
    for (let trial = 0; trial < 200; trial++) {
      const demands = Array.from({ length: 1 + (trial % 7) }, (_, i) => (trial * 31 + i * 17) % 50);
      const budget = (trial * 13) % 120;
      const shares = fairShares(demands, budget);
      const total = demands.reduce((a, b) => a + b, 0);
      assert.equal(shares.reduce((a, b) => a + b, 0), Math.min(total, budget));
      shares.forEach((sh, i) => assert.ok(sh >= 0 && sh <= demands[i]));
      // Fair: a demand that got less than it asked got at least as much as any other, less one.
      const top = Math.max(...shares);
      shares.forEach((sh, i) => assert.ok(sh === demands[i] || sh >= top - 1, `${demands} ${budget} -> ${shares}`));
    }
  });

  it('a budget that cuts one instance short: later events of another wait, so the session\'s order holds across folds', async () => {
    const t = setup();
    // a at 10 and 40, b at 20 and 30: a fold of 3 reads both of a and one of b. b's unread 30 comes before a's 40.
    t.spool('aaaaaaaa', 1, t.ev(10, 'a10'));
    t.spool('aaaaaaaa', 2, t.ev(40, 'a40'));
    t.spool('bbbbbbbb', 1, t.ev(20, 'b20'));
    t.spool('bbbbbbbb', 2, t.ev(30, 'b30'));
    await t.fold(nodeSpoolFolding, { maxFiles: 3 });
    assert.deepEqual(t.channelTags(), ['a10', 'b20']);
    await t.fold(nodeSpoolFolding, { maxFiles: 3 });
    assert.deepEqual(t.channelTags(), ['a10', 'b20', 'b30', 'a40']);
    assert.deepEqual(t.left(), []);
  });

  it('a session\'s events go in one append per fold', async () => {
    const t = setup();
    for (let i = 1; i <= 4; i++) t.spool('aaaaaaaa', i, t.ev(i, `a${i}`));
    t.spool('bbbbbbbb', 1, t.ev(9, 'o1', 'other'), { session: 'other' });
    const appends: [string, number][] = [];
    const ops: SpoolFolding = { ...nodeSpoolFolding, append: async (dir, id, events) => (appends.push([id, events.length]), nodeSpoolFolding.append(dir, id, events)) };
    const r = await t.fold(ops);
    assert.deepEqual(appends.sort(), [['other', 1], [S, 4]]);
    assert.deepEqual([...r.folded].sort(), [['other', 1], [S, 4]]);
    assert.deepEqual(t.channelTags(), ['a1', 'a2', 'a3', 'a4']);
  });
});
