import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { completeInput, COMPLETE_DIR_NAME, parseCompleteArgs } from '../../../src/cli/complete';
import type { HeldMessage } from '../../../src/rules/modContract';
import { lineKindOf } from '../../../src/rules/recordLine';
import { until } from '../helpers/until';

const repoRoot = path.resolve(__dirname, '../../..');
const SESSION = '3e55a9e0-1111-4222-8333-0123456789ab';
const ID = 'toolu_01ReviewMe';
const node = process.execPath;

let bundle: string;
let hook: string;

function tempRoot(prefix: string): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

const line = (v: unknown) => `${JSON.stringify(v)}\n`;

function tempClaude() {
  const root = tempRoot('tl-complete-');
  const claudeDir = path.join(root, '.claude');
  const projectDir = path.join(claudeDir, 'projects', '-work-app');
  fs.mkdirSync(projectDir, { recursive: true });
  const transcript = path.join(projectDir, `${SESSION}.jsonl`);
  fs.writeFileSync(transcript, line({ type: 'user', uuid: 'u0', sessionId: SESSION, message: { role: 'user', content: 'go' } }));
  const heldDir = path.join(claudeDir, 'transcript-lag', 'held', SESSION);
  const hold = (m: Partial<HeldMessage> = {}) => {
    fs.mkdirSync(heldDir, { recursive: true, mode: 0o700 });
    const full: HeldMessage = {
      v: 1,
      tool_use_id: ID,
      session_id: SESSION,
      at: Date.now(),
      text_blocks: ['I will list the files.'],
      tool_use: { id: ID, name: 'Bash', input: { command: 'rm -rf build' } },
      ...m,
    };
    fs.writeFileSync(path.join(heldDir, `${ID}.json`), JSON.stringify(full), { mode: 0o600 });
  };
  // The input as Claude Code writes it, with a key after tool_input and odd spacing: every other byte must reach CMD.
  const inputText = (transcriptPath = transcript) =>
    `{"session_id":"${SESSION}", "transcript_path":${JSON.stringify(transcriptPath)},"cwd":"/work/app","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf build","transcript_path":"not this one"},"tool_use_id":"${ID}"}`;
  return { root, claudeDir, projectDir, transcript, heldDir, hold, inputText, completeDir: path.join(claudeDir, 'transcript-lag', COMPLETE_DIR_NAME) };
}

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: Buffer;
}

/** The bundle as a hook command runs it: `node transcript-lag-complete.js -- CMD ARGS`, the input on stdin. */
function runWrapped(input: string, cmd: string[], onStart?: (pid: number) => void): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, [bundle, '--', ...cmd], { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout: Buffer.concat(out), stderr: Buffer.concat(err) }));
    child.stdin.end(input);
    onStart?.(child.pid!);
  });
}

/** What the reviewing hook saw (it prints it as JSON): its input, its transcript's lines, its environment. */
interface Seen {
  input: string;
  transcript_path: string;
  lines: Array<Record<string, any>>;
  raw: string;
  complete: string | undefined;
  mode: number;
}

const seen = (r: Run): Seen => JSON.parse(r.stdout.toString('utf8')) as Seen;

before(async function () {
  this.timeout(60_000);
  const dir = tempRoot('tl-complete-bundle-');
  bundle = path.join(dir, 'transcript-lag-complete.js');
  // As scripts/lib/completeBuild.mjs builds it (plugin/bin/transcript-lag-complete.js).
  await esbuild.build({ entryPoints: [path.join(repoRoot, 'src/cli/complete.ts')], outfile: bundle, bundle: true, platform: 'node', format: 'cjs', target: 'node18', logLevel: 'silent' });
  // A reviewing hook that reads the transcript it is given, as one written for a complete transcript does.
  hook = path.join(dir, 'review.js');
  fs.writeFileSync(
    hook,
    `const fs = require('fs');
const input = fs.readFileSync(0, 'utf8');
const p = JSON.parse(input).transcript_path;
let raw = '';
try { if (fs.statSync(p).isFile()) raw = fs.readFileSync(p, 'utf8'); } catch {}
let mode = 0;
try { mode = fs.statSync(require('path').dirname(p)).mode & 0o777; } catch {}
process.stdout.write(JSON.stringify({ input, transcript_path: p, raw, lines: raw.split('\\n').filter(Boolean).map((l) => JSON.parse(l)), complete: process.env.TRANSCRIPT_LAG_COMPLETE, mode }));
`,
  );
});

describe('transcript-lag complete: a PreToolUse hook sees its held call in the transcript', function () {
  this.timeout(30_000);

  it('gives CMD a private copy shaped as the path, ending with the held message\'s records, and removes it after', async () => {
    const t = tempClaude();
    t.hold({
      blocks: [
        { type: 'text', text: 'I will list the files.', uuid: 'r1' },
        { type: 'tool_use', id: 'toolu_01Earlier', name: 'Read', input: { file_path: '/x' }, uuid: 'r2', parent_uuid: 'r1' },
        { type: 'tool_use', id: ID, name: 'Bash', input: { command: 'rm -rf build' }, uuid: 'r3', parent_uuid: 'r2' },
      ],
    });
    const before = fs.readFileSync(t.transcript, 'utf8');
    const r = await runWrapped(t.inputText(), [node, hook]);
    assert.equal(r.code, 0, r.stderr.toString());
    const s = seen(r);
    assert.equal(s.complete, '1');
    // The path's shape: <private dir>/projects/<slug>/<session_id>.jsonl, in a folder only we may read.
    const rel = path.relative(t.completeDir, s.transcript_path).split(path.sep);
    assert.equal(rel.length, 4, s.transcript_path);
    assert.match(rel[0], /^\d+-/);
    assert.deepEqual(rel.slice(1), ['projects', '-work-app', `${SESSION}.jsonl`]);
    assert.equal(s.mode, 0o700);
    // Every byte of the input but the path's value.
    assert.equal(s.input, t.inputText(s.transcript_path));
    // The transcript as it was, then one record per block, as a reviewing hook parses them.
    assert.ok(s.raw.startsWith(before));
    const held = s.lines.slice(1);
    assert.deepEqual(
      held.map((rec) => [rec.type, rec.message.role, rec.message.content.length, rec.uuid, rec.parentUuid, rec.sessionId, rec.cwd, rec.transcriptLag]),
      [
        ['assistant', 'assistant', 1, 'r1', undefined, SESSION, '/work/app', 'held'],
        ['assistant', 'assistant', 1, 'r2', 'r1', SESSION, '/work/app', 'held'],
        ['assistant', 'assistant', 1, 'r3', 'r2', SESSION, '/work/app', 'held'],
      ],
    );
    assert.deepEqual(held.map((rec) => rec.message.content[0]), [
      { type: 'text', text: 'I will list the files.' },
      { type: 'tool_use', id: 'toolu_01Earlier', name: 'Read', input: { file_path: '/x' } },
      { type: 'tool_use', id: ID, name: 'Bash', input: { command: 'rm -rf build' } },
    ]);
    // What the mod cannot know is left out, not made up.
    for (const rec of held) for (const k of ['timestamp', 'version', 'requestId']) assert.equal(rec[k], undefined, k);
    for (const rec of held) for (const k of ['id', 'model']) assert.equal(rec.message[k], undefined, k);
    // The rules layer's reader takes the last one for the call's record.
    assert.equal(lineKindOf(Buffer.from(JSON.stringify(held[2])), ID), 'record');
    // The transcript itself untouched; the copy gone.
    assert.equal(fs.readFileSync(t.transcript, 'utf8'), before);
    assert.deepEqual(fs.readdirSync(t.completeDir), []);
  });

  it('a held file from an older mod (no blocks): its text blocks, then the call', () => {
    const t = tempClaude();
    t.hold({ text_blocks: ['One.', 'Two.'] });
    const c = completeInput(Buffer.from(t.inputText()), Date.now());
    try {
      assert.equal(c.complete, true, c.reason);
      const copy = JSON.parse(c.input.toString()).transcript_path as string;
      const recs = fs.readFileSync(copy, 'utf8').split('\n').filter(Boolean).slice(1).map((l) => JSON.parse(l));
      assert.deepEqual(recs.map((x) => x.message.content[0].type), ['text', 'text', 'tool_use']);
      assert.ok(recs.every((x) => x.uuid === undefined && x.parentUuid === undefined));
    } finally {
      fs.rmSync(c.dir!, { recursive: true, force: true });
    }
  });

  it("the build's version on each record where the held message carries it (the mod asked $.session.version())", () => {
    const t = tempClaude();
    t.hold({ version: '2.1.332' });
    const c = completeInput(Buffer.from(t.inputText()), Date.now());
    try {
      assert.equal(c.complete, true, c.reason);
      const copy = JSON.parse(c.input.toString()).transcript_path as string;
      const recs = fs.readFileSync(copy, 'utf8').split('\n').filter(Boolean).slice(1).map((l) => JSON.parse(l));
      assert.deepEqual(recs.map((x) => x.version), ['2.1.332', '2.1.332']);
    } finally {
      fs.rmSync(c.dir!, { recursive: true, force: true });
    }
  });

  it('a partial last line (Claude Code mid-write) is cut from the copy, so the records start a line', () => {
    const t = tempClaude();
    t.hold();
    fs.appendFileSync(t.transcript, '{"type":"progress","half');
    const c = completeInput(Buffer.from(t.inputText()), Date.now());
    try {
      const raw = fs.readFileSync(JSON.parse(c.input.toString()).transcript_path, 'utf8');
      assert.ok(!raw.includes('"half'));
      for (const l of raw.split('\n').filter(Boolean)) JSON.parse(l);
    } finally {
      fs.rmSync(c.dir!, { recursive: true, force: true });
    }
  });

  for (const code of [0, 2, 7]) {
    it(`CMD's exit ${code}, stdout and stderr pass through byte for byte`, async () => {
      const t = tempClaude();
      t.hold();
      const script = `process.stdout.write(Buffer.from([0x7b, 0x00, 0xff, 0x0a, 0x41])); process.stderr.write('denied: \\u00e9\\r'); process.exit(${code});`;
      const r = await runWrapped(t.inputText(), [node, '-e', script]);
      assert.equal(r.code, code);
      assert.deepEqual(r.stdout, Buffer.from([0x7b, 0x00, 0xff, 0x0a, 0x41]));
      assert.equal(r.stderr.toString('utf8'), 'denied: é\r');
    });
  }

  it('a SIGTERM to the wrapper (a timeout) reaches CMD\'s whole group, and the copy is removed', async () => {
    const t = tempClaude();
    t.hold();
    const pids = path.join(t.root, 'pids');
    // CMD starts a child of its own, says both pids and where its transcript is, then waits.
    const script = `const c = require('child_process').spawn('sleep', ['60'], { stdio: 'ignore' });
const p = JSON.parse(require('fs').readFileSync(0, 'utf8')).transcript_path;
require('fs').writeFileSync(${JSON.stringify(pids)} + '.tmp', JSON.stringify({ cmd: process.pid, child: c.pid, p }));
require('fs').renameSync(${JSON.stringify(pids)} + '.tmp', ${JSON.stringify(pids)});
setInterval(() => {}, 1000);`;
    let wrapper = 0;
    const running = runWrapped(t.inputText(), [node, '-e', script], (pid) => (wrapper = pid));
    const started = await until(() => (fs.existsSync(pids) ? (JSON.parse(fs.readFileSync(pids, 'utf8')) as { cmd: number; child: number; p: string }) : undefined));
    assert.ok(fs.existsSync(started.p), 'the copy is there while CMD runs');
    process.kill(wrapper, 'SIGTERM');
    const r = await running;
    // It dies of the signal CMD died of, as CMD alone would have.
    assert.equal(r.signal, 'SIGTERM');
    await until(() => gone(started.cmd) && gone(started.child));
    assert.equal(fs.existsSync(started.p), false);
    assert.deepEqual(fs.readdirSync(t.completeDir), []);
  });

  describe('never worse than without it: the input unchanged and TRANSCRIPT_LAG_COMPLETE=0', () => {
    async function unchangedRun(t: ReturnType<typeof tempClaude>, input = t.inputText()) {
      const r = await runWrapped(input, [node, hook]);
      assert.equal(r.code, 0, r.stderr.toString());
      const s = seen(r);
      assert.equal(s.input, input);
      return s;
    }

    it('no held message', async () => {
      const t = tempClaude();
      assert.equal((await unchangedRun(t)).complete, '0');
      assert.equal(fs.existsSync(t.completeDir), false);
    });

    it('the call\'s record already on disk: unchanged, and 1 (the transcript holds it)', async () => {
      const t = tempClaude();
      t.hold();
      fs.appendFileSync(t.transcript, line({ type: 'assistant', uuid: 'a1', message: { id: 'msg_1', role: 'assistant', content: [{ type: 'tool_use', id: ID, name: 'Bash', input: {} }] } }));
      assert.equal((await unchangedRun(t)).complete, '1');
    });

    it('a symlinked project folder', async () => {
      const t = tempClaude();
      t.hold();
      const elsewhere = path.join(t.root, 'elsewhere');
      fs.renameSync(t.projectDir, elsewhere);
      fs.symlinkSync(elsewhere, t.projectDir);
      assert.equal((await unchangedRun(t)).complete, '0');
    });

    it('a symlinked complete/ folder is not written through', async () => {
      const t = tempClaude();
      t.hold();
      const elsewhere = path.join(t.root, 'planted');
      fs.mkdirSync(elsewhere);
      fs.symlinkSync(elsewhere, t.completeDir);
      assert.equal((await unchangedRun(t)).complete, '0');
      assert.deepEqual(fs.readdirSync(elsewhere), []);
    });

    it('an unreadable transcript (a FIFO where the file should be)', async () => {
      const t = tempClaude();
      t.hold();
      fs.rmSync(t.transcript);
      const made = spawn('mkfifo', [t.transcript]);
      await new Promise((r) => made.on('close', r));
      assert.equal((await unchangedRun(t)).complete, '0');
    });

    it('input that is not a hook\'s JSON reaches CMD as it came', async () => {
      const t = tempClaude();
      const r = await runWrapped('not json \u0000\u00ff', [node, '-e', "process.stdout.write(require('fs').readFileSync(0)); process.stderr.write(process.env.TRANSCRIPT_LAG_COMPLETE)"]);
      assert.equal(r.stdout.toString('utf8'), 'not json \u0000\u00ff');
      assert.equal(r.stderr.toString(), '0');
      void t;
    });

    it('a CMD that is not there: 127, as a shell says, and why on stderr', async () => {
      const r = await runWrapped('{}', [path.join(os.tmpdir(), 'no-such-hook-here')]);
      assert.equal(r.code, 127);
      assert.match(r.stderr.toString(), /ENOENT/);
      assert.equal(r.stdout.length, 0);
    });
  });

  it('takes CMD as everything after --', () => {
    assert.deepEqual(parseCompleteArgs(['--', 'python3', 'h.py', '--help']), { command: 'python3', args: ['h.py', '--help'], help: false });
    assert.deepEqual(parseCompleteArgs(['--help']), { args: [], help: true });
  });
});

/** Whether a process is gone (or only a zombie waiting to be reaped). */
function gone(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

