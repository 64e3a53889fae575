import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { channelEventSchema, type ChannelEvent, type LandedEvent } from '../../../src/core/channel/schema';
import { fixturesDir } from '../helpers/fixtures';
import { buildHook, hookInput, readJsonLines, runHook, tempHome } from '../helpers/hookProcess';

const SID = '0b7c5a8e-1111-4222-8333-944455556666';

function events(file: string): ChannelEvent[] {
  return readJsonLines(file).map((l) => channelEventSchema.parse(l));
}

/** The real print-mode transcript and, from its probe.log, the call and the line its record landed on. */
function realTranscript(into: string): { transcript: string; toolUseId: string; line: number } {
  const dir = path.join(fixturesDir, 'real', 'print-single-0');
  const name = fs.readdirSync(dir).find((n) => n.endsWith('.jsonl'))!;
  const transcript = path.join(into, 'projects', '-work', name);
  fs.copyFileSync(path.join(dir, name), transcript);
  const seen = fs
    .readFileSync(path.join(dir, 'probe.log'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { ev: string; id: string; line?: number })
    .find((e) => e.ev === 'seen')!;
  return { transcript, toolUseId: seen.id, line: seen.line! };
}

describe('hook process: events', function () {
  before(async function () {
    this.timeout(60_000);
    await buildHook();
  });

  it('the bundle is small and needs nothing but node: modules (no zod, no dependencies)', async () => {
    const code = fs.readFileSync(await buildHook(), 'utf8');
    const required = [...code.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]);
    assert.ok(required.length > 0);
    assert.deepEqual(required.filter((r) => !r.startsWith('node:')), []);
    assert.ok(code.length < 32 * 1024, `${code.length} bytes`);
  });

  it('PreToolUse appends one valid pre event to $CLAUDE_CONFIG_DIR/transcript-lag/<session>.jsonl, 0600 in a 0700 folder', async () => {
    const { claudeDir, env } = tempHome();
    const run = await runHook({
      env: { ...env, CLAUDE_CONFIG_DIR: claudeDir },
      stdin: hookInput({ prompt_id: 'p-1', agent_id: 'agent-7', tool_name: 'Write' }),
      args: ['--timeout-ms', '5000'],
    });
    assert.equal(run.code, 0);
    assert.equal(run.stdout, '');
    const file = path.join(claudeDir, 'transcript-lag', `${SID}.jsonl`);
    const [pre, ...rest] = events(file);
    assert.deepEqual(rest, []);
    assert.equal(pre.event, 'pre');
    assert.equal(pre.v, 1);
    assert.equal(pre.session_id, SID);
    assert.equal(pre.transcript_path, '/nonexistent/transcript.jsonl');
    assert.equal(pre.tool_use_id, 'toolu_01TEST');
    assert.equal(pre.tool_name, 'Write');
    assert.equal(pre.agent_id, 'agent-7');
    assert.equal(pre.source, 'transcript-lag-hook');
    if (pre.event !== 'pre') throw new Error('unreachable');
    assert.equal(pre.prompt_id, 'p-1');
    assert.equal(pre.mode, 'announce');
    assert.equal(pre.timeout_ms, 5000);
    assert.ok(pre.at <= Date.now() && pre.at > Date.now() - 60_000, `at ${pre.at} is when the hook fired`);
    assert.ok(!fs.readFileSync(file, 'utf8').includes('secret-input'), 'tool_input is never stored');
    if (process.platform !== 'win32') {
      assert.equal(fs.statSync(file).mode & 0o777, 0o600);
      assert.equal(fs.statSync(path.dirname(file)).mode & 0o777, 0o700);
    }
  });

  it('PostToolUse appends a post event without tool_response', async () => {
    const { claudeDir, env } = tempHome();
    const run = await runHook({
      env: { ...env, CLAUDE_CONFIG_DIR: claudeDir },
      stdin: hookInput({ hook_event_name: 'PostToolUse', tool_response: { stdout: 'secret-output' } }),
    });
    assert.equal(run.code, 0);
    assert.equal(run.stdout, '');
    const file = path.join(claudeDir, 'transcript-lag', `${SID}.jsonl`);
    const [post] = events(file);
    assert.equal(post.event, 'post');
    assert.equal(post.tool_use_id, 'toolu_01TEST');
    assert.ok(!fs.readFileSync(file, 'utf8').includes('secret'));
  });

  it('pre and post events say what was on disk for the call when the hook looked (the real transcript)', async () => {
    const { claudeDir, env } = tempHome();
    const { transcript, toolUseId, line } = realTranscript(claudeDir);
    const all = fs.readFileSync(transcript, 'utf8').split('\n').filter(Boolean);
    // PreToolUse while the record is held (the file ends before it), PostToolUse once it landed alone.
    fs.writeFileSync(transcript, all.slice(0, line - 1).map((l) => `${l}\n`).join(''));
    const before = Date.now();
    await runHook({ env: { ...env, CLAUDE_CONFIG_DIR: claudeDir }, stdin: hookInput({ transcript_path: transcript, tool_use_id: toolUseId }) });
    const sizeAtPre = fs.statSync(transcript).size;
    fs.appendFileSync(transcript, `${all[line - 1]}\n`);
    await runHook({ env: { ...env, CLAUDE_CONFIG_DIR: claudeDir }, stdin: hookInput({ hook_event_name: 'PostToolUse', transcript_path: transcript, tool_use_id: toolUseId }) });
    const [pre, post] = events(path.join(claudeDir, 'transcript-lag', `${SID}.jsonl`));
    if (pre?.event !== 'pre' || post?.event !== 'post') throw new Error(`pre then post, got ${pre?.event} ${post?.event}`);
    assert.deepEqual([pre.record_on_disk, pre.result_on_disk, pre.bytes_on_disk], [false, false, sizeAtPre]);
    assert.deepEqual([post.record_on_disk, post.result_on_disk, post.bytes_on_disk], [true, false, fs.statSync(transcript).size]);
    for (const ev of [pre, post]) {
      assert.ok(ev.checked_at! >= ev.at && ev.checked_at! >= before - 1000 && ev.checked_at! <= Date.now(), 'checked_at: when the hook looked, after it fired');
      assert.equal(ev.record_path, undefined, 'the main transcript: no record_path');
    }
  });

  describe('a record not on disk at PostToolUse: the watcher left behind reports how it landed', () => {
    /** The landed event, once the detached watcher has written it (a state, polled with a bound). */
    async function landedEvent(file: string): Promise<LandedEvent> {
      const until = Date.now() + 15_000;
      for (;;) {
        const found = fs.existsSync(file) ? events(file).find((e): e is LandedEvent => e.event === 'landed') : undefined;
        if (found) return found;
        if (Date.now() > until) throw new Error('no landed event within 15 s');
        await new Promise((r) => setTimeout(r, 20));
      }
    }

    async function postWhileHeld(): Promise<{ transcript: string; all: string[]; line: number; channel: string; env: NodeJS.ProcessEnv; toolUseId: string }> {
      const { claudeDir, env } = tempHome();
      const { transcript, toolUseId, line } = realTranscript(claudeDir);
      const all = fs.readFileSync(transcript, 'utf8').split('\n').filter(Boolean);
      // The record is held: the file ends before it, its first bytes already written but not its newline.
      fs.writeFileSync(transcript, all.slice(0, line - 1).map((l) => `${l}\n`).join('') + all[line - 1]!.slice(0, 40));
      const run = await runHook({ env: { ...env, CLAUDE_CONFIG_DIR: claudeDir }, stdin: hookInput({ hook_event_name: 'PostToolUse', transcript_path: transcript, tool_use_id: toolUseId }) });
      assert.equal(run.code, 0);
      assert.equal(run.stdout, '');
      return { transcript, all, line, channel: path.join(claudeDir, 'transcript-lag', `${SID}.jsonl`), env, toolUseId };
    }

    const resultIndex = (all: string[], id: string) => all.findIndex((l) => l.includes(`"tool_use_id":"${id}"`));

    it('record and result in one write: landed with its result', async () => {
      const { transcript, all, line, channel, toolUseId } = await postWhileHeld();
      const [post] = events(channel);
      assert.equal(post?.event === 'post' && post.record_on_disk, false);
      const from = all[line - 1]!.slice(40);
      fs.appendFileSync(transcript, `${from}\n${all.slice(line, resultIndex(all, toolUseId) + 1).join('\n')}\n`);
      const landed = await landedEvent(channel);
      assert.equal(landed.with_result, true);
      assert.equal(landed.tool_use_id, toolUseId);
      assert.ok(landed.at >= post!.at);
    });

    it('record first, its result in a later write: landed before its result', async () => {
      const { transcript, all, line, channel, toolUseId } = await postWhileHeld();
      fs.appendFileSync(transcript, `${all[line - 1]!.slice(40)}\n`);
      const landed = await landedEvent(channel);
      assert.equal(landed.event === 'landed' && landed.with_result, false);
      fs.appendFileSync(transcript, `${all.slice(line, resultIndex(all, toolUseId) + 1).join('\n')}\n`);
    });
  });

  it('without CLAUDE_CONFIG_DIR writes under ~/.claude; --channel-dir overrides both', async () => {
    const { home, env } = tempHome();
    await runHook({ env, stdin: hookInput({}) });
    assert.equal(events(path.join(home, '.claude', 'transcript-lag', `${SID}.jsonl`)).length, 1);
    const custom = path.join(home, 'elsewhere', 'channel');
    await runHook({ env: { ...env, CLAUDE_CONFIG_DIR: path.join(home, 'cfg') }, stdin: hookInput({}), args: ['--channel-dir', custom] });
    assert.equal(events(path.join(custom, `${SID}.jsonl`)).length, 1);
    assert.ok(!fs.existsSync(path.join(home, 'cfg')));
  });

  it('other hook events are ignored', async () => {
    const { claudeDir, env } = tempHome();
    await runHook({ env: { ...env, CLAUDE_CONFIG_DIR: claudeDir }, stdin: hookInput({ hook_event_name: 'Stop' }) });
    assert.ok(!fs.existsSync(path.join(claudeDir, 'transcript-lag', `${SID}.jsonl`)));
  });

  it('probe: a record already on disk is seen on the first poll, at the line probe.log measured', async () => {
    const { claudeDir, env } = tempHome();
    const { transcript, toolUseId, line } = realTranscript(claudeDir);
    const run = await runHook({
      env: { ...env, CLAUDE_CONFIG_DIR: claudeDir },
      stdin: hookInput({ transcript_path: transcript, tool_use_id: toolUseId }),
      args: ['--probe'],
    });
    assert.equal(run.code, 0);
    assert.equal(run.stdout, '');
    const [pre, wait] = events(path.join(claudeDir, 'transcript-lag', `${SID}.jsonl`));
    assert.equal(pre.event === 'pre' && pre.mode, 'probe');
    assert.equal(wait.event, 'wait');
    if (wait.event !== 'wait') throw new Error('unreachable');
    assert.equal(wait.outcome, 'seen');
    assert.equal(wait.line, line);
    assert.equal(wait.polls, 1);
    assert.equal(wait.bytes_on_disk, fs.statSync(transcript).size);
    assert.equal(wait.max_polls, 50);
    assert.equal(wait.poll_ms, 100);
    assert.equal(wait.tool_use_id, toolUseId);
    // Its find's time: on disk by then, after the hook fired, and the wait reported after it.
    assert.ok(wait.checked_at !== undefined && pre.at <= wait.checked_at && wait.checked_at <= wait.at, JSON.stringify([pre.at, wait.checked_at, wait.at]));
  });

  it('probe: a call whose record is not on disk ends behind after exactly --polls polls', async () => {
    const { claudeDir, env } = tempHome();
    const { transcript } = realTranscript(claudeDir);
    await runHook({
      env: { ...env, CLAUDE_CONFIG_DIR: claudeDir },
      stdin: hookInput({ transcript_path: transcript, tool_use_id: 'toolu_notwrittenyet' }),
      args: ['--probe', '--polls', '4', '--poll-ms', '20'],
    });
    const [pre, wait] = events(path.join(claudeDir, 'transcript-lag', `${SID}.jsonl`));
    assert.ok(wait && wait.event === 'wait' && pre?.event === 'pre');
    assert.equal(wait.outcome, 'behind');
    // Its last look read the whole file without the record: absent when that look began, which is
    // after the pre hook's own look and before the wait was reported.
    assert.ok(wait.checked_at !== undefined && pre.checked_at !== undefined && pre.checked_at <= wait.checked_at && wait.checked_at <= wait.at, JSON.stringify([pre.checked_at, wait.checked_at, wait.at]));
    assert.equal(wait.polls, 4);
    assert.equal(wait.max_polls, 4);
    assert.equal(wait.poll_ms, 20);
    assert.equal(wait.line, undefined);
    assert.ok(wait.waited_ms >= 3 * 20, `waited ${wait.waited_ms} ms between 4 polls`);
    assert.equal(wait.bytes_on_disk, fs.statSync(transcript).size);
  });

  it('probe: only the tool_result of the call on disk is not a sighting of its record', async () => {
    const { claudeDir, env } = tempHome();
    const transcript = path.join(claudeDir, 'projects', '-work', 'r.jsonl');
    const result = { type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_R', content: 'ok' }] } };
    const quoted = { type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: '"id":"toolu_R"' }] } };
    fs.writeFileSync(transcript, JSON.stringify(result) + '\n' + JSON.stringify(quoted) + '\n');
    await runHook({
      env: { ...env, CLAUDE_CONFIG_DIR: claudeDir },
      stdin: hookInput({ transcript_path: transcript, tool_use_id: 'toolu_R' }),
      args: ['--probe', '--polls', '2', '--poll-ms', '10'],
    });
    const wait = events(path.join(claudeDir, 'transcript-lag', `${SID}.jsonl`))[1];
    assert.equal(wait.event === 'wait' && wait.outcome, 'behind');
  });

  it('probe: a record appended after the hook started, in two writes split inside the id, is seen at its line', async () => {
    const { claudeDir, env } = tempHome();
    const transcript = path.join(claudeDir, 'projects', '-work', 'late.jsonl');
    fs.writeFileSync(transcript, '{"type":"user","message":{"role":"user","content":"go"}}\n');
    const pending = runHook({
      env: { ...env, CLAUDE_CONFIG_DIR: claudeDir },
      stdin: hookInput({ transcript_path: transcript, tool_use_id: 'toolu_LATE' }),
      args: ['--probe', '--polls', '300', '--poll-ms', '10'],
    });
    const record = { type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_LATE', name: 'Bash', input: {} }] } };
    const bytes = Buffer.from(JSON.stringify(record) + '\n');
    // Appended in two writes split inside the id, as a writer may leave it between two polls.
    const cut = bytes.indexOf('toolu_LATE') + 4;
    fs.appendFileSync(transcript, bytes.subarray(0, cut));
    fs.appendFileSync(transcript, bytes.subarray(cut));
    assert.equal((await pending).code, 0);
    const wait = events(path.join(claudeDir, 'transcript-lag', `${SID}.jsonl`))[1];
    assert.ok(wait.event === 'wait');
    assert.equal(wait.outcome, 'seen');
    assert.equal(wait.line, 2);
  });

  it('probe: a transcript that never exists ends as an error, not behind', async () => {
    const { claudeDir, env } = tempHome();
    await runHook({
      env: { ...env, CLAUDE_CONFIG_DIR: claudeDir },
      stdin: hookInput({ transcript_path: path.join(claudeDir, 'projects', 'missing.jsonl') }),
      args: ['--probe', '--polls', '3', '--poll-ms', '10'],
    });
    const wait = events(path.join(claudeDir, 'transcript-lag', `${SID}.jsonl`))[1];
    assert.ok(wait.event === 'wait');
    assert.equal(wait.outcome, 'error');
    assert.equal(wait.polls, 3);
    assert.equal(wait.bytes_on_disk, 0);
  });
});
