#!/usr/bin/env node
// Field test: the project's hook, `watch` and `analyze` against the real Claude Code CLI (pinned,
// installed from npm into a cache outside the repo on first use), driven through a stand-in Messages
// API on 127.0.0.1. Skips only when the CLI cannot be installed; anything else that goes wrong fails.
//
//   node test/field/run.mjs [--cli-version V] [--only a,b] [--json FILE] [--record] [--invariants-only] [--keep]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { ensureClaude, ClaudeInstallError, DEFAULT_CLAUDE_VERSION } from './claudeInstall.mjs';
import { tmuxAvailable } from './drivers.mjs';
import { missingPieces, repoRoot } from './projectCli.mjs';
import { runScenario } from './scenario.mjs';
import { scenarios } from './scenarios.mjs';
import { checkScenario, classifyCall, completeCounts, modLoads, truthCounts } from './assertions.mjs';
import { prometheusBin } from './prometheus.mjs';
import { writeRecording } from '../../scripts/lib/recordings.mjs';
import { findCommand, isMissingTool, missingTool } from '../../scripts/lib/missingTool.mjs';

export const RECORDINGS_DIR = path.join(repoRoot, 'test', 'field', 'recordings');
// Recorded for the demo: one session held while its hooks run, one written promptly.
const DEMO_SCENARIOS = ['interactive-parallel-probe-slow', 'print-single-probe', 'interactive-single-probe'];

function parseArgs(argv) {
  const opts = { version: process.env.TL_FIELD_CLI_VERSION || DEFAULT_CLAUDE_VERSION, only: undefined, json: undefined, record: false, strict: true, keep: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--cli-version') opts.version = argv[++i];
    else if (a === '--only') opts.only = argv[++i].split(',');
    else if (a === '--json') opts.json = argv[++i];
    else if (a === '--record') opts.record = true;
    else if (a === '--invariants-only') opts.strict = false;
    else if (a === '--keep') opts.keep = true;
    else throw new Error(`unknown option ${a}`);
  }
  return opts;
}

export function describeCall(c, def) {
  const parts = [`${c.id} ${c.tool}:`];
  if (c.heldMs === undefined) parts.push('never on disk');
  else parts.push(`fired→on disk ${c.heldMs} ms (line ${c.line}), with_result=${c.withResult}, ${classifyCall(c, def)}`);
  if (c.wait) parts.push(`probe ${c.wait.outcome} after ${c.wait.polls} polls / ${Math.round(c.wait.waited_ms)} ms`);
  if (c.hooksMs !== undefined) parts.push(`hooks ${c.hooksMs} ms`);
  return parts.join(' ');
}

function describeMetrics(m) {
  if (m.error) return `prometheus: ${m.error}`;
  const s = (x) => (x === undefined ? '?' : `${x.toFixed(3)} s`);
  return `prometheus (${m.scrapes} scrapes): ${m.calls} calls, waits seen ${m.waits.seen} / behind ${m.waits.behind}, ${m.heldCount} holds, p50 ${s(m.medianHeldS)}, p95 ${s(m.p95HeldS)}`;
}

export async function runSuite(opts, out = (s) => process.stdout.write(s)) {
  const started = Date.now();
  // The compat runner's scenarios run when named (test/field/compat.mjs names them), not in the default suite.
  const chosen = scenarios.filter((s) => (opts.only ? opts.only.includes(s.name) : !s.compat));
  // Before installing Claude Code: a missing tmux fails in a second, not after the download.
  if (chosen.some((s) => s.mode === 'interactive') && !tmuxAvailable()) {
    throw missingTool('tmux', ['tmux'], 'the field suite drives interactive Claude Code in it');
  }
  if (chosen.some((s) => s.metrics)) prometheusBin();
  // examples/'s reviewing hooks run as settings hooks: sh with jq, and Python.
  if (chosen.some((s) => s.examples)) {
    if (!findCommand('jq')) throw missingTool('jq', ['jq'], "examples/review.sh, which the field suite runs as a settings hook");
    if (!findCommand('python3')) throw missingTool('python3', ['python3'], "examples/review.py, which the field suite runs as a settings hook");
  }
  let claudeBin;
  try {
    claudeBin = ensureClaude(opts.version, (m) => out(`field: ${m}\n`));
  } catch (err) {
    if (err instanceof ClaudeInstallError) return { skipped: `SKIP field test: ${err.message}`, results: [] };
    throw err;
  }
  const missing = missingPieces();
  if (missing.length) throw new Error(`field test needs ${missing.join(', ')}: run \`npm run build\` first`);
  out(`field: Claude Code ${opts.version} (${claudeBin}), ${chosen.length} scenarios\n`);
  const results = [];
  // Where the plugin's mod loads, the build's own validator must take the plugin: a mod it refuses runs not
  // at all, and every mod scenario would fail for a reason this line names at once.
  if (modLoads(opts.version) && chosen.some((s) => s.install?.includes('plugin'))) {
    const v = validatePlugin(claudeBin);
    out(`${v.failures.length ? 'FAIL' : 'ok  '} ${v.scenario}\n`);
    for (const f of v.failures) out(`     ✗ ${f}\n`);
    results.push(v);
  }
  for (const def of chosen) {
    const result = await runScenario(def, { claudeBin, version: opts.version, keep: opts.keep });
    result.failures = checkScenario(result, { strictProfile: opts.strict });
    results.push(result);
    out(`${result.failures.length ? 'FAIL' : 'ok  '} ${def.name} (${(result.durationMs / 1000).toFixed(1)} s)\n`);
    for (const c of result.calls) out(`       ${describeCall(c, result.def)}\n`);
    if (result.metrics) out(`       ${describeMetrics(result.metrics)}\n`);
    const agree = result.recordLagAgreement;
    if (agree) out(`       record lags vs the 5 ms tailer: ${agree.records} records, median ${agree.median_ms} ms off, worst ${agree.worst_ms} ms, ${agree.within_20_ms} within 20 ms\n`);
    if (result.truth) {
      const { counts } = truthCounts(result);
      const each = Object.entries(counts).map(([hook, c]) => `${hook} ${c.agreed}/${c.calls}${c.differs_real ? ` (differs ${c.differs_said}, really ${c.differs_real})` : ''}`);
      out(`       replay gave the real decision: ${each.join(', ')}\n`);
    }
    if (result.def.complete && result.truth) {
      const { counts: c } = completeCounts(result);
      out(`       behind complete: ${c.found}/${c.calls} hook runs found their call, ${c.completed} given held records (${c.records} compared with the landed ones), ${c.hookRuns} hook_run events\n`);
    }
    for (const f of result.failures) out(`     ✗ ${f}\n`);
    if (result.failures.length) {
      out(`       api: ${result.apiRequests.map((r) => `${r.t}ms ${r.kind ?? r.path}`).join(', ')}\n`);
      if (result.watchStderr) out(`       watch stderr: ${result.watchStderr.trim().split('\n').slice(0, 6).join(' | ').slice(0, 400)}\n`);
      if (result.screen) out(`       last screen:\n${result.screen.split('\n').filter((l) => l.trim()).map((l) => `         | ${l}`).join('\n')}\n`);
    }
    if (opts.record && DEMO_SCENARIOS.includes(def.name) && !result.failures.length) {
      out(`       recorded ${path.relative(repoRoot, writeRecording(result, RECORDINGS_DIR))}\n`);
    }
  }
  return { results, durationMs: Date.now() - started };
}

/** `claude plugin validate plugin/`, in a HOME of its own: the result as a scenario's, failed when it fails. */
function validatePlugin(claudeBin) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-validate-'));
  try {
    const r = spawnSync(claudeBin, ['plugin', 'validate', path.join(repoRoot, 'plugin')], { env: { PATH: process.env.PATH, HOME: home }, encoding: 'utf8', timeout: 120_000 });
    const lines = `${r.stdout ?? ''}${r.stderr ?? ''}`.split('\n');
    // Each error block: "✘ Found N error(s):", then its "❯ …" lines.
    const errors = lines.flatMap((l, i) => (/✘ Found/.test(l) ? lines.slice(i + 1).filter((x, j, a) => /❯/.test(x) && !a.slice(0, j).some((y) => /^\S/.test(y) && !/❯/.test(y) && y.trim())) : [])).map((l) => l.trim());
    const failures = r.status === 0 ? [] : [`claude plugin validate exited ${r.status ?? r.signal}`, ...errors.slice(0, 10)];
    return { scenario: 'claude plugin validate plugin/', def: { name: 'claude plugin validate plugin/' }, calls: [], failures, durationMs: 0 };
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const suite = await runSuite(opts);
  if (suite.skipped) {
    console.log(suite.skipped);
    return 0;
  }
  if (opts.json) fs.writeFileSync(opts.json, JSON.stringify(suite, (k, v) => (k === 'recording' ? undefined : v), 2));
  const failed = suite.results.filter((r) => r.failures.length);
  console.log(`field: ${suite.results.length - failed.length}/${suite.results.length} scenarios passed in ${(suite.durationMs / 1000).toFixed(1)} s`);
  return failed.length ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  main().then(
    (code) => (process.exitCode = code),
    (err) => {
      console.error(isMissingTool(err) ? err.message : `field test failed: ${err.stack ?? err}`);
      process.exitCode = 1;
    },
  );
}
