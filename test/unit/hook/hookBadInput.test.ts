import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { channelEventSchema, type CallChannelEvent } from '../../../src/core/channel/schema';
import { buildHook, changedPaths, hookInput, readJsonLines, runHook, snapshotTree, tempHome, type HookRun } from '../helpers/hookProcess';

// The contract is ≤ 1 s in announce mode; this bound is generous because a
// loaded CI machine adds its own start-up time. The benchmark measures real cost.
const ANNOUNCE_BOUND_MS = 3000;

function assertHarmless(run: HookRun, boundMs = ANNOUNCE_BOUND_MS): void {
  assert.equal(run.code, 0, `exit code (stderr: ${run.stderr})`);
  assert.equal(run.signal, null);
  assert.equal(run.stdout, '', 'nothing on stdout: Claude Code reads it as a decision');
  assert.ok(run.elapsedMs < boundMs, `took ${run.elapsedMs} ms`);
}

/** Runs the hook in a fresh HOME; returns what changed there, relative to HOME. */
async function runInFreshHome(opts: { stdin?: string | Buffer; keepStdinOpen?: boolean; args?: string[]; prepare?: (claudeDir: string) => void }) {
  const { home, claudeDir, env } = tempHome();
  opts.prepare?.(claudeDir);
  const before = snapshotTree(home);
  const run = await runHook({ env: { ...env, CLAUDE_CONFIG_DIR: claudeDir }, stdin: opts.stdin, keepStdinOpen: opts.keepStdinOpen, args: opts.args });
  return { run, changed: changedPaths(before, snapshotTree(home)), home, claudeDir };
}

const channelPrefix = path.join('.claude', 'transcript-lag');

function onlyInChannel(changed: string[]): void {
  const outside = changed.filter((p) => p !== channelPrefix && !p.startsWith(channelPrefix + path.sep));
  assert.deepEqual(outside, [], 'nothing written outside the channel folder');
}

describe('hook process: bad input', function () {
  before(async function () {
    this.timeout(60_000);
    await buildHook();
  });

  const noEvent: [string, string | Buffer | undefined][] = [
    ['empty stdin', undefined],
    ['whitespace', '  \n\n'],
    ['garbage bytes', Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x22, 0x0a, 0x80])],
    ['a JSON array', '[1,2,3]'],
    ['JSON null', 'null'],
    ['truncated JSON', hookInput({}).slice(0, 120)],
    ['no tool_use_id', JSON.stringify({ session_id: 's1', transcript_path: '/t.jsonl', hook_event_name: 'PreToolUse' })],
    ['fields of the wrong type', JSON.stringify({ session_id: 7, transcript_path: ['x'], tool_use_id: {}, hook_event_name: 'PreToolUse' })],
    ['an overlong tool_use_id', hookInput({ tool_use_id: 'toolu_' + 'x'.repeat(500) })],
  ];
  for (const [name, stdin] of noEvent) {
    it(`${name}: exit 0, silent, quick, writes nothing`, async () => {
      const { run, changed } = await runInFreshHome({ stdin });
      assertHarmless(run);
      assert.deepEqual(changed, []);
    });
  }

  it('stdin that never closes: gives up within the bound, writes nothing', async () => {
    const { run, changed } = await runInFreshHome({ stdin: '{"session_id":"abc","tool_input":{"content":"', keepStdinOpen: true });
    assertHarmless(run);
    assert.deepEqual(changed, []);
  });

  it('a complete payload on a stdin that never closes is still reported', async () => {
    const { run, claudeDir } = await runInFreshHome({ stdin: hookInput({ session_id: 'open-stdin' }), keepStdinOpen: true });
    assertHarmless(run);
    assert.equal(readJsonLines(path.join(claudeDir, 'transcript-lag', 'open-stdin.jsonl')).length, 1);
  });

  it('a 20 MB tool_input: the pre event is written, without the content', async () => {
    const content = 'A"\\\n'.repeat(5 * 1024 * 1024);
    const stdin = hookInput({ session_id: 'big', tool_input: { file_path: '/x', content }, tool_use_id: 'toolu_AFTER_BIG' });
    assert.ok(stdin.length > 20 * 1024 * 1024);
    const { run, changed, claudeDir } = await runInFreshHome({ stdin });
    assertHarmless(run);
    onlyInChannel(changed);
    const file = path.join(claudeDir, 'transcript-lag', 'big.jsonl');
    const [pre] = readJsonLines(file).map((l) => channelEventSchema.parse(l) as CallChannelEvent);
    assert.equal(pre.tool_use_id, 'toolu_AFTER_BIG');
    assert.ok(fs.statSync(file).size < 1000);
  });

  it('a 6 MB tool_input naming agent_id and prompt_id: neither reaches the channel, the top-level ones do', async () => {
    const tool_input = { agent_id: 'from-tool-input', prompt_id: 'from-tool-input', content: 'x'.repeat(6 * 1024 * 1024), tool_use_id: 'toolu_INSIDE' };
    const { run, claudeDir } = await runInFreshHome({ stdin: hookInput({ session_id: 'leak', tool_input }) });
    assertHarmless(run);
    const [pre] = readJsonLines(path.join(claudeDir, 'transcript-lag', 'leak.jsonl')).map((l) => channelEventSchema.parse(l) as CallChannelEvent);
    assert.equal(pre.tool_use_id, 'toolu_01TEST');
    assert.equal(pre.agent_id, undefined);
    assert.equal(pre.event === 'pre' && pre.prompt_id, undefined);

    const top = await runInFreshHome({ stdin: hookInput({ session_id: 'top', tool_input, agent_id: 'agent-top', prompt_id: 'p-top' }) });
    assertHarmless(top.run);
    const [pre2] = readJsonLines(path.join(top.claudeDir, 'transcript-lag', 'top.jsonl')).map((l) => channelEventSchema.parse(l) as CallChannelEvent);
    assert.equal(pre2.agent_id, 'agent-top');
    assert.equal(pre2.event === 'pre' && pre2.prompt_id, 'p-top');
  });

  it('a 20 MB deeply nested tool_input: reported within the bound (JSON.parse would block the watchdog for seconds)', async () => {
    const depth = 2_700_000;
    const stdin = hookInput({ session_id: 'nested', tool_input: 'NESTED' }).replace('"NESTED"', '[{"a":'.repeat(depth) + '1' + '}]'.repeat(depth));
    assert.ok(stdin.length > 20 * 1024 * 1024);
    const { run, changed, claudeDir } = await runInFreshHome({ stdin });
    assertHarmless(run);
    onlyInChannel(changed);
    const [pre] = readJsonLines(path.join(claudeDir, 'transcript-lag', 'nested.jsonl')).map((l) => channelEventSchema.parse(l) as CallChannelEvent);
    assert.equal(pre.tool_use_id, 'toolu_01TEST');
  });

  it('a file where the channel folder should be: exit 0, file untouched, nothing else written', async () => {
    const { run, changed, claudeDir } = await runInFreshHome({
      stdin: hookInput({}),
      prepare: (dir) => fs.writeFileSync(path.join(dir, 'transcript-lag'), 'not a folder'),
    });
    assertHarmless(run);
    assert.deepEqual(changed, []);
    assert.equal(fs.readFileSync(path.join(claudeDir, 'transcript-lag'), 'utf8'), 'not a folder');
  });

  it('a missing transcript costs nothing in announce mode', async () => {
    const { run, changed } = await runInFreshHome({ stdin: hookInput({ transcript_path: '/no/such/dir/t.jsonl' }) });
    assertHarmless(run);
    onlyInChannel(changed);
    assert.ok(changed.length > 0, 'the pre event was written');
  });

  it('a symlink planted as the session file is not followed', async function () {
    if (process.platform === 'win32') this.skip();
    const { run, home, claudeDir } = await runInFreshHome({
      stdin: hookInput({ session_id: 'planted' }),
      prepare: (dir) => {
        fs.mkdirSync(path.join(dir, 'transcript-lag'), { mode: 0o700 });
        fs.writeFileSync(path.join(dir, '..', 'victim.txt'), 'precious');
        fs.symlinkSync(path.join(dir, '..', 'victim.txt'), path.join(dir, 'transcript-lag', 'planted.jsonl'));
      },
    });
    assertHarmless(run);
    assert.equal(fs.readFileSync(path.join(home, 'victim.txt'), 'utf8'), 'precious');
    assert.ok(fs.lstatSync(path.join(claudeDir, 'transcript-lag', 'planted.jsonl')).isSymbolicLink());
  });

  const hostile = ['../..', '../../victim', '..', '.', 'a/b', 'a\\b', '/etc/passwd', 'nul\u0000byte', 'x'.repeat(300), '.hidden', '', ' ', 'C:\\x'];
  for (const sid of hostile) {
    it(`hostile session_id ${JSON.stringify(sid.length > 20 ? sid.slice(0, 20) + '…' : sid)}: nothing written anywhere`, async () => {
      const { run, changed } = await runInFreshHome({ stdin: hookInput({ session_id: sid }) });
      assertHarmless(run);
      assert.deepEqual(changed, [], 'no session file, not even the channel folder');
    });
  }

  it('probe mode is bounded by polls × interval + 1 s even when the record never comes', async () => {
    const polls = 10;
    const pollMs = 50;
    const { run, changed } = await runInFreshHome({
      stdin: hookInput({ transcript_path: '/no/such/t.jsonl' }),
      args: ['--probe', '--polls', String(polls), '--poll-ms', String(pollMs)],
    });
    assertHarmless(run, polls * pollMs + ANNOUNCE_BOUND_MS);
    onlyInChannel(changed);
  });

  it('probe mode with a FIFO as the transcript does not block: the wait ends as an error', async function () {
    if (process.platform === 'win32') this.skip();
    const { home, claudeDir, env } = tempHome();
    const fifo = path.join(claudeDir, 'projects', 'fifo.jsonl');
    execFileSync('mkfifo', [fifo]);
    const before = snapshotTree(home);
    const run = await runHook({
      env: { ...env, CLAUDE_CONFIG_DIR: claudeDir },
      stdin: hookInput({ session_id: 'fifo', transcript_path: fifo }),
      args: ['--probe', '--polls', '3', '--poll-ms', '10'],
    });
    assertHarmless(run, 30 + ANNOUNCE_BOUND_MS);
    onlyInChannel(changedPaths(before, snapshotTree(home)));
    const wait = readJsonLines(path.join(claudeDir, 'transcript-lag', 'fifo.jsonl')).map((l) => channelEventSchema.parse(l) as CallChannelEvent)[1];
    assert.equal(wait.event === 'wait' && wait.outcome, 'error');
  });
});
