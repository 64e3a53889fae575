// What each Claude Code release does, as `npm run compat` (test/field/compat.mjs) measures it: one row
// per version from the compat scenarios' results (test/field/compat/results.jsonl), the per-version
// behaviour and the versions where it changed (src/core/compat/claudeCode.json, which the code's version
// rules read), and the table docs/COMPATIBILITY.md shows. One module for all three, so a unit test can
// hold the doc and the code to the results file (test/unit/core/compat/claudeCode.test.ts).
import { measuredLandings } from './landings.mjs';

/** The compat runner's scenarios (test/field/scenarios.mjs, `compat: true`). */
export const COMPAT_SCENARIOS = ['interactive-compat', 'print-compat', 'print-compat-exec'];
/**
 * The compat runner's measures that are not field scenarios, each its own session with its own test mod,
 * run where the mod loads, asked for by name with `--scenarios` like a scenario: `fs-stat` gives the row's
 * `fs_stat_lags_read` (test/field/measure/fsStat.mjs).
 */
export const COMPAT_MEASURES = ['fs-stat'];
/** The row fields each measure writes: a run of measures alone merges them into the version's row. */
export const MEASURE_FIELDS = { 'fs-stat': 'fs_stat_lags_read' };

const MOD_SOURCE = 'transcript-lag-mod';

/** Nearest-rank percentile of sorted values. */
function rank(sorted, q) {
  return sorted.length ? sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] : null;
}

export const versionKey = (v) => v.split('.').map((n) => n.padStart(6, '0')).join('.');
export const byVersion = (a, b) => versionKey(a).localeCompare(versionKey(b));

const channelOf = (r) => (r.recording?.channel ?? []).map((l) => JSON.parse(l.text));

/**
 * One version's row from its compat scenarios' results (as runSuite returns them, recording included).
 * Every figure is a count of what was seen, so a row says how much it rests on.
 */
export function compatRow({ version, results, at, runner, durationMs }) {
  const named = (n) => results.find((r) => r.scenario === n);
  const landings = results.filter((r) => r.def?.truth).flatMap(measuredLandings);
  // A call's record "held" when it landed only once every PreToolUse hook of the call had ended.
  const count = (ms) => ({ calls: ms.length, held: ms.filter((m) => m.way === 'after').length, at_fire: ms.filter((m) => m.way === 'at_fire').length });
  const inter = landings.filter((m) => m.mode === 'interactive');
  const print = landings.filter((m) => m.mode === 'print');
  const delays = print.map((m) => m.delay_ms).sort((a, b) => a - b);
  const modRuns = results.filter((r) => r.def?.mod);
  const modEvents = modRuns.flatMap((r) => channelOf(r).filter((e) => e.source === MOD_SOURCE));
  const modsLoad = modRuns.length ? modEvents.some((e) => e.event === 'pre') : null;
  // The mod times each call's settings hooks around `classic.PreToolUse`'s `next`: its `hooks` event says that event fired.
  const classic = modsLoad ? modEvents.some((e) => e.event === 'hooks') : null;
  // A reviewing hook asks `transcript-lag message --json` for each call's message. Where the record was not on
  // disk yet, the answer came from the mod's held message (source `mod`): `calls` counts those, `equal` those
  // equal to the text the transcript holds in the end. Calls whose record was on disk were answered from it.
  let heldText = null;
  if (modsLoad) {
    heldText = { calls: 0, equal: 0, from_transcript: 0, unanswered: 0 };
    for (const r of modRuns) {
      for (const c of r.calls) {
        const answers = (r.reviewerAnswers ?? []).filter((a) => a.tool_use_id === c.id);
        const truth = r.messages?.[c.id];
        if (answers.length === 1 && answers[0].source === 'transcript') heldText.from_transcript += 1;
        // Neither held nor on disk when asked (the message tool says why): the mod held no message for it.
        if (answers.length > 0 && answers.every((a) => a.source === null)) heldText.unanswered += 1;
        if (!answers.some((a) => a.source === 'mod')) continue;
        heldText.calls += 1;
        if (answers.length === 1 && JSON.stringify(answers[0].text_blocks) === JSON.stringify(truth)) heldText.equal += 1;
      }
    }
  }
  // The hook in exec form: each call reported `pre` by it (it ran with no shell, or not at all).
  const exec = named('print-compat-exec');
  const execRuns = exec
    ? { calls: exec.calls.length, ran: exec.calls.filter((c) => channelOf(exec).some((e) => e.event === 'pre' && e.tool_use_id === c.id && e.source !== MOD_SOURCE)).length }
    : null;
  return {
    version,
    at,
    runner,
    duration_s: Math.round(durationMs / 1000),
    scenarios: Object.fromEntries(
      results.map((r) => [r.scenario, { passed: r.failures.length === 0, s: Math.round(r.durationMs / 100) / 10, ...(r.failures.length ? { failures: r.failures.slice(0, 3).map((f) => f.slice(0, 240)) } : {}) }]),
    ),
    interactive: inter.length
      ? {
          opening: count(inter.filter((m) => m.place === 'opening')),
          first: count(inter.filter((m) => m.place === 'first' || m.place === 'first-after-text')),
          later: count(inter.filter((m) => m.place === 'later')),
        }
      : null,
    print: print.length ? { calls: print.length, held: print.filter((m) => m.way === 'after').length, at_fire: print.filter((m) => m.way === 'at_fire').length, p10_ms: rank(delays, 0.1), p50_ms: rank(delays, 0.5), p90_ms: rank(delays, 0.9) } : null,
    mods_load: modsLoad,
    classic_pre_tool_use: classic,
    held_text_equal: heldText,
    exec_form_runs: execRuns,
  };
}

/** The last row of each version (a version run again replaces its row), oldest version first. */
export function latestRows(rows) {
  const last = new Map();
  for (const r of rows) last.set(r.version, r);
  return [...last.values()].sort((a, b) => byVersion(a.version, b.version));
}

/**
 * The decisions about behaviour a row supports, each true / false, or null when the row cannot tell:
 * - holds: interactive mode wrote a message's first call only once its PreToolUse hooks had ended, for
 *   at least one of the first calls measured (the session's first message is left out: it races the
 *   session's first flush). One, not most: a holding version was seen to write some first calls while
 *   their hooks ran (2.1.332: 3 of 16 in replay's landings as measured 2026-12-07 03:58), while 2.1.280
 *   held none of 8, so a majority of three would call a holding version "not" about one run in twenty;
 * - mods: a plugin's hooks module (the mod) loads; classic: it gets `classic.PreToolUse`;
 * - held_text: every call's message read from the mod's held message equals the transcript's text;
 * - exec: the hook installed in exec form ran for every call;
 * - stat_lags: a test mod's `$.fs.stat` of the transcript, asked after its `$.fs.read` had answered, gave
 *   fewer bytes than the read had, at least once in a print and an interactive session (null where the
 *   measure did not run: mods do not load, or the row predates it).
 */
export function decisions(row) {
  const f = row.interactive?.first;
  return {
    holds: f && f.calls > 0 ? f.held >= 1 : null,
    mods: row.mods_load ?? null,
    classic: row.classic_pre_tool_use ?? null,
    // Every call a reviewing hook asked about: a held message (as the transcript's) or the record itself; one
    // left unanswered (2.1.286–2.1.325 with the mod before 2026-12-07: some calls) is a hook that could not count on it.
    held_text: row.held_text_equal ? row.held_text_equal.calls > 0 && row.held_text_equal.equal === row.held_text_equal.calls && !row.held_text_equal.unanswered : null,
    exec: row.exec_form_runs ? row.exec_form_runs.calls > 0 && row.exec_form_runs.ran === row.exec_form_runs.calls : null,
    stat_lags: row.fs_stat_lags_read ? row.fs_stat_lags_read.lags : null,
  };
}

export const DECISIONS = {
  holds: "holds a message's records while its PreToolUse hooks run (interactive)",
  mods: "loads a plugin's mod",
  classic: 'gives the mod `classic.PreToolUse`',
  held_text: "the mod hands a reviewing hook each call's held message, with the text the transcript holds in the end (no call left unanswered)",
  exec: 'runs a command hook in exec form',
  stat_lags: "gives a mod a transcript's `$.fs.stat` size behind what its `$.fs.read` already read",
};

/**
 * Per decision, from the measured versions in order: `since`, the version from which it says yes, at the
 * split that the fewest measured versions disagree with (a version measured once over a few calls can
 * go the other way: 2.1.284 held 0 of 3 first calls in one run, 1 of 3 in the next); the later split on a
 * tie, so no version is said to do what none after it was seen to. `last_without` is the newest measured
 * before it that said no (versions between the two were not measured; null when every one said yes);
 * `since` is null when the split says no version does. `changes` is each rule's split; `exceptions` the
 * measured versions on the other side of it, each kept in `versions` as measured.
 */
export function behaviourTable(rows) {
  const latest = latestRows(rows);
  // With each version what its holds rests on: a message's first calls held, of those measured (one session).
  const versions = latest.map((r) => ({
    version: r.version,
    at: r.at.slice(0, 10),
    ...decisions(r),
    first_calls_held: r.interactive?.first ? [r.interactive.first.held, r.interactive.first.calls] : null,
    print_p50_ms: r.print?.p50_ms ?? null,
  }));
  const rules = {};
  const changes = [];
  const exceptions = [];
  for (const key of Object.keys(DECISIONS)) {
    const told = versions.filter((v) => v[key] !== null);
    let best = told.length;
    let fewest = Infinity;
    for (let k = told.length; k >= 0; k--) {
      const wrong = told.slice(0, k).filter((v) => v[key] === true).length + told.slice(k).filter((v) => v[key] === false).length;
      if (wrong < fewest) [best, fewest] = [k, wrong];
    }
    const since = best < told.length ? told[best].version : null;
    const before = told.slice(0, best).filter((v) => v[key] === false).at(-1);
    rules[key] = { since, last_without: before?.version ?? null };
    if (since !== null && before !== undefined) changes.push({ what: key, from: before.version, to: since, now: true });
    for (const [i, v] of told.entries()) if (v[key] !== i >= best) exceptions.push({ what: key, version: v.version, value: v[key] });
  }
  changes.sort((a, b) => byVersion(a.to, b.to) || a.what.localeCompare(b.what));
  exceptions.sort((a, b) => byVersion(a.version, b.version) || a.what.localeCompare(b.what));
  return { v: 1, versions, rules, changes, exceptions };
}

/**
 * src/rules/claudeCodeSince.ts: the first version each rule the messages name says yes for, from the same
 * table, for the code that may import only `node:` built-ins (the hook, the mod, the message tool and
 * `complete`): their messages name the measured version, not a number of their own.
 */
export function sinceModule(table) {
  const since = (what) => (table.rules[what].since === null ? 'null' : `'${table.rules[what].since}'`);
  return [
    '// Generated by `npm run compat` (scripts/lib/compatRows.mjs sinceModule) from test/field/compat/results.jsonl',
    '// with src/core/compat/claudeCode.json; do not edit by hand. What the messages of the hook, the mod, the',
    '// message tool and `complete` say of Claude Code versions (they import only node: built-ins): the first',
    '// version measured to do each, by the rule the measured versions give; null when the newest measured does not.',
    '',
    "/** A plugin's mod (its hooks module) loads. */",
    `export const MOD_LOADS_SINCE: string | null = ${since('mods')};`,
    "/** The mod hands a reviewing hook each call's held message, with the text the transcript holds in the end. */",
    `export const HELD_MESSAGE_SINCE: string | null = ${since('held_text')};`,
    '',
    '/** `Claude Code 2.1.326+` for a message; `no Claude Code measured yet` where no version does. */',
    'export function claudeCodeSince(since: string | null): string {',
    "  return since === null ? 'no Claude Code measured yet' : `Claude Code ${since}+`;",
    '}',
    '',
  ].join('\n');
}

export const DOC_BEGIN = '<!-- compat: generated by `npm run compat` from test/field/compat/results.jsonl; do not edit by hand -->';
export const DOC_END = '<!-- end of compat -->';

const yesNo = (b) => (b === null || b === undefined ? '—' : b ? 'yes' : 'no');
const frac = (c) => (c ? `${c.held}/${c.calls}` : '—');

/** The `stat behind read` and `mod API` cells of a row's `fs_stat_lags_read` ('—' where it was not measured). */
function statCells(f) {
  if (f === undefined || f === null) return [f === null ? 'no log' : '—', '—'];
  const modes = ['print', 'interactive'].filter((m) => f[m] !== undefined);
  const counts = modes.map((m) => (f[m] ? `${f[m].behind}/${f[m].growths}` : 'no log')).join(' · ');
  const got = modes.map((m) => f[m]).filter(Boolean);
  const bytes = Math.max(0, ...got.map((c) => c.max_behind_bytes));
  const longest = got.map((c) => c.max_after_ms).filter((v) => v !== null);
  const cell = `${yesNo(f.lags)} (${counts}${bytes ? `; up to ${bytes} bytes` : ''}${longest.length ? `; longest ${Math.max(...longest)} ms` : ''})`;
  const c = got[0];
  const api = c ? `${c.session_info ? 'info' : 'no info'}, ${c.read_ranged ? 'ranged read' : 'whole-file read'}` : '—';
  return [cell, api];
}

/** The section of docs/COMPATIBILITY.md with one row per version, from the results file's rows. */
export function compatSection(rows) {
  const latest = latestRows(rows);
  const table = behaviourTable(rows);
  const changedAt = new Map();
  for (const c of table.changes) changedAt.set(c.to, [...(changedAt.get(c.to) ?? []), c]);
  const otherwise = new Map();
  for (const e of table.exceptions) otherwise.set(e.version, [...(otherwise.get(e.version) ?? []), e]);
  const runners = [...new Set(latest.map((r) => `${r.runner.os}, Node ${r.runner.node}, ${r.runner.cores} cores`))];
  const lines = [
    DOC_BEGIN,
    '## Every release, measured (`npm run compat`)',
    '',
    `${latest.length} versions, each run on its own with the compat scenarios (\`interactive-compat\`, \`print-compat\`, \`print-compat-exec\` in test/field/scenarios.mjs) against the stand-in API on 127.0.0.1; ` +
      `runner: ${runners.join('; ') || 'none yet'}. The rows are test/field/compat/results.jsonl (the date, the runner and its load with each); src/core/compat/claudeCode.json holds the decisions the code reads.`,
    '',
    '- **held: first / later / opening**: interactive calls whose record landed only once their PreToolUse hooks (the truth hooks, ~1.5 s, beside a reviewing hook) had ended, of the calls measured: a message\'s first call, a later call of the same message, and the session\'s first message. "holds" when at least one first call was held: a holding version was seen to write some first calls while their hooks ran.',
    '- **print landing**: from the first PreToolUse hook starting to the record on disk, print mode, p10 / p50 / p90 (the stand-in ends a message 300 ms after its last block).',
    '- **mod**: the plugin loaded with `--plugin-dir` reported a call from inside Claude Code; **classic**: the mod timed the settings hooks at `classic.PreToolUse`; **held text**: of the calls whose record was not on disk when a reviewing hook asked `transcript-lag message --json`, those answered from the mod\'s held message with the text the transcript holds in the end; the rest were answered from the transcript (the record was there) or not at all (no held message, no record yet). "no" when no call was answered from a held message.',
    '- **exec**: `install-hook --form exec`: the hook ran (reported `pre`) for that many print calls.',
    '- **stat behind read**: `fs-stat` (test/field/measure/fsStat.mjs), where the mod loads: a test mod looks at the transcript every 5 ms with `$.fs.read` (what it gained) and, on its own loop, `$.fs.stat`; of the file\'s growths the reads saw, those a stat asked after the read had answered still gave fewer bytes for, print · interactive; then the most bytes and, of all growths, the longest from the read seeing one to a stat giving it (a stat asked before the read answered counts there, so a few ms are the calls\' own time). **mod API**: what that mod found: `$.session.info()` (else the transcript path comes from the classic events) and `$.fs.read` with offset and length (else it reads the whole file).',
    '',
    '| version | measured | held: first / later / opening | print landing p10 / p50 / p90 | mod | classic | held text | exec | stat behind read | mod API | scenarios passed | changed |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of latest) {
    const d = decisions(r);
    // A version run more than once: its row is the last run's; the earlier runs' first calls are shown beside.
    const earlier = rows.filter((x) => x.version === r.version && x !== r && x.interactive?.first).map((x) => frac(x.interactive.first));
    const before = earlier.length ? `; earlier run${earlier.length > 1 ? 's' : ''}: first ${earlier.join(', ')}` : '';
    const i = r.interactive;
    const p = r.print;
    const sc = Object.values(r.scenarios);
    const changed = [
      ...(changedAt.get(r.version) ?? []).map((c) => `**${c.what}** from here (${c.from}: no)`),
      ...(otherwise.get(r.version) ?? []).map((e) => `${e.what}: ${e.value ? 'yes' : 'no'}, against the rule`),
    ].join(', ');
    const h = r.held_text_equal;
    const ht = h ? `${h.calls ? `${h.equal}/${h.calls}` : 'none held'}${h.from_transcript ? `; ${h.from_transcript} from the transcript` : ''}${h.unanswered ? `; ${h.unanswered} unanswered` : ''}` : r.held_text_stale ? 'not measured with the mod that keeps it here ¹' : '—';
    const ex = r.exec_form_runs ? `${yesNo(d.exec)} (${r.exec_form_runs.ran}/${r.exec_form_runs.calls})` : '—';
    const [st, api] = statCells(r.fs_stat_lags_read);
    lines.push(
      `| ${r.version} | ${r.at.slice(0, 10)} | ${i ? `${frac(i.first)} / ${frac(i.later)} / ${frac(i.opening)}${d.holds ? ' (holds)' : ''}${before}` : '—'} | ${p ? `${p.p10_ms} / ${p.p50_ms} / ${p.p90_ms} ms (${p.calls})` : '—'} | ${yesNo(d.mods)} | ${yesNo(d.classic)} | ${ht} | ${ex} | ${st} | ${api} | ${sc.filter((s) => s.passed).length}/${sc.length} | ${changed} |`,
    );
  }
  if (latest.some((r) => r.held_text_stale)) {
    lines.push(
      '',
      '¹ The mod before 2026-12-07 asked `$.session.messages({ last })`, which 2.1.286–2.1.325 refuse, and in print mode there lost the transcript classic.SessionStart had named: it kept no held message there, so the row says nothing of the build; until the version is measured again, what the rows around it say stands for it.',
    );
  }
  lines.push('', '### Where behaviour changed', '');
  if (!table.changes.length) lines.push('No change between the versions measured.');
  for (const c of table.changes) lines.push(`- between ${c.from} and ${c.to} (any release between them not measured): ${DECISIONS[c.what]}.`);
  if (table.exceptions.length) {
    lines.push('', 'Measured against the rule (one session each; the row keeps what was seen and is what the views say of that version, the rule is the one split the fewest versions disagree with; a run of neighbouring versions here is a behaviour of its own, not noise):', '');
    for (const e of table.exceptions) {
      const v = table.versions.find((x) => x.version === e.version);
      const counts = e.what === 'holds' && v?.first_calls_held ? ` (${v.first_calls_held[0]} of ${v.first_calls_held[1]} first calls held)` : '';
      lines.push(`- ${e.version}: ${e.value ? '' : 'not '}${e.what}${counts}.`);
    }
  }
  lines.push('', 'What the code takes from it (src/core/compat/claudeCode.json):', '');
  for (const [key, r] of Object.entries(table.rules)) {
    lines.push(`- ${DECISIONS[key]}: ${r.since ? `${r.since}+${r.last_without ? ` (${r.last_without} did not)` : ' (every version measured)'}` : 'not on the newest version measured'}.`);
  }
  lines.push(DOC_END);
  return lines.join('\n');
}

/** The doc with its compat section replaced, or put before replay's landings section the first time. */
export function withCompatSection(doc, rows, before) {
  const section = compatSection(rows);
  const begin = doc.indexOf(DOC_BEGIN);
  const end = doc.indexOf(DOC_END);
  if (begin >= 0 && end > begin) return doc.slice(0, begin) + section + doc.slice(end + DOC_END.length);
  const at = before ? doc.indexOf(before) : -1;
  if (at >= 0) return `${doc.slice(0, at)}${section}\n\n${doc.slice(at)}`;
  return `${doc.trimEnd()}\n\n${section}\n`;
}

/**
 * What the table says of a version, as src/core/compat/claudeCode.ts knownOf reads it (the field suite's
 * assertions are plain Node and read the same JSON through this; a unit test holds the two alike): its
 * own row when it tells; else the nearest measured version that tells on each side (the rule's answer
 * for a side with none): `between` or `rule` when they agree, `unknown` (value undefined) when they do
 * not; undefined when a side has neither.
 */
export function knownOf(table, version, what) {
  if (!/^\d+\.\d+\.\d+/.test(version ?? '')) return undefined;
  const v = /^\d+\.\d+\.\d+/.exec(version)[0];
  const row = table.versions.find((r) => byVersion(r.version, v) === 0);
  if (row && row[what] !== null) return { value: row[what], how: 'measured' };
  if (what === 'held_text') {
    // A held message comes from the mod: where the mod is known not to load, none reaches a hook.
    const mods = knownOf(table, version, 'mods');
    if (mods?.value === false) return mods;
  }
  const rule = table.rules[what];
  const ruleSays = rule.since !== null && byVersion(v, rule.since) >= 0 ? true : rule.last_without !== null && byVersion(v, rule.last_without) <= 0 ? false : undefined;
  const told = table.versions.filter((r) => r[what] !== null && byVersion(r.version, v) !== 0);
  const below = told.filter((r) => byVersion(r.version, v) < 0).at(-1);
  const above = told.find((r) => byVersion(r.version, v) > 0);
  const lower = below === undefined ? ruleSays : below[what];
  const upper = above === undefined ? ruleSays : above[what];
  if (lower === undefined || upper === undefined) return undefined;
  const sides = { ...(below ? { below: below.version } : {}), ...(above ? { above: above.version } : {}) };
  if (lower !== upper) return { value: undefined, how: 'unknown', ...sides };
  if (below && above) return { value: lower, how: 'between', below: below.version, above: above.version };
  return { value: lower, how: 'rule' };
}
