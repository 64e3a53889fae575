// The many-files leg of the soak (`npm run soak -- --files N`): N two-line transcripts in a
// temp Claude dir, `node dist/cli.js watch --all --json` over them (the built CLI, as users run
// it), its RSS sampled throughout. It checks: `ready` comes within --ready-s, every session is
// indexed (its `session` event) within --indexed-s, a record appended right after `ready` is
// reported `written` within --live-s, a second one appended once everything is indexed too, and
// the peak RSS stays within --max-rss-mb. Run `npm run build` first.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** RSS of a process in bytes, from /proc (Linux) or ps. */
async function rssOf(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    if (m) return Number(m[1]) * 1024;
  } catch {
    // not Linux, or gone
  }
  const { execFileSync } = await import('node:child_process');
  try {
    return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) * 1024;
  } catch {
    return 0;
  }
}

const line = (o) => `${JSON.stringify(o)}\n`;
const sessionIdOf = (i) => `f11e${String(i).padStart(4, '0').slice(-4)}-${String(Math.floor(i / 1e4)).padStart(4, '0')}-4000-8000-${String(i).padStart(12, '0')}`;

function toolUse(sessionId, cwd, id) {
  return line({
    type: 'assistant',
    uuid: `a-${id}`,
    sessionId,
    cwd,
    version: '2.0.0',
    timestamp: new Date().toISOString(),
    message: { id: `msg_${id}`, role: 'assistant', content: [{ type: 'tool_use', id, name: 'Bash', input: { command: 'true' } }] },
  });
}

/**
 * opts: files, projects (folders they are spread over), maxRssMb, readyS, indexedS, liveS.
 * Returns true when every bound held.
 */
export async function manyFilesLeg(opts) {
  const cli = path.join(repo, 'dist', 'cli.js');
  if (!existsSync(cli)) {
    console.error('soak: dist/cli.js is missing: run `npm run build` first');
    return false;
  }
  const root = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'tl-soak-files-')));
  const claudeDir = path.join(root, 'claude');
  const cwd = path.join(root, 'ws');
  await fsp.mkdir(cwd, { recursive: true });
  const made = Date.now();
  const transcripts = [];
  for (let p = 0; p < opts.projects; p++) await fsp.mkdir(path.join(claudeDir, 'projects', `-soak-project-${p}`), { recursive: true });
  for (let i = 0; i < opts.files; i += 200) {
    const writes = [];
    for (let j = i; j < Math.min(opts.files, i + 200); j++) {
      const sessionId = sessionIdOf(j);
      const file = path.join(claudeDir, 'projects', `-soak-project-${j % opts.projects}`, `${sessionId}.jsonl`);
      transcripts.push({ file, sessionId });
      const text =
        line({ type: 'user', uuid: `u-${j}`, sessionId, cwd, version: '2.0.0', timestamp: new Date().toISOString(), message: { role: 'user', content: `prompt ${j}` } }) +
        toolUse(sessionId, cwd, `toolu_hist_${j}`);
      writes.push(fsp.writeFile(file, text));
    }
    await Promise.all(writes);
  }
  console.log(`soak files: ${opts.files} two-line transcripts in ${opts.projects} project folder${opts.projects === 1 ? '' : 's'} written in ${((Date.now() - made) / 1000).toFixed(1)} s (${root})`);

  const started = Date.now();
  const child = spawn(process.execPath, [cli, 'watch', '--all', '--json', '--claude-dir', claudeDir], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let readyAt;
  let readyFiles;
  const sessionsSeen = new Set();
  let allIndexedAt;
  /** tool_use_id -> time reported written */
  const written = new Map();
  let stderr = '';
  let buffered = '';
  child.stderr.on('data', (d) => {
    if (stderr.length < 4000) stderr += d.toString();
  });
  child.stdout.on('data', (d) => {
    buffered += d.toString();
    let nl;
    while ((nl = buffered.indexOf('\n')) !== -1) {
      const text = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      let e;
      try {
        e = JSON.parse(text);
      } catch {
        continue;
      }
      if (e.event === 'ready') {
        readyAt = Date.now();
        readyFiles = e.files;
      } else if (e.event === 'session') {
        sessionsSeen.add(e.session_id);
        if (sessionsSeen.size === opts.files && allIndexedAt === undefined) allIndexedAt = Date.now();
      } else if (e.event === 'written' && !written.has(e.tool_use_id)) written.set(e.tool_use_id, Date.now());
    }
  });
  let peakRss = 0;
  const rssSamples = [];
  const sampler = setInterval(async () => {
    const rss = await rssOf(child.pid);
    peakRss = Math.max(peakRss, rss);
    rssSamples.push({ t: Date.now() - started, rss });
  }, 250);
  const waitFor = async (cond, seconds) => {
    const until = Date.now() + seconds * 1000;
    while (!cond() && Date.now() < until && child.exitCode === null) await new Promise((r) => setTimeout(r, 20));
    return cond();
  };
  const s = (ms) => (ms === undefined ? 'never' : `${(ms / 1000).toFixed(2)} s`);
  const mb = (b) => `${(b / 1048576).toFixed(0)} MB`;

  const failures = [];
  let liveEarlyMs;
  let liveLateMs;
  try {
    if (!(await waitFor(() => readyAt !== undefined, opts.readyS))) failures.push(`no ready within ${opts.readyS} s`);
    else {
      // A record appended right after ready: live, to be reported however far indexing has got.
      const early = transcripts[transcripts.length - 1];
      const appendedAt = Date.now();
      await fsp.appendFile(early.file, toolUse(early.sessionId, cwd, 'toolu_live_early'));
      if (await waitFor(() => written.has('toolu_live_early'), opts.liveS)) liveEarlyMs = written.get('toolu_live_early') - appendedAt;
      else failures.push(`a record appended after ready was not reported within ${opts.liveS} s`);
      const indexedLeftS = Math.max(0, opts.indexedS - (Date.now() - started) / 1000);
      if (!(await waitFor(() => allIndexedAt !== undefined, indexedLeftS))) failures.push(`only ${sessionsSeen.size} of ${opts.files} sessions indexed within ${opts.indexedS} s of start`);
      // And once all is indexed and the process is idle.
      await new Promise((r) => setTimeout(r, 2000));
      const late = transcripts[Math.floor(transcripts.length / 2)];
      const lateAt = Date.now();
      await fsp.appendFile(late.file, toolUse(late.sessionId, cwd, 'toolu_live_late'));
      if (await waitFor(() => written.has('toolu_live_late'), opts.liveS)) liveLateMs = written.get('toolu_live_late') - lateAt;
      else failures.push(`a record appended once indexed was not reported within ${opts.liveS} s`);
      // Memory once idle: it must have settled, not keep rising.
      await new Promise((r) => setTimeout(r, 3000));
    }
  } finally {
    clearInterval(sampler);
    const finalRss = await rssOf(child.pid);
    peakRss = Math.max(peakRss, finalRss);
    child.kill('SIGINT');
    const exited = await waitFor(() => child.exitCode !== null || child.signalCode !== null, 10);
    if (!exited) {
      child.kill('SIGKILL');
      failures.push('watch did not stop within 10 s of SIGINT');
    }
    await fsp.rm(root, { recursive: true, force: true });
    console.log(
      `soak files: ready ${s(readyAt && readyAt - started)} (${readyFiles ?? '?'} files); all ${opts.files} sessions indexed ${s(allIndexedAt && allIndexedAt - started)} (${sessionsSeen.size} seen); ` +
        `append after ready reported in ${s(liveEarlyMs)}, once indexed in ${s(liveLateMs)}; RSS peak ${mb(peakRss)}, at the end ${mb(finalRss)}`,
    );
  }
  if (peakRss > opts.maxRssMb * 1048576) failures.push(`RSS peaked at ${mb(peakRss)}, above --max-rss-mb ${opts.maxRssMb}`);
  if (stderr.trim()) console.log(`soak files: watch's stderr:\n${stderr.trim()}`);
  for (const f of failures) console.error(`soak: FAIL — ${f}`);
  return failures.length === 0;
}
