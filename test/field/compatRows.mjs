// `npm run compat -- [--versions A..B | A,B,… | newest] [--step N] [--scenarios a,b] [--again] [--check]`:
// what every Claude Code release does, measured. For each version, one at a time: install it from npm
// into the cache (test/field/claudeInstall.mjs), run the compat scenarios (test/field/scenarios.mjs,
// `compat: true`: interactive and print; a single call, a two-call message, a message with no text; the
// truth hooks, the plugin where mods load, the hook in exec form) and append one row to
// test/field/compat/results.jsonl (the date, the runner's figures, what was seen). A version that has a
// row is skipped (the run resumes where it stopped) unless `--again`. Each version's calls also go to
// test/field/landings/measured.jsonl, replay's model (`npm run landings` reads the same file); then
// src/core/compat/claudeCode.json (the decisions the code reads) and docs/COMPATIBILITY.md are written
// again from the files.
//
// `--scenarios` also takes the measures that are not field scenarios (COMPAT_MEASURES: `fs-stat`, whether
// a mod's `$.fs.stat` lags its `$.fs.read`, test/field/measure/fsStat.mjs), run where the mod loads. Asked
// for alone, they add their field to each version's committed row (the row keeps the rest as measured,
// replaced in place, with `measures` saying when), for versions whose row says the mod loads and that lack
// it (or all of them with `--again`). Scenarios asked for without a measure keep the measure's field of
// the version's last row, `measures` saying when it was measured.
// `--check` (CI): writes nothing; fails when a version's decisions differ from its committed row, or, for
// a version with none, from the newest committed row (the behaviour the code assumes of what follows), in
// two runs of it in a row.
// `--write` runs nothing: the JSON files and the doc again from the committed rows.
// `--step N` keeps every Nth version of a range, from its newest down. `--remove-cli` removes each version
// this run installed once it is measured (it is removed anyway when the disk has under 5 GB free).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runSuite } from './run.mjs';
import { cacheRoot } from './claudeInstall.mjs';
import { measuredLandings, writeLandingModel, DOC_BEGIN as LANDINGS_BEGIN } from '../../scripts/lib/landings.mjs';
import { COMPAT_MEASURES, COMPAT_SCENARIOS, MEASURE_FIELDS, behaviourTable, sinceModule, byVersion, compatRow, decisions, latestRows, withCompatSection } from '../../scripts/lib/compatRows.mjs';
import { measureFsStat } from './measure/fsStat.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const RESULTS = path.join(repoRoot, 'test', 'field', 'compat', 'results.jsonl');
export const BEHAVIOUR = path.join(repoRoot, 'src', 'core', 'compat', 'claudeCode.json');
export const SINCE = path.join(repoRoot, 'src', 'rules', 'claudeCodeSince.ts');
const MEASURED = path.join(repoRoot, 'test', 'field', 'landings', 'measured.jsonl');
const DOC = path.join(repoRoot, 'docs', 'COMPATIBILITY.md');
const PACKAGE = '@anthropic-ai/claude-code';
const LOW_DISK_BYTES = 5 * 1024 ** 3;

function parseArgs(argv) {
  const o = { versions: undefined, step: 1, scenarios: [...COMPAT_SCENARIOS, ...COMPAT_MEASURES], again: false, check: false, removeCli: false, write: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--versions') o.versions = argv[++i];
    else if (a === '--step') o.step = Math.max(1, Number(argv[++i]) || 1);
    else if (a === '--scenarios') o.scenarios = argv[++i].split(',');
    else if (a === '--again') o.again = true;
    else if (a === '--check') o.check = true;
    else if (a === '--remove-cli') o.removeCli = true;
    else if (a === '--write') o.write = true;
    else throw new Error(`unknown option ${a}`);
  }
  if (!o.versions && !o.write) throw new Error('--versions A..B, A,B,… or newest (or --write)');
  return o;
}

let published;
/** The releases npm holds (one `npm view`, asked only when a range or `newest` needs it), oldest first. */
function publishedVersions() {
  published ??= JSON.parse(execFileSync('npm', ['view', PACKAGE, 'versions', '--json'], { encoding: 'utf8', timeout: 120_000 }))
    .filter((v) => /^\d+\.\d+\.\d+$/.test(v))
    .sort(byVersion);
  return published;
}

/** `2.1.270..2.1.332` (every release npm holds between them), `newest`, or a list; with `step`, every Nth from the newest down. */
export function resolveVersions(spec, step, all = publishedVersions) {
  const out = [];
  for (const part of spec.split(',')) {
    const range = /^(\d+\.\d+\.\d+)\.\.(\d+\.\d+\.\d+)$/.exec(part);
    if (range) {
      const inRange = all().filter((v) => byVersion(v, range[1]) >= 0 && byVersion(v, range[2]) <= 0);
      out.push(...inRange.reverse().filter((_, i) => i % step === 0).reverse());
    } else if (part === 'newest') out.push(all().at(-1));
    else out.push(part);
  }
  return [...new Set(out)];
}

export function readRows(file = RESULTS) {
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
}

/** The file with the last row of `row.version` replaced by `row` (a measure run alone adds its field to the row). */
export function replaceLastRow(rows, row) {
  const at = rows.findLastIndex((r) => r.version === row.version);
  return at < 0 ? [...rows, row] : rows.map((r, i) => (i === at ? row : r));
}

const MEASURES = { 'fs-stat': async (version) => (await measureFsStat(version)).column };

/** claudeCode.json and the doc's sections again, from the committed files. */
export function writeFromFiles() {
  const rows = readRows();
  fs.mkdirSync(path.dirname(BEHAVIOUR), { recursive: true });
  const table = behaviourTable(rows);
  fs.writeFileSync(BEHAVIOUR, `${JSON.stringify(table, null, 2)}\n`);
  fs.writeFileSync(SINCE, sinceModule(table));
  writeLandingModel(repoRoot);
  fs.writeFileSync(DOC, withCompatSection(fs.readFileSync(DOC, 'utf8'), rows, LANDINGS_BEGIN));
  return rows;
}

function freeBytes(dir) {
  try {
    const s = fs.statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return Infinity;
  }
}

export async function main(argv) {
  const opts = parseArgs(argv);
  if (opts.write) {
    const rows = writeFromFiles();
    process.stdout.write(`compat: ${rows.length} rows → src/core/compat/claudeCode.json, src/rules/claudeCodeSince.ts, src/core/replay/landings.json, docs/COMPATIBILITY.md\n`);
    return 0;
  }
  const versions = resolveVersions(opts.versions, opts.step);
  const committed = readRows();
  const suiteNames = opts.scenarios.filter((n) => !COMPAT_MEASURES.includes(n));
  const measureNames = opts.scenarios.filter((n) => COMPAT_MEASURES.includes(n));
  // Measures alone: their fields go into each version's row, which keeps the rest as measured.
  const measuresOnly = suiteNames.length === 0;
  const lastRow = (version) => committed.filter((r) => r.version === version).at(-1);
  // A measure needs the mod: a version whose row says it does not load gets none; without a row, none is known.
  const measurable = (version) => lastRow(version)?.mods_load === true;
  const done = (version) => (measuresOnly ? !measurable(version) || measureNames.every((n) => lastRow(version)[MEASURE_FIELDS[n]] !== undefined) : lastRow(version) !== undefined);
  const todo = opts.again || opts.check ? versions.filter((v) => !measuresOnly || measurable(v)) : versions.filter((v) => !done(v));
  const what = measuresOnly ? `with ${measureNames.join(', ')}` : 'measured';
  process.stdout.write(`compat: ${versions.length} versions asked, ${versions.length - todo.length} already ${what} or not measurable (test/field/compat/results.jsonl), ${todo.length} to run: ${todo.join(', ')}\n`);
  const changed = [];
  for (const version of todo) {
    const prefix = path.join(cacheRoot(), `claude-code-${version}`);
    const wasCached = fs.existsSync(prefix);
    const runner = { os: `${os.platform()} ${os.arch()}`, node: process.versions.node, cores: os.cpus().length, load1: Math.round(os.loadavg()[0] * 100) / 100 };
    process.stdout.write(`\n== Claude Code ${version} (load ${runner.load1})\n`);
    // The scenarios' own checks may fail on a version (what it does differently): the row is measured all the same.
    const measure = async () => {
      const at = Date.now();
      let suite;
      let row;
      if (measuresOnly) row = { ...lastRow(version) };
      else {
        suite = await runSuite({ version, only: suiteNames, strict: false, keep: false, record: false });
        if (suite.skipped) return { skipped: suite.skipped };
        row = compatRow({ version, results: suite.results, at: new Date(at).toISOString(), runner, durationMs: Date.now() - at });
        // A measure not asked for this time keeps what it measured, saying when (the row it came from, if it did not).
        const was = lastRow(version);
        for (const n of COMPAT_MEASURES) {
          if (measureNames.includes(n) || row.mods_load !== true || was?.[MEASURE_FIELDS[n]] === undefined) continue;
          row[MEASURE_FIELDS[n]] = was[MEASURE_FIELDS[n]];
          row.measures = { ...row.measures, [n]: was.measures?.[n] ?? { at: was.at, load1: was.runner?.load1 } };
        }
      }
      if (row.mods_load === true) {
        for (const n of measureNames) {
          const started = Date.now();
          row[MEASURE_FIELDS[n]] = await MEASURES[n](version);
          if (measuresOnly) row.measures = { ...row.measures, [n]: { at: new Date(started).toISOString(), load1: runner.load1, s: Math.round((Date.now() - started) / 100) / 10 } };
        }
      }
      return { suite, row };
    };
    let { suite, row, skipped } = await measure();
    if (skipped) {
      process.stdout.write(`${skipped}\n`);
      if (opts.check) changed.push(`${version}: ${skipped}`);
      continue;
    }
    process.stdout.write(`row: ${JSON.stringify(row)}\n`);
    if (opts.check) {
      const was = committed.filter((r) => r.version === version).at(-1) ?? latestRows(committed).at(-1);
      const then = was ? decisions(was) : {};
      // A committed row from before a measure existed says nothing of what that measure decides.
      const unmeasured = new Set(was && was.fs_stat_lags_read === undefined ? ['stat_lags'] : []);
      const differs = (r) => Object.entries(decisions(r)).filter(([k, v]) => v !== then[k] && !unmeasured.has(k)).map(([k, v]) => `${k} ${then[k]} → ${v}`);
      let diff = differs(row);
      // Holding is counted over a few calls of one session, and a busy machine can tip one: a change counts
      // when a second run of the version shows it too.
      if (diff.length) {
        process.stdout.write(`${version}: ${diff.join(', ')}; measuring again\n`);
        const again = await measure();
        if (!again.skipped) process.stdout.write(`row: ${JSON.stringify(again.row)}\n`);
        diff = again.skipped ? [again.skipped] : differs(again.row).filter((d) => diff.includes(d));
      }
      if (diff.length) changed.push(`${version}: ${diff.join(', ')} (against ${was?.version ?? 'nothing'})`);
      else process.stdout.write(`${version}: as ${was?.version === version ? 'its committed row' : `the newest committed row (${was?.version})`}\n`);
    } else {
      fs.mkdirSync(path.dirname(RESULTS), { recursive: true });
      if (measuresOnly) {
        committed.splice(0, committed.length, ...replaceLastRow(committed, row));
        fs.writeFileSync(RESULTS, committed.map((r) => `${JSON.stringify(r)}\n`).join(''));
      } else {
        fs.appendFileSync(RESULTS, `${JSON.stringify(row)}\n`);
        fs.appendFileSync(MEASURED, suite.results.filter((r) => r.def?.truth).flatMap(measuredLandings).map((m) => `${JSON.stringify(m)}\n`).join(''));
      }
      writeFromFiles();
    }
    // One version at a time: a version this run installed goes when asked to, or when the disk runs short.
    if (!wasCached && (opts.removeCli || freeBytes(cacheRoot()) < LOW_DISK_BYTES)) {
      fs.rmSync(prefix, { recursive: true, force: true });
      process.stdout.write(`removed ${prefix}\n`);
    }
  }
  if (!opts.check) writeFromFiles();
  for (const c of changed) process.stdout.write(`CHANGED ${c}\n`);
  return changed.length ? 1 : 0;
}
