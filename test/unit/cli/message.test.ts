import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { main } from '../../../src/cli/main';
import {
  HELD_FILE_MAX_BYTES,
  messageFor,
  messageForStdin,
  readHeldMessage,
  REASON_NOT_YET,
  renderAnswer,
  type MessageAnswer,
} from '../../../src/cli/message';
import { HELD_MESSAGE_TTL_MS, type HeldMessage } from '../../../src/rules/modContract';
import { readBounded } from '../../../src/rules/boundedRead';
import type { HookInput } from '../../../src/rules/stdin';
import { fixturesDir } from '../helpers/fixtures';
import { capturingIo } from '../helpers/capturingIo';
import { runWithSharedNonBlockingStdout } from '../helpers/sharedNonBlockingStdout';

const repoRoot = path.resolve(__dirname, '../../..');
const SESSION = '3e55a9e0-1111-4222-8333-0123456789ab';
const NOW = 1_800_000_000_000;
const ID = 'toolu_01ReviewMe';

function tempClaude() {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tl-message-')));
  const claudeDir = path.join(root, '.claude');
  const projectDir = path.join(claudeDir, 'projects', '-work');
  fs.mkdirSync(projectDir, { recursive: true });
  const transcript = path.join(projectDir, `${SESSION}.jsonl`);
  fs.writeFileSync(transcript, line({ type: 'user', uuid: 'u0', message: { role: 'user', content: 'go' } }));
  const heldDir = path.join(claudeDir, 'transcript-lag', 'held', SESSION);
  const heldFile = (id = ID) => path.join(heldDir, `${id}.json`);
  const hold = (m: Partial<HeldMessage>, id = ID) => {
    fs.mkdirSync(heldDir, { recursive: true, mode: 0o700 });
    const full: HeldMessage = { v: 1, tool_use_id: id, session_id: SESSION, at: NOW - 50, text_blocks: [], tool_use: { id, name: 'Bash', input: {} }, ...m };
    fs.writeFileSync(heldFile(id), JSON.stringify(full), { mode: 0o600 });
  };
  const input = (extra: Partial<HookInput> = {}): HookInput => ({ hook_event_name: 'PreToolUse', session_id: SESSION, transcript_path: transcript, tool_use_id: ID, ...extra });
  return { root, claudeDir, transcript, heldDir, heldFile, hold, input };
}

function line(v: unknown): string {
  return `${JSON.stringify(v)}\n`;
}

/** One assistant record as Claude Code writes it: one content block, the API message's id. */
function assistant(uuid: string, messageId: string, block: Record<string, unknown>): string {
  return line({ parentUuid: null, type: 'assistant', uuid, message: { id: messageId, type: 'message', role: 'assistant', content: [block] }, timestamp: '2026-12-03T10:00:00.000Z' });
}
const text = (t: string) => ({ type: 'text', text: t });
const toolUse = (id: string) => ({ type: 'tool_use', id, name: 'Bash', input: { command: 'ls' } });
const toolResult = (uuid: string, id: string) => line({ type: 'user', uuid, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] } });

const MULTIBYTE = 'Grüße — 日本語 🎉 naïve';
const WITH_NEWLINES = 'Plan:\n1. read\n\n2. run\n';

describe('message: the held message first', function () {
  it('a fresh held message for the call answers from the mod, its blocks as stored, text joined by a blank line', function () {
    const t = tempClaude();
    t.hold({ text_blocks: ['First.', MULTIBYTE, WITH_NEWLINES] });
    // Another call's held message is not this one's.
    t.hold({ text_blocks: ['not mine'] }, 'toolu_01Other');
    const a = messageFor(t.input(), NOW);
    assert.deepEqual(a, { tool_use_id: ID, text: `First.\n\n${MULTIBYTE}\n\n${WITH_NEWLINES}`, text_blocks: ['First.', MULTIBYTE, WITH_NEWLINES], source: 'mod', reason: null, mod: false });
  });

  it('is preferred to the transcript when both have it; a message with no text is "" and []', function () {
    const t = tempClaude();
    fs.appendFileSync(t.transcript, assistant('a1', 'msg_1', text('from the transcript')) + assistant('a2', 'msg_1', toolUse(ID)));
    t.hold({ text_blocks: [] });
    assert.deepEqual(messageFor(t.input(), NOW), { tool_use_id: ID, text: '', text_blocks: [], source: 'mod', reason: null, mod: false });
    fs.rmSync(t.heldFile());
    assert.equal(messageFor(t.input(), NOW).source, 'transcript');
  });

  it('a held message older than the TTL is ignored and removed; one just younger is taken', function () {
    const t = tempClaude();
    t.hold({ at: NOW - HELD_MESSAGE_TTL_MS + 1000, text_blocks: ['young'] });
    assert.deepEqual(messageFor(t.input(), NOW).text_blocks, ['young']);
    t.hold({ at: NOW - HELD_MESSAGE_TTL_MS - 1, text_blocks: ['stale'] });
    const a = messageFor(t.input(), NOW);
    assert.deepEqual({ text: a.text, source: a.source }, { text: null, source: null });
    assert.match(a.reason!, /^not on disk yet, and the held message is older than its TTL$/);
    assert.ok(!fs.existsSync(t.heldFile()), 'the stale file is removed');
    // A stale one never hides the transcript.
    t.hold({ at: NOW - HELD_MESSAGE_TTL_MS - 1, text_blocks: ['stale'] });
    fs.appendFileSync(t.transcript, assistant('a1', 'msg_1', text('landed')) + assistant('a2', 'msg_1', toolUse(ID)));
    assert.deepEqual(messageFor(t.input(), NOW), { tool_use_id: ID, text: 'landed', text_blocks: ['landed'], source: 'transcript', reason: null, mod: false });
  });

  it('a held message dated more than its TTL ahead is called that (clock skew), not old, and is left alone; one less far ahead is taken', function () {
    const t = tempClaude();
    t.hold({ at: NOW + HELD_MESSAGE_TTL_MS + 1, text_blocks: ['ahead'] });
    const a = messageFor(t.input(), NOW);
    assert.equal(a.text, null);
    assert.equal(a.reason, 'not on disk yet, and the held message is dated more than its TTL in the future (clock skew?)');
    assert.ok(fs.existsSync(t.heldFile()), 'not removed: the mod still owns it');
    t.hold({ at: NOW + HELD_MESSAGE_TTL_MS - 1000, text_blocks: ['ahead'] });
    assert.deepEqual(messageFor(t.input(), NOW).text_blocks, ['ahead']);
  });

  it('a held message removed between the look and the read (its record landed) is called gone; one over 4 MiB is called that', function () {
    const t = tempClaude();
    t.hold({ text_blocks: ['x'] });
    const removedFirst: typeof readBounded = (p, ...rest) => {
      fs.rmSync(p);
      return readBounded(p, ...rest);
    };
    assert.deepEqual(readHeldMessage(t.claudeDir, SESSION, ID, NOW, removedFirst), { ignored: 'the held message was gone before it could be read' });
    t.hold({ text_blocks: ['x'.repeat(HELD_FILE_MAX_BYTES)] });
    assert.equal(messageFor(t.input(), NOW).reason, 'not on disk yet, and the held message is over 4 MiB (the mod writes at most 4 MiB)');
  });

  it('a held message file that is a symlink is not followed, nor removed, nor is what it names', function () {
    if (process.platform === 'win32') this.skip();
    const t = tempClaude();
    const elsewhere = path.join(t.root, 'planted.json');
    fs.writeFileSync(elsewhere, JSON.stringify({ v: 1, tool_use_id: ID, session_id: SESSION, at: NOW - 50, text_blocks: ['planted'], tool_use: { id: ID, name: 'Bash', input: {} } }));
    fs.mkdirSync(t.heldDir, { recursive: true });
    fs.symlinkSync(elsewhere, t.heldFile());
    const a = messageFor(t.input(), NOW);
    assert.equal(a.text, null);
    assert.match(a.reason!, /not a regular file/);
    assert.ok(fs.lstatSync(t.heldFile()).isSymbolicLink());
    assert.ok(fs.existsSync(elsewhere));
  });

  it('a malformed held message (not JSON, half written, empty, another call\'s, another version, no at) is ignored', function () {
    const t = tempClaude();
    fs.mkdirSync(t.heldDir, { recursive: true });
    const good = { v: 1, tool_use_id: ID, session_id: SESSION, at: NOW - 50, text_blocks: ['x'], tool_use: { id: ID, name: 'Bash', input: {} } };
    const bad = [
      'not json',
      JSON.stringify(good).slice(0, 40),
      '',
      JSON.stringify({ ...good, tool_use_id: 'toolu_01Other' }),
      JSON.stringify({ ...good, v: 2 }),
      JSON.stringify({ ...good, at: undefined }),
      JSON.stringify({ ...good, text_blocks: [1] }),
      '{"v":1,"tool_use_id":"toolu_01ReviewMe","at":1e999,"text_blocks":["far future"]}',
    ];
    for (const content of bad) {
      fs.writeFileSync(t.heldFile(), content);
      const a = messageFor(t.input(), NOW);
      assert.equal(a.text, null, content);
      assert.match(a.reason!, /^not on disk yet, and the held message /, content);
    }
    // The same file well formed is taken: the cases above fail for what they break.
    fs.writeFileSync(t.heldFile(), JSON.stringify(good));
    assert.equal(messageFor(t.input(), NOW).text, 'x');
  });
});

describe('message: from the transcript once the record is on disk', function () {
  it('every assistant record of the call\'s message, text blocks in file order, other lines and the next message left out', function () {
    const t = tempClaude();
    fs.appendFileSync(
      t.transcript,
      // An earlier message, and a prompt that quotes the id.
      assistant('p1', 'msg_0', text('earlier turn')) +
        line({ type: 'user', uuid: 'u1', message: { role: 'user', content: `please review ${ID}` } }) +
        assistant('a1', 'msg_1', { type: 'thinking', thinking: 'hmm', signature: 's' }) +
        assistant('a2', 'msg_1', text('First block.')) +
        // An empty text block is left out, as the mod's rows leave it out.
        assistant('a2e', 'msg_1', text('')) +
        line({ type: 'attachment', uuid: 'x1', attachment: { type: 'hook', text: 'msg_1' } }) +
        assistant('a3', 'msg_1', text(MULTIBYTE)) +
        assistant('a4', 'msg_1', toolUse('toolu_01Before')) +
        toolResult('r0', 'toolu_01Before') +
        assistant('a5', 'msg_1', text(WITH_NEWLINES)) +
        assistant('a6', 'msg_1', toolUse(ID)) +
        // The same record written twice (same uuid) counts once; the next message's id starts with this one's.
        assistant('a5', 'msg_1', text(WITH_NEWLINES)) +
        toolResult('r1', ID) +
        assistant('b1', 'msg_10', text('The next message.')) +
        assistant('b2', 'msg_10', toolUse('toolu_01After')),
    );
    const blocks = ['First block.', MULTIBYTE, WITH_NEWLINES];
    assert.deepEqual(messageFor(t.input(), NOW), { tool_use_id: ID, text: blocks.join('\n\n'), text_blocks: blocks, source: 'transcript', reason: null, mod: false });
    // The next message's call gets only its own.
    assert.deepEqual(messageFor(t.input({ tool_use_id: 'toolu_01After' }), NOW).text_blocks, ['The next message.']);
  });

  it('a record only half written (no newline yet) is not on disk', function () {
    const t = tempClaude();
    const record = assistant('a2', 'msg_1', toolUse(ID));
    fs.appendFileSync(t.transcript, assistant('a1', 'msg_1', text('Plan.')) + record.slice(0, -1));
    assert.deepEqual(messageFor(t.input(), NOW), { tool_use_id: ID, text: null, text_blocks: null, source: null, reason: REASON_NOT_YET, mod: false });
    fs.appendFileSync(t.transcript, '\n');
    assert.deepEqual(messageFor(t.input(), NOW).text_blocks, ['Plan.']);
  });

  it('a subagent\'s call is read from the subagent\'s own file', function () {
    const t = tempClaude();
    const subagents = path.join(path.dirname(t.transcript), SESSION, 'subagents');
    fs.mkdirSync(subagents, { recursive: true });
    fs.writeFileSync(path.join(subagents, 'agent-a7.jsonl'), assistant('s1', 'msg_s', text('Subagent plan.')) + assistant('s2', 'msg_s', toolUse(ID)));
    assert.deepEqual(messageFor(t.input({ agent_id: 'a7' }), NOW), { tool_use_id: ID, text: 'Subagent plan.', text_blocks: ['Subagent plan.'], source: 'transcript', reason: null, mod: false });
    assert.equal(messageFor(t.input(), NOW).reason, REASON_NOT_YET, 'the main transcript does not hold it');
    assert.match(messageFor(t.input({ agent_id: '../x' }), NOW).reason!, /agent_id/);
  });

  it('the real transcript of a parallel pair: both calls get the message\'s one text block, not the next message\'s', function () {
    const dir = path.join(fixturesDir, 'real', 'interactive-parallel-2000');
    const transcript = path.join(dir, fs.readdirSync(dir).find((f) => f.endsWith('.jsonl'))!);
    for (const id of ['toolu_field001r', 'toolu_field001b']) {
      const a = messageFor({ session_id: '31fe55b3-cdf5-46f4-87b6-e09ef369569a', transcript_path: transcript, tool_use_id: id }, NOW);
      assert.deepEqual(a, { tool_use_id: id, text: 'Reading and running in parallel.', text_blocks: ['Reading and running in parallel.'], source: 'transcript', reason: null, mod: false });
    }
  });

  it('reads only the window\'s end: a record older than it is not found, and the reason says where it looked', function () {
    const t = tempClaude();
    fs.appendFileSync(t.transcript, assistant('a1', 'msg_1', text('Plan.')) + assistant('a2', 'msg_1', toolUse(ID)) + line({ type: 'system', pad: 'x'.repeat(3 << 20) }));
    assert.deepEqual(messageFor(t.input(), NOW).text_blocks, ['Plan.']);
    const small = messageFor(t.input(), NOW, 2 << 20);
    assert.equal(small.text, null);
    assert.match(small.reason!, /only the transcript's last 2 MiB were searched/);
  });

  it('nothing held and nothing on disk: null, with the reason', function () {
    const t = tempClaude();
    assert.deepEqual(messageFor(t.input(), NOW), { tool_use_id: ID, text: null, text_blocks: null, source: null, reason: REASON_NOT_YET, mod: false });
    assert.deepEqual(messageFor(t.input({ tool_use_id: undefined }), NOW), { tool_use_id: null, text: null, text_blocks: null, source: null, reason: 'no tool_use_id in input', mod: false });
    assert.equal(messageFor(t.input({ transcript_path: undefined }), NOW).reason, 'no transcript_path in input');
    assert.match(messageFor(t.input({ transcript_path: path.join(t.root, 'missing.jsonl') }), NOW).reason!, /transcript cannot be read/);
  });
});

describe('message: is the session\'s mod running (`mod`)', function () {
  const modDir = (t: ReturnType<typeof tempClaude>) => path.join(t.claudeDir, 'transcript-lag', 'mod');
  const live = (t: ReturnType<typeof tempClaude>, fields: Record<string, unknown> | string, session = SESSION) => {
    fs.mkdirSync(modDir(t), { recursive: true });
    const text = typeof fields === 'string' ? fields : JSON.stringify({ v: 1, session_id: session, at: NOW - 2000, every_ms: 5000, keep_held_messages: true, ...fields });
    fs.writeFileSync(path.join(modDir(t), `${session}.live.json`), text);
  };

  it('no liveness file and the call not listed: false, and the reason asks whether the mod is loaded', function () {
    const t = tempClaude();
    assert.deepEqual([messageFor(t.input(), NOW).mod, messageFor(t.input(), NOW).reason], [false, REASON_NOT_YET]);
  });

  it('the call in the mod\'s list (written before the call\'s hooks run): true, whatever the liveness file says', function () {
    const t = tempClaude();
    fs.mkdirSync(modDir(t), { recursive: true });
    fs.writeFileSync(path.join(modDir(t), `${SESSION}.json`), JSON.stringify({ v: 1, calls: ['toolu_01Other', ID] }));
    assert.equal(messageFor(t.input(), NOW).mod, true);
    assert.equal(messageFor(t.input({ tool_use_id: 'toolu_01NotListed' }), NOW).mod, false, 'another call');
    assert.equal(messageFor(t.input(), NOW).reason, 'not on disk yet and no held message (the mod runs, but kept none for this call)');
  });

  it('a fresh liveness file: true; with the message held, from the mod; with held messages off, the reason says so', function () {
    const t = tempClaude();
    live(t, {});
    assert.deepEqual(messageFor(t.input(), NOW), { tool_use_id: ID, text: null, text_blocks: null, source: null, reason: 'not on disk yet and no held message (the mod runs, but kept none for this call)', mod: true });
    t.hold({ text_blocks: ['Plan.'] });
    assert.deepEqual(messageFor(t.input(), NOW), { tool_use_id: ID, text: 'Plan.', text_blocks: ['Plan.'], source: 'mod', reason: null, mod: true });
    fs.rmSync(t.heldFile());
    live(t, { keep_held_messages: false });
    assert.equal(messageFor(t.input(), NOW).reason, 'not on disk yet and no held message (the mod runs, but its option keepHeldMessages is off)');
    // From the transcript, the mod running or not.
    fs.appendFileSync(t.transcript, assistant('a1', 'msg_1', text('landed')) + assistant('a2', 'msg_1', toolUse(ID)));
    assert.deepEqual([messageFor(t.input(), NOW).source, messageFor(t.input(), NOW).mod], ['transcript', true]);
  });

  it('a liveness file that is stale (15 s), far ahead, another session\'s, not the mod\'s, a symlink or too big: false', function () {
    const t = tempClaude();
    const cases: Array<[string, Record<string, unknown> | string]> = [
      ['stale', { at: NOW - 15_000 }],
      ['ahead', { at: NOW + 15_000 }],
      ['another session', { session_id: 'another-session' }],
      ['another version', { v: 2 }],
      ['no at', { at: 'now' }],
      ['not JSON', 'alive'],
      ['half written', JSON.stringify({ v: 1, session_id: SESSION, at: NOW }).slice(0, 20)],
      ['empty (emptied at session end)', ''],
      ['too big', JSON.stringify({ v: 1, session_id: SESSION, at: NOW, pad: 'x'.repeat(5000) })],
    ];
    for (const [name, fields] of cases) {
      live(t, fields);
      assert.equal(messageFor(t.input(), NOW).mod, false, name);
    }
    live(t, { at: NOW - 14_999 });
    assert.equal(messageFor(t.input(), NOW).mod, true, 'just fresh: the cases above fail for what they break');
    if (process.platform !== 'win32') {
      const elsewhere = path.join(t.root, 'planted.json');
      fs.writeFileSync(elsewhere, JSON.stringify({ v: 1, session_id: SESSION, at: NOW }));
      fs.rmSync(path.join(modDir(t), `${SESSION}.live.json`));
      fs.symlinkSync(elsewhere, path.join(modDir(t), `${SESSION}.live.json`));
      assert.equal(messageFor(t.input(), NOW).mod, false, 'a symlink is not followed');
    }
  });

  it('no session to ask about (no transcript_path, bad stdin): false', function () {
    const t = tempClaude();
    live(t, {});
    assert.equal(messageFor(t.input({ transcript_path: undefined }), NOW).mod, false);
    assert.equal(messageForStdin({ whole: Buffer.from('not json') }, NOW).mod, false);
  });
});

describe('message: stdin and what is printed', function () {
  it('empty, not JSON, not an object: null with a reason', function () {
    assert.equal(messageForStdin({ whole: Buffer.alloc(0) }, NOW).reason, 'no hook input on stdin');
    for (const bad of ['not json', '[1,2]', '"x"', '{"tool_use_id":']) {
      const a = messageForStdin({ whole: Buffer.from(bad) }, NOW);
      assert.deepEqual({ text: a.text, source: a.source, reason: a.reason }, { text: null, source: null, reason: "stdin is not a hook's JSON object" }, bad);
    }
  });

  it('--json is exactly one line of the six keys, in order; plain is the text and a newline, nothing when unknown', function () {
    const found: MessageAnswer = { tool_use_id: ID, text: 'a\n\nb', text_blocks: ['a', 'b'], source: 'mod', reason: null, mod: false };
    assert.equal(renderAnswer(found, true, false), '{"tool_use_id":"toolu_01ReviewMe","text":"a\\n\\nb","text_blocks":["a","b"],"source":"mod","reason":null,"mod":false}\n');
    assert.equal(renderAnswer(found, false, false), 'a\n\nb\n');
    const none: MessageAnswer = { tool_use_id: null, text: null, text_blocks: null, source: null, reason: 'why', mod: false };
    assert.equal(renderAnswer(none, true, false), '{"tool_use_id":null,"text":null,"text_blocks":null,"source":null,"reason":"why","mod":false}\n');
    assert.equal(renderAnswer(none, false, false), '');
    assert.equal(renderAnswer({ ...found, text: '', text_blocks: [] }, false, false), '\n');
  });

  it('control characters: kept for a hook, stripped on a terminal (tab and newline stay); JSON escapes C1 and line separators', function () {
    const raw = 'red \u001b[31mX\u001b[0m\ttab\nbell\u0007 csi\u009b2J del\u007f ls\u2028.';
    const a: MessageAnswer = { tool_use_id: ID, text: raw, text_blocks: [raw], source: 'mod', reason: null, mod: false };
    assert.equal(renderAnswer(a, false, false), `${raw}\n`);
    assert.equal(renderAnswer(a, false, true), 'red [31mX[0m\ttab\nbell csi2J del ls\u2028.\n');
    const json = renderAnswer(a, true, true);
    assert.doesNotMatch(json.slice(0, -1), /[\u0000-\u001f\u007f-\u009f\u2028]/);
    assert.equal(json.split('\n').length, 2);
    assert.equal((JSON.parse(json) as MessageAnswer).text, raw);
  });

  it('is a command of the CLI: `message --help` prints its usage; main lists it', async function () {
    const c = capturingIo(os.tmpdir());
    assert.equal(await main(['message', '--help'], c.io), 0);
    assert.match(c.out(), /^Usage: transcript-lag message \[--json\]/);
    const h = capturingIo(os.tmpdir());
    await main(['--help'], h.io);
    assert.match(h.out(), /\n {2}message \[--json\] +for a reviewing hook/);
  });
});

describe('message: the process a reviewing hook runs', function () {
  this.timeout(60_000);
  let bundle: string;
  let inputs: string[];
  before(async function () {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-message-build-'));
    bundle = path.join(out, 'message.js');
    const r = await esbuild.build({ entryPoints: [path.join(repoRoot, 'src/cli/message.ts')], outfile: bundle, bundle: true, platform: 'node', format: 'cjs', target: 'node18', metafile: true, logLevel: 'silent' });
    inputs = Object.keys(r.metafile.inputs);
  });

  function runMessage(args: string[], stdin: string | Buffer | undefined): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
    const started = Date.now();
    const child = spawn(process.execPath, [bundle, ...args], { env: { PATH: process.env.PATH }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdin.on('error', () => undefined);
    if (stdin !== undefined) child.stdin.end(stdin);
    return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - started })));
  }

  it('bundles only our own sources and node: modules (it starts on every reviewed call)', function () {
    assert.deepEqual(inputs.filter((f) => f.includes('node_modules')), []);
    assert.ok(!inputs.some((f) => /src\/(core\/engine|core\/correlator|platform)/.test(f)), inputs.join('\n'));
    const requires = [...fs.readFileSync(bundle, 'utf8').matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]);
    assert.deepEqual([...new Set(requires)].filter((r) => !r.startsWith('node:')), []);
  });

  it('answers a PreToolUse payload on stdin (the held message, plain and --json), exit 0, nothing on stderr', async function () {
    const t = tempClaude();
    t.hold({ at: Date.now(), text_blocks: ['Plan.', MULTIBYTE] });
    const payload = JSON.stringify({ ...t.input(), tool_name: 'Bash', tool_input: { command: 'ls' } });
    const plain = await runMessage([], payload);
    assert.deepEqual({ code: plain.code, stdout: plain.stdout, stderr: plain.stderr }, { code: 0, stdout: `Plan.\n\n${MULTIBYTE}\n`, stderr: '' });
    const json = await runMessage(['--json'], payload);
    assert.equal(json.code, 0);
    assert.deepEqual(JSON.parse(json.stdout), { tool_use_id: ID, text: `Plan.\n\n${MULTIBYTE}`, text_blocks: ['Plan.', MULTIBYTE], source: 'mod', reason: null, mod: false });
    assert.equal(json.stdout.split('\n').length, 2);
  });

  it('a payload of many MB (tool_input before tool_use_id) is still read', async function () {
    const t = tempClaude();
    t.hold({ at: Date.now(), text_blocks: ['Writing a big file.'] });
    const payload = JSON.stringify({ session_id: SESSION, transcript_path: t.transcript, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { content: 'y'.repeat(6 << 20) }, tool_use_id: ID });
    const r = await runMessage(['--json'], payload);
    assert.equal(r.code, 0);
    assert.equal((JSON.parse(r.stdout) as MessageAnswer).text, 'Writing a big file.');
  });

  it('bad stdin (not JSON, many MB of garbage, nothing, left open) gives null and exit 0; --verbose says why on stderr only', async function () {
    for (const bad of ['not json', Buffer.alloc(6 << 20, 0x7b), '']) {
      const r = await runMessage(['--json'], bad);
      assert.equal(r.code, 0);
      const a = JSON.parse(r.stdout) as MessageAnswer;
      assert.deepEqual({ text: a.text, source: a.source, lines: r.stdout.split('\n').length, stderr: r.stderr }, { text: null, source: null, lines: 2, stderr: '' });
      const plain = await runMessage([], bad);
      assert.deepEqual({ code: plain.code, stdout: plain.stdout, stderr: plain.stderr }, { code: 0, stdout: '', stderr: '' });
    }
    const verbose = await runMessage(['--verbose'], 'not json');
    assert.deepEqual({ stdout: verbose.stdout, stderr: verbose.stderr }, { stdout: '', stderr: "transcript-lag message: stdin is not a hook's JSON object\n" });
    const open = await runMessage(['--json'], undefined);
    assert.equal(open.code, 0);
    assert.equal((JSON.parse(open.stdout) as MessageAnswer).text, null);
    assert.ok(open.ms < 10_000, `gave up on the open stdin after ${open.ms} ms`);
    // stdin closed, or not a pipe at all (a device): answered at once.
    for (const redirect of ['<&-', '</dev/null']) {
      const r = spawnSync('sh', ['-c', `"$0" "$1" --json ${redirect}`, process.execPath, bundle], { encoding: 'utf8', timeout: 10_000 });
      assert.equal(r.status, 0, redirect);
      const a = JSON.parse(r.stdout) as MessageAnswer;
      assert.deepEqual({ text: a.text, source: a.source }, { text: null, source: null }, redirect);
      assert.equal(a.reason, 'stdin is not a pipe or a file (a terminal, /dev/null, or closed)', redirect);
    }
    const typo = await runMessage(['--jsn'], '{}');
    assert.deepEqual({ code: typo.code, stdout: typo.stdout }, { code: 0, stdout: '' });
  });
  describe('stdout a non-blocking pipe it shares with a Node hook (O_NONBLOCK is the pipe\'s, not the process\'s)', function () {
    // POSIX pipes; Windows has no O_NONBLOCK on a pipe for a parent to share.
    before(function () {
      if (process.platform === 'win32') this.skip();
    });

    function bigHeld() {
      const t = tempClaude();
      const big = 'Plan. '.repeat(180_000); // ~1 MiB, twice in the answer (text and text_blocks)
      t.hold({ at: Date.now(), text_blocks: [big] });
      return { t, big, payload: JSON.stringify({ ...t.input(), tool_name: 'Bash', tool_input: { command: 'ls' } }) };
    }

    it('a reader that reads only after 200 ms gets the whole answer, exit 0', async function () {
      const { big, payload } = bigHeld();
      const r = await runWithSharedNonBlockingStdout([bundle, '--json'], payload, { PATH: process.env.PATH }, 200);
      assert.ok(r.ready, `the pipe was non-blocking and full before message wrote: ${r.stderr}`);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(r.stdout.endsWith('}\n'), `the answer ends its line (${r.stdout.length} bytes arrived)`);
      assert.deepEqual(JSON.parse(r.stdout), { tool_use_id: ID, text: big, text_blocks: [big], source: 'mod', reason: null, mod: false });
      assert.equal(r.stderr, '');
    });

    it('a reader that never reads: past the bound, exit 1 and no whole line on stdout', async function () {
      const { payload } = bigHeld();
      const r = await runWithSharedNonBlockingStdout([bundle, '--json'], payload, { PATH: process.env.PATH, TRANSCRIPT_LAG_WRITE_WAIT_MS: '100' });
      assert.ok(r.ready, r.stderr);
      assert.equal(r.code, 1);
      assert.ok(!r.stdout.endsWith('\n'), 'a reader sees a line with no newline: incomplete');
      assert.equal(r.stderr, 'transcript-lag message: the answer could not be written whole to stdout (not read in time, or the write failed)\n');
    });
  });
});
