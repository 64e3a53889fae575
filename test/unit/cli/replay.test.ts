import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { main } from '../../../src/cli/main';
import { SAFE_SESSION_ID } from '../../../src/rules/channelConstants';
import { recordFileOf } from '../../../src/rules/modContract';
import { NEXT_STEP, type CallReport, type ReplaySummary } from '../../../src/core/replay/replayReport';
import { buildHookCommand } from '../../../src/core/settings/hookCommand';
import { capturingIo } from '../helpers/capturingIo';
import { fixturesDir } from '../helpers/fixtures';
import { materialize } from '../helpers/recordings';
import { readsShowIn } from '../../../src/platform/firstRead';

// `transcript-lag replay` end to end, in process, over real temp files: the hooks are real
// processes (node scripts and sh), run as Claude Code runs them.

const repoRoot = path.resolve(__dirname, '../../..');
const recordingsDir = path.join(repoRoot, 'test/field/recordings');
const recordings = fs.readdirSync(recordingsDir).filter((f) => f.endsWith('.jsonl'));
const interactiveFixture = path.join(fixturesDir, 'real/interactive-parallel-2000/31fe55b3-cdf5-46f4-87b6-e09ef369569a.jsonl');
const printFixture = path.join(fixturesDir, 'real/print-single-0/c94aa0db-5ed1-4c10-836d-4ea712608109.jsonl');
const forkParentFixture = path.join(fixturesDir, 'real/print-fork/b4e672aa-3347-44eb-a27c-535072cbd17a.jsonl');
const node = JSON.stringify(process.execPath);

function tempDir(prefix: string): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

/** Writes a script for hooks to run, in a folder of its own. */
function script(name: string, text: string): string {
  const file = path.join(tempDir('tl-replay-hooks-'), name);
  fs.writeFileSync(file, text);
  return file;
}

/** Polls the transcript it is handed for its own call, 3 times 30 ms apart; without it: deny (JSON) or block (exit 2). */
const pollHook = script(
  'poll.js',
  `const fs = require('fs');
let input = '';
process.stdin.on('data', (d) => (input += d)).on('end', async () => {
  const h = JSON.parse(input);
  for (let i = 0; i < 3; i++) {
    let t = '';
    try { t = fs.readFileSync(h.transcript_path, 'utf8'); } catch {}
    if (t.includes('"id":' + JSON.stringify(h.tool_use_id))) process.exit(0);
    await new Promise((r) => setTimeout(r, 30));
  }
  if (process.argv[2] === 'block') {
    process.stderr.write('my call is not in the transcript');
    process.exit(2);
  }
  process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'my call is not in the transcript' } }));
});
`,
);

/** Polls the transcript for its own call `argv[2]` times, `argv[3]` ms apart, as the field suite's probe does; without it: block. */
const probeHook = script(
  'probe.js',
  `const fs = require('fs');
let input = '';
process.stdin.on('data', (d) => (input += d)).on('end', async () => {
  const h = JSON.parse(input);
  const [polls, ms] = [Number(process.argv[2]), Number(process.argv[3])];
  for (let i = 0; i < polls; i++) {
    let t = '';
    try { t = fs.readFileSync(h.transcript_path, 'utf8'); } catch {}
    if (t.includes('"id":' + JSON.stringify(h.tool_use_id))) process.exit(0);
    if (i < polls - 1) await new Promise((r) => setTimeout(r, ms));
  }
  process.stderr.write('my call is not in the transcript');
  process.exit(2);
});
`,
);

/** Writes what it was given (input, environment, the transcript copy, held files) to $DUMP_DIR/<tool_use_id>.<n>.json. */
const dumpHook = script(
  'dump.js',
  `const fs = require('fs');
const path = require('path');
let input = '';
process.stdin.on('data', (d) => (input += d)).on('end', () => {
  const h = JSON.parse(input);
  const heldDir = path.join(process.env.CLAUDE_CONFIG_DIR, 'transcript-lag', 'held', h.session_id);
  let held = [];
  try { held = fs.readdirSync(heldDir); } catch {}
  const out = {
    input: h,
    raw: input,
    cwd: process.cwd(),
    env: { CLAUDE_PROJECT_DIR: process.env.CLAUDE_PROJECT_DIR, CLAUDE_CONFIG_DIR: process.env.CLAUDE_CONFIG_DIR },
    transcript: fs.readFileSync(h.transcript_path).toString('base64'),
    held,
    tmpMode: fs.statSync(path.dirname(path.dirname(process.env.CLAUDE_CONFIG_DIR))).mode & 0o777,
    heldDirMode: held.length ? (fs.statSync(heldDir).mode & 0o777) : null,
    // Every file of the replay's temp folder that holds the input: the hook's stdin is the only place it goes.
    inputFiles: (() => {
      const found = [];
      const walk = (dir) => {
        for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
          const full = path.join(dir, e.name);
          if (e.isDirectory()) walk(full);
          else if (fs.readFileSync(full, 'utf8').includes(input)) found.push(full);
        }
      };
      walk(path.dirname(path.dirname(process.env.CLAUDE_CONFIG_DIR)));
      return found;
    })(),
    modList: (() => { try { return JSON.parse(fs.readFileSync(path.join(process.env.CLAUDE_CONFIG_DIR, 'transcript-lag', 'mod', h.session_id + '.json'), 'utf8')); } catch { return null; } })(),
  };
  for (let n = 0; ; n++) {
    try { fs.writeFileSync(path.join(process.env.DUMP_DIR, h.tool_use_id + '.' + n + '.json'), JSON.stringify(out), { flag: 'wx' }); break; } catch {}
  }
});
`,
);

interface Dump {
  input: Record<string, unknown>;
  raw: string;
  cwd: string;
  env: { CLAUDE_PROJECT_DIR?: string; CLAUDE_CONFIG_DIR?: string };
  transcript: string;
  held: string[];
  heldDirMode: number | null;
  modList: { v: number; calls: string[] } | null;
  inputFiles: string[];
  tmpMode: number;
}

function dumpsOf(dir: string, id: string): Dump[] {
  const out: Dump[] = [];
  for (let n = 0; fs.existsSync(path.join(dir, `${id}.${n}.json`)); n++) out.push(JSON.parse(fs.readFileSync(path.join(dir, `${id}.${n}.json`), 'utf8')) as Dump);
  return out;
}

interface Replayed {
  code: number;
  out: string;
  err: string;
  calls: CallReport[];
  summary?: ReplaySummary;
}

async function replay(args: string[], env: NodeJS.ProcessEnv = {}, cwd = repoRoot): Promise<Replayed> {
  const c = capturingIo(cwd, { ...process.env, CLAUDE_CONFIG_DIR: tempDir('tl-replay-user-'), ...env });
  const code = await main(['replay', ...args], c.io);
  const lines = args.includes('--json') ? c.out().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) : [];
  const summary = lines.find((l) => l.event === 'summary') as ReplaySummary | undefined;
  return { code, out: c.out(), err: c.err(), calls: lines.filter((l) => l.event === undefined) as unknown as CallReport[], summary };
}

/** The text blocks of the message carrying `id`, up to its block, read from the transcript here (not by replay's code). */
function textBlocksBefore(transcript: string, id: string): string[] {
  const recs = fs
    .readFileSync(transcript, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type?: string; message?: { id?: string; content?: Array<{ type: string; id?: string; text?: string }> } });
  const at = recs.findIndex((r) => r.type === 'assistant' && r.message?.content?.some((b) => b.type === 'tool_use' && b.id === id));
  const messageId = recs[at]!.message!.id;
  return recs
    .slice(0, at + 1)
    .filter((r) => r.type === 'assistant' && r.message?.id === messageId)
    .flatMap((r) => (r.message!.content ?? []).filter((b) => b.type === 'text' && b.text).map((b) => b.text!));
}

const sha = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

let messageBundle: string;

before(async function () {
  this.timeout(60_000);
  // `transcript-lag message` as a hook runs it: its own bundle, as scripts/build.mjs makes dist/cli-message.js.
  messageBundle = path.join(tempDir('tl-replay-message-'), 'cli-message.js');
  await esbuild.build({ entryPoints: [path.join(repoRoot, 'src/cli/message.ts')], outfile: messageBundle, bundle: true, platform: 'node', format: 'cjs', target: 'node18', logLevel: 'silent' });
});

describe('replay: a hook that polls the transcript for its own call', function () {
  this.timeout(180_000);

  for (const file of recordings) {
    it(`${file}: a hook that polls as the recorded probe did gets every decision the probe really made, and differs where it blocked`, async () => {
      const rec = await materialize(path.join(recordingsDir, file));
      const before = sha(rec.transcript);
      // The recording's probe: 10 looks, 100 ms apart (test/field/scenarios.mjs); its channel file lies where the plugin keeps it.
      const r = await replay([rec.transcript, '--hook', `${node} ${JSON.stringify(probeHook)} 10 100`, '--json']);
      assert.equal(r.code, 0, r.err);
      assert.deepEqual(r.calls.map((c) => c.tool_use_id), rec.meta.calls.map((c) => c.tool_use_id));
      for (const c of r.calls) {
        const real = rec.meta.calls.find((m) => m.tool_use_id === c.tool_use_id)!.wait === 'seen' ? 'allow' : 'block';
        const given = c.live_timings.map((t) => t.decision);
        assert.ok(given.includes(real), `${c.tool_use_id}: the probe really ${real === 'allow' ? 'saw its call' : 'ended behind'}; replay gives ${given.join('/')} (${c.live_timings.map((t) => t.record_at_ms).join(', ')})`);
        assert.equal(c.complete.decision, 'allow', JSON.stringify(c.complete));
        if (real === 'block') assert.equal(c.differs, true);
        assert.ok(given.includes(c.live.decision), 'the likely run is one of the runs');
        assert.equal(c.timing_dependent, new Set(given).size > 1);
      }
      assert.equal(r.summary!.calls, r.calls.length);
      assert.equal(sha(rec.transcript), before, 'the session is left as it was');
    });
  }

  it("a hook that reads once, later here than the latest measured landing: that run's record waits for its read, so a hook that reads sooner live is shown missing its call", async function () {
    if (!readsShowIn(tempDir('tl-replay-atime-'))) this.skip(); // no access times here: the latest landing stays at its time
    // Print 2.1.332, no evidence: the model's landings end at 846 ms; this hook reads at 1.2 s, once.
    const late = script(
      'late.js',
      `const fs = require('fs');
let input = '';
process.stdin.on('data', (d) => (input += d)).on('end', () => setTimeout(() => {
  const h = JSON.parse(input);
  if (fs.readFileSync(h.transcript_path, 'utf8').includes('"id":' + JSON.stringify(h.tool_use_id))) process.exit(0);
  process.stderr.write('my call is not in the transcript');
  process.exit(2);
}, 1200));
`,
    );
    const r = await replay([printFixture, '--hook', `${node} ${JSON.stringify(late)}`, '--json']);
    assert.equal(r.code, 0, r.err);
    const [c] = r.calls;
    const last = c!.live_timings.at(-1)!;
    assert.equal(last.after_first_read, true, JSON.stringify(c!.live_timings));
    // After its read at 1.2 s and the time to read it: the hook had exited by then (null), or later.
    assert.ok(last.record_at_ms === null || last.record_at_ms >= 1200, `landed at ${last.record_at_ms} ms, after the read at 1.2 s`);
    assert.equal(last.decision, 'block');
    // The earlier landings came before its read: found. Which it is live depends on its speed there.
    assert.equal(c!.live_timings[0]!.decision, 'allow');
    assert.deepEqual([c!.timing_dependent, c!.differs], [true, true]);
    assert.ok(c!.live_timings.slice(0, -1).every((t) => t.after_first_read === undefined), 'only the latest landing waits');
  });

  it('interactive 2.1.332 fixture: the first call of its message is not on disk while its hook runs: deny live, allow complete, and the sentence says why', async () => {
    const r = await replay([interactiveFixture, '--hook', `${node} ${JSON.stringify(pollHook)}`, '--tool', 'Read']);
    assert.equal(r.code, 0, r.err);
    const rows = r.out.split('\n').filter((l) => l.startsWith('toolu_'));
    assert.equal(rows.length, 1, r.out);
    // Held in every measured session's first message: its likely run denies. A landing seen elsewhere for
    // the build may make it depend on timing too (landings.json): a line under the row says when.
    assert.match(rows[0]!, /model\s+\d+\/\d+\s+deny\s+allow\s+differs$/);
    assert.match(r.out, /    live: my call is not in the transcript\n/);
    assert.match(r.out, /\ndecided differently on 1 of 1 call: your hook depends on its call being in the transcript, which it is not while it runs[;.]/);
    // Then the way past it, in the words VS Code's table uses (one sentence for both).
    assert.ok(r.out.endsWith(`.\n${NEXT_STEP}\n`), r.out);
    // Its working directory is another machine's: said once, and the hooks run here.
    assert.equal(r.err.match(/is not a folder here/g)?.length, 1, r.err);
  });

  it('--tool keeps the calls its matcher takes', async () => {
    const r = await replay([interactiveFixture, '--hook', `${node} ${JSON.stringify(pollHook)}`, '--tool', 'Read|Glob', '--json']);
    assert.deepEqual(r.calls.map((c) => c.tool_name), ['Read']);
  });
});

describe('replay: transcript-lag message in the hook sees the held message live', function () {
  this.timeout(120_000);

  const sources = [...recordings.map((f) => path.join(recordingsDir, f)), interactiveFixture];
  for (const source of sources) {
    it(`${path.basename(source)}: --mod: source "mod" with the call's text blocks live, "transcript" complete; --no-mod: nothing live where the record was not there`, async () => {
      const transcript = source.startsWith(recordingsDir) ? (await materialize(source)).transcript : source;

      const hook = `${node} ${JSON.stringify(messageBundle)} --json`;
      const withMod = await replay([transcript, '--hook', hook, '--json', '--mod']);
      const noMod = await replay([transcript, '--hook', hook, '--json', '--no-mod']);
      assert.equal(withMod.code, 0, withMod.err);
      assert.ok(withMod.calls.length >= 2);
      for (const [i, c] of withMod.calls.entries()) {
        const blocks = textBlocksBefore(transcript, c.tool_use_id);
        assert.ok(blocks.length > 0, 'the message has text');
        const live = JSON.parse(c.live.stdout) as { source: string | null; text_blocks: string[] | null };
        const complete = JSON.parse(c.complete.stdout) as { source: string | null; text_blocks: string[] | null };
        assert.deepEqual([live.source, live.text_blocks], ['mod', blocks]);
        assert.deepEqual([complete.source, complete.text_blocks], ['transcript', blocks]);
        // Every live run had the held message, whenever the record landed.
        for (const t of c.live_timings) assert.equal((JSON.parse(t.stdout) as { source: string }).source, 'mod');
        // Without the mod, a run whose copy lacked the record from the start (the tool answers at once) has nothing.
        for (const t of noMod.calls[i]!.live_timings) {
          const bare = JSON.parse(t.stdout) as { source: string | null; text_blocks: string[] | null; reason: string };
          if (t.record_at_ms === 0) assert.deepEqual([bare.source, bare.text_blocks], ['transcript', blocks]);
          if (t.record_at_ms === null) {
            assert.deepEqual([bare.source, bare.text_blocks], [null, null]);
            assert.match(bare.reason, /not on disk yet and no held message/);
          }
        }
        // The JSON on stdout is no permission decision: the hook allows either way.
        assert.ok(c.live_timings.every((t) => t.decision === 'allow'));
      }
    });
  }
});

describe('replay: as the session ran, by its evidence', function () {
  this.timeout(120_000);

  it("a session whose channel holds the command hook's reports alone ran without the mod: no held message live, and the note says so; one without evidence, with it", async () => {
    const rec = await materialize(path.join(recordingsDir, 'interactive-parallel-probe-slow.jsonl'));
    const hook = `${node} ${JSON.stringify(messageBundle)} --json`;
    const asRan = await replay([rec.transcript, '--hook', hook, '--json']);
    assert.equal(asRan.code, 0, asRan.err);
    assert.match(asRan.err, /the transcript-lag mod did not run in it/);
    // A note on the session, not on a --channel the user gave (none here).
    assert.doesNotMatch(asRan.err, /--channel: the session's evidence/);
    assert.ok(asRan.calls.length >= 2);
    for (const c of asRan.calls) for (const t of c.live_timings) assert.notEqual((JSON.parse(t.stdout) as { source: string | null }).source, 'mod');
    // The first call was held while its hooks ran: a hook that needs its message got none live, as in that session.
    assert.ok(asRan.calls.some((c) => c.live_timings.some((t) => (JSON.parse(t.stdout) as { source: string | null }).source === null)));
    // The same transcript with no evidence beside it: as with the plugin.
    fs.rmSync(path.dirname(rec.channel), { recursive: true, force: true });
    const unknown = await replay([rec.transcript, '--hook', hook, '--json']);
    assert.doesNotMatch(unknown.err, /did not run/);
    assert.ok(unknown.calls.every((c) => c.live_timings.every((t) => (JSON.parse(t.stdout) as { source: string | null }).source !== null)));
    // Both flags at once are refused.
    assert.equal((await replay([rec.transcript, '--hook', hook, '--mod', '--no-mod'])).code, 2);
  });

  it('a build measured not to load the mod (2.1.280): no held message live, said; --mod as if it had', async () => {
    const dir = path.join(tempDir('tl-replay-version-'), '.claude', 'projects', '-work');
    fs.mkdirSync(dir, { recursive: true });
    const copy = path.join(dir, path.basename(interactiveFixture));
    fs.writeFileSync(copy, fs.readFileSync(interactiveFixture, 'utf8').replace(/"version":"2\.1\.332"/g, '"version":"2.1.280"'));
    const hook = `${node} ${JSON.stringify(messageBundle)} --json`;
    const asRan = await replay([copy, '--hook', hook, '--json']);
    assert.equal(asRan.code, 0, asRan.err);
    assert.match(asRan.err, /Claude Code 2\.1\.280 does not load the plugin's mod \(measured/);
    for (const c of asRan.calls) for (const t of c.live_timings) assert.notEqual((JSON.parse(t.stdout) as { source: string | null }).source, 'mod');
    const asIf = await replay([copy, '--hook', hook, '--json', '--mod']);
    assert.ok(asIf.calls.some((c) => c.live_timings.some((t) => (JSON.parse(t.stdout) as { source: string | null }).source === 'mod')));
  });
});

describe('replay: a hook behind complete', function () {
  this.timeout(120_000);

  it('named through CLAUDE_CONFIG_DIR, as the plugin keeps it: the wrapper is there, and a hook that differs bare sees its call on every call', async () => {
    const bare = `${node} ${JSON.stringify(pollHook)} block`;
    const wrapped = `node "$CLAUDE_CONFIG_DIR/transcript-lag/bin/transcript-lag-complete.js" -- ${bare}`;
    const plain = await replay([interactiveFixture, '--hook', bare, '--json']);
    const behind = await replay([interactiveFixture, '--hook', wrapped, '--json']);
    assert.equal(behind.code, 0, behind.err);
    assert.ok(plain.calls.some((c) => c.differs), 'the fixture holds a call the bare hook misses live');
    assert.equal(behind.calls.length, plain.calls.length);
    for (const c of behind.calls) {
      assert.deepEqual([c.tool_use_id, c.differs, c.complete.decision], [c.tool_use_id, false, 'allow'], c.live.stderr);
      assert.ok(c.live_timings.every((t) => t.decision === 'allow'));
    }
  });
});

describe('replay: a hook past its timeout', function () {
  this.timeout(60_000);

  it('is killed at --timeout with the children it started, and says timeout', async () => {
    const dir = tempDir('tl-replay-timeout-');
    const pids = path.join(dir, 'pids');
    // The hook starts a child that sleeps, notes its pid, and sleeps itself.
    const hook = `sleep 30 & echo $! >> '${pids}'; sleep 30`;
    const started = Date.now();
    const r = await replay([interactiveFixture, '--hook', hook, '--tool', 'Read', '--timeout', '1', '--json']);
    const took = Date.now() - started;
    assert.equal(r.code, 0, r.err);
    assert.equal(r.calls.length, 1);
    for (const run of [...r.calls[0]!.live_timings, r.calls[0]!.complete]) {
      assert.equal(run.decision, 'timeout');
      assert.equal(run.exit_code, null);
      assert.ok(run.ms >= 1000 && run.ms < 5000, String(run.ms));
    }
    assert.equal(r.calls[0]!.differs, false);
    assert.deepEqual(r.summary, { event: 'summary', calls: 1, differs: 0, timing_dependent: 0, errors: 0, timeouts: 1, skipped: 0 });
    assert.ok(took < 10_000, `${took} ms`);
    const children = fs.readFileSync(pids, 'utf8').trim().split('\n').map(Number);
    assert.equal(children.length, r.calls[0]!.live_timings.length + 1);
    for (const pid of children) assert.ok(await gone(pid), `the hook's child ${pid} is still running`);
  });
});

describe('replay: interrupted', function () {
  this.timeout(30_000);

  it('kills the running hook with its children, removes its temp folder and exits 130', async () => {
    const dir = tempDir('tl-replay-stop-');
    const pids = path.join(dir, 'pids');
    const seen = path.join(dir, 'config');
    let stop!: () => void;
    const c = capturingIo(repoRoot, { ...process.env });
    const io = { ...c.io, stopSignal: new Promise<void>((resolve) => (stop = resolve)) };
    const replaying = main(['replay', interactiveFixture, '--hook', `echo "$CLAUDE_CONFIG_DIR" > '${seen}'; sleep 30 & echo $! >> '${pids}'; sleep 30`, '--json'], io);
    while (!fs.existsSync(pids)) await new Promise((r) => setTimeout(r, 20));
    const started = Date.now();
    stop();
    assert.equal(await replaying, 130);
    assert.ok(Date.now() - started < 5000);
    assert.match(c.err(), /interrupted/);
    assert.ok(await gone(Number(fs.readFileSync(pids, 'utf8').trim())));
    assert.ok(!fs.existsSync(path.dirname(path.dirname(fs.readFileSync(seen, 'utf8').trim()))), 'the temp folder is removed');
  });
});

/** The process is gone, or a zombie nobody has reaped yet (dead all the same), within 2 s. */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 40; i++) {
    let state: string | undefined;
    try {
      state = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '')[0];
    } catch {
      try {
        process.kill(pid, 0);
      } catch {
        return true;
      }
    }
    if (state === 'Z' || state === 'X') return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

describe('replay: what the hook is given', function () {
  this.timeout(60_000);

  it("the PreToolUse input and environment Claude Code gives; copies of the transcript in a private folder, removed after; the user's files untouched", async () => {
    const rec = await materialize(path.join(recordingsDir, 'interactive-parallel-probe-slow.jsonl'));
    const dumps = tempDir('tl-replay-dumps-');
    const before = sha(rec.transcript);
    // --mod: this session ran without the mod (its channel holds the command hook's reports alone).
    const r = await replay([rec.transcript, '--hook', `${node} ${JSON.stringify(dumpHook)}`, '--json', '--mod'], { DUMP_DIR: dumps });
    assert.equal(r.code, 0, r.err);
    const source = fs.readFileSync(rec.transcript);
    const records = fs.readFileSync(rec.transcript, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>);
    const seenConfigDirs = new Set<string>();
    for (const c of r.calls) {
      const runs = dumpsOf(dumps, c.tool_use_id);
      assert.equal(runs.length, c.live_timings.length + 1, 'each live run, then complete');
      const lives = runs.slice(0, -1);
      const complete = runs.at(-1)!;
      const live = lives[c.live_timings.findIndex((t) => t.record_at_ms === null)]!;
      assert.ok(live, 'a live run in which the record did not land (interactive 2.1.332: held while the hooks run)');
      const record = records.find((x) => x.type === 'assistant' && x.message.content.some((b: any) => b.id === c.tool_use_id))!;
      const use = record.message.content.find((b: any) => b.id === c.tool_use_id);
      for (const d of runs) {
        assert.deepEqual(Object.keys(d.input), ['session_id', 'transcript_path', 'cwd', 'permission_mode', 'hook_event_name', 'tool_name', 'tool_input', 'tool_use_id']);
        assert.equal(d.input.session_id, rec.meta.session_id);
        assert.equal(d.input.cwd, rec.workspace);
        assert.equal(d.input.permission_mode, 'acceptEdits');
        assert.equal(d.input.hook_event_name, 'PreToolUse');
        assert.equal(d.input.tool_name, use.name);
        assert.deepEqual(d.input.tool_input, use.input);
        assert.equal(d.cwd, rec.workspace);
        assert.equal(d.env.CLAUDE_PROJECT_DIR, rec.workspace);
        // Pointed at a Claude dir of the replay's own, where the transcript copy lies.
        const claudeDir = d.env.CLAUDE_CONFIG_DIR!;
        seenConfigDirs.add(claudeDir);
        assert.ok(!claudeDir.startsWith(path.dirname(path.dirname(path.dirname(rec.transcript)))), claudeDir);
        assert.equal(path.dirname(path.dirname(path.dirname(d.input.transcript_path as string))), claudeDir);
        assert.equal(path.basename(d.input.transcript_path as string), path.basename(rec.transcript));
        const copy = Buffer.from(d.transcript, 'base64');
        assert.ok(copy.equals(source.subarray(0, copy.length)), 'a copy is the start of the transcript');
      }
      for (const [i, d] of lives.entries()) {
        // What each live run was handed: its bytes at the start, and more only once its record landed.
        const t = c.live_timings[i]!;
        const length = Buffer.from(d.transcript, 'base64').length;
        if (t.record_at_ms === null) assert.equal(length, t.transcript_bytes);
        else assert.ok(length >= t.transcript_bytes);
        assert.deepEqual(d.held, [`${c.tool_use_id}.json`]);
      }
      assert.equal(Buffer.from(complete.transcript, 'base64').length, c.complete.transcript_bytes);
      // The complete copy ends with the call's record; the live one (held: interactive 2.1.332) does not hold it.
      assert.equal(Buffer.from(complete.transcript, 'base64').toString('utf8').split('\n').at(-2), JSON.stringify(record));
      assert.ok(!Buffer.from(live.transcript, 'base64').includes(`"id":"${c.tool_use_id}"`));
      // The mod's door: the held message (a private folder) and the call list in the live run only.
      assert.deepEqual(live.held, [`${c.tool_use_id}.json`]);
      assert.equal(live.heldDirMode, 0o700);
      assert.ok(live.modList?.calls.includes(c.tool_use_id));
      assert.deepEqual([complete.held, complete.modList], [[], null]);
      // The input reached the hook on stdin and was written nowhere in the replay's folder, which is private and gone after.
      assert.deepEqual([live.inputFiles, complete.inputFiles], [[], []]);
      const tmp = path.dirname(path.dirname(live.env.CLAUDE_CONFIG_DIR!));
      assert.match(path.basename(tmp), /^transcript-lag-replay-/);
      assert.equal(live.tmpMode, 0o700);
      assert.ok(!fs.existsSync(tmp), 'the temp folder is removed');
    }
    assert.equal(seenConfigDirs.size, 2, 'one Claude dir for the live runs, one for the complete');
    assert.equal(sha(rec.transcript), before);
  });

  it("a subagent's call: from its own transcript, with agent_id; message answers from the subagent's held message", async () => {
    const root = tempDir('tl-replay-sub-');
    const workspace = path.join(root, 'work');
    fs.mkdirSync(workspace);
    const session = '5e55a9e0-1111-4222-8333-0123456789ab';
    const projectDir = path.join(root, '.claude', 'projects', '-work');
    const main = path.join(projectDir, `${session}.jsonl`);
    const sub = path.join(projectDir, session, 'subagents', 'agent-a1b2.jsonl');
    fs.mkdirSync(path.dirname(sub), { recursive: true });
    const base = { sessionId: session, cwd: workspace, entrypoint: 'cli', version: '2.1.332' };
    const line = (v: object) => `${JSON.stringify({ ...base, ...v })}\n`;
    fs.writeFileSync(
      main,
      line({ type: 'user', uuid: 'u1', timestamp: '2026-12-03T10:00:00.000Z', message: { role: 'user', content: 'go' } }) +
        line({ type: 'assistant', uuid: 'a1', timestamp: '2026-12-03T10:00:01.000Z', message: { id: 'msg_m', role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_task', name: 'Task', input: { prompt: 'look' } }] } }) +
        line({ type: 'user', uuid: 'u2', timestamp: '2026-12-03T10:00:09.000Z', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_task', content: 'done' }] } }),
    );
    fs.writeFileSync(
      sub,
      line({ type: 'user', uuid: 's1', isSidechain: true, agentId: 'a1b2', timestamp: '2026-12-03T10:00:02.000Z', message: { role: 'user', content: 'look' } }) +
        line({ type: 'assistant', uuid: 's2', isSidechain: true, agentId: 'a1b2', timestamp: '2026-12-03T10:00:03.000Z', message: { id: 'msg_s', role: 'assistant', content: [{ type: 'text', text: 'Listing the folder.' }] } }) +
        line({ type: 'assistant', uuid: 's3', isSidechain: true, agentId: 'a1b2', timestamp: '2026-12-03T10:00:03.100Z', message: { id: 'msg_s', role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_sub', name: 'Bash', input: { command: 'ls' } }] } }),
    );
    const dumps = tempDir('tl-replay-dumps-');
    const r = await replay([main, '--hook', `${node} ${JSON.stringify(dumpHook)}`, '--json'], { DUMP_DIR: dumps });
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(r.calls.map((c) => [c.tool_use_id, c.agent_id]), [['toolu_task', undefined], ['toolu_sub', 'a1b2']]);
    const subRuns = dumpsOf(dumps, 'toolu_sub');
    const live = subRuns[r.calls[1]!.live_timings.findIndex((t) => t.record_at_ms === null)];
    assert.equal(live!.input.agent_id, 'a1b2');
    assert.equal(path.basename(live!.input.transcript_path as string), `${session}.jsonl`);
    // The session's own transcript as far as its records were made before the subagent's call: lines 1 and 2.
    assert.equal(Buffer.from(live!.transcript, 'base64').toString('utf8'), fs.readFileSync(main, 'utf8').split('\n').slice(0, 2).join('\n') + '\n');
    // Interactive 2.1.332: the subagent's message is held too; the complete copy of its file holds the record.
    const heldRun = r.calls[1]!.live_timings.find((t) => t.record_at_ms === null)!;
    assert.deepEqual([heldRun.transcript_bytes, r.calls[1]!.complete.transcript_bytes], [fs.readFileSync(sub, 'utf8').indexOf('{"sessionId"', 1), fs.statSync(sub).size]);
    const withMessage = await replay([main, '--hook', `${node} ${JSON.stringify(messageBundle)} --json`, '--json', '--tool', 'Bash']);
    const answer = (run: { stdout: string }) => JSON.parse(run.stdout) as { source: string; text_blocks: string[] };
    assert.deepEqual([answer(withMessage.calls[0]!.live).source, answer(withMessage.calls[0]!.live).text_blocks], ['mod', ['Listing the folder.']]);
    // The complete run finds it in the subagent's own transcript, where message looks for a subagent's call.
    assert.deepEqual([answer(withMessage.calls[0]!.complete).source, answer(withMessage.calls[0]!.complete).text_blocks], ['transcript', ['Listing the folder.']]);
    assert.ok(recordFileOf(main, session, 'a1b2')!.endsWith(path.join(session, 'subagents', 'agent-a1b2.jsonl')));
    assert.ok(SAFE_SESSION_ID.test(session));
  });
});

describe('replay: the channel says what the hook saw', function () {
  this.timeout(60_000);

  it("a pre event's bytes_on_disk is the live copy (basis channel); one that disagrees with the file is not used", async () => {
    // The fixture's paths were rewritten after the run (test/fixtures/README.md), so its channel's byte counts are of the
    // original file: the pre event is kept, its count moved to the same place in this file (the end of line 20).
    const text = fs.readFileSync(forkParentFixture, 'utf8');
    const endOf20 = Buffer.byteLength(text.split('\n').slice(0, 20).join('\n') + '\n');
    const pre = JSON.parse(fs.readFileSync(path.join(fixturesDir, 'real/print-fork/transcript-lag/b4e672aa-3347-44eb-a27c-535072cbd17a.jsonl'), 'utf8').split('\n')[0]!) as Record<string, unknown>;
    assert.equal(pre.record_on_disk, false);
    const dir = tempDir('tl-replay-channel-');
    const channel = path.join(dir, 'b4e672aa-3347-44eb-a27c-535072cbd17a.jsonl');
    fs.writeFileSync(channel, `${JSON.stringify({ ...pre, bytes_on_disk: endOf20 })}\n`);
    const r = await replay([forkParentFixture, '--hook', `${node} ${JSON.stringify(pollHook)}`, '--channel', channel, '--json']);
    assert.equal(r.code, 0, r.err);
    const c = r.calls[0]!;
    // Print mode, and this hook looked before the message was written: every live run starts from what the channel proves,
    // none with the record there at the fire.
    assert.deepEqual([c.basis, c.live.transcript_bytes, c.complete.decision, c.differs], ['channel', endOf20, 'allow', true]);
    assert.ok(c.live_timings.every((t) => t.transcript_bytes === endOf20 && t.record_at_ms !== 0));
    // The count as recorded is past the record's start and says the record was not there: still a prefix it may have seen.
    fs.writeFileSync(channel, `${JSON.stringify({ ...pre, bytes_on_disk: endOf20, record_on_disk: true })}\n`);
    const disagreeing = await replay([forkParentFixture, '--hook', `${node} ${JSON.stringify(pollHook)}`, '--channel', channel, '--json']);
    // Its bytes are not taken (the looks' find still bounds when the record landed).
    assert.ok(disagreeing.calls[0]!.live_timings.every((t) => t.transcript_bytes !== endOf20));
    // A channel named that is not there is an error, not the model in silence.
    const missing = await replay([forkParentFixture, '--hook', 'true', '--channel', path.join(dir, 'nope.jsonl'), '--json']);
    assert.equal(missing.code, 1);
    assert.match(missing.err, /--channel: .*nope\.jsonl: no such file/);
  });
});

describe('replay --settings: the session would have run these hooks', function () {
  this.timeout(120_000);

  it('user, project and local settings; shell and exec form; matchers; http hooks and our own entries left out', async () => {
    const rec = await materialize(path.join(recordingsDir, 'interactive-parallel-probe-slow.jsonl'));
    const log = path.join(tempDir('tl-replay-log-'), 'runs.log');
    const recorder = script('record.js', `require('fs').appendFileSync(process.argv[3], process.argv[2] + ' ' + JSON.parse(require('fs').readFileSync(0, 'utf8')).tool_use_id + '\\n');\n`);
    const shell = (label: string) => `${node} ${JSON.stringify(recorder)} ${label} ${JSON.stringify(log)}`;
    const userDir = tempDir('tl-replay-user-');
    const write = (file: string, v: unknown) => {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, JSON.stringify(v, null, 2));
    };
    write(path.join(userDir, 'settings.json'), {
      hooks: {
        PreToolUse: [
          { matcher: 'Bash', hooks: [{ type: 'command', command: process.execPath, args: [recorder, 'user-exec', log] }] },
          { matcher: '*', hooks: [{ type: 'http', url: 'http://127.0.0.1:9/hook' }] },
          { matcher: '*', hooks: [{ type: 'command', command: buildHookCommand({ nodePath: process.execPath, hookPath: path.join(userDir, 'transcript-lag/bin/transcript-lag-hook.js'), channelDir: path.join(userDir, 'transcript-lag'), probe: false }) }] },
        ],
      },
    });
    write(path.join(rec.workspace, '.claude', 'settings.json'), {
      hooks: { PreToolUse: [{ matcher: 'Read|Glob', hooks: [{ type: 'command', command: shell('project-read') }] }, { matcher: '^B.*h$', hooks: [{ type: 'command', command: shell('project-regex') }] }] },
    });
    write(path.join(rec.workspace, '.claude', 'settings.local.json'), {
      hooks: { PreToolUse: [{ matcher: '', hooks: [{ type: 'command', command: shell('local-all'), timeout: 5 }] }, { matcher: 'Bash', hooks: [{ type: 'command', command: shell('local-all') }] }] },
    });
    const r = await replay([rec.transcript, '--settings', '--json'], { CLAUDE_CONFIG_DIR: userDir });
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /a PreToolUse hook of type "http" is not replayed/);
    assert.match(r.err, /transcript-lag's own reporting hook is not replayed/);
    const ran = r.calls.map((c) => [c.tool_use_id, c.hook!.source, c.hook!.args?.[1] ?? c.hook!.command.split(' ')[2]]);
    assert.deepEqual(ran, [
      ['toolu_field001b', 'user', 'user-exec'],
      ['toolu_field001b', 'project', 'project-regex'],
      ['toolu_field001b', 'local', 'local-all'],
      ['toolu_field002r', 'project', 'project-read'],
      ['toolu_field002r', 'local', 'local-all'],
      ['toolu_field002b', 'user', 'user-exec'],
      ['toolu_field002b', 'project', 'project-regex'],
      ['toolu_field002b', 'local', 'local-all'],
    ]);
    // Each ran once a live timing, then complete, one at a time, in that order.
    const lines = fs.readFileSync(log, 'utf8').trim().split('\n');
    assert.deepEqual(lines, r.calls.flatMap((c, i) => Array.from({ length: c.live_timings.length + 1 }, () => `${ran[i]![2]} ${ran[i]![0]}`)));
    assert.ok(r.calls.every((c) => c.live_timings.every((t) => t.decision === 'allow') && c.complete.decision === 'allow'));
    assert.deepEqual(r.summary, { event: 'summary', calls: 8, differs: 0, timing_dependent: 0, errors: 0, timeouts: 0, skipped: 0 });
  });

  it("a project's hooks run only from a folder the user owns and others cannot write; else the note says why", async function () {
    if (process.platform === 'win32') this.skip();
    const rec = await materialize(path.join(recordingsDir, 'print-single-probe.jsonl'));
    const log = path.join(tempDir('tl-replay-log-'), 'runs.log');
    const settingsDir = path.join(rec.workspace, '.claude');
    fs.mkdirSync(settingsDir, { recursive: true });
    fs.writeFileSync(path.join(settingsDir, 'settings.json'), JSON.stringify({ hooks: { PreToolUse: [{ matcher: '', hooks: [{ type: 'command', command: `echo ran >> '${log}'` }] }] } }));
    const ran = async () => {
      fs.rmSync(log, { force: true });
      const r = await replay([rec.transcript, '--settings', '--json']);
      assert.equal(r.code, 0, r.err);
      return { runs: fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n').length : 0, err: r.err };
    };
    const owned = await ran();
    assert.ok(owned.runs > 0, 'the project is the user\'s alone: its hooks run');
    const refused: Array<[string, () => void, () => void, RegExp]> = [
      ['the folder writable by others', () => fs.chmodSync(rec.workspace, 0o777), () => fs.chmodSync(rec.workspace, 0o755), /is writable by others/],
      ['its .claude writable by the group', () => fs.chmodSync(settingsDir, 0o775), () => fs.chmodSync(settingsDir, 0o755), /is writable by others/],
      ['the settings file writable by others', () => fs.chmodSync(path.join(settingsDir, 'settings.json'), 0o666), () => fs.chmodSync(path.join(settingsDir, 'settings.json'), 0o644), /is writable by others/],
    ];
    if (process.getuid?.() === 0) {
      refused.push(['the folder owned by another user', () => fs.chownSync(rec.workspace, 65534, 65534), () => fs.chownSync(rec.workspace, 0, 0), /belongs to another user/]);
    }
    for (const [what, make, undo, says] of refused) {
      make();
      const r = await ran();
      undo();
      assert.equal(r.runs, 0, `${what}: no hook of it runs`);
      assert.match(r.err, says, what);
    }
  });

  it("a hook's timeout past what a timer holds (2^31-1 ms) is no timeout, not a 1 ms one", async () => {
    const userDir = tempDir('tl-replay-user-');
    const hooks = [3e6, 1e300].map((timeout, i) => ({ type: 'command', command: `sleep 0.2 # hook ${i}`, timeout }));
    fs.writeFileSync(path.join(userDir, 'settings.json'), JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Read', hooks: hooks }] } }));
    const r = await replay([interactiveFixture, '--settings', '--json'], { CLAUDE_CONFIG_DIR: userDir });
    assert.equal(r.code, 0, r.err);
    assert.equal(r.calls.length, 2);
    for (const c of r.calls) assert.deepEqual([c.live.decision, c.complete.decision], ['allow', 'allow'], JSON.stringify(c.live));
  });

  it('with no settings: no hook to run, said on stderr', async () => {
    const rec = await materialize(path.join(recordingsDir, 'print-single-probe.jsonl'));
    const r = await replay([rec.transcript, '--settings', '--json']);
    assert.equal(r.code, 0);
    assert.match(r.err, /no PreToolUse command hook in the settings/);
    assert.deepEqual(r.summary, { event: 'summary', calls: 0, differs: 0, timing_dependent: 0, errors: 0, timeouts: 0, skipped: 0 });
  });
});

describe('replay: answers of real hooks, and hostile input', function () {
  this.timeout(60_000);

  it('exit 2 blocks with stderr as the reason; another exit is an error that does not block; JSON ask', async () => {
    const block = await replay([interactiveFixture, '--hook', 'echo "say why first" >&2; exit 2', '--json']);
    assert.deepEqual(block.calls.map((c) => [c.live.decision, c.live.reason, c.complete.decision]), [['block', 'say why first', 'block'], ['block', 'say why first', 'block']]);
    const error = await replay([interactiveFixture, '--hook', 'exit 3', '--json']);
    assert.deepEqual(error.calls.map((c) => [c.live.decision, c.live.exit_code]), [['error', 3], ['error', 3]]);
    assert.deepEqual(error.summary, { event: 'summary', calls: 2, differs: 0, timing_dependent: 0, errors: 2, timeouts: 0, skipped: 0 });
    const ask = await replay([interactiveFixture, '--hook', `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"sure?"}}'`, '--json']);
    assert.deepEqual(ask.calls.map((c) => [c.live.decision, c.live.reason]), [['ask', 'sure?'], ['ask', 'sure?']]);
    // Output is kept up to 64 KiB a stream; the rest is read and dropped, so the hook never blocks on a full pipe.
    const loud = await replay([interactiveFixture, '--hook', `head -c 300000 /dev/zero | tr '\\0' a; head -c 300000 /dev/zero | tr '\\0' b >&2`, '--json', '--tool', 'Read']);
    assert.deepEqual([loud.calls[0]!.live.stdout.length, loud.calls[0]!.live.stderr.length, loud.calls[0]!.live.decision], [64 * 1024, 64 * 1024, 'allow']);
    assert.match(loud.calls[0]!.live.stdout, /^a+$/);
    // A plain run says it with the same words.
    const plain = await replay([interactiveFixture, '--hook', 'exit 3']);
    assert.match(plain.out, /2 of them ended in an error/);
  });

  it('control characters from the transcript and the hook never reach the terminal; --json keeps them escaped', async () => {
    const dir = tempDir('tl-replay-esc-');
    const file = path.join(dir, 'evil.jsonl');
    fs.writeFileSync(file, `${JSON.stringify({ type: 'assistant', message: { id: 'm', content: [{ type: 'tool_use', id: 'toolu_\u001b]52;c;x\u0007', name: 'Ba\u001b[2Jsh', input: {} }] } })}\n`);
    const plain = await replay([file, '--hook', `printf 'bad\\033[2J' >&2; exit 2`]);
    assert.equal(plain.code, 0, plain.err);
    assert.ok(!/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(plain.out), JSON.stringify(plain.out));
    const json = await replay([file, '--hook', `printf 'bad\\033[2J' >&2; exit 2`, '--json']);
    assert.equal(json.calls[0]!.tool_name, 'Ba\u001b[2Jsh');
    assert.equal(json.calls[0]!.live.reason, 'bad\u001b[2J');
  });

  it('refuses what is not a regular file, and bad arguments', async function () {
    const dir = tempDir('tl-replay-bad-');
    assert.equal((await replay([path.join(dir, 'missing.jsonl'), '--hook', 'true'])).code, 1);
    assert.equal((await replay([dir, '--hook', 'true'])).code, 1);
    if (process.platform !== 'win32') {
      const fifo = path.join(dir, 'fifo.jsonl');
      execFileSync('mkfifo', [fifo]);
      const r = await replay([fifo, '--hook', 'true']);
      assert.equal(r.code, 1);
      assert.match(r.err, /not a regular file/);
    }
    assert.equal((await replay([interactiveFixture])).code, 2);
    assert.equal((await replay([interactiveFixture, '--hook', 'true', '--settings'])).code, 2);
    assert.equal((await replay([interactiveFixture, '--hook', 'true', '--timeout', '0'])).code, 2);
    assert.equal((await replay([interactiveFixture, '--hook', 'true', '--bogus'])).code, 2);
  });
});

describe("replay: the README's reviewing hooks (examples/), as a user replays them", function () {
  this.timeout(180_000);

  const has = (cmd: string) => {
    try {
      execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  };
  const examples = path.join(repoRoot, 'examples');
  const hooks: Array<[string, string, boolean]> = [
    ['review.sh', 'sh', has('jq')],
    ['review.py', 'python3', has('python3')],
    ['review.mjs', node, true],
  ];
  for (const [file, runner, runs] of hooks) {
    it(`${file}: with the plugin, every call allowed live and complete (the message tool where the plugin keeps it); --no-mod: blocked in both, saying to install the plugin`, async function () {
      if (!runs) this.skip();
      // Copied as examples/README.md says, to a hooks folder, and run as its settings entry runs it.
      const copy = path.join(tempDir('tl-replay-examples-'), file);
      fs.copyFileSync(path.join(examples, file), copy);
      const hook = `${runner} ${JSON.stringify(copy)}`;
      const withPlugin = await replay([interactiveFixture, '--hook', hook, '--json']);
      assert.equal(withPlugin.code, 0, withPlugin.err);
      assert.equal(withPlugin.calls.length, 2);
      for (const c of withPlugin.calls) {
        assert.deepEqual([c.live.decision, c.complete.decision, c.differs], ['allow', 'allow', false], `${c.tool_use_id}: ${c.live.reason} / ${c.complete.reason}`);
      }
      const bare = await replay([interactiveFixture, '--hook', hook, '--json', '--no-mod']);
      assert.equal(bare.code, 0, bare.err);
      for (const c of bare.calls) {
        assert.deepEqual([c.live.decision, c.complete.decision], ['block', 'block'], `${c.tool_use_id}`);
        assert.match(c.live.reason ?? '', /message tool gave no answer|neither held nor given/);
      }
    });
  }
});

describe('replay: ended from outside, its hooks and copies go with it', function () {
  this.timeout(60_000);
  const mainTs = path.join(repoRoot, 'src/cli/main.ts');

  /**
   * A hook that logs `CLAUDE_CONFIG_DIR` and its pid (its process group's id), and on the fixture's
   * second call (Bash: after the first call's row is written) ignores SIGTERM and sleeps 300 s with a
   * child doing the same.
   */
  function stubbornHook(dir: string): string {
    const log = path.join(dir, 'log');
    return `in=$(cat); echo "$CLAUDE_CONFIG_DIR $$" >> '${log}'; case "$in" in *toolu_field001b*) trap '' TERM; sleep 300 & echo "- $!" >> '${log}'; sleep 300;; esac`;
  }

  async function leftBehind(dir: string): Promise<string[]> {
    const lines = fs.existsSync(path.join(dir, 'log')) ? fs.readFileSync(path.join(dir, 'log'), 'utf8').trim().split('\n') : [];
    const out: string[] = [];
    for (const l of lines) {
      const [config, pid] = l.split(' ');
      if (!(await gone(Number(pid)))) out.push(`process ${pid} still runs`);
      if (config !== '-') {
        const tmp = path.dirname(path.dirname(config!));
        assert.match(path.basename(tmp), /^transcript-lag-replay-/);
        if (fs.existsSync(tmp)) out.push(`${tmp} is still there`);
      }
    }
    return out;
  }

  it('`replay … | true`: the reader gone, it exits 0 at once; no hook runs on, no copy stays', async function () {
    if (process.platform === 'win32') this.skip();
    const dir = tempDir('tl-replay-epipe-');
    const started = Date.now();
    const res = await new Promise<{ status: number | null; stderr: string }>((resolve) => {
      const child = spawn('bash', ['-c', `set -o pipefail; "${process.execPath}" -r tsx/cjs "${mainTs}" replay "${interactiveFixture}" --json --hook "$HOOK" | true`], {
        cwd: repoRoot,
        env: { ...process.env, HOOK: stubbornHook(dir), CLAUDE_CONFIG_DIR: tempDir('tl-replay-user-') },
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d));
      child.on('close', (status) => resolve({ status, stderr }));
    });
    assert.equal(res.status, 0, res.stderr);
    assert.ok(Date.now() - started < 30_000, `${Date.now() - started} ms`);
    assert.doesNotMatch(res.stderr, /EPIPE|Error/);
    assert.ok(fs.readFileSync(path.join(dir, 'log'), 'utf8').includes('-'), 'the stubborn run had started');
    assert.deepEqual(await leftBehind(dir), []);
  });

  it('SIGHUP (the terminal closed): the running hook is killed with its group, the copies removed, exit 130', async function () {
    if (process.platform === 'win32') this.skip();
    const dir = tempDir('tl-replay-hup-');
    const child = spawn(process.execPath, ['-r', 'tsx/cjs', mainTs, 'replay', interactiveFixture, '--json', '--hook', stubbornHook(dir)], {
      cwd: repoRoot,
      env: { ...process.env, CLAUDE_CONFIG_DIR: tempDir('tl-replay-user-') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.stdout.resume();
    const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const log = path.join(dir, 'log');
    while (!(fs.existsSync(log) && fs.readFileSync(log, 'utf8').includes('-'))) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGHUP');
    assert.equal(await closed, 130, stderr);
    assert.match(stderr, /interrupted/);
    assert.deepEqual(await leftBehind(dir), []);
  });
});

describe('replay --check, and several sessions at once (for CI)', function () {
  this.timeout(180_000);

  it('exit 1 when a call differs or depends on timing, 0 when none does, 2 on a usage error', async () => {
    const differing = await replay([interactiveFixture, '--hook', `${node} ${JSON.stringify(pollHook)}`, '--tool', 'Read', '--check']);
    assert.equal(differing.code, 1, differing.err);
    assert.match(differing.err, /--check: 1 of 1 call decided differently live, or depending on timing/);
    const same = await replay([interactiveFixture, '--hook', 'exit 0', '--check', '--json']);
    assert.equal(same.code, 0, same.err);
    assert.equal(same.summary!.differs, 0);
    assert.equal((await replay([interactiveFixture, '--check'])).code, 2);
    // Nothing checked is no pass: no call replayed, or runs that ended in an error.
    const none = await replay([interactiveFixture, '--hook', 'exit 0', '--tool', 'NoSuchTool', '--check']);
    assert.equal(none.code, 1);
    assert.match(none.err, /no call was replayed/);
    const broken = await replay([interactiveFixture, '--hook', 'exit 3', '--check']);
    assert.equal(broken.code, 1);
    assert.match(broken.err, /2 call\(s\) had a run that ended in an error or a timeout/);
    assert.equal((await replay(['--hook', 'true', '--check'])).code, 2);
  });

  it('a folder: every session in it and one level down (not a session\'s own subagents folder), one summary; a bad one fails the run', async () => {
    const root = tempDir('tl-replay-many-');
    const project = path.join(root, 'projects', '-w');
    fs.mkdirSync(path.join(project, 'one', 'subagents'), { recursive: true });
    fs.copyFileSync(interactiveFixture, path.join(project, 'one.jsonl'));
    fs.copyFileSync(forkParentFixture, path.join(project, 'two.jsonl'));
    // A subagent's transcript is its session's, found by the replay of that session, not a session of its own.
    fs.writeFileSync(path.join(project, 'one', 'subagents', 'agent-x.jsonl'), '');
    const r = await replay([path.join(root, 'projects'), '--hook', 'exit 0', '--json']);
    assert.equal(r.code, 0, r.err);
    const lines = r.out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { transcript?: string; event?: string; sessions?: number; calls?: number });
    assert.deepEqual([...new Set(lines.filter((l) => l.transcript).map((l) => path.basename(l.transcript!)))], ['one.jsonl', 'two.jsonl']);
    assert.deepEqual([lines.at(-1)!.event, lines.at(-1)!.sessions, lines.at(-1)!.calls], ['summary', 2, lines.length - 1]);
    // Plain: each session under its name, with its own sentence.
    const plain = await replay([path.join(project, 'one.jsonl'), path.join(project, 'two.jsonl'), '--hook', 'exit 0']);
    assert.equal(plain.out.match(/^== /gm)?.length, 2);
    assert.equal(plain.out.match(/^decided the same/gm)?.length, 2);
    // A session named that is not there: said, the others replayed, exit 1.
    const bad = await replay([path.join(project, 'one.jsonl'), path.join(project, 'bad.jsonl'), '--hook', 'exit 0', '--json']);
    assert.equal(bad.code, 1);
    assert.match(bad.err, /bad\.jsonl/);
    assert.ok(bad.calls.length > 0);
    assert.equal((await replay([tempDir('tl-replay-empty-'), '--hook', 'exit 0'])).code, 1);
  });
});
