#!/usr/bin/env node
// `npm run landings -- [--versions 2.1.280,2.1.332] [--runs N] [--from-json A.json,B.json]`: measures
// when a call's record reaches disk with the real Claude Code (the field suite's truth scenarios, each
// run N times per version), then writes src/core/replay/landings.json (replay's model) and its table in
// docs/COMPATIBILITY.md. `--from-json` takes `node test/field/run.mjs --json` outputs instead of running.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { landingTable, measuredLandings, withLandingsSection } from './lib/landings.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TABLE = path.join(repoRoot, 'src', 'core', 'replay', 'landings.json');
const DOC = path.join(repoRoot, 'docs', 'COMPATIBILITY.md');

function parseArgs(argv) {
  const o = { versions: ['2.1.280', '2.1.332'], runs: 2, fromJson: undefined };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--versions') o.versions = argv[++i].split(',');
    else if (argv[i] === '--runs') o.runs = Number(argv[++i]);
    else if (argv[i] === '--from-json') o.fromJson = argv[++i].split(',');
    else throw new Error(`unknown option ${argv[i]}`);
  }
  return o;
}

const opts = parseArgs(process.argv.slice(2));
const results = [];
if (opts.fromJson) {
  for (const f of opts.fromJson) results.push(...JSON.parse(fs.readFileSync(f, 'utf8')).results);
} else {
  const { runSuite } = await import('../test/field/run.mjs');
  const { scenarios } = await import('../test/field/scenarios.mjs');
  const only = scenarios.filter((s) => s.truth).map((s) => s.name);
  for (const version of opts.versions) {
    for (let run = 0; run < opts.runs; run++) {
      // The scenarios' own checks may fail (a version replay's model does not know yet): the landings are measured all the same.
      const suite = await runSuite({ version, only, strict: false, keep: false, record: false });
      results.push(...suite.results);
    }
  }
}
const truth = results.filter((r) => r.def?.truth);
const measured = truth.flatMap(measuredLandings);
const versions = [...new Set(truth.map((r) => r.version))].join(', ');
const how =
  `the field suite's truth scenarios (interactive and print; single, multi, parallel, burst; without and with the plugin), ` +
  `${truth.length} sessions on Claude Code ${versions}, ${measured.length} calls, against its stand-in API on 127.0.0.1 ` +
  `(each message ends 300 ms after its last block), ${os.cpus().length} cores; three PreToolUse hooks per call (test/field/truthHooks/).`;
const table = landingTable(measured, how);
fs.writeFileSync(TABLE, `${JSON.stringify(table, null, 2)}\n`);
fs.writeFileSync(DOC, withLandingsSection(fs.readFileSync(DOC, 'utf8'), table));
process.stdout.write(`landings: ${measured.length} calls of ${truth.length} sessions (${versions}) → ${path.relative(repoRoot, TABLE)}, docs/COMPATIBILITY.md\n`);
