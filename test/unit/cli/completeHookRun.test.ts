import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { parseChannelLine } from '../../../src/core/channel/reader';
import { until } from '../helpers/until';

// Each wrapped hook's own time (issue 39 §4): `transcript-lag complete` appends a `hook_run` event to
// the session's channel file once CMD has exited, with a label of the command, its time, decision and
// exit code, while CMD's stdout, stderr and exit reach the caller unchanged. The bundle runs as a hook
// command runs it, on a temp Claude dir with a real transcript, in front of real hook scripts.
const repoRoot = path.resolve(__dirname, '../../..');
const SESSION = '3e55a9e0-1111-4222-8333-0123456789ab';
const ID = 'toolu_01HookRunMe';
const node = process.execPath;

let bundle: string;
let scripts: string;

function tempRoot(prefix: string): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

function tempClaude() {
  const root = tempRoot('tl-hookrun-');
  const claudeDir = path.join(root, '.claude');
  const projectDir = path.join(claudeDir, 'projects', '-work-app');
  fs.mkdirSync(projectDir, { recursive: true });
  const transcript = path.join(projectDir, `${SESSION}.jsonl`);
  fs.writeFileSync(transcript, `${JSON.stringify({ type: 'user', uuid: 'u0', sessionId: SESSION, message: { role: 'user', content: 'go' } })}\n`);
  const input = JSON.stringify({ session_id: SESSION, transcript_path: transcript, cwd: '/work/app', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'rm -rf build' }, tool_use_id: ID });
  const channelFile = path.join(claudeDir, 'transcript-lag', `${SESSION}.jsonl`);
  const events = (): Array<Record<string, unknown>> =>
    fs.existsSync(channelFile)
      ? fs
          .readFileSync(channelFile, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>)
      : [];
  return { root, claudeDir, transcript, input, channelFile, events };
}

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: Buffer;
  startedAt: number;
  endedAt: number;
}

/** `node transcript-lag-complete.js -- CMD ARGS`, the input on stdin, as Claude Code runs a hook's command. */
function runWrapped(input: string, cmd: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const startedAt = Date.now();
    const child = spawn(node, [bundle, '--', ...cmd], { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout: Buffer.concat(out), stderr: Buffer.concat(err), startedAt, endedAt: Date.now() }));
    child.stdin.end(input);
  });
}

/** A hook script, executable, in the scripts folder. */
function script(name: string, text: string): string {
  const p = path.join(scripts, name);
  fs.writeFileSync(p, text, { mode: 0o755 });
  return p;
}

before(async function () {
  this.timeout(60_000);
  const dir = tempRoot('tl-hookrun-bundle-');
  bundle = path.join(dir, 'transcript-lag-complete.js');
  // As scripts/lib/completeBuild.mjs builds it (plugin/bin/transcript-lag-complete.js).
  await esbuild.build({ entryPoints: [path.join(repoRoot, 'src/cli/complete.ts')], outfile: bundle, bundle: true, platform: 'node', format: 'cjs', target: 'node18', logLevel: 'silent' });
  scripts = path.join(dir, 'hooks');
  fs.mkdirSync(scripts);
});

describe('transcript-lag complete: each wrapped hook reports its own run (hook_run)', function () {
  this.timeout(30_000);

  it('exit 2: block, stderr and the exit code passed on, its time from spawn to exit', async () => {
    const t = tempClaude();
    const hook = script('block.sh', '#!/bin/sh\ncat >/dev/null\nsleep 0.3\nprintf "rm is not allowed" >&2\nexit 2\n');
    const r = await runWrapped(t.input, [hook]);
    assert.equal(r.code, 2);
    assert.equal(r.stderr.toString(), 'rm is not allowed');
    assert.equal(r.stdout.length, 0);
    const [e, ...more] = t.events();
    assert.deepEqual(more, []);
    assert.deepEqual(
      { ...e, at: typeof e.at, ms: typeof e.ms },
      { v: 1, event: 'hook_run', at: 'number', session_id: SESSION, transcript_path: t.transcript, source: 'transcript-lag-complete', tool_use_id: ID, tool_name: 'Bash', hook: 'block.sh', ms: 'number', decision: 'block', exit_code: 2, completed: false },
    );
    // Its run: at least the hook's own sleep, within the wrapper's run, ending when it exited.
    assert.ok((e.ms as number) >= 300, `ms ${String(e.ms)}`);
    assert.ok((e.at as number) - (e.ms as number) >= r.startedAt && (e.at as number) <= r.endedAt);
    // A line every reader takes: the schema's.
    assert.equal(parseChannelLine(fs.readFileSync(t.channelFile, 'utf8').trim()).kind, 'event');
    assert.equal(fs.statSync(t.channelFile).mode & 0o777, 0o600);
  });

  it("exit 0 with a JSON deny: stdout passed on byte for byte, the decision read from it", async () => {
    const t = tempClaude();
    const answer = '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}\n';
    const hook = script('deny.js', `process.stdin.resume(); process.stdin.on('end', () => process.stdout.write(${JSON.stringify(answer)}));\n`);
    const r = await runWrapped(t.input, [node, hook, '--token', 'sk-secret']);
    assert.equal(r.code, 0);
    assert.equal(r.stdout.toString(), answer);
    const [e] = t.events();
    assert.equal(e.hook, 'deny.js');
    assert.equal(e.decision, 'deny');
    assert.equal(e.exit_code, 0);
    assert.doesNotMatch(fs.readFileSync(t.channelFile, 'utf8'), /sk-secret/);
  });

  it('exit 0 with nothing to say: allow; exit 1: error', async () => {
    const t = tempClaude();
    await runWrapped(t.input, [script('ok.sh', '#!/bin/sh\ncat >/dev/null\nprintf ok\n')]);
    const r = await runWrapped(t.input, [script('broken.sh', '#!/bin/sh\ncat >/dev/null\necho oops >&2\nexit 1\n')]);
    assert.equal(r.code, 1);
    assert.equal(r.stderr.toString(), 'oops\n');
    assert.deepEqual(t.events().map((e) => [e.hook, e.decision, e.exit_code]), [['ok.sh', 'allow', 0], ['broken.sh', 'error', 1]]);
  });

  it('stdout larger than the head kept, binary: passed on whole and unchanged; exit 0 then has no decision read', async () => {
    const t = tempClaude();
    const bytes = randomBytes(300 * 1024);
    const data = path.join(scripts, 'blob.bin');
    fs.writeFileSync(data, bytes);
    const r = await runWrapped(t.input, [script('blob.sh', `#!/bin/sh\ncat >/dev/null\ncat '${data}'\n`)]);
    assert.equal(r.code, 0);
    assert.ok(r.stdout.equals(bytes), `stdout ${r.stdout.length} bytes, wanted ${bytes.length}`);
    const [e] = t.events();
    assert.equal('decision' in e, false);
    assert.equal(e.exit_code, 0);
  });

  it("a reader that starts reading late still gets all of the hook's stdout, byte for byte", async () => {
    const t = tempClaude();
    // What the pipes hold between the hook and the reader (64 KiB each, and a chunk in the wrapper): the hook exits at once.
    const bytes = randomBytes(150 * 1024);
    const data = path.join(scripts, 'mb.bin');
    fs.writeFileSync(data, bytes);
    const hook = script('mb.sh', `#!/bin/sh\ncat >/dev/null\ncat '${data}'\n`);
    // The reader: a shell pipeline's `cat` that starts 2.5 s late, longer than the wrapper's 1 s after the
    // hook's exit; a kernel pipe between them, so nothing reads ahead for it.
    const r = await new Promise<{ code: number | null; stdout: Buffer }>((resolve, reject) => {
      const child = spawn('sh', ['-c', `'${node}' '${bundle}' -- '${hook}' | (sleep 2.5; cat)`], { stdio: ['pipe', 'pipe', 'inherit'] });
      const out: Buffer[] = [];
      child.stdout.on('data', (c: Buffer) => out.push(c));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out) }));
      child.stdin.end(t.input);
    });
    assert.equal(r.code, 0);
    assert.ok(r.stdout.equals(bytes), `stdout ${r.stdout.length} bytes, wanted ${bytes.length}`);
    assert.deepEqual(t.events().map((e) => [e.hook, 'decision' in e]), [['mb.sh', false]]);
  });

  it("a reader that never reads: a signal after the hook's exit ends the wait to pass its stdout on, the run reported first", async function () {
    this.timeout(30_000);
    const t = tempClaude();
    const data = path.join(scripts, 'stuck.bin');
    // As much as the pipes between hold (the wrapper's own 64 KiB, a chunk in the wrapper, the hook's), so the hook exits.
    fs.writeFileSync(data, randomBytes(150 * 1024));
    const hook = script('stuck.sh', `#!/bin/sh\ncat >/dev/null\ncat '${data}'\nprintf done > '${data}.exited'\n`);
    // The wrapper's stdout a kernel pipe (a FIFO) whose reader never reads: past its 64 KiB the write waits for good.
    const fifo = path.join(scripts, 'never-read');
    await new Promise<void>((resolve, reject) => spawn('mkfifo', [fifo]).on('exit', (c) => (c === 0 ? resolve() : reject(new Error('mkfifo')))));
    const reader = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    const out = fs.openSync(fifo, 'w');
    const child = spawn(node, [bundle, '--', hook], { stdio: ['pipe', out, 'ignore'] });
    fs.closeSync(out);
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
    child.stdin!.end(t.input);
    await until(() => fs.existsSync(`${data}.exited`) || undefined);
    // The hook has exited; the wrapper waits to pass the rest on (past its 1 s for a reader that reads).
    await new Promise((r) => setTimeout(r, 1500));
    child.kill('SIGTERM');
    const r = await exited;
    fs.closeSync(reader);
    // It dies of it (an exit would wait for the stuck write), having reported the hook's run first.
    assert.equal(r.signal, 'SIGTERM');
    assert.deepEqual(t.events().map((e) => e.hook), ['stuck.sh']);
  });

  it("wrap-hooks' form, sh -c '<command>': labelled by the user's command; what its words carry never written", async () => {
    const t = tempClaude();
    script('guard.sh', '#!/bin/sh\ncat >/dev/null\nexit 0\n');
    const r = await runWrapped(t.input, ['sh', '-c', `API_KEY=sk-live-9 "${scripts}"/guard.sh --password hunter2`]);
    assert.equal(r.code, 0);
    const [e] = t.events();
    assert.equal(e.hook, 'guard.sh');
    const text = fs.readFileSync(t.channelFile, 'utf8');
    assert.doesNotMatch(text, /sk-live-9|hunter2|API_KEY/);
  });

  it("a child of the hook's holding its stdout open: passed on for a moment after the hook's exit, not waited for", async () => {
    const t = tempClaude();
    // The bound is the wrapper's (1 s after the exit); the child outlives it by far, so a wait for it would show.
    // Its stderr is elsewhere: stderr is inherited, and this test's own wait for the pipes would wait for it.
    const r = await runWrapped(t.input, [script('bg.sh', '#!/bin/sh\ncat >/dev/null\nprintf before\n(sleep 8; printf never) 2>/dev/null &\nexit 0\n')]);
    assert.equal(r.code, 0);
    assert.equal(r.stdout.toString(), 'before');
    assert.ok(r.endedAt - r.startedAt < 8000, `the wrapper took ${r.endedAt - r.startedAt} ms`);
    assert.deepEqual(t.events().map((e) => [e.hook, e.decision]), [['bg.sh', 'allow']]);
  });

  it('a held call given its completed transcript says so (completed: true)', async () => {
    const t = tempClaude();
    const heldDir = path.join(t.claudeDir, 'transcript-lag', 'held', SESSION);
    fs.mkdirSync(heldDir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(heldDir, `${ID}.json`), JSON.stringify({ v: 1, tool_use_id: ID, session_id: SESSION, at: Date.now(), text_blocks: ['Removing build.'], tool_use: { id: ID, name: 'Bash', input: { command: 'rm -rf build' } } }), { mode: 0o600 });
    const r = await runWrapped(t.input, [script('env.sh', '#!/bin/sh\ncat >/dev/null\nprintf "$TRANSCRIPT_LAG_COMPLETE"\n')]);
    assert.equal(r.stdout.toString(), '1');
    assert.equal(t.events()[0].completed, true);
  });

  it('a hook killed by a signal: the wrapper dies of it too; the event says the signal, no exit code', async () => {
    const t = tempClaude();
    const r = await runWrapped(t.input, [script('killed.sh', '#!/bin/sh\ncat >/dev/null\nkill -TERM $$\nsleep 5\n')]);
    assert.equal(r.signal, 'SIGTERM');
    const [e] = t.events();
    assert.deepEqual([e.exit_code, e.signal, e.decision], [null, 'SIGTERM', 'error']);
  });

  it('a channel file that is not ours (a planted symlink): nothing written through it, the hook\'s answer unchanged', async () => {
    const t = tempClaude();
    fs.mkdirSync(path.dirname(t.channelFile), { recursive: true, mode: 0o700 });
    const elsewhere = path.join(t.root, 'elsewhere.txt');
    fs.writeFileSync(elsewhere, '');
    fs.symlinkSync(elsewhere, t.channelFile);
    const r = await runWrapped(t.input, [script('block2.sh', '#!/bin/sh\ncat >/dev/null\nprintf "{}"\nexit 2\n')]);
    assert.equal(r.code, 2);
    assert.equal(r.stdout.toString(), '{}');
    assert.equal(fs.readFileSync(elsewhere, 'utf8'), '');
  });

  it('input naming no Claude dir we may write under: no event, no folder made', async () => {
    const t = tempClaude();
    const stray = path.join(t.root, 'nowhere', 'projects', '-x', `${SESSION}.jsonl`);
    const r = await runWrapped(t.input.replace(JSON.stringify(t.transcript), JSON.stringify(stray)), [script('ok2.sh', '#!/bin/sh\ncat >/dev/null\n')]);
    assert.equal(r.code, 0);
    assert.equal(fs.existsSync(path.join(t.root, 'nowhere')), false);
    const junk = await runWrapped('not json', [script('ok3.sh', '#!/bin/sh\ncat >/dev/null\n')]);
    assert.equal(junk.code, 0);
    assert.deepEqual(t.events(), []);
  });
});
