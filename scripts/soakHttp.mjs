// The soak's http leg (scripts/soak.mjs runs it after the engine leg): the built `watch`
// (dist/cli.js) serving install-hook --http's receiver, on 127.0.0.1 only, for a bounded
// time under hostile load — idle connections, connections that send half a request head,
// requests without the secret, and forged PostToolUse requests with it (each would start a
// landing watch) — while authenticated hooks keep coming. It checks that every authenticated
// hook is answered 200 and reaches the channel, that watch's CPU and memory stay bounded,
// and that Ctrl-C ends watch within a second with all those connections still open.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, promises as fsp, readFileSync } from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

const HOST = '127.0.0.1';
const IDLE_SOCKETS = 200;
const HALF_OPEN_SOCKETS = 200;
const UNAUTHENTICATED_PER_SECOND = 400;
const AUTHENTICATED_PER_SECOND = 20;
const FORGED_POSTS = 500;
/** Bounds the leg asserts. */
const MAX_STOP_MS = 1000;
const MAX_RSS_GROWTH_MB = 100;
const MAX_CPU_SHARE = 1.0; // CPU seconds of watch per wall second: at most one core under all of this
const MAX_AUTH_LATENCY_MS = 1000; // Claude Code's http hook timeout (install-hook --http writes 1 s)

function freePort() {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, HOST, () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** watch's CPU seconds (user + system) and RSS in MB, from /proc. */
function usage(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return { cpu: ticks / 100, rss: rssKb / 1024 };
}

function post(port, body, headers) {
  return new Promise((resolve) => {
    const started = performance.now();
    const req = http.request({ host: HOST, port, path: '/hook', method: 'POST', agent: false, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
    });
    req.setTimeout(5000, () => req.destroy());
    req.on('error', (err) => resolve({ status: 0, error: err.code, ms: performance.now() - started }));
    req.end(body);
  });
}

/** Keeps `count` connections open, each sending `head` (nothing when empty); reopens those the receiver drops. */
function holdConnections(port, count, head, stats) {
  const sockets = new Set();
  let stopped = false;
  const open = () => {
    if (stopped) return;
    const s = net.connect(port, HOST, () => head && s.write(head));
    sockets.add(s);
    s.on('error', () => undefined);
    s.on('close', () => {
      sockets.delete(s);
      stats.dropped++;
      // Not at once: a receiver that drops connections must not be answered by a busy loop.
      if (!stopped) setTimeout(open, 50);
    });
  };
  for (let i = 0; i < count; i++) open();
  return {
    stop() {
      stopped = true;
      for (const s of sockets) s.destroy();
    },
  };
}

export async function runHttpLeg({ seconds, repoRoot, log = console.log }) {
  const cli = path.join(repoRoot, 'dist', 'cli.js');
  if (!existsSync(cli)) return [`http leg: ${cli} is missing; run npm run build first`];
  if (process.platform !== 'linux') {
    log('http leg: skipped (reads watch\'s CPU and memory from /proc)');
    return [];
  }
  const root = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'tl-soak-http-')));
  const claudeDir = path.join(root, 'claude');
  const sessionId = 'soakhttp-0000-4000-8000-000000000000';
  const transcript = path.join(claudeDir, 'projects', '-soak', `${sessionId}.jsonl`);
  await fsp.mkdir(path.dirname(transcript), { recursive: true });
  await fsp.writeFile(transcript, `${JSON.stringify({ type: 'user', sessionId, message: { role: 'user', content: 'soak' } })}\n`);
  const port = await freePort();
  const install = spawnSync(process.execPath, [cli, 'install-hook', '--http', '--port', String(port), '--claude-dir', claudeDir], { encoding: 'utf8' });
  if (install.status !== 0) return [`http leg: install-hook --http failed: ${install.stderr}`];
  const { secret } = JSON.parse(await fsp.readFile(path.join(claudeDir, 'transcript-lag', 'http.json'), 'utf8'));

  const watch = spawn(process.execPath, [cli, 'watch', '--all', '--json', '--claude-dir', claudeDir], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`http leg: watch did not serve ${port} within 20 s: ${stderr}`)), 20_000);
    watch.stderr.on('data', (d) => {
      stderr += d;
      if (stderr.includes(`receiving on ${HOST}:${port}`)) {
        clearTimeout(timer);
        resolve();
      }
    });
    watch.once('exit', (code) => reject(new Error(`http leg: watch exited ${code}: ${stderr}`)));
  });
  const exited = new Promise((resolve) => watch.once('exit', () => resolve(performance.now())));
  const before = usage(watch.pid);
  const startedAt = performance.now();
  log(`http leg: ${seconds} s against watch (pid ${watch.pid}) on ${HOST}:${port}: ${IDLE_SOCKETS} idle and ${HALF_OPEN_SOCKETS} half-open connections held, ${UNAUTHENTICATED_PER_SECOND}/s without the secret, ${FORGED_POSTS} forged PostToolUse, ${AUTHENTICATED_PER_SECOND}/s authenticated hooks`);

  const dropped = { idle: { dropped: 0 }, half: { dropped: 0 } };
  const idle = holdConnections(port, IDLE_SOCKETS, '', dropped.idle);
  const half = holdConnections(port, HALF_OPEN_SOCKETS, `POST /hook HTTP/1.1\r\nHost: ${HOST}\r\nX-Half: `, dropped.half);
  const hook = (event, id) => JSON.stringify({ session_id: sessionId, transcript_path: transcript, hook_event_name: event, tool_name: 'Bash', tool_input: { command: 'soak' }, tool_use_id: id });
  const auth = { 'X-Transcript-Lag-Secret': secret };

  // Forged PostToolUse with the secret, for calls never on disk: each asks for a landing watch.
  const forged = await Promise.all(Array.from({ length: FORGED_POSTS }, (_, i) => post(port, hook('PostToolUse', `toolu_forged_${i}`), auth)));
  let unauthenticated = 0;
  let unauthenticatedRefused = 0;
  const authResults = [];
  let n = 0;
  const deadline = startedAt + seconds * 1000;
  const pending = new Set();
  const track = (p) => {
    pending.add(p);
    void p.finally(() => pending.delete(p));
  };
  while (performance.now() < deadline) {
    const tickStart = performance.now();
    for (let i = 0; i < UNAUTHENTICATED_PER_SECOND / 10; i++) {
      unauthenticated++;
      track(post(port, hook('PreToolUse', `toolu_noauth_${unauthenticated}`), { 'X-Transcript-Lag-Secret': 'wrong' }).then((r) => r.status === 403 && unauthenticatedRefused++));
    }
    for (let i = 0; i < AUTHENTICATED_PER_SECOND / 10; i++) track(post(port, hook('PreToolUse', `toolu_auth_${++n}`), auth).then((r) => authResults.push(r)));
    await new Promise((r) => setTimeout(r, Math.max(0, 100 - (performance.now() - tickStart))));
  }
  await Promise.all(pending);
  const during = usage(watch.pid);
  const wall = (performance.now() - startedAt) / 1000;

  // Ctrl-C with every held connection still open.
  const stopAt = performance.now();
  watch.kill('SIGINT');
  const stopMs = (await Promise.race([exited, new Promise((r) => setTimeout(() => r(Infinity), 10_000))])) - stopAt;
  if (stopMs === Infinity) watch.kill('SIGKILL');
  idle.stop();
  half.stop();

  const channel = await fsp.readFile(path.join(claudeDir, 'transcript-lag', `${sessionId}.jsonl`), 'utf8').catch(() => '');
  const preLines = channel.split('\n').filter((l) => l.includes('"event":"pre"') && l.includes('toolu_auth_')).length;
  const served = authResults.filter((r) => r.status === 200);
  const latencies = authResults.map((r) => r.ms).sort((a, b) => a - b);
  const p99 = latencies[Math.floor(latencies.length * 0.99)] ?? 0;
  const cpuShare = (during.cpu - before.cpu) / wall;
  log(
    `http leg: authenticated ${served.length}/${authResults.length} answered 200 (p50 ${latencies[Math.floor(latencies.length / 2)]?.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms), ${preLines} in the channel; ` +
      `forged PostToolUse ${forged.filter((r) => r.status === 200).length}/${FORGED_POSTS} 200; without the secret ${unauthenticatedRefused}/${unauthenticated} refused 403; ` +
      `connections dropped by the receiver: ${dropped.idle.dropped} idle, ${dropped.half.dropped} half-open`,
  );
  log(`http leg: watch CPU ${(during.cpu - before.cpu).toFixed(2)} s over ${wall.toFixed(1)} s (${cpuShare.toFixed(2)} of a core), RSS ${before.rss.toFixed(0)} -> ${during.rss.toFixed(0)} MB; Ctrl-C to exit ${stopMs.toFixed(0)} ms`);
  await fsp.rm(root, { recursive: true, force: true });

  const failures = [];
  const why = {};
  for (const r of authResults) if (r.status !== 200) why[r.error ?? r.status] = (why[r.error ?? r.status] ?? 0) + 1;
  if (served.length !== authResults.length || authResults.length === 0) failures.push(`http leg: ${authResults.length - served.length} of ${authResults.length} authenticated hooks not answered 200 (${JSON.stringify(why)})`);
  if (preLines !== served.length) failures.push(`http leg: ${served.length} authenticated hooks answered 200, ${preLines} reached the channel`);
  if (p99 > MAX_AUTH_LATENCY_MS) failures.push(`http leg: authenticated p99 ${p99.toFixed(0)} ms, over the hook's ${MAX_AUTH_LATENCY_MS} ms timeout`);
  if (stopMs > MAX_STOP_MS) failures.push(`http leg: Ctrl-C took ${stopMs.toFixed(0)} ms to end watch (at most ${MAX_STOP_MS})`);
  if (during.rss - before.rss > MAX_RSS_GROWTH_MB) failures.push(`http leg: watch RSS grew ${(during.rss - before.rss).toFixed(0)} MB (at most ${MAX_RSS_GROWTH_MB})`);
  if (cpuShare > MAX_CPU_SHARE) failures.push(`http leg: watch used ${cpuShare.toFixed(2)} of a core (at most ${MAX_CPU_SHARE})`);
  if (dropped.half.dropped === 0) failures.push('http leg: no half-open connection was ever dropped');
  return failures;
}
