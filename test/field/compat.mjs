#!/usr/bin/env node
// The compatibility runner, two ways:
//
//   npm run compat -- --versions A..B|A,B|newest [--step N] [--scenarios a,b] [--again] [--check]
//     one row per version from the compat scenarios, resumable (./compatRows.mjs); the default.
//   node test/field/compat.mjs --full [--versions 2.1.280,2.1.283,2.1.332] [--only a,b] [--repeat N]
//                                 [--out docs/COMPATIBILITY.md] [--json FILE]
//     the whole field suite over a few versions: docs/COMPATIBILITY.md's tables above its findings.
//   node test/field/compat.mjs --full --from-json FILE [--out …]   (those tables again from a run saved with --json)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runSuite } from './run.mjs';
import { classifyCall, interactiveProfile, profileClaim } from './assertions.mjs';
import { DEFAULT_CLAUDE_VERSION } from './claudeInstall.mjs';
import { isMissingTool } from '../../scripts/lib/missingTool.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DEFAULT_VERSIONS = ['2.1.280', '2.1.281', '2.1.283', DEFAULT_CLAUDE_VERSION];

function parseArgs(argv) {
  const opts = { versions: DEFAULT_VERSIONS, only: undefined, out: path.join(repoRoot, 'docs', 'COMPATIBILITY.md'), json: undefined, fromJson: undefined, repeat: 1 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--versions') opts.versions = argv[++i].split(',');
    else if (a === '--only') opts.only = argv[++i].split(',');
    else if (a === '--out') opts.out = path.resolve(argv[++i]);
    else if (a === '--json') opts.json = path.resolve(argv[++i]);
    else if (a === '--from-json') opts.fromJson = path.resolve(argv[++i]);
    else if (a === '--repeat') opts.repeat = Math.max(1, Number(argv[++i]) || 1);
    else throw new Error(`unknown option ${a}`);
  }
  return opts;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : undefined;
};

const SHAPE_WORDS = {
  'at-message-end': 'at message end',
  'held-while-hooks-run': 'held while hooks ran',
  'with-its-result': 'with its result',
  'never-written': 'never on disk',
};

function callCell(c, def, version) {
  if (c.heldMs === undefined) return 'never on disk';
  const claim = profileClaim(c, def, version);
  const wait = c.wait ? `, probe ${c.wait.outcome} (${c.wait.polls} polls)` : '';
  return `${SHAPE_WORDS[classifyCall(c, def)]} ${c.heldMs} ms${wait}${claim ? '' : ' ¹'}`;
}

function scenarioRow(r) {
  const calls = r.calls.map((c) => `\`${c.id.replace('toolu_field', '')}\` ${callCell(c, r.def, r.version)}`).join('<br>');
  const verdict = r.failures.length ? `**fail**: ${r.failures.map((f) => f.replace(/\|/g, '/')).join('; ')}` : 'pass';
  return `| ${r.label ?? r.scenario} | ${calls} | ${(r.durationMs / 1000).toFixed(1)} s | ${verdict} |`;
}

function describeCalls(entries) {
  if (!entries.length) return 'not run';
  const byShape = new Map();
  for (const { c, def } of entries) {
    const shape = classifyCall(c, def);
    if (!byShape.has(shape)) byShape.set(shape, []);
    byShape.get(shape).push(c.heldMs);
  }
  const parts = [...byShape.entries()].map(([shape, held]) =>
    shape === 'never-written' ? `${held.length} never on disk` : `${held.length} ${SHAPE_WORDS[shape]} (median ${median(held)} ms)`,
  );
  const waits = entries.filter(({ c }) => c.wait);
  if (waits.length) {
    const seen = waits.filter(({ c }) => c.wait.outcome === 'seen').length;
    parts.push(`probe waits seen ${seen} / behind ${waits.length - seen}`);
  }
  return parts.join('; ');
}

function versionSummary(version, results) {
  const calls = (mode) => results.filter((r) => r.def.mode === mode && !r.def.racy).flatMap((r) => r.calls.map((c) => ({ c, def: r.def })));
  const passed = results.filter((r) => !r.failures.length).length;
  return `| ${version} | ${describeCalls(calls('print'))} | ${describeCalls(calls('interactive'))} | ${passed}/${results.length} |`;
}

/**
 * Transports and features, each judged by the scenarios that exercise it: it works on a version when
 * every one of them passed there (each scenario's checks: every call reported once, written, timed).
 */
const FEATURES = [
  { name: 'command hook (`install-hook`)', test: (d) => (d.install ?? 'hook') === 'hook' && !d.statusline && !d.forkScript },
  { name: 'http hook (`install-hook --http`, served by `watch`)', test: (d) => d.install === 'http' },
  { name: 'plugin from a folder (`claude plugin marketplace add <dir>`)', test: (d) => d.install === 'plugin' || d.install === 'plugin+hook' },
  { name: 'plugin from a git URL (committed bundle, nothing built)', test: (d) => d.install === 'plugin-git' },
  { name: 'mod (in process, 2.1.286+ as measured; before it, the plugin\'s command hooks alone)', test: (d) => !!d.mod },
  { name: 'status line (`install-statusline`, "held" then idle)', test: (d) => !!d.statusline },
  { name: 'forked session (`--resume --fork-session`): copied history told apart', test: (d) => !!d.forkScript },
];

function featureCell(results, test) {
  const ran = results.filter((r) => test(r.def));
  if (!ran.length) return 'not run';
  const failed = ran.filter((r) => r.failures.length);
  if (failed.length) return `**fails** in ${[...new Set(failed.map((r) => `\`${r.scenario}\``))].join(', ')} (${ran.length - failed.length}/${ran.length} passed)`;
  return `yes (${ran.length}/${ran.length})`;
}

/**
 * Hook evidence: the hook's `landed` events (it watched its call's record reach the file) turn
 * into a proven shape and bounds on the hold in `analyze --channel`; the suite checks both against
 * the recorder for every hooked call (`checkAnalyzedShape`), so any such failure says no.
 */
function evidenceCell(results) {
  const analyses = results.flatMap((r) => [r.analysis, r.fork?.analysis]).filter(Boolean);
  if (!analyses.length) return 'not run';
  const landed = analyses.reduce((n, a) => n + (a.channel?.events?.landed ?? 0), 0);
  const calls = analyses.flatMap((a) => a.calls ?? []);
  const byHook = calls.filter((c) => c.shape_evidence === 'hook_on_disk').length;
  const bounded = calls.filter((c) => c.held_ms).length;
  const wrong = results.filter((r) => r.failures.some((f) => f.includes('analyze --channel')));
  // A `landed` watch starts only when neither the record nor the result was on disk at PostToolUse.
  const landedText = landed ? `${landed} \`landed\` event${landed > 1 ? 's' : ''}` : 'no call needed a `landed` watch';
  const figures = `${bounded}/${calls.length} calls with bounds on the hold, ${byHook} shapes proven by the hook alone; ${landedText}`;
  if (wrong.length) return `**fails** in ${wrong.map((r) => `\`${r.scenario}\``).join(', ')} (${figures})`;
  return bounded > 0 ? `yes (${figures})` : `no (${figures})`;
}

function featureTable(runs) {
  const shown = runs.filter((r) => !r.skipped);
  const lines = [`| transport / feature | scenarios | ${shown.map((r) => r.version).join(' | ')} |`, `|---|---|${shown.map(() => '---|').join('')}`];
  for (const f of FEATURES) {
    const used = [...new Set(shown.flatMap((r) => r.results.filter((x) => f.test(x.def)).map((x) => `\`${x.scenario}\``)))];
    lines.push(`| ${f.name} | ${used.join(', ') || '—'} | ${shown.map((r) => featureCell(r.results, f.test)).join(' | ')} |`);
  }
  lines.push(`| hook evidence (\`landed\`: shape and hold proven by \`analyze --channel\`) | every hooked call | ${shown.map((r) => evidenceCell(r.results)).join(' | ')} |`);
  return lines;
}

/** Hand-written findings below this marker survive a re-run of the script. */
export const NOTES_MARKER = '<!-- Findings below are written by hand from the tables above; test/field/compat.mjs keeps them. -->';

function render(runs, { startedAt, durationMs, notes, repeat, only }) {
  const lines = [];
  lines.push('# Compatibility with Claude Code versions', '');
  lines.push(
    `Generated by \`node test/field/compat.mjs\` on ${new Date(startedAt).toISOString().slice(0, 16).replace('T', ' ')} UTC ` +
      `(${os.platform()} ${os.arch()}, Node ${process.versions.node}, ${os.cpus().length} cores shared with other work), ` +
      `in ${(durationMs / 60000).toFixed(1)} min. Every number below is from that one run; re-run the script to refresh it.`,
    '',
  );
  lines.push(
    'Each version is installed from npm (`@anthropic-ai/claude-code@<version>`) into `~/.cache/transcript-lag/` and driven',
    'through the field suite (`test/field/`): a stand-in Messages API on 127.0.0.1 streams scripted tool calls, the',
    "project's hook is installed (`install-hook`, `install-hook --http`, or the plugin through `claude plugin`), `watch --json` runs throughout (except in `*-unwatched`), `analyze` reads the result, and an",
    'independent recorder polls the transcript every 10 ms for the ground truth. The time given per call is from its',
    'PreToolUse hook firing to its record on disk; the shape says what the record waited for:',
    '',
    '- **at message end**: written when the assistant message ended (the stand-in ends it 300 ms after the last block, as a',
    '  real stream does, except in `*-endfirst` scenarios where it ends the instant the last block closes);',
    '- **held while hooks ran**: written only when the PreToolUse hooks finished (probe 10 × 100 ms, slow hook 2 s);',
    '- **with its result**: written in the same write as the tool\'s result.',
    '',
    'Invariants asserted for every version: `watch` reports every call `written` at the line the recorder saw, with a lag',
    "no less than the recorder's and at most its 1 s stat poll more, and `held` first when a call is held ≥ 1 s; `analyze`",
    "puts every call and result at the same lines; the probe's `seen` / `behind` matches what was on disk during its wait.",
    'Shapes asserted where every run agreed (`profileClaim` in `test/field/assertions.mjs`); ¹ marks calls whose shape is',
    'reported only, because runs went either way.',
    '',
  );
  lines.push(...OS_SECTION, '');
  lines.push('## Transports and features', '');
  lines.push(
    'Which way of reporting calls, and which feature, works on which version: "yes" when every scenario that uses it',
    'passed on that version (the scenarios in the second column, described at the end).',
    '',
    ...featureTable(runs),
    '',
  );
  if (only) lines.push(`This run was limited to the scenarios ${only.map((s) => `\`${s}\``).join(', ')} (\`--only\`); the others are not run.`, '');
  lines.push('## Summary', '');
  lines.push('| version | print mode (`-p`) | interactive (tmux) | scenarios passed |', '|---|---|---|---|');
  for (const run of runs) {
    if (run.skipped) lines.push(`| ${run.version} | ${run.skipped.replace(/\|/g, '/')} | | |`);
    else lines.push(versionSummary(run.version, run.results));
  }
  lines.push('', '(`*-endfirst` scenarios are left out of the summary; see the tables.)', '');
  for (const run of runs) {
    lines.push(`## ${run.version}`, '');
    if (run.skipped) {
      lines.push(run.skipped, '');
      continue;
    }
    const profile = interactiveProfile(run.version) === 'holds' ? 'held while hooks run (from the second message on)' : 'written at message end';
    lines.push(`Interactive shape asserted: ${profile}. Suite time ${(run.durationMs / 1000).toFixed(0)} s${repeat > 1 ? ` for ${repeat} runs` : ''}.`, '');
    lines.push('| scenario | calls: fired → record on disk | duration | result |', '|---|---|---|---|');
    for (const r of run.results) lines.push(scenarioRow(r));
    lines.push('');
  }
  lines.push('## Scenarios', '');
  lines.push(
    '- `print-*`: `claude -p go`; `interactive-*`: the TUI under tmux, prompt typed with `send-keys`.',
    '- `single`: two assistant messages with one Bash call each (`001b` `echo first`, then `002b` `sleep 1`).',
    '- `parallel`: a warm-up message with one Bash call (`001b`), then one message with a Read (`002r`) and a Bash call (`002b`, `sleep 1`).',
    '- `announce` / `probe`: the hook as `install-hook` writes it; probe mode with 10 polls × 100 ms.',
    '- `slow`: a second PreToolUse hook that sleeps 2 s (a slow reviewing hook).',
    '- `plugin`: the plugin installed with `claude plugin marketplace add <this folder>` then `claude plugin install`; `plugin-git`: the same from a git URL (a bare clone of the committed HEAD served on loopback); `plugin-and-install-hook`: both, each call still reported once.',
    '- `http`: `install-hook --http`; Claude Code POSTs each call to the receiver `watch` serves.',
    '- `statusline`: `install-statusline`; the terminal must say "held" while a slow hook holds a call and not once idle.',
    '- `unwatched`: nothing watches; `analyze --channel` must still give every call the shape the recorder saw.',
    '- `fork`: `--resume <parent> --fork-session`; the copied history is never reported as the fork\'s calls.',
    '',
  );
  lines.push(NOTES_MARKER, '');
  if (notes) lines.push(notes.trim(), '');
  return lines.join('\n');
}

function existingNotes(file) {
  if (!fs.existsSync(file)) return undefined;
  const text = fs.readFileSync(file, 'utf8');
  const at = text.indexOf(NOTES_MARKER);
  return at < 0 ? undefined : text.slice(at + NOTES_MARKER.length);
}

/**
 * Kept by hand from what the Windows lane (npm run test:windows, docs/PLATFORMS.md) proves: this script
 * runs Claude Code on Linux only, so it cannot measure the OS column itself.
 */
const OS_SECTION = [
  '## Operating systems',
  '',
  'What runs where, independent of the Claude Code version above (which this script measures on Linux only).',
  'Windows is `npm run test:windows`: a real Windows node.exe (20.20.2) and Claude Code\'s own `claude.exe` 2.1.332, under Wine 8 (no Git Bash, a `powershell.exe` that runs nothing); see docs/PLATFORMS.md.',
  '',
  '| feature | Linux | Windows (under Wine) | macOS |',
  '|---|---|---|---|',
  '| `install-hook` asks `claude --version` and writes the exec form; the real Claude Code runs it with no shell: `pre` and `post` once | entry spawned with no shell (unit); the field suite writes the shell form | yes (claude.exe, end to end; the shell form, the control, reports nothing) | not run |',
  '| `install-hook` shell form | yes (field) | one line for Git Bash and PowerShell: run by bash and parsed by a PowerShell grammar on Linux; not run in either shell | not run |',
  '| launcher for a runtime that needs an environment (VS Code\'s Electron) | exec form through env(1) (unit) | `transcript-lag-hook.cmd` under Wine\'s cmd.exe: environment and arguments intact; its exec form (cmd.exe /d /c) run by claude.exe | exec form through env(1), not run |',
  '| plugin mod in process (2.1.286+ as measured) | yes (field) | yes (claude.exe `--plugin-dir`: each call once, held message removed) | not run |',
  '| `watch` follows a live session of the workspace (drive-letter case folded) | yes (field) | yes (end to end) | not run |',
  '| `statusline` (held call from a backslash `transcript_path`) | yes (field) | yes (end to end) | not run |',
  '| `analyze` | yes (field) | yes (output equals Linux\'s) | not run |',
  '| plugin hook script (`sh`) | yes (field) | Git Bash only; not run | Node discovery tested under dash with a faked HOME |',
  '| unit suites: discovery, settings and installers, hook, channel, tail, CLI | yes | yes, except the tests listed by the lane (sh, symlinks, deleting a file the tail holds open) | not run |',
];

async function main() {
  const argv = process.argv.slice(2);
  if (!argv.includes('--full')) return (await import('./compatRows.mjs')).main(argv);
  const opts = parseArgs(argv.filter((a) => a !== '--full'));
  if (opts.fromJson) {
    const saved = JSON.parse(fs.readFileSync(opts.fromJson, 'utf8'));
    fs.writeFileSync(opts.out, render(saved.runs, { ...saved, notes: existingNotes(opts.out), repeat: saved.repeat ?? 1, only: saved.only }));
    process.stdout.write(`wrote ${path.relative(repoRoot, opts.out)} from ${opts.fromJson}\n`);
    return 0;
  }
  const startedAt = Date.now();
  const runs = [];
  for (const version of opts.versions) {
    // Repeats run back to back per version; their results are listed together, numbered.
    const run = { version, results: [], durationMs: 0 };
    for (let k = 1; k <= opts.repeat && !run.skipped; k++) {
      process.stdout.write(`\n== Claude Code ${version}${opts.repeat > 1 ? ` (run ${k}/${opts.repeat})` : ''}\n`);
      const suite = await runSuite({ version, only: opts.only, record: false, strict: true, keep: false });
      if (suite.skipped) {
        run.skipped = suite.skipped;
        process.stdout.write(`${suite.skipped}\n`);
        break;
      }
      for (const r of suite.results) {
        delete r.recording;
        delete r.watchEvents;
        if (opts.repeat > 1) r.label = `${r.scenario} #${k}`;
        run.results.push(r);
      }
      run.durationMs += suite.durationMs;
    }
    // Repeats of a scenario side by side, in the suite's order.
    const order = new Map(run.results.map((r, i) => [r.scenario, i]));
    run.results.sort((a, b) => order.get(a.scenario) - order.get(b.scenario));
    runs.push(run);
  }
  const durationMs = Date.now() - startedAt;
  if (opts.json) fs.writeFileSync(opts.json, JSON.stringify({ startedAt, durationMs, runs, repeat: opts.repeat, only: opts.only }, null, 1));
  fs.writeFileSync(opts.out, render(runs, { startedAt, durationMs, notes: existingNotes(opts.out), repeat: opts.repeat, only: opts.only }));
  process.stdout.write(`\nwrote ${path.relative(repoRoot, opts.out)} (${(durationMs / 60000).toFixed(1)} min)\n`);
  return runs.some((r) => r.results?.some((x) => x.failures.length)) ? 1 : 0;
}

main().then(
  (code) => (process.exitCode = code),
  (err) => {
    console.error(isMissingTool(err) ? err.message : `field compat failed: ${err.stack ?? err}`);
    process.exitCode = 1;
  },
);
