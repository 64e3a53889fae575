// The spool leg of the soak (`npm run soak -- --spool N`, issue 30): N spool files, as the mod
// leaves them when no `watch` or window ran for days, spread over --spool-sessions sessions (two
// mod instances each, their events interleaved in time), one session's channel file refusing
// appends (group-writable, as a hook run under umask 002 would make it). Then the built CLI's
// `watch --all --json` over them, its RSS and CPU sampled from /proc. It checks: every foldable
// event is folded within --fold-s, once and in order; the peak RSS stays within --max-rss-mb;
// once folded, watch uses under --idle-cpu % of a core while the refusing session's files wait;
// the refusing session's events are folded, once and in order, once its file is fixed; and
// SIGTERM stops watch within 2 s. Linux only (/proc). Run `npm run build` first.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TICKS_PER_S = 100; // USER_HZ: /proc/<pid>/stat counts CPU time in these on every Linux we run

const sessionIdOf = (i) => `5b001000-0000-4000-8000-${String(i).padStart(12, '0')}`;
const instanceOf = (k) => `0000aa0${k}`;

/** CPU seconds (user + system) and RSS bytes of a process, from /proc. */
function usageOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cpu = (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S;
    const rss = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
    return { cpu, rss };
  } catch {
    return undefined;
  }
}

/** The tags of a channel file's lines, in file order. */
function channelTags(file) {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l).tool_use_id);
}

/**
 * opts: spool (files), spoolSessions, foldS, maxRssMb, idleCpu.
 * Returns true when every bound held.
 */
export async function spoolLeg(opts) {
  const cli = path.join(repo, 'dist', 'cli.js');
  if (!existsSync(cli)) {
    console.error('soak: dist/cli.js is missing: run `npm run build` first');
    return false;
  }
  if (!existsSync('/proc/self/stat')) {
    console.error('soak: the spool leg reads /proc (Linux only)');
    return false;
  }
  const root = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'tl-soak-spool-')));
  const claudeDir = path.join(root, 'claude');
  const cwd = path.join(root, 'ws');
  const projectDir = path.join(claudeDir, 'projects', '-soak-spool');
  const channelDir = path.join(claudeDir, 'transcript-lag');
  const spoolDir = path.join(channelDir, 'spool');
  await fsp.mkdir(cwd, { recursive: true });
  await fsp.mkdir(projectDir, { recursive: true });
  await fsp.mkdir(spoolDir, { recursive: true, mode: 0o700 });
  const sessions = opts.spoolSessions;
  const perSession = Math.floor(opts.spool / sessions);
  const start = Date.now() - 3_600_000; // spooled an hour ago: old, not expired
  /** session -> tool_use_ids in the order they must be folded (by `at`) */
  const expected = new Map();
  const made = Date.now();
  for (let s = 0; s < sessions; s++) {
    const sessionId = sessionIdOf(s);
    const transcript = path.join(projectDir, `${sessionId}.jsonl`);
    await fsp.writeFile(transcript, `${JSON.stringify({ type: 'user', uuid: `u-${s}`, sessionId, cwd, version: '2.1.332', timestamp: new Date().toISOString(), message: { role: 'user', content: 'spooled' } })}\n`);
    const ids = [];
    const writes = [];
    for (let i = 0; i < perSession; i++) {
      // Two copies of the mod (an instance each), their events interleaved in time.
      const k = i % 2;
      const seq = Math.floor(i / 2) + 1;
      const id = `toolu_s${s}_${String(i).padStart(6, '0')}`;
      ids.push(id);
      const event = { v: 1, event: 'pre', at: start + i, session_id: sessionId, transcript_path: transcript, tool_use_id: id, tool_name: 'Bash', transport: 'mod', source: 'transcript-lag-mod' };
      writes.push(fsp.writeFile(path.join(spoolDir, `${sessionId}.${instanceOf(k)}.${String(seq).padStart(8, '0')}.json`), JSON.stringify(event)));
      if (writes.length >= 500) await Promise.all(writes.splice(0));
    }
    await Promise.all(writes);
    expected.set(sessionId, ids);
  }
  // The refusing session: its channel file exists, group-writable (a hook run under umask 002).
  const refusing = sessionIdOf(0);
  const refusingChannel = path.join(channelDir, `${refusing}.jsonl`);
  await fsp.writeFile(refusingChannel, '');
  await fsp.chmod(refusingChannel, 0o664);
  const total = perSession * sessions;
  const foldable = total - perSession;
  console.log(`soak spool: ${total} spool files of ${sessions} sessions written in ${((Date.now() - made) / 1000).toFixed(1)} s; ${refusing}'s channel file refuses appends (${root})`);

  const started = Date.now();
  const child = spawn(process.execPath, [cli, 'watch', '--all', '--json', '--claude-dir', claudeDir], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => {
    if (stderr.length < 4000) stderr += d.toString();
  });
  child.stdout.on('data', () => undefined);
  let peakRss = 0;
  const sampler = setInterval(() => {
    const u = usageOf(child.pid);
    if (u) peakRss = Math.max(peakRss, u.rss);
  }, 100);
  // Every 500 ms: listing 100,000 names takes the machine's other core for a while.
  const waitFor = async (cond, seconds) => {
    const until = Date.now() + seconds * 1000;
    while (!cond() && Date.now() < until && child.exitCode === null) await new Promise((r) => setTimeout(r, 500));
    return cond();
  };
  const spoolLeft = () => readdirSync(spoolDir).length;
  const s = (ms) => (ms === undefined ? 'never' : `${(ms / 1000).toFixed(1)} s`);
  const mb = (b) => `${(b / 1048576).toFixed(0)} MB`;
  const failures = [];
  const figures = {};
  try {
    // 1. Everything foldable folded: only the refusing session's files are left.
    if (await waitFor(() => spoolLeft() <= perSession, opts.foldS)) {
      figures.foldedMs = Date.now() - started;
    } else failures.push(`${spoolLeft() - perSession} foldable spool files still there after ${opts.foldS} s`);
    const cpuAtFolded = usageOf(child.pid)?.cpu ?? 0;
    figures.foldCpuS = cpuAtFolded;
    for (const [sessionId, ids] of expected) {
      if (sessionId === refusing) continue;
      const tags = channelTags(path.join(channelDir, `${sessionId}.jsonl`));
      if (tags.length !== ids.length || tags.some((t, i) => t !== ids[i])) {
        failures.push(`${sessionId}: ${tags.length} events folded of ${ids.length}, ${tags.some((t, i) => t !== ids[i]) ? 'out of order or twice' : 'in order'}`);
        break;
      }
    }
    // 2. Idle while the refusing session waits: a few retries a second, no loop.
    const idleFrom = usageOf(child.pid);
    const idleMs = 10_000;
    await new Promise((r) => setTimeout(r, idleMs));
    const idleTo = usageOf(child.pid);
    if (idleFrom && idleTo) {
      figures.idleCpu = ((idleTo.cpu - idleFrom.cpu) / (idleMs / 1000)) * 100;
      if (figures.idleCpu >= opts.idleCpu) failures.push(`watch used ${figures.idleCpu.toFixed(1)} % of a core while idle (bound ${opts.idleCpu} %)`);
    }
    if (channelTags(refusingChannel).length !== 0) failures.push('the refusing channel file was appended to');
    // 3. Fixed: its events are folded, once and in order.
    await fsp.chmod(refusingChannel, 0o600);
    const fixedAt = Date.now();
    if (await waitFor(() => spoolLeft() === 0, 30)) figures.refusingFoldedMs = Date.now() - fixedAt;
    else failures.push(`the refusing session's events were not folded within 30 s of its file being fixed (${spoolLeft()} left)`);
    const tags = channelTags(refusingChannel);
    const ids = expected.get(refusing);
    if (tags.length !== ids.length || tags.some((t, i) => t !== ids[i])) failures.push(`the refusing session: ${tags.length} events of ${ids.length} folded once fixed, or out of order`);
  } finally {
    clearInterval(sampler);
    const stopAt = Date.now();
    child.kill('SIGTERM');
    const stopped = await new Promise((r) => {
      const timer = setTimeout(() => r(false), 2000);
      child.once('exit', () => (clearTimeout(timer), r(true)));
    });
    if (!stopped) {
      failures.push('watch did not stop within 2 s of SIGTERM');
      child.kill('SIGKILL');
    } else figures.stopMs = Date.now() - stopAt;
  }
  if (peakRss > opts.maxRssMb * 1048576) failures.push(`peak RSS ${mb(peakRss)} over ${opts.maxRssMb} MB`);
  const rate = figures.foldedMs ? Math.round(foldable / (figures.foldedMs / 1000)) : undefined;
  console.log(
    `soak spool: ${foldable} foldable events folded in ${s(figures.foldedMs)} (${rate ?? '–'} files/s, ${figures.foldCpuS?.toFixed(1)} s of CPU), peak RSS ${mb(peakRss)}, ` +
      `idle ${figures.idleCpu?.toFixed(1) ?? '–'} % of a core while one session refused, its ${perSession} folded ${s(figures.refusingFoldedMs)} after the fix, stopped ${s(figures.stopMs)} after SIGTERM`,
  );
  if (failures.length > 0 && stderr) console.error(`watch's stderr:\n${stderr}`);
  for (const f of failures) console.error(`soak: FAIL — ${f}`);
  if (failures.length === 0) await fsp.rm(root, { recursive: true, force: true });
  return failures.length === 0;
}
