import * as assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { generateTranscript } from '../../../../bench/lib/generateTranscript';
import { fixturesDir } from '../../helpers/fixtures';

/**
 * Issue 31 item 3, "Done when": copying the field table's `requestedModel` line with the key changed to `requestRef`
 * (the only edit), and building with no clang on PATH, makes every call of `analyze --json` and every `written` event
 * of `watch --json` carry `record.requestRef` equal to its record's.
 *
 * Done as written, on a copy of the repo's sources: the one line added to src/core/scanner/fieldTable.ts, then
 * `node scripts/build.mjs` (what `npm run build` runs) with a PATH that holds `node` alone, then the built CLI on
 * transcripts whose assistant records carry `requestRef`: the real ones of Claude Code 2.1.332 and a generated one
 * (bench/lib/generateTranscript.ts, a fresh id on every assistant record) whose lines cover every scan path
 * (analyze's capture and tokenizer, the live engine's JSON.parse and tokenizer).
 */

const repo = path.resolve(__dirname, '../../../..');
const TABLE = 'src/core/scanner/fieldTable.ts';

/** Per line of `file` (1-based), the requestRef each call of that line must carry: its record's (cut to 512), or absent. */
function expectedRefs(file: string): Map<string, { line: number; requestRef: string | undefined }> {
  const calls = new Map<string, { line: number; requestRef: string | undefined }>();
  fs.readFileSync(file, 'utf8')
    .split('\n')
    .forEach((text, i) => {
      if (text === '') return;
      const rec = JSON.parse(text) as Record<string, any>;
      const content = Array.isArray(rec.message?.content) ? rec.message.content : [];
      for (const block of content) {
        if (block?.type !== 'tool_use' || typeof block.id !== 'string' || calls.has(block.id)) continue;
        calls.set(block.id, { line: i + 1, requestRef: typeof rec.requestRef === 'string' ? rec.requestRef.slice(0, 512) : undefined });
      }
    });
  return calls;
}

/** Is `name` an executable in a folder of `pathVar`? */
function onPath(name: string, pathVar: string): boolean {
  return pathVar.split(path.delimiter).some((dir) => {
    try {
      fs.accessSync(path.join(dir, name), fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

describe('the field table: a copied line is a new per-call field, built with no clang on PATH (issue 31, item 3)', function () {
  this.timeout(240_000);
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let cli: string;
  let generated: string;
  const transcripts: string[] = [];
  let watcher: ChildProcess | undefined;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-newfield-'));
    const copy = path.join(dir, 'repo');
    for (const entry of ['src', 'scripts', 'package.json', 'tsconfig.json']) fs.cpSync(path.join(repo, entry), path.join(copy, entry), { recursive: true });
    fs.symlinkSync(fs.realpathSync(path.join(repo, 'node_modules')), path.join(copy, 'node_modules'), 'dir');

    // The only edit: the requestedModel line, copied, with its key changed.
    const before = fs.readFileSync(path.join(copy, TABLE), 'utf8').split('\n');
    const at = before.filter((l) => l.includes("key: 'requestedModel'"));
    assert.equal(at.length, 1, 'one requestedModel line in the table');
    const after = before.flatMap((l) => (l === at[0] ? [l, l.replace("'requestedModel'", "'requestRef'")] : [l]));
    assert.equal(after.length, before.length + 1);
    fs.writeFileSync(path.join(copy, TABLE), after.join('\n'));

    // A PATH with node alone: no clang, no wasm-ld, no C compiler at all.
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    fs.symlinkSync(process.execPath, path.join(bin, 'node'));
    env = { PATH: bin, HOME: dir, TMPDIR: os.tmpdir() };
    for (const tool of ['clang', 'wasm-ld', 'cc', 'gcc']) assert.ok(!onPath(tool, env.PATH!), `${tool} on PATH`);
    const build = spawnSync('node', ['scripts/build.mjs'], { cwd: copy, env, encoding: 'utf8' });
    assert.equal(build.status, 0, `build: ${build.stderr}${build.stdout}`);
    cli = path.join(copy, 'dist/cli.js');

    // A fresh requestRef on every assistant record, lines from a few hundred bytes to hundreds of KiB.
    generated = path.join(dir, 'generated.jsonl');
    generateTranscript({ path: generated, sizeBytes: 3 * 1024 * 1024, seed: 31 });
    transcripts.push(generated);
    for (const name of ['print-single-0', 'interactive-parallel-2000', 'print-fork']) {
      const d = path.join(fixturesDir, 'real', name);
      for (const f of fs.readdirSync(d).filter((f) => f.endsWith('.jsonl'))) transcripts.push(path.join(d, f));
    }
  });

  after(() => {
    watcher?.kill('SIGKILL');
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('analyze --json: every call carries record.requestRef equal to its record\'s (and record.requestedModel as before)', () => {
    let checked = 0;
    for (const file of transcripts) {
      const run = spawnSync('node', [cli, 'analyze', file, '--json'], { env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      assert.equal(run.status, 0, run.stderr);
      const analysis = JSON.parse(run.stdout) as { calls: Array<{ tool_use_id: string; line: number; record: Record<string, unknown> }> };
      const expected = expectedRefs(file);
      assert.ok(analysis.calls.length > 0, file);
      for (const call of analysis.calls) {
        const want = expected.get(call.tool_use_id);
        assert.ok(want, `${file}: ${call.tool_use_id}`);
        assert.equal(call.line, want.line);
        assert.equal(typeof want.requestRef, 'string', `${file}: line ${call.line} carries a requestRef`);
        assert.equal(call.record.requestRef, want.requestRef, `${file}: ${call.tool_use_id}`);
        assert.equal(typeof call.record.requestedModel, 'string');
        checked++;
      }
    }
    // The generated transcript alone has dozens of calls, each with its own id.
    assert.ok(checked > 40, `${checked} calls`);
  });

  it("watch --json: every written event carries record.requestRef equal to its record's", async () => {
    const claudeDir = path.join(dir, 'claude');
    const project = path.join(claudeDir, 'projects', '-work-newfield');
    fs.mkdirSync(project, { recursive: true });
    const lines: Record<string, unknown>[] = [];
    watcher = spawn('node', [cli, 'watch', '--json', '--all', '--claude-dir', claudeDir, '--poll-ms', '50'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let buffered = '';
    let stderr = '';
    watcher.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const waiters: Array<() => void> = [];
    watcher.stdout!.on('data', (d: Buffer) => {
      buffered += d.toString();
      const parts = buffered.split('\n');
      buffered = parts.pop()!;
      for (const p of parts) if (p) lines.push(JSON.parse(p) as Record<string, unknown>);
      for (const w of waiters.splice(0)) w();
    });
    const until = async (test: () => boolean, what: string) => {
      const deadline = Date.now() + 120_000;
      while (!test()) {
        if (Date.now() > deadline || watcher!.exitCode !== null) assert.fail(`waiting for ${what}: ${stderr}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    };
    await until(() => lines.some((l) => l.event === 'ready'), 'ready');

    // Written after ready, in a few appends each: every line is live, so every call of the session's own has its written event.
    // By transcript and id: the real sessions reuse their ids.
    const expected = new Map<string, { line: number; requestRef: string | undefined }>();
    for (const source of transcripts.filter((f) => !f.includes('print-fork'))) {
      const target = path.join(project, path.basename(source) === 'generated.jsonl' ? '0b0c1d2e-0000-4000-8000-000000000031.jsonl' : path.basename(source));
      for (const [id, want] of expectedRefs(source)) expected.set(`${target} ${id}`, want);
      const data = fs.readFileSync(source);
      const cuts = [0, Math.floor(data.length / 3), Math.floor((2 * data.length) / 3), data.length];
      for (let i = 0; i + 1 < cuts.length; i++) fs.appendFileSync(target, data.subarray(cuts[i], cuts[i + 1]));
    }
    assert.ok(expected.size > 40, `${expected.size} calls`);
    const written = () => lines.filter((l) => l.event === 'written') as Array<{ tool_use_id: string; transcript_path: string; line: number; record: Record<string, unknown> }>;
    await until(() => written().length >= expected.size, `${expected.size} written events`);
    watcher.kill('SIGTERM');

    assert.deepEqual(new Set(written().map((w) => `${w.transcript_path} ${w.tool_use_id}`)), new Set(expected.keys()));
    for (const w of written()) {
      const want = expected.get(`${w.transcript_path} ${w.tool_use_id}`)!;
      assert.equal(w.line, want.line, w.tool_use_id);
      assert.equal(typeof want.requestRef, 'string');
      assert.equal(w.record.requestRef, want.requestRef, w.tool_use_id);
      assert.equal(typeof w.record.requestedModel, 'string');
    }
  });
});

describe('the field table: per-call lines of the message, of numbers and of booleans read alike on every scan path (a copy of the sources)', function () {
  this.timeout(120_000);
  const added = [
    "  { key: 'model', in: 'message', as: 'string', cap: 8, perCall: true },",
    "  { key: 'ttftMs', in: 'root', as: 'number', perCall: true },",
    "  { key: 'isApiErrorMessage', in: 'root', as: 'boolean', perCall: true },",
  ];
  let dir: string;
  let driver: string;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-newfields-'));
    fs.cpSync(path.join(repo, 'src'), path.join(dir, 'src'), { recursive: true });
    const table = fs.readFileSync(path.join(dir, TABLE), 'utf8').split('\n');
    const at = table.findIndex((l) => l.includes("key: 'requestedModel'"));
    table.splice(at + 1, 0, ...added);
    fs.writeFileSync(path.join(dir, TABLE), table.join('\n'));
    // Each line by the live engine's JSON.parse and tokenizer paths and by analyze's capture (a line past 64 KiB: its tokenizer).
    fs.writeFileSync(
      path.join(dir, 'driver.ts'),
      [
        "import * as fs from 'node:fs';",
        "import { scanLine } from './src/core/scanner';",
        "import { createCaptureScanner } from './src/core/analyze/capture/captureScanner';",
        'const lines = JSON.parse(fs.readFileSync(process.argv[2]!, "utf8")) as string[];',
        'const perCall = (r: any) => (r.kind === "record" ? r.perCall ?? null : r.reason);',
        'const capture = createCaptureScanner({});',
        'console.log(JSON.stringify(lines.map((l) => [scanLine(l, { streamThreshold: 1e9 }), scanLine(l, { streamThreshold: 0 }), scanLine(l, capture)].map(perCall))));',
      ].join('\n'),
    );
    driver = path.join(dir, 'driver.cjs');
    const esbuild = await import('esbuild');
    await esbuild.build({ entryPoints: [path.join(dir, 'driver.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: driver, logLevel: 'silent' });
  });

  after(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('under perCall in table order: cut to the cap, absent for another JSON type, a message replaced by a later one takes its fields along', () => {
    const use = (id: string) => `{"type":"tool_use","id":"${id}","name":"Bash","model":"block's"}`;
    const pad = 'x'.repeat(70_000);
    const cases: Array<[string, Record<string, unknown> | null]> = [
      [
        `{"type":"assistant","model":"root's","ttftMs":12.5,"isApiErrorMessage":false,"requestedModel":"m","message":{"model":"claude-opus-5-5","id":"x","content":[${use('t1')}]}}`,
        { requestedModel: 'm', model: 'claude-o', ttftMs: 12.5, isApiErrorMessage: false },
      ],
      [`{"type":"assistant","message":{"model":"a","content":[${use('t2')}]},"message":{"content":[${use('t3')}]},"ttftMs":1,"ttftMs":-2e3}`, { ttftMs: -2000 }],
      [`{"type":"assistant","ttftMs":"12","isApiErrorMessage":1,"requestedModel":7,"message":{"model":null,"content":[${use('t4')}]}}`, null],
      [`{"type":"assistant","ttftMs":3,"message":{"model":"text only","content":[{"type":"text","text":"hi"}]}}`, null],
      [`{"pad":"${pad}","type":"assistant","isApiErrorMessage":true,"message":{"pad":"${pad}","model":"\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9","content":[${use('t5')}]}}`, { model: 'é'.repeat(8), isApiErrorMessage: true }],
    ];
    const input = path.join(dir, 'lines.json');
    fs.writeFileSync(input, JSON.stringify(cases.map(([line]) => line)));
    const run = spawnSync(process.execPath, [driver, input], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
    assert.equal(run.status, 0, run.stderr);
    const results = JSON.parse(run.stdout) as unknown[][];
    cases.forEach(([line, expected], i) => {
      for (const got of results[i]!) {
        assert.deepEqual(got, expected, line.slice(0, 200));
        if (expected !== null) assert.deepEqual(Object.keys(got as object), Object.keys(expected), 'table order');
      }
    });
  });
});
