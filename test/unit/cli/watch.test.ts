import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import fs, { promises as fsp } from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import { runInstall } from '../../../src/cli/installHook';
import type { CliIo } from '../../../src/cli/io';
import { jsonLine, readableLine, run } from '../../../src/cli/watch';
import type { EngineEvent } from '../../../src/core/engineEvents';
import { TranscriptLagEngine } from '../../../src/core/engine';
import type { FileAccess } from '../../../src/core/fileAccess';
import { nodeFileAccess } from '../../../src/platform/nodeFileAccess';
import { ClaudeDirFixture, preLine, toolResultRecord, toolUseRecord, userPrompt } from '../helpers/engineFixture';
import { FaultyFileAccess } from '../helpers/faultyFileAccess';
import { GatedFileAccess } from '../helpers/gatedFileAccess';

const S = 'e0000000-0000-4000-8000-000000000005';
const isReadyObj = (o: Record<string, unknown>) => o.event === 'ready';

/** A CliIo that captures output and lets the test wait for a line, and stop the command. */
function capturingIo(cwd: string, env: NodeJS.ProcessEnv = {}, files: FileAccess = nodeFileAccess) {
  const out: string[] = [];
  const err: string[] = [];
  let waiters: { test: (lines: string[]) => boolean; resolve: () => void }[] = [];
  let stop!: () => void;
  const stopSignal = new Promise<void>((resolve) => (stop = resolve));
  const check = () => {
    waiters = waiters.filter((w) => (w.test(out) ? (w.resolve(), false) : true));
  };
  const io: CliIo = {
    stdout: (t) => {
      out.push(...t.split('\n').filter(Boolean));
      check();
    },
    stderr: (t) => void err.push(t),
    env,
    homedir: '/nonexistent-home',
    cwd,
    clock: { now: () => Date.now() },
    files,
    stopSignal,
  };
  const until = (test: (lines: string[]) => boolean) =>
    new Promise<void>((resolve) => {
      waiters.push({ test, resolve });
      check();
    });
  return { io, out, err, stop, until };
}

describe('watch CLI', () => {
  let fx: ClaudeDirFixture;
  /** The running command; stopped in afterEach too, so a failing test never leaves a watcher open. */
  let running: { stop: () => void; done: Promise<number> } | undefined;
  beforeEach(async () => {
    fx = await ClaudeDirFixture.create();
  });
  afterEach(async () => {
    running?.stop();
    await running?.done;
    running = undefined;
    await fx.remove();
  });

  it('--json: one object per line; a held call is held before written, with its lag', async () => {
    const t = fx.transcriptPath(S);
    await fx.append(t, [userPrompt(S, fx.workspace)]);
    const c = capturingIo(fx.workspace);
    const done = run(['--json', '--claude-dir', fx.claudeDir, '--poll-ms', '20'], c.io);
    running = { stop: c.stop, done };
    await c.until((lines) => lines.some((l) => JSON.parse(l).event === 'session'));

    await fx.append(fx.channelPath(S), [preLine(S, t, 'toolu_w1', Date.now())]);
    await c.until((lines) => lines.some((l) => JSON.parse(l).event === 'held'));
    await fx.append(t, [toolUseRecord(S, fx.workspace, 'toolu_w1', { requestedModel: 'claude-opus-5-5' })]);
    await c.until((lines) => lines.some((l) => JSON.parse(l).event === 'written'));
    c.stop();
    assert.equal(await done, 0);

    const objs = c.out.map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal(objs[0].event, 'ready');
    for (const o of objs.slice(1)) {
      assert.equal(typeof o.event, 'string');
      assert.equal(o.session_id, S);
      assert.ok('tool_use_id' in o);
      assert.equal(typeof o.at, 'number');
    }
    const call = objs.filter((o) => o.tool_use_id === 'toolu_w1').map((o) => o.event);
    assert.deepEqual(call.slice(0, 2), ['held', 'written']);
    const written = objs.find((o) => o.event === 'written');
    assert.equal(written?.line, 2);
    assert.equal(written?.with_result, false);
    assert.ok(typeof written?.lag_ms === 'number' && written.lag_ms >= 0);
    // The field table's per-call fields, under `record`.
    assert.deepEqual(written?.record, { requestedModel: 'claude-opus-5-5' });
  });

  it('keeps what it measured in the channel: an engine started later (watch again, a window), finding the record on disk, reads the lag back', async () => {
    const t = fx.transcriptPath(S);
    await fx.append(t, [userPrompt(S, fx.workspace)]);
    const c = capturingIo(fx.workspace);
    const done = run(['--json', '--claude-dir', fx.claudeDir, '--poll-ms', '20'], c.io);
    running = { stop: c.stop, done };
    await c.until((lines) => lines.some((l) => JSON.parse(l).event === 'session'));
    await fx.append(fx.channelPath(S), [preLine(S, t, 'toolu_kept', Date.now())]);
    await c.until((lines) => lines.some((l) => JSON.parse(l).event === 'held'));
    await fx.append(t, [toolUseRecord(S, fx.workspace, 'toolu_kept')]);
    await c.until((lines) => lines.some((l) => JSON.parse(l).event === 'written'));
    const written = c.out.map((l) => JSON.parse(l) as Record<string, unknown>).find((o) => o.event === 'written')!;
    // Kept at the end of the poll that read it: wait for the line, bounded by the test's timeout.
    const kept = () => fs.readFileSync(fx.channelPath(S), 'utf8').split('\n').filter((l) => l.includes('"event":"measured"'));
    while (kept().length === 0) await new Promise((r) => setTimeout(r, 20));
    c.stop();
    assert.equal(await done, 0);
    const line = JSON.parse(kept()[0]!) as Record<string, unknown>;
    assert.deepEqual([line.tool_use_id, line.lag_ms, line.shape, line.at], ['toolu_kept', written.lag_ms, 'before_result', written.at]);

    // Read back with the history (as watch started again would: history has no events, so its snapshot says it).
    const again = new TranscriptLagEngine({ claudeDir: fx.claudeDir, workspaceFolders: [fx.workspace], scope: 'workspace', files: nodeFileAccess, clock: { now: () => Date.now() } });
    try {
      await again.start();
      await again.indexed();
      const call = again.session(S)!.recent.find((x) => x.tool_use_id === 'toolu_kept')!;
      assert.deepEqual([call.lag_ms, call.shape, call.read_back], [written.lag_ms, 'before_result', true]);
    } finally {
      await again.dispose();
    }
  });

  it("--json: the mod's spooled events are folded: its call says transport mod, and each live record is a record event born when the mod said", async () => {
    const t = fx.transcriptPath(S);
    await fx.append(t, [userPrompt(S, fx.workspace)]);
    const c = capturingIo(fx.workspace);
    const done = run(['--json', '--claude-dir', fx.claudeDir, '--poll-ms', '20'], c.io);
    running = { stop: c.stop, done };
    await c.until((lines) => lines.some((l) => JSON.parse(l).event === 'session'));
    const spool = path.join(fx.claudeDir, 'transcript-lag', 'spool');
    await fsp.mkdir(spool, { recursive: true });
    const fired = Date.now() - 50;
    const mod = { v: 1, session_id: S, transcript_path: t, source: 'transcript-lag-mod' };
    const record = toolUseRecord(S, fx.workspace, 'toolu_m1') as { uuid: string };
    await fsp.writeFile(path.join(spool, `${S}.0000abcd.00000001.json`), JSON.stringify({ ...mod, event: 'record', at: fired - 5, uuid: record.uuid, record_type: 'assistant', tool_use_ids: ['toolu_m1'] }));
    await fsp.writeFile(path.join(spool, `${S}.0000abcd.00000002.json`), JSON.stringify({ ...mod, event: 'pre', at: fired, tool_use_id: 'toolu_m1', tool_name: 'Bash', transport: 'mod' }));
    await c.until((lines) => lines.some((l) => JSON.parse(l).event === 'held'));
    await fx.append(t, [record]);
    await c.until((lines) => lines.some((l) => JSON.parse(l).event === 'record'));
    c.stop();
    assert.equal(await done, 0);
    const objs = c.out.map((l) => JSON.parse(l) as Record<string, unknown>);
    const held = objs.find((o) => o.event === 'held');
    assert.deepEqual([held?.tool_use_id, held?.transport, held?.at], ['toolu_m1', 'mod', fired]);
    const written = objs.find((o) => o.event === 'written');
    assert.deepEqual([written?.transport, written?.fired_at], ['mod', fired]);
    const rec = objs.find((o) => o.event === 'record')!;
    assert.deepEqual(Object.keys(rec), ['event', 'session_id', 'tool_use_id', 'at', 'transcript_path', 'uuid', 'type', 'line', 'born_at', 'born_from', 'written_at', 'lag_ms']);
    assert.deepEqual([rec.uuid, rec.type, rec.line, rec.born_at, rec.born_from, rec.tool_use_id], [record.uuid, 'assistant', 2, fired - 5, 'mod', null]);
    assert.equal(rec.lag_ms, (rec.written_at as number) - (fired - 5));
    assert.deepEqual(await fsp.readdir(spool), []);
  });

  it('--json: ready comes before the history is indexed, and every record appended after it is an event', async () => {
    const t = fx.transcriptPath(S);
    await fx.append(t, [userPrompt(S, fx.workspace), toolUseRecord(S, fx.workspace, 'toolu_hist'), toolResultRecord(S, fx.workspace, 'toolu_hist')]);
    const historyBytes = (await fsp.stat(t)).size;
    // Every read of the transcript waits at the gate until released: indexing its history cannot finish before.
    const gate = new GatedFileAccess((p) => p === t, 0);
    const c = capturingIo(fx.workspace, {}, gate);
    const done = run(['--json', '--claude-dir', fx.claudeDir, '--poll-ms', '20'], c.io);
    running = { stop: () => (gate.release(), c.stop()), done };
    const isReady = (l: string) => JSON.parse(l).event === 'ready';
    // ready waits for the file watcher's first scan (ms here), never for the history held at the gate.
    const outcome = await Promise.race([
      c.until((lines) => lines.some(isReady)).then(() => 'ready'),
      gate.reachedGate.then(() => new Promise((r) => setTimeout(r, 3000))).then(() => 'stuck'),
    ]);
    assert.equal(outcome, 'ready', 'ready waited for the history to be indexed');
    assert.equal(gate.readEnds.get(t) ?? 0, 0, 'no byte of the history indexed yet');
    const ready = JSON.parse(c.out[0]) as Record<string, unknown>;
    assert.deepEqual([ready.event, ready.session_id, ready.tool_use_id, ready.files, ready.history_bytes], ['ready', null, null, 1, historyBytes]);
    assert.equal(typeof ready.at, 'number');

    const fired = Date.now();
    await fx.append(fx.channelPath(S), [preLine(S, t, 'toolu_a1', fired)]);
    await fx.append(t, [toolUseRecord(S, fx.workspace, 'toolu_a1')]);
    await fx.append(t, [toolUseRecord(S, fx.workspace, 'toolu_a2'), toolResultRecord(S, fx.workspace, 'toolu_a2')]);
    await fx.append(t, [toolUseRecord(S, fx.workspace, 'toolu_a3')]);
    gate.release();
    const written = (id: string) => (lines: string[]) => lines.some((l) => JSON.parse(l).event === 'written' && JSON.parse(l).tool_use_id === id);
    await c.until(written('toolu_a1'));
    await c.until(written('toolu_a2'));
    await c.until(written('toolu_a3'));
    running.stop();
    assert.equal(await done, 0);

    const objs = c.out.map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal(objs.filter(isReadyObj).length, 1);
    const seq = (id: string) => objs.filter((o) => o.tool_use_id === id).map((o) => o.event);
    assert.deepEqual(seq('toolu_hist'), [], 'history: no call events');
    assert.deepEqual(seq('toolu_a1'), ['held', 'written']);
    assert.deepEqual(seq('toolu_a2'), ['written', 'result']);
    assert.deepEqual(seq('toolu_a3'), ['written']);
    const a1 = objs.find((o) => o.event === 'written' && o.tool_use_id === 'toolu_a1');
    assert.deepEqual([a1?.line, a1?.fired_at], [4, fired]);
    assert.ok(typeof a1?.lag_ms === 'number' && a1.lag_ms >= 0);
  });

  it('follows the Claude dir named by $CLAUDE_CONFIG_DIR, with a readable line per event', async () => {
    const t = fx.transcriptPath(S);
    await fx.append(t, [userPrompt(S, fx.workspace)]);
    const c = capturingIo(fx.workspace, { CLAUDE_CONFIG_DIR: fx.claudeDir });
    const done = run(['--poll-ms', '20'], c.io);
    running = { stop: c.stop, done };
    await c.until((lines) => lines.some((l) => l.includes(' session ')));
    await fx.append(t, [toolUseRecord(S, fx.workspace, 'toolu_r1')]);
    await c.until((lines) => lines.some((l) => / written +Bash/.test(l)));
    c.stop();
    assert.equal(await done, 0);
    const written = c.out.find((l) => / written +Bash/.test(l));
    assert.match(written ?? '', /Bash\s+r1\s+line 2\s+lag no hook\s+before its result/);
    assert.match(c.err.join(''), /watching sessions of/);
  });

  it('starts and shows the workspace session when .git/worktrees holds a FIFO and a /dev/zero link for gitdir', async function () {
    if (process.platform === 'win32') this.skip();
    const admin = path.join(fx.workspace, '.git', 'worktrees');
    await fsp.mkdir(path.join(admin, 'fifo'), { recursive: true });
    await fsp.mkdir(path.join(admin, 'zero'), { recursive: true });
    execFileSync('mkfifo', [path.join(admin, 'fifo', 'gitdir')]);
    await fsp.symlink('/dev/zero', path.join(admin, 'zero', 'gitdir'));
    await fx.append(fx.transcriptPath(S), [userPrompt(S, fx.workspace)]);
    const c = capturingIo(fx.workspace);
    const done = run(['--json', '--claude-dir', fx.claudeDir, '--poll-ms', '20'], c.io);
    running = { stop: c.stop, done };
    await c.until((lines) => lines.some((l) => JSON.parse(l).event === 'session'));
    c.stop();
    assert.equal(await done, 0);
  });

  it('serves the http hooks install-hook --http set up: a POST becomes held, then written with its lag; --metrics counts it', async () => {
    const t = fx.transcriptPath(S);
    await fx.append(t, [userPrompt(S, fx.workspace)]);
    const free = async () => {
      const srv = net.createServer();
      await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
      const port = (srv.address() as net.AddressInfo).port;
      await new Promise<void>((r) => srv.close(() => r()));
      return port;
    };
    const port = await free();
    const metricsPort = await free();
    const installIo = { ...capturingIo(fx.workspace).io, stdout: () => undefined };
    assert.equal(await runInstall(['--http', '--port', String(port), '--claude-dir', fx.claudeDir], installIo), 0);
    const settings = JSON.parse(await fsp.readFile(path.join(fx.claudeDir, 'settings.json'), 'utf8'));
    const hook = settings.hooks.PreToolUse[0].hooks[0];
    assert.deepEqual([hook.type, hook.url, hook.timeout, hook.onFailure], ['http', `http://127.0.0.1:${port}/hook`, 1, 'continue']);

    const c = capturingIo(fx.workspace);
    const done = run(['--json', '--claude-dir', fx.claudeDir, '--poll-ms', '20', '--metrics', String(metricsPort)], c.io);
    running = { stop: c.stop, done };
    await c.until((lines) => lines.some((l) => JSON.parse(l).event === 'session'));
    assert.match(c.err.join(''), new RegExp(`receiving on 127\\.0\\.0\\.1:${port}`));
    // What Claude Code sends: the hook input, with the headers settings.json names.
    const body = JSON.stringify({ session_id: S, transcript_path: t, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: {}, tool_use_id: 'toolu_http1' });
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, path: '/hook', method: 'POST', headers: { 'content-type': 'application/json', ...hook.headers } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end(body);
    });
    assert.equal(status, 200);
    await c.until((lines) => lines.some((l) => JSON.parse(l).event === 'held'));
    await fx.append(t, [toolUseRecord(S, fx.workspace, 'toolu_http1')]);
    await c.until((lines) => lines.some((l) => JSON.parse(l).event === 'written'));
    const written = c.out.map((l) => JSON.parse(l)).find((o) => o.event === 'written');
    assert.equal(written.transport, 'http');
    assert.ok(typeof written.lag_ms === 'number');
    const metrics = await new Promise<string>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port: metricsPort, path: '/metrics' }, (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve(text));
      }).on('error', reject);
    });
    assert.match(metrics, /^transcript_lag_held_seconds_count\{tool="Bash",shape="before_result",transport="http"\} 1$/m);
    assert.match(metrics, /^transcript_lag_calls_total\{shape="before_result",claude_version="unknown"\} 1$/m);
  });

  it('stops with a client holding a request to its receiver open, frees the port, and says nothing about the hooks as it goes', async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(p));
      });
    });
    const installIo = { ...capturingIo(fx.workspace).io, stdout: () => undefined };
    assert.equal(await runInstall(['--http', '--port', String(port), '--claude-dir', fx.claudeDir], installIo), 0);
    const secret = JSON.parse(await fsp.readFile(path.join(fx.claudeDir, 'transcript-lag', 'http.json'), 'utf8')).secret as string;
    const c = capturingIo(fx.workspace);
    const done = run(['--json', '--claude-dir', fx.claudeDir, '--poll-ms', '20'], c.io);
    running = { stop: c.stop, done };
    await c.until(() => c.err.join('').includes(`receiving on 127.0.0.1:${port}`));
    // A request whose body never comes, its head read (the server says 100 Continue).
    const client = net.connect(port, '127.0.0.1');
    client.on('error', () => undefined);
    try {
      await new Promise<void>((resolve) => {
        client.once('data', () => resolve());
        client.write(`POST /hook HTTP/1.1\r\nHost: x\r\nX-Transcript-Lag-Secret: ${secret}\r\nContent-Length: 10\r\nExpect: 100-continue\r\n\r\n`);
      });
      const before = c.err.join('');
      c.stop();
      let timer: NodeJS.Timeout | undefined;
      const hung = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('watch still running 2 s after Ctrl-C')), 2000)));
      assert.equal(await Promise.race([done, hung]).finally(() => clearTimeout(timer)), 0);
      assert.equal(c.err.join('').slice(before.length), '');
      const free = await new Promise<boolean>((resolve) => {
        const srv = net.createServer();
        srv.once('error', () => resolve(false));
        srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
      });
      assert.equal(free, true);
    } finally {
      client.destroy();
    }
  });

  it('a metrics port in use: one line on stderr, and watching goes on', async () => {
    const busy = net.createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    try {
      const c = capturingIo(fx.workspace);
      const done = run(['--json', '--claude-dir', fx.claudeDir, '--poll-ms', '20', '--metrics', String((busy.address() as net.AddressInfo).port)], c.io);
      running = { stop: c.stop, done };
      await c.until((lines) => lines.some((l) => JSON.parse(l).event === 'ready'));
      assert.match(c.err.join(''), /no metrics: cannot listen on 127\.0\.0\.1:\d+ \(the port is in use\); watching goes on without them/);
      c.stop();
      assert.equal(await done, 0);
    } finally {
      await new Promise<void>((r) => busy.close(() => r()));
    }
  });

  it('--metrics beyond loopback is warned about before it binds; on loopback it is not', async () => {
    // 192.0.2.1 (TEST-NET-1) is no local address: the bind fails there, nothing leaves loopback.
    const c = capturingIo(fx.workspace);
    const done = run(['--json', '--claude-dir', fx.claudeDir, '--poll-ms', '20', '--metrics', '192.0.2.1:9'], c.io);
    running = { stop: c.stop, done };
    await c.until((lines) => lines.some((l) => JSON.parse(l).event === 'ready'));
    assert.match(c.err.join(''), /warning: metrics asked for on 192\.0\.2\.1, beyond this machine/);
    c.stop();
    assert.equal(await done, 0);
    const local = capturingIo(fx.workspace);
    const localDone = run(['--json', '--claude-dir', fx.claudeDir, '--poll-ms', '20', '--metrics', '127.0.0.1:0'], local.io);
    running = { stop: local.stop, done: localDone };
    await local.until((lines) => lines.some((l) => JSON.parse(l).event === 'ready'));
    local.stop();
    assert.equal(await localDone, 0);
    assert.doesNotMatch(local.err.join(''), /warning: metrics/);
  });

  it('says on stderr, not in the --json output, when the limit on open files stops it reading', async () => {
    const t = fx.transcriptPath(S);
    await fx.append(t, [userPrompt(S, fx.workspace)]);
    await fx.append(fx.channelPath(S), [preLine(S, t, 'toolu_fd', Date.now())]);
    const files = new FaultyFileAccess();
    files.limitOpenHandles(0);
    const c = capturingIo(fx.workspace, {}, files);
    const done = run(['--json', '--claude-dir', fx.claudeDir, '--poll-ms', '20'], c.io);
    running = { stop: c.stop, done };
    // The channel is read before ready: its file could not be opened by then.
    await c.until((lines) => lines.some((l) => JSON.parse(l).event === 'ready'));
    c.stop();
    assert.equal(await done, 0);
    assert.match(c.err.join(''), /transcript-lag watch: too many open files \(EMFILE\): could not open .*\.jsonl/);
    for (const l of c.out) assert.equal(typeof JSON.parse(l).event, 'string');
  });

  it('--json: ready comes once the file watcher watches the transcripts\' folders, so an append after it is read at once', async () => {
    const t = fx.transcriptPath(S);
    await fx.append(t, [userPrompt(S, fx.workspace)]);
    const watched: string[] = [];
    const realWatch = fs.watch;
    (fs as { watch: unknown }).watch = (p: fs.PathLike, ...rest: unknown[]) => {
      watched.push(String(p));
      return (realWatch as (...a: unknown[]) => fs.FSWatcher)(p, ...rest);
    };
    try {
      const c = capturingIo(fx.workspace);
      let watchedAtReady: string[] | undefined;
      const stdout = c.io.stdout;
      c.io.stdout = (text) => {
        if (watchedAtReady === undefined && text.includes('"ready"')) watchedAtReady = [...watched];
        stdout(text);
      };
      // No poll in the test's time: only the watcher can report the append.
      const done = run(['--json', '--claude-dir', fx.claudeDir, '--poll-ms', '600000'], c.io);
      running = { stop: c.stop, done };
      await c.until((lines) => lines.some((l) => JSON.parse(l).event === 'session'));
      assert.equal(JSON.parse(c.out[0]).event, 'ready');
      assert.ok(watchedAtReady?.includes(path.dirname(t)), `watched when ready was printed: ${JSON.stringify(watchedAtReady)}`);
      await fx.append(t, [toolUseRecord(S, fx.workspace, 'toolu_after_ready')]);
      await c.until((lines) => lines.some((l) => JSON.parse(l).tool_use_id === 'toolu_after_ready'));
    } finally {
      (fs as { watch: unknown }).watch = realWatch;
    }
  });

  it('queues one poll at most behind a slow one, so stopping does not wait for a backlog of polls', async () => {
    const t = fx.transcriptPath(S);
    await fx.append(t, [userPrompt(S, fx.workspace)]);
    // Every look at the transcript takes 40 ms: a poll outlasts the 10 ms interval four times over.
    let stats = 0;
    const slow: FileAccess = {
      ...nodeFileAccess,
      async stat(p) {
        if (p === t) {
          stats++;
          await new Promise((r) => setTimeout(r, 40));
        }
        return nodeFileAccess.stat(p);
      },
    };
    const c = capturingIo(fx.workspace, {}, slow);
    const done = run(['--json', '--claude-dir', fx.claudeDir, '--poll-ms', '10'], c.io);
    running = { stop: c.stop, done };
    await c.until((lines) => lines.some((l) => JSON.parse(l).event === 'session'));
    await new Promise((r) => setTimeout(r, 500));
    c.stop();
    const before = stats;
    assert.equal(await done, 0);
    // The poll running when stopped and the one queued behind it: not one per interval that passed.
    assert.ok(stats - before <= 4, `${stats - before} looks at the transcript after the stop`);
  });

  it('refuses unknown options with exit code 2', async () => {
    const c = capturingIo(fx.workspace);
    assert.equal(await run(['--bogus'], c.io), 2);
    assert.equal(await run(['--poll-ms', 'soon'], c.io), 2);
    assert.match(c.err.join(''), /unknown option '--bogus'/);
  });

  it('formats every event kind, json lines always carry tool_use_id', () => {
    const tail: EngineEvent = { event: 'tail', session_id: S, transcript_path: '/t', at: 0, change: 'truncated', generation: 2 };
    assert.deepEqual(Object.keys(JSON.parse(jsonLine(tail))).slice(0, 4), ['event', 'session_id', 'tool_use_id', 'at']);
    assert.equal(JSON.parse(jsonLine(tail)).tool_use_id, null);
    assert.match(readableLine(tail), /transcript truncated \(generation 2\)/);
    const wait: EngineEvent = { event: 'wait', session_id: S, tool_use_id: 'toolu_abcdefghij', transcript_path: '/t', at: 0, outcome: 'behind', polls: 50, waited_ms: 5000, bytes_on_disk: 1 };
    assert.match(readableLine(wait), /behind after 50 polls \(5\.0s\)/);
    // A late read: the looks' bound, and the shape they prove; the revision of one said afterwards.
    const lateWritten: EngineEvent = {
      event: 'written', session_id: S, tool_use_id: 'toolu_abcdefghij', tool_name: 'Bash', transcript_path: '/t', at: 0, line: 7, generation: 1, record_at: null,
      fired_at: 0, lag_ms: null, lag_bounds: { min_ms: 0, max_ms: 600 }, with_result: true, shape: 'before_result', record: {}, batch_first_line: 7, batch_last_line: 8,
    };
    assert.match(readableLine(lateWritten), /line 7 {2}held ≤ 600 ms {2}before its result\n$/);
    const revised: EngineEvent = { event: 'revised', session_id: S, tool_use_id: 'toolu_abcdefghij', tool_name: 'Bash', transcript_path: '/t', at: 0, fired_at: 0, lag_bounds: { min_ms: 200, max_ms: 600 }, shape: 'unknown' };
    assert.match(readableLine(revised), /revised +Bash +abcdefgh {2}a look of its hooks found it before the engine read it: held 200 ms–600 ms {2}shape unknown\n$/);
    // One per transcript line: --json only.
    const record: EngineEvent = { event: 'record', session_id: S, transcript_path: '/t', at: 5, uuid: 'u', type: 'user', line: 3, born_at: 1, born_from: 'timestamp', written_at: 5, lag_ms: 4 };
    assert.equal(readableLine(record), '');
    assert.deepEqual(JSON.parse(jsonLine(record)), { event: 'record', session_id: S, tool_use_id: null, at: 5, transcript_path: '/t', uuid: 'u', type: 'user', line: 3, born_at: 1, born_from: 'timestamp', written_at: 5, lag_ms: 4 });
  });

  it('readable lines carry no control or bidi character from a transcript; json lines keep the exact strings', () => {
    const ESC = '\u001b';
    const hostile = `x${ESC}]52;c;ZXZpbA==\u0007${ESC}[2J\u009b2J\u202ey`;
    const stats = { waits_seen: 0, waits_behind: 0, held_now: 0, calls_written: 0, lag_p50_ms: null, lag_p95_ms: null, lag_max_ms: null, shape_before_result: 0, shape_with_result: 0, shape_unknown: 0, malformed_lines: 0 };
    const session: EngineEvent = { event: 'session', session_id: S, transcript_path: '/t', at: 0, title: hostile, stats };
    const held: EngineEvent = { event: 'held', session_id: S, tool_use_id: `toolu_${ESC}[2Jabcdefgh`, tool_name: hostile, transcript_path: '/t', at: 0 } as EngineEvent;
    const unprintable = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
    for (const e of [session, held]) {
      const line = readableLine(e);
      assert.ok(line.endsWith('\n'));
      assert.doesNotMatch(line.slice(0, -1), unprintable);
      assert.match(line, /x\]52;c;ZXZpbA==\[2J2Jy/);
      assert.doesNotMatch(jsonLine(e).slice(0, -1), unprintable);
    }
    assert.equal(JSON.parse(jsonLine(session)).title, hostile);
    assert.equal(JSON.parse(jsonLine(held)).tool_name, hostile);
  });
});
