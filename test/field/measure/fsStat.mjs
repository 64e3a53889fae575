#!/usr/bin/env node
// Whether a mod's `$.fs.stat` lags its `$.fs.read` of the session's transcript (issue 42; the field fact:
// on 2.1.332 a look found a record 44 ms after a 5 ms tailer by reading, 114 ms by its stat, so the
// production mod reads first, src/mod/looks.ts). A print session against the stand-in API, loading a
// one-file test plugin whose mod, from `session.start`, looks at the transcript every LOOK_MS: it reads
// what the file gained since its last read, then, that read answered, asks `$.fs.stat` for its size. A
// stat asked after a read answered that gives fewer bytes than the read had is behind; for each growth
// the reads saw, how long from that read's answer to the first stat giving the size. The production mod
// (src/mod) is not involved: this measures Claude Code, not us.
//   node test/field/measure/fsStat.mjs [--cli-version V]
// `npm run compat` takes it as the `fs-stat` measure: the row's `fs_stat_lags_read` (test/field/compatRows.mjs).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureClaude, DEFAULT_CLAUDE_VERSION } from '../claudeInstall.mjs';
import { startStandInApi, FINAL_TEXT } from '../standInApi.mjs';
import { makeSandbox, addFieldSettings, claudeEnv } from '../sandbox.mjs';
import { runPrint, runInteractive } from '../drivers.mjs';
import { writeModPlugin } from './modPlugin.mjs';

/** How often the mod looks (the production mod's looks are 10 ms apart once a call's hooks settle). */
const LOOK_MS = 5;
/** Growths kept, each with its figures (a print session of MESSAGES writes a few dozen). */
const MAX_GROWTHS = 400;
/** Six messages of one call each, with text: the transcript grows in a dozen writes or more, spread over seconds. */
const MESSAGES = 6;

/** The measuring mod's source; `log` is where it writes what it saw (JSON, whole, again as it goes). */
export function measuringMod(log) {
  const q = JSON.stringify;
  // Two loops, each on its own: reads of what the file gained, and stats of its size, each noting when it
  // first saw each size. The loader checks a mod statically: `$` only as `$.noun.event(...)` or handed to
  // a top-level function.
  return `const S = { file: undefined, noInfo: false, ranged: undefined, readLen: 0, reads: [], stats: [], statLen: -1, readLooks: 0, statLooks: 0, stale: [], reading: false, stating: false, dirty: false, errors: 0 };

export function register(on) {
  // \`$.session.info()\` is not in every build's API (2.1.287's has none): the classic events' transcript_path then.
  on('session.start', async ($, e, next) => {
    try {
      startLooks($, (await $.session.info()).transcriptPath);
    } catch {
      S.noInfo = true;
    }
    return next(e);
  });
  on('classic.SessionStart', async ($, e, next) => {
    startLooks($, e.transcript_path);
    return next(e);
  });
  on('classic.UserPromptSubmit', async ($, e, next) => {
    startLooks($, e.transcript_path);
    return next(e);
  });
  on('session.end', async ($, e, next) => {
    await writeLog($);
    return next(e);
  });
}

function startLooks($, file) {
  if (S.file !== undefined || typeof file !== 'string') return;
  S.file = file;
  $.clock.every(${LOOK_MS}, () => {
    if (S.reading || S.file === undefined) return;
    S.reading = true;
    readLook($).catch(() => { S.errors += 1; }).finally(() => { S.reading = false; });
  });
  $.clock.every(${LOOK_MS}, () => {
    if (S.stating || S.file === undefined) return;
    S.stating = true;
    statLook($).catch(() => { S.errors += 1; }).finally(() => { S.stating = false; });
  });
  $.clock.every(500, () => {
    if (S.dirty) writeLog($).catch(() => undefined);
  });
}

// Whether \`$.fs.read\` takes offset and length (2.1.287's reads the whole file whatever it is given):
// asked once, with one byte from the second.
async function ranged($) {
  if (S.ranged === undefined) S.ranged = atob((await $.fs.read(S.file, { as: 'bytes', offset: 1, length: 1 })).base64).length === 1;
  return S.ranged;
}

async function readLook($) {
  let got;
  let whole;
  try {
    whole = !(await ranged($));
    got = atob((await $.fs.read(S.file, whole ? { as: 'bytes' } : { as: 'bytes', offset: S.readLen, length: 4194304 })).base64).length;
  } catch {
    return; // not written yet
  }
  const at = Date.now();
  S.readLooks += 1;
  if (whole) got -= S.readLen;
  if (got > 0 && S.reads.length < ${MAX_GROWTHS}) {
    S.readLen += got;
    S.reads.push({ size: S.readLen, at });
    S.dirty = true;
  }
}

async function statLook($) {
  const asked = Date.now();
  let size;
  try {
    size = (await $.fs.stat(S.file)).size;
  } catch {
    return;
  }
  const at = Date.now();
  S.statLooks += 1;
  if (size > S.statLen && S.stats.length < ${MAX_GROWTHS}) {
    S.statLen = size;
    S.stats.push({ size, at });
    S.dirty = true;
  }
  // Asked after a read had answered with more bytes: this stat is behind the read.
  let known = 0;
  for (const r of S.reads) if (r.at < asked) known = r.size;
  if (size < known && S.stale.length < ${MAX_GROWTHS}) S.stale.push({ size, known, asked });
}

async function writeLog($) {
  S.dirty = false;
  await $.fs.write(${q(log)}, JSON.stringify({ look_ms: ${LOOK_MS}, read_looks: S.readLooks, stat_looks: S.statLooks, reads: S.reads, stats: S.stats, stale: S.stale, errors: S.errors, no_info: S.noInfo === true, ranged: S.ranged === true }));
}
`;
}

/** A plugin folder holding only the measuring mod. */
export function writeMeasuringPlugin(dir, log) {
  writeModPlugin(dir, { name: 'fs-stat-measure', description: 'measures whether $.fs.stat lags $.fs.read', file: 'measure.js', source: measuringMod(log) });
}

/** Nearest-rank percentile of sorted values. */
const rank = (sorted, q) => (sorted.length ? sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] : null);

/**
 * The column from what the mod logged (null when it logged nothing: the mod did not run). For each growth
 * the reads saw: when the stats first gave that size, after the read (ms, negative when the stat saw it
 * first); `behind`, the growths for which a stat asked after the read had answered still gave fewer bytes.
 */
export function fsStatColumn(log) {
  if (log === null) return null;
  const growths = log.reads.map((r) => {
    const seen = log.stats.find((s) => s.size >= r.size);
    const stale = log.stale.filter((s) => s.known >= r.size && s.size < r.size);
    return { size: r.size, after_ms: seen === undefined ? null : seen.at - r.at, stale_bytes: stale.length ? Math.max(...stale.map((s) => r.size - s.size)) : 0 };
  });
  const behind = growths.filter((g) => g.stale_bytes > 0);
  const after = growths.map((g) => g.after_ms).filter((v) => v !== null).sort((a, b) => a - b);
  return {
    look_ms: log.look_ms,
    looks: Math.min(log.read_looks, log.stat_looks),
    growths: growths.length,
    behind: behind.length,
    stale_looks: log.stale.length,
    p50_after_ms: rank(after, 0.5),
    max_after_ms: after.length ? after.at(-1) : null,
    max_behind_bytes: behind.length ? Math.max(...behind.map((g) => g.stale_bytes)) : 0,
    unseen_by_stat: growths.filter((g) => g.after_ms === null).length,
    // What the version's mod API offers here: \`$.session.info()\`, and \`$.fs.read\` with offset and length.
    session_info: !log.no_info,
    read_ranged: log.ranged,
  };
}

/** The transcript files under a sandbox's Claude dir. */
function transcriptsOf(sb) {
  const projects = path.join(sb.claudeDir, 'projects');
  if (!fs.existsSync(projects)) return [];
  return fs.readdirSync(projects).flatMap((d) => {
    const dir = path.join(projects, d);
    return fs.statSync(dir).isDirectory() ? fs.readdirSync(dir).filter((f) => f.endsWith('.jsonl')).map((f) => path.join(dir, f)) : [];
  });
}

/** One session of `version` (`print` or `interactive`, under tmux) with the measuring mod, and what it logged. */
async function measureOnce(claudeBin, mode, keep) {
  const sb = makeSandbox(`fs-stat-${mode}`);
  const log = path.join(sb.root, 'fs-stat.json');
  const plugin = path.join(sb.root, 'fs-stat-plugin');
  writeMeasuringPlugin(plugin, log);
  addFieldSettings(sb, {});
  const script = Array.from({ length: MESSAGES }, (_, i) =>
    Object.assign([{ name: 'Bash', id: `toolu_fsstat${String(i + 1).padStart(3, '0')}`, input: { command: `echo step ${i + 1}`, description: 'fs stat step' } }], { texts: [`Step ${i + 1}.`] }),
  );
  const api = await startStandInApi({ script, logFile: sb.apiLog, blockGapMs: 100, finishDelayMs: 300 });
  const env = claudeEnv(sb, api.url);
  const extraArgs = ['--plugin-dir', plugin];
  let run;
  try {
    if (mode === 'print') run = await runPrint({ claudeBin, cwd: sb.work, env, prompt: 'go', extraArgs });
    else {
      const done = () => transcriptsOf(sb).some((f) => fs.readFileSync(f, 'utf8').includes(FINAL_TEXT));
      const r = await runInteractive({ claudeBin, cwd: sb.work, env, prompt: 'go', isDone: done, extraArgs });
      run = { code: r.finished ? 0 : 1, stderr: r.finished ? '' : r.screen };
    }
  } finally {
    await api.close();
  }
  const raw = fs.existsSync(log) ? JSON.parse(fs.readFileSync(log, 'utf8')) : null;
  const types = path.join(plugin, '.claude-plugin', 'types', 'claude-code', 'index.d.ts');
  const result = { column: fsStatColumn(raw), exit: run.code, ...(run.code === 0 ? {} : { stderr: run.stderr.slice(-500) }), raw, types: fs.existsSync(types) ? types : undefined, root: sb.root };
  if (!keep) fs.rmSync(sb.root, { recursive: true, force: true });
  return result;
}

/**
 * The `fs_stat_lags_read` column of a version: a print session and an interactive one, each with the
 * measuring mod (null for a mode whose mod logged nothing), and whether any stat was behind a read.
 */
export async function measureFsStat(version, { keep = false, modes = ['print', 'interactive'] } = {}) {
  const claudeBin = ensureClaude(version);
  const runs = {};
  for (const mode of modes) runs[mode] = await measureOnce(claudeBin, mode, keep);
  const columns = Object.values(runs).map((r) => r.column);
  const column = columns.every((c) => c === null)
    ? null
    : { lags: columns.some((c) => c !== null && c.behind > 0), ...Object.fromEntries(Object.entries(runs).map(([m, r]) => [m, r.column])) };
  return { version, column, runs };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  const version = argv.includes('--cli-version') ? argv[argv.indexOf('--cli-version') + 1] : DEFAULT_CLAUDE_VERSION;
  const modes = argv.includes('--modes') ? argv[argv.indexOf('--modes') + 1].split(',') : undefined;
  const r = await measureFsStat(version, { keep: argv.includes('--keep'), modes });
  const runs = Object.fromEntries(Object.entries(r.runs).map(([m, x]) => [m, { exit: x.exit, ...(x.stderr ? { stderr: x.stderr } : {}), ...(argv.includes('--raw') ? { raw: x.raw } : {}), ...(argv.includes('--keep') ? { root: x.root } : {}) }]));
  console.log(JSON.stringify({ version, measured_at: new Date().toISOString(), fs_stat_lags_read: r.column, runs }));
}
