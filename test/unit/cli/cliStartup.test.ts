import * as assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { run } from '../../../src/cli/analyze';
import { fixturesDir } from '../helpers/fixtures';
import { capturingIo } from '../helpers/capturingIo';

// The built CLI loads a subcommand's bundle only when it runs, and analyze loads
// the channel reader (zod) only with --channel (scripts/build.mjs). What a run
// loaded is read from the child's require.cache at exit; what each loaded bundle
// holds, from the `sources` of its source map (`npm run build` writes them; not for dist/cli-message.js,
// built minified without one, as the plugin's committed copy of it is).

const cli = path.resolve(__dirname, '../../../dist/cli.js');
const realDir = path.join(fixturesDir, 'real', 'interactive-parallel-2000');
const transcript = path.join(realDir, fs.readdirSync(realDir).find((f) => f.endsWith('.jsonl'))!);
const dependencies = /node_modules\/(zod|chokidar|readdirp|jsonc-parser)\//;

interface BuiltRun {
  status: number | null;
  stdout: string;
  stderr: string;
  /** Every source file bundled into the modules the run loaded, as its source maps name them. */
  sources: string[];
  /** The bundles of dist/ the run loaded, by file name. */
  bundles: string[];
}

function runBuilt(tmp: string, args: string[], input?: string): BuiltRun {
  const preload = path.join(tmp, 'listLoaded.cjs');
  const listing = path.join(tmp, 'loaded.json');
  fs.writeFileSync(
    preload,
    `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(listing)}, JSON.stringify(Object.keys(require.cache))));\n`,
  );
  const res = spawnSync(process.execPath, ['--require', preload, cli, ...args], { encoding: 'utf8', cwd: tmp, input });
  const loaded = (JSON.parse(fs.readFileSync(listing, 'utf8')) as string[]).filter((f) => path.dirname(f) === path.dirname(cli));
  assert.ok(loaded.includes(cli), `dist/cli.js itself among ${loaded.join(', ')}`);
  const sources = loaded.flatMap((file) => {
    if (path.basename(file) === 'cli-message.js') return [];
    const map = JSON.parse(fs.readFileSync(`${file}.map`, 'utf8')) as { sources: string[] };
    return map.sources;
  });
  return { status: res.status, stdout: res.stdout, stderr: res.stderr, sources, bundles: loaded.map((f) => path.basename(f)).sort() };
}

/** How long the watch spec waits for the session: under the test's own timeout (20 s here, 30 s in the Windows lane). */
const SESSION_WAIT_MS = 15_000;

/** Ends a child and waits for it: on Windows its working folder cannot be removed while it runs. */
async function stopped(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill();
  await exited;
}

describe('CLI: start-up loads only what the command needs', () => {
  let tmp: string;
  beforeEach(function () {
    // Needs `npm run build`'s output; `npm run package` builds minified without source maps.
    if (!fs.existsSync(cli) || !fs.readFileSync(cli, 'utf8').includes('//# sourceMappingURL=cli.js.map')) this.skip();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-cli-startup-'));
  });
  afterEach(() => {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('--help loads no subcommand', () => {
    const built = runBuilt(tmp, ['--help']);
    assert.equal(built.status, 0, built.stderr);
    assert.match(built.stdout, /analyze FILE/);
    assert.ok(built.sources.some((s) => s.endsWith('src/cli/main.ts')), built.sources.join('\n'));
    const subcommands = built.sources.filter((s) => /src\/cli\/(analyze|watch|installHook)\.ts$/.test(s));
    assert.deepEqual(subcommands, []);
    assert.deepEqual(built.sources.filter((s) => dependencies.test(s)), []);
  });

  it('analyze without --channel loads neither zod, chokidar nor jsonc-parser, and prints what the sources print', async () => {
    const built = runBuilt(tmp, ['analyze', transcript, '--json']);
    assert.equal(built.status, 0, built.stderr);
    assert.ok(built.sources.some((s) => s.endsWith('src/core/analyze/index.ts')), built.sources.join('\n'));
    assert.deepEqual(built.sources.filter((s) => dependencies.test(s)), []);
    assert.deepEqual(built.sources.filter((s) => s.includes('src/core/channel/schema.ts')), []);
    const inProcess = capturingIo(tmp);
    assert.equal(await run([transcript, '--json'], inProcess.io), 0);
    assert.deepEqual(JSON.parse(built.stdout), JSON.parse(inProcess.out()));
  });

  it('analyze --channel loads the channel reader with its zod schema and joins the waits as the sources do', async () => {
    const ev = { v: 1, at: 5, session_id: 's', transcript_path: '/x.jsonl', tool_use_id: 'toolu_field001r', event: 'wait', outcome: 'behind', polls: 50, waited_ms: 5000, bytes_on_disk: 10 };
    fs.writeFileSync(path.join(tmp, 'c.jsonl'), `${JSON.stringify(ev)}\n{"v":1,"event":"pre"}\n`);
    const built = runBuilt(tmp, ['analyze', transcript, '--json', '--channel', 'c.jsonl']);
    assert.equal(built.status, 0, built.stderr);
    assert.ok(built.sources.some((s) => s.includes('src/core/channel/schema.ts')), built.sources.join('\n'));
    assert.ok(built.sources.some((s) => s.includes('node_modules/zod/')), built.sources.join('\n'));
    const printed = JSON.parse(built.stdout);
    assert.deepEqual(printed.waits, { seen: 0, behind: 1, error: 0, unmatched: 0 });
    const inProcess = capturingIo(tmp);
    assert.equal(await run([transcript, '--json', '--channel', 'c.jsonl'], inProcess.io), 0);
    assert.deepEqual(printed, JSON.parse(inProcess.out()));
  });

  it('message loads its own node:-only bundle, nothing else, and answers as the bundle run on its own does', () => {
    const projectDir = path.join(tmp, 'claude', 'projects', '-w');
    fs.mkdirSync(projectDir, { recursive: true });
    const session = '0be55a9e-1111-4222-8333-0123456789ab';
    const file = path.join(projectDir, `${session}.jsonl`);
    const record = (uuid: string, block: object) => JSON.stringify({ type: 'assistant', uuid, message: { id: 'msg_1', role: 'assistant', content: [block] } });
    fs.writeFileSync(file, `${record('a1', { type: 'text', text: 'Plan.' })}\n${record('a2', { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: {} })}\n`);
    const input = JSON.stringify({ session_id: session, transcript_path: file, hook_event_name: 'PreToolUse', tool_use_id: 'toolu_1' });
    const built = runBuilt(tmp, ['message', '--json'], input);
    assert.equal(built.status, 0, built.stderr);
    assert.deepEqual(JSON.parse(built.stdout), { tool_use_id: 'toolu_1', text: 'Plan.', text_blocks: ['Plan.'], source: 'transcript', reason: null, mod: false });
    assert.deepEqual(built.bundles, ['cli-message.js', 'cli.js']);
    assert.deepEqual(built.sources.filter((s) => dependencies.test(s) || /src\/cli\/(analyze|watch|installHook|statusline)\.ts$/.test(s) || s.endsWith('src/vscode/engineModule.ts')), []);
    const requires = [...fs.readFileSync(path.join(path.dirname(cli), 'cli-message.js'), 'utf8').matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]);
    assert.deepEqual([...new Set(requires)].filter((r) => !r.startsWith('node:')), [], 'node: modules only');
    const alone = spawnSync(process.execPath, [path.join(path.dirname(cli), 'cli-message.js'), '--json'], { encoding: 'utf8', input });
    assert.deepEqual({ status: alone.status, stdout: alone.stdout }, { status: 0, stdout: built.stdout });
  });

  // The VSIX ships the CLI beside the extension's engine bundle: watch and install-hook take
  // the engine, chokidar and the hook installer from dist/engine.js (scripts/build.mjs).
  it('install-hook and uninstall-hook run the installer of dist/engine.js', () => {
    const claudeDir = path.join(tmp, 'claude');
    const installed = runBuilt(tmp, ['install-hook', '--claude-dir', claudeDir]);
    assert.equal(installed.status, 0, installed.stderr);
    assert.ok(installed.sources.some((s) => s.endsWith('src/vscode/engineModule.ts')), installed.sources.join('\n'));
    const settings = JSON.parse(fs.readFileSync(path.join(claudeDir, 'settings.json'), 'utf8')) as { hooks: Record<string, unknown[]> };
    assert.equal(settings.hooks.PreToolUse?.length, 1);
    const removed = runBuilt(tmp, ['uninstall-hook', '--claude-dir', claudeDir]);
    assert.equal(removed.status, 0, removed.stderr);
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(claudeDir, 'settings.json'), 'utf8')).hooks ?? {}, {});
  });

  it('watch runs the engine of dist/engine.js on a session', async () => {
    const claudeDir = path.join(tmp, 'claude');
    const projectDir = path.join(claudeDir, 'projects', '-work-demo');
    fs.mkdirSync(projectDir, { recursive: true });
    // Written, not copied: watch follows only sessions written to in the last 30 minutes, and on
    // Windows a copy keeps the fixture's own mtime (CopyFileW), from whenever it was checked out.
    fs.writeFileSync(path.join(projectDir, path.basename(transcript)), fs.readFileSync(transcript));
    const child = spawn(process.execPath, [cli, 'watch', '--all', '--json', '--claude-dir', claudeDir], { cwd: tmp, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      // `ready` comes first (where history ends is fixed), then the session once its history is indexed.
      const firstLine = await new Promise<string>((resolve, reject) => {
        let out = '';
        let err = '';
        // Bounded below the test's timeout, so a failure says what watch printed and the child is still stopped.
        const timer = setTimeout(() => reject(new Error(`no session from watch within ${SESSION_WAIT_MS} ms; stdout: ${out.slice(0, 2000)} stderr: ${err.slice(0, 2000)}`)), SESSION_WAIT_MS);
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const session = out.split('\n').find((l) => l.includes('"event":"session"'));
          if (session) {
            clearTimeout(timer);
            resolve(session);
          }
        });
        child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
        child.once('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`watch exited ${code} before printing: ${err}`));
        });
      });
      const event = JSON.parse(firstLine) as { event: string; session_id: string };
      assert.equal(event.event, 'session');
      assert.equal(event.session_id, path.basename(transcript, '.jsonl'));
    } finally {
      await stopped(child);
    }
  });

  it('watch of dist/ serves the http hooks on the receiver\'s own thread, and keeps running while it starts', async () => {
    const claudeDir = path.join(tmp, 'claude-http');
    // The session's project folder: the receiver takes only transcripts under projects/.
    fs.mkdirSync(path.join(claudeDir, 'projects', '-w'), { recursive: true });
    const net = await import('node:net');
    const port = await new Promise<number>((resolve) => {
      const srv = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as import('node:net').AddressInfo).port;
        srv.close(() => resolve(p));
      });
    });
    assert.equal(spawnSync(process.execPath, [cli, 'install-hook', '--http', '--port', String(port), '--claude-dir', claudeDir], { encoding: 'utf8' }).status, 0);
    const secret = JSON.parse(fs.readFileSync(path.join(claudeDir, 'transcript-lag', 'http.json'), 'utf8')).secret as string;
    const child = spawn(process.execPath, [cli, 'watch', '--all', '--json', '--claude-dir', claudeDir], { cwd: tmp, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      await new Promise<void>((resolve, reject) => {
        let err = '';
        child.stderr.on('data', (chunk: Buffer) => {
          err += chunk.toString();
          if (err.includes(`receiving on 127.0.0.1:${port}`)) resolve();
        });
        child.once('exit', (code) => reject(new Error(`watch exited ${code} while its receiver started: ${err}`)));
      });
      const http = await import('node:http');
      const status = await new Promise<number>((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port, path: '/hook', method: 'POST', headers: { 'X-Transcript-Lag-Secret': secret } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end(JSON.stringify({ session_id: 's-http', transcript_path: path.join(claudeDir, 'projects', '-w', 's-http.jsonl'), hook_event_name: 'PreToolUse', tool_use_id: 'toolu_dist' }));
      });
      assert.equal(status, 200);
      assert.match(fs.readFileSync(path.join(claudeDir, 'transcript-lag', 's-http.jsonl'), 'utf8'), /"transport":"http"/);
    } finally {
      await stopped(child);
    }
  });
});

