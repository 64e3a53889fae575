#!/usr/bin/env node
// `npm run landings -- [--versions 2.1.280,2.1.332] [--runs N] [--from-json A.json,B.json] [--fresh]`:
// measures when a call's record reaches disk with the real Claude Code (the field suite's truth
// scenarios, each run N times per version), adds each measured call to test/field/landings/measured.jsonl
// (kept: each run adds to what earlier runs measured, so rare landings stay counted), then writes
// src/core/replay/landings.json (replay's model, from every call measured) and its table in
// docs/COMPATIBILITY.md. `--from-json` takes `node test/field/run.mjs --json` outputs instead of
// running; `--runs 0` only writes the table again; `--fresh` forgets what earlier runs measured.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { measuredLandings, writeLandingModel } from './lib/landings.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TABLE = path.join(repoRoot, 'src', 'core', 'replay', 'landings.json');
const MEASURED = path.join(repoRoot, 'test', 'field', 'landings', 'measured.jsonl');

function parseArgs(argv) {
  const o = { versions: ['2.1.280', '2.1.281', '2.1.332'], runs: 1, fromJson: undefined, fresh: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--versions') o.versions = argv[++i].split(',');
    else if (argv[i] === '--runs') o.runs = Number(argv[++i]);
    else if (argv[i] === '--from-json') o.fromJson = argv[++i].split(',');
    else if (argv[i] === '--fresh') o.fresh = true;
    else throw new Error(`unknown option ${argv[i]}`);
  }
  return o;
}

const opts = parseArgs(process.argv.slice(2));
fs.mkdirSync(path.dirname(MEASURED), { recursive: true });
if (opts.fresh) fs.writeFileSync(MEASURED, '');
/** Adds a run's measured calls: kept as it goes, so a long run stopped halfway keeps what it measured. */
const keep = (results) => fs.appendFileSync(MEASURED, results.filter((r) => r.def?.truth).flatMap(measuredLandings).map((m) => `${JSON.stringify(m)}\n`).join(''));
if (opts.fromJson) {
  for (const f of opts.fromJson) keep(JSON.parse(fs.readFileSync(f, 'utf8')).results);
} else if (opts.runs > 0) {
  const { runSuite } = await import('../test/field/run.mjs');
  const { scenarios } = await import('../test/field/scenarios.mjs');
  const only = scenarios.filter((s) => s.truth && !s.compat).map((s) => s.name);
  for (const version of opts.versions) {
    for (let run = 0; run < opts.runs; run++) {
      // The scenarios' own checks may fail (what replay's model does not know yet): the landings are measured all the same.
      keep((await runSuite({ version, only, strict: false, keep: false, record: false })).results);
    }
  }
}
const { measured, sessions, versions } = writeLandingModel(repoRoot);
process.stdout.write(`landings: ${measured.length} calls of ${sessions} sessions (${versions}) → ${path.relative(repoRoot, TABLE)}, docs/COMPATIBILITY.md\n`);
