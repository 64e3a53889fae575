import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { appendChannelLine, isOwnChannelFile } from '../../../src/rules/channelWriter';
import { parseHookArgs, watchdogDelayMs } from '../../../src/hook/main';
import { MAX_HOOK_TIMEOUT_MS } from '../../../src/rules/channelConstants';
import { hookInput, runHook, tempHome } from '../helpers/hookProcess';

/** Node fires a setTimeout longer than this at once (with a warning). */
const MAX_TIMER_MS = 2 ** 31 - 1;

describe('hook watchdog: huge flags', () => {
  it('--polls 100000 --poll-ms 60000 keeps a watchdog node can arm, as long as any timeout install-hook writes', () => {
    const args = parseHookArgs(['--probe', '--polls', '100000', '--poll-ms', '60000']);
    assert.equal(args.polls * args.pollMs, 6_000_000_000, 'both flags are accepted as given');
    const delay = watchdogDelayMs(args, 40);
    assert.ok(delay <= MAX_TIMER_MS, `${delay} ms overflows setTimeout`);
    assert.ok(delay >= MAX_HOOK_TIMEOUT_MS, `${delay} ms: the hook must outlive Claude Code's longest timeout for it`);
  });

  it('ordinary flags are not clamped: 850 ms plus the whole probe wait, from the process start', () => {
    assert.equal(watchdogDelayMs(parseHookArgs([]), 40), 810);
    assert.equal(watchdogDelayMs(parseHookArgs(['--probe', '--polls', '50', '--poll-ms', '100']), 40), 5810);
    assert.equal(watchdogDelayMs(parseHookArgs([]), 2000), 0);
  });
});

describe('hook channel file: only our own is appended to', () => {
  const event = { v: 1, event: 'pre', at: 1 };
  let dir: string;
  beforeEach(function () {
    if (process.platform === 'win32') this.skip();
    dir = path.join(tempHome().claudeDir, 'transcript-lag');
    fs.mkdirSync(dir, { mode: 0o700 });
  });

  it('a file of ours (0600, one link) is appended to', () => {
    const file = path.join(dir, 's1.jsonl');
    fs.writeFileSync(file, 'old\n', { mode: 0o600 });
    assert.equal(appendChannelLine(dir, 's1', event), true);
    assert.equal(fs.readFileSync(file, 'utf8'), 'old\n' + JSON.stringify(event) + '\n');
  });

  it('a new file is created 0600 and appended to', () => {
    assert.equal(appendChannelLine(dir, 's0', event), true);
    assert.equal(fs.statSync(path.join(dir, 's0.jsonl')).mode & 0o777, 0o600);
  });

  for (const mode of [0o666, 0o620, 0o602]) {
    it(`a file others may write (${mode.toString(8)}) is refused and left as it was`, () => {
      const file = path.join(dir, 's2.jsonl');
      fs.writeFileSync(file, 'forged?\n');
      fs.chmodSync(file, mode);
      assert.equal(appendChannelLine(dir, 's2', event), false);
      assert.equal(fs.readFileSync(file, 'utf8'), 'forged?\n');
      assert.equal(fs.statSync(file).mode & 0o777, mode);
    });
  }

  it('a hard-linked file is refused: neither name changes', () => {
    const victim = path.join(dir, '..', 'victim.txt');
    fs.writeFileSync(victim, 'precious\n', { mode: 0o600 });
    fs.linkSync(victim, path.join(dir, 's3.jsonl'));
    assert.equal(appendChannelLine(dir, 's3', event), false);
    assert.equal(fs.readFileSync(victim, 'utf8'), 'precious\n');
  });

  it("another user's file is refused", function () {
    // Making a file another user's needs root.
    if (process.getuid?.() !== 0) this.skip();
    const file = path.join(dir, 's4.jsonl');
    fs.writeFileSync(file, 'theirs\n', { mode: 0o600 });
    fs.chownSync(file, 12345, 12345);
    assert.equal(appendChannelLine(dir, 's4', event), false);
    assert.equal(fs.readFileSync(file, 'utf8'), 'theirs\n');
  });

  it('the rule itself: owner, mode, links; on Windows (no uid) only the links', () => {
    assert.equal(isOwnChannelFile({ uid: 1000, mode: 0o100600, nlink: 1 }, 1000), true);
    assert.equal(isOwnChannelFile({ uid: 1000, mode: 0o100644, nlink: 1 }, 1000), true);
    assert.equal(isOwnChannelFile({ uid: 1001, mode: 0o100600, nlink: 1 }, 1000), false);
    assert.equal(isOwnChannelFile({ uid: 1000, mode: 0o100660, nlink: 1 }, 1000), false);
    assert.equal(isOwnChannelFile({ uid: 1000, mode: 0o100600, nlink: 2 }, 1000), false);
    assert.equal(isOwnChannelFile({ uid: 0, mode: 0o100666, nlink: 1 }, undefined), true);
    assert.equal(isOwnChannelFile({ uid: 0, mode: 0o100666, nlink: 2 }, undefined), false);
  });

  it('the hook process leaves a 0666 channel file alone and still exits 0 in silence', async () => {
    const { claudeDir, env } = tempHome();
    const channel = path.join(claudeDir, 'transcript-lag');
    fs.mkdirSync(channel, { mode: 0o700 });
    const file = path.join(channel, 'open.jsonl');
    fs.writeFileSync(file, '');
    fs.chmodSync(file, 0o666);
    const run = await runHook({ env: { ...env, CLAUDE_CONFIG_DIR: claudeDir }, stdin: hookInput({ session_id: 'open' }) });
    assert.equal(run.code, 0);
    assert.equal(run.stdout + run.stderr, '');
    assert.equal(fs.readFileSync(file, 'utf8'), '');
  });
});
