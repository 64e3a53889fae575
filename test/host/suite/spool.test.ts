// The mod's spool (issue 30) with a session whose channel file refuses appends: a
// group-writable or a hard-linked `<session_id>.jsonl` (the hook's rule, isOwnChannelFile).
// The extension must not fold in a loop over it (each put-back rename notified the watcher,
// which folded again, at a full core) nor hold up the other sessions' events: the calls of
// session B, spooled while the extension runs, show as held; the window answers promptly;
// A's spool files wait and its channel file is left as it was; once the file is fixed, A's
// calls arrive, each once.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { channelDirOf, spoolDirOf } from '../../../src/rules/channelPaths';
import type { TranscriptLagApi } from '../../../src/vscode/testApi';
import { closeAllEditors, eventually, extensionApi, FakeSession, newClaudeDir, note, runHook, setSetting, settlesWithin } from './support';

/** Calls of A spooled before the extension looks: a `pre` and a `post` file each (under the 500 held calls a session keeps). */
const A_CALLS = 490;
/** Calls of B spooled before the extension looks, and while it runs (one at a time, each followed by the round trips). */
const B_EARLY = 3;
const B_LATE = 5;
/**
 * A round trip (an engine poll and render, a command through the window, a timer in the
 * extension host) answers within this, or the window is not responsive. Measured on the
 * 2-core box: mostly under 50 ms, at worst ~250 (printed); the fold loop this guards against never answered.
 */
const ROUND_TRIP_BOUND_MS = 3_000;

/**
 * A quiet spell: nothing written for this long while A's appends are refused. The extension
 * polls once a second and tries A again then, with one file: a claim (a rename) each, so a
 * few claims at most; a fold in a loop claims hundreds. The bounds only catch such a loop.
 */
const QUIET_MS = 2_000;
const QUIET_CLAIMS_BOUND = 10;
/** The share of a core the extension host stays under meanwhile (measured: 1–6 %; a fold loop driven by change notifications took 44–74 % on the busy 2-core box). */
const QUIET_CPU_BOUND = 0.5;

/**
 * Over `ms`: the share of one core this process (the extension host: the extension and this
 * suite) used, and how many claims of the session's spool files were made (a fold claims a
 * file by renaming it to `<name>.claimed-<at>-<pid>-<random>`: each claim a new name).
 */
async function quietSpell(spoolDir: string, sessionId: string, ms: number): Promise<{ cpu: number; claims: number }> {
  const claims = new Set<string>();
  const watcher = fs.watch(spoolDir, (_event, name) => {
    const n = name?.toString();
    if (n !== undefined && n.startsWith(`${sessionId}.`) && n.includes('.claimed-')) claims.add(n);
  });
  const before = process.cpuUsage();
  const started = performance.now();
  try {
    await new Promise((r) => setTimeout(r, ms));
  } finally {
    watcher.close();
  }
  const used = process.cpuUsage(before);
  return { cpu: (used.user + used.system) / 1000 / (performance.now() - started), claims: claims.size };
}

/** Writes a session's channel events as the in-process mod does with no receiver up: one file per event. */
class ModSpool {
  private seq = 0;

  constructor(
    private readonly session: FakeSession,
    private readonly instance: string,
  ) {}

  write(kind: 'pre' | 'post', toolUseId: string, at: number): string {
    const dir = spoolDirOf(this.session.claudeDir);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = path.join(dir, `${this.session.sessionId}.${this.instance}.${String(++this.seq).padStart(8, '0')}.json`);
    const event = {
      v: 1,
      event: kind,
      at,
      session_id: this.session.sessionId,
      transcript_path: this.session.transcriptPath,
      tool_use_id: toolUseId,
      tool_name: 'Bash',
      transport: 'mod',
      source: 'transcript-lag-mod',
    };
    // Not atomic, as the mod's $.fs.write: the file is made, then written.
    fs.writeFileSync(file, JSON.stringify(event));
    return file;
  }
}

/** The session's files in the spool, by their spool name (a file claimed by a fold right now counts under its own name). */
function spoolNamesOf(claudeDir: string, sessionId: string): string[] {
  const names = fs.readdirSync(spoolDirOf(claudeDir)).map((n) => (n.includes('.claimed-') ? n.slice(0, n.indexOf('.claimed-')) : n));
  return names.filter((n) => n.startsWith(`${sessionId}.`)).sort();
}

function heldIds(api: TranscriptLagApi, sessionId: string): string[] | undefined {
  const node = api.treeItems().find((n) => n.session_id === sessionId);
  return node?.children.filter((c) => c.kind === 'held').map((c) => c.tool_use_id ?? '');
}

const sameSet = (a: readonly string[] | undefined, b: readonly string[]) => a !== undefined && a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');

/**
 * Waits for what the views show by themselves, from the extension's own file watcher and poll:
 * no poll is forced (api.refresh is what the round trips measure). The bound only turns a hang into a failure.
 */
async function shown<T>(what: string, check: () => T | undefined | false, timeoutMs = 10_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const v = check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for the views to show ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** How long `fn` takes to settle; a failure naming `what` when it is not settled within the bound. */
async function roundTrip(what: string, fn: () => Thenable<unknown>): Promise<number> {
  const started = performance.now();
  const settled = await settlesWithin(Promise.resolve(fn()), ROUND_TRIP_BOUND_MS);
  const ms = Math.round(performance.now() - started);
  assert.ok(settled && ms <= ROUND_TRIP_BOUND_MS, `${what} did not answer within ${ROUND_TRIP_BOUND_MS} ms: the window is not responsive`);
  return ms;
}

type Refusal = 'group-writable' | 'hard-linked';

describe('mod spool: a session whose channel file refuses appends', () => {
  after(async () => {
    await vscode.commands.executeCommand('setContext', 'transcriptLag.hostTestPing', undefined);
    await closeAllEditors();
  });

  for (const refusal of ['group-writable', 'hard-linked'] as Refusal[]) {
    it(`${refusal}: the other session's events arrive, the window stays responsive, and the session's own arrive once it is fixed`, async function () {
      this.timeout(120_000);
      const api = await extensionApi();
      const dir = newClaudeDir(`spool-${refusal}`);
      const a = new FakeSession(dir).title('Refused channel file').prompt('go');
      const b = new FakeSession(dir).title('Other session').prompt('go');

      // A's channel file as the command hook made it (one held call), then made one appends refuse.
      assert.equal((await runHook(dir, a.preToolUse('toolu_a_hook', 'Bash'))).code, 0);
      const aChannel = path.join(channelDirOf(dir), `${a.sessionId}.jsonl`);
      const backup = path.join(dir, 'backup-of-a-channel.jsonl');
      if (refusal === 'group-writable') fs.chmodSync(aChannel, 0o664);
      else fs.linkSync(aChannel, backup);
      const aBytes = fs.readFileSync(aChannel);
      const aStat = fs.statSync(aChannel);

      // Waiting for the extension: many files of A, a few of B.
      const start = Date.now() - 60_000;
      const aMod = new ModSpool(a, 'a0a0a0a0');
      const aIds: string[] = [];
      for (let i = 0; i < A_CALLS; i++) {
        const id = `toolu_spa_${i}`;
        aIds.push(id);
        aMod.write('pre', id, start + i * 10);
        aMod.write('post', id, start + i * 10 + 5);
      }
      const aSpool = spoolNamesOf(dir, a.sessionId);
      assert.equal(aSpool.length, 2 * A_CALLS);
      const bMod = new ModSpool(b, 'b0b0b0b0');
      const bIds: string[] = [];
      for (let i = 0; i < B_EARLY; i++) {
        const id = `toolu_spb_${bIds.length}`;
        bIds.push(id);
        bMod.write('pre', id, Date.now() - 30_000 + i);
      }

      await setSetting('claudeDir', dir);
      await shown(`the extension using ${dir}`, () => api.claudeDir() === dir && api.engine() !== undefined);
      await shown("B's early calls held", () => sameSet(heldIds(api, b.sessionId), bIds));
      await shown("A's hook call held", () => sameSet(heldIds(api, a.sessionId), ['toolu_a_hook']));

      // B's calls spooled while the extension runs, one by one: each shows as held; then the round trips.
      const times = { refresh: [] as number[], command: [] as number[], timer: [] as number[] };
      for (let i = 0; i < B_LATE; i++) {
        const id = `toolu_spb_${bIds.length}`;
        bIds.push(id);
        bMod.write('pre', id, Date.now());
        await shown(`B's call ${id} held`, () => sameSet(heldIds(api, b.sessionId), bIds));
        times.refresh.push(await roundTrip('a poll of the engine and a render (api.refresh)', () => api.refresh()));
        times.command.push(await roundTrip('a command through the window (setContext)', () => vscode.commands.executeCommand('setContext', 'transcriptLag.hostTestPing', i)));
        times.timer.push(await roundTrip('a timer in the extension host', () => new Promise((r) => setTimeout(r, 0))));
      }
      note(`${refusal}: round trips (ms) while A's appends are refused: refresh ${times.refresh.join('/')}, command ${times.command.join('/')}, timer ${times.timer.join('/')}`);
      // And no fold in a loop beside the polls (one the change notifications drive would leave the round trips prompt):
      // with nothing written, A is tried again once a poll, and the extension host (this process) is all but idle.
      const quiet = await quietSpell(spoolDirOf(dir), a.sessionId, QUIET_MS);
      note(`${refusal}: over ${QUIET_MS} ms with nothing written: ${quiet.claims} claim(s) of A's files, extension host CPU ${Math.round(quiet.cpu * 100)}% of a core`);
      assert.ok(quiet.claims <= QUIET_CLAIMS_BOUND, `A's files were claimed ${quiet.claims} times in ${QUIET_MS} ms (a fold in a loop?)`);
      assert.ok(quiet.cpu < QUIET_CPU_BOUND, `the extension host used ${Math.round(quiet.cpu * 100)}% of a core with nothing written (a fold in a loop?)`);
      // The status bar and the badge count A's hook call and B's calls (rendered a moment after the tree's data).
      await shown(`the status bar and badge to say ${1 + bIds.length} held`, () => api.statusView()?.held === 1 + bIds.length && api.badge() === 1 + bIds.length);
      assert.match(api.statusBarText() ?? '', new RegExp(`^\\$\\(watch\\) ${1 + bIds.length} held · `));

      // A's events wait in the spool; its channel file is as it was; none of its spooled calls shows.
      await eventually(api, "A's spool files to be all there", () => sameSet(spoolNamesOf(dir, a.sessionId), aSpool));
      assert.deepEqual(fs.readFileSync(aChannel), aBytes, "A's channel file is untouched");
      const aNow = fs.statSync(aChannel);
      assert.deepEqual([aNow.mode, aNow.nlink, aNow.size, aNow.mtimeMs], [aStat.mode, aStat.nlink, aStat.size, aStat.mtimeMs]);
      assert.deepEqual(heldIds(api, a.sessionId), ['toolu_a_hook']);
      // (A fold removes its files after the append, which a poll may read first: waited for, not asserted at once.)
      await eventually(api, "B's spool files to be folded", () => spoolNamesOf(dir, b.sessionId).length === 0);

      // Fixed: A's calls arrive, each once.
      if (refusal === 'group-writable') fs.chmodSync(aChannel, 0o600);
      else fs.unlinkSync(backup);
      await shown("A's spooled calls held", () => heldIds(api, a.sessionId)?.length === 1 + A_CALLS);
      const aHeld = heldIds(api, a.sessionId) ?? [];
      assert.ok(sameSet(aHeld, ['toolu_a_hook', ...aIds]), 'each of A\'s calls once in the view');
      const all = 1 + A_CALLS + bIds.length;
      await shown(`the status bar and badge to say ${all} held`, () => api.statusView()?.held === all && api.badge() === all);
      await eventually(api, "A's spool files to be folded", () => spoolNamesOf(dir, a.sessionId).length === 0);
      // In the channel file: the hook's line as it was, then every spooled event once, in order.
      const lines = fs.readFileSync(aChannel, 'utf8').trimEnd().split('\n');
      assert.equal(lines[0], aBytes.toString('utf8').trimEnd());
      const folded = lines.slice(1).map((l) => JSON.parse(l) as { event: string; tool_use_id: string });
      assert.deepEqual(
        folded.map((e) => `${e.event} ${e.tool_use_id}`),
        aIds.flatMap((id) => [`pre ${id}`, `post ${id}`]),
      );
    });
  }
});
