import * as path from 'node:path';
import { parseArgs } from 'node:util';
import * as v8 from 'node:v8';
import { AnalyzeInputError, analyzeTranscript, type AnalyzedCall, type TranscriptAnalysis } from '../core/analyze';
import { jsonPieces } from '../core/analyze/jsonPieces';
import { jsonEscapingUnprintable, printable } from '../rules/printable';
import { boundsText, formatDuration } from '../rules/durationText';
import type { CliIo } from './io';
import { claudeCodeSentences } from '../core/compat/claudeCode';

const usage = `Usage: transcript-lag analyze FILE [--json] [--channel FILE]

What a transcript holds: lines, malformed lines, tool calls with the line of
their record and of their result, trailers, inferred write batches and shapes.
  --json          one JSON object (lines, malformed, calls[{tool_use_id, tool_name,
                  line, result_line, ...}], counts, trailers, batches, ...)
  --channel FILE  a transcript-lag hook channel file: join its wait outcomes
`;

export async function run(args: string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        json: { type: 'boolean', default: false },
        channel: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (err) {
    io.stderr(`transcript-lag analyze: ${err instanceof Error ? err.message : String(err)}\n\n${usage}`);
    return 2;
  }
  if (parsed.values.help) {
    io.stdout(usage);
    return 0;
  }
  if (parsed.positionals.length !== 1) {
    io.stderr(`transcript-lag analyze: expected one transcript FILE, got ${parsed.positionals.length}\n\n${usage}`);
    return 2;
  }
  const file = path.resolve(io.cwd, parsed.positionals[0]!);
  const channel = parsed.values.channel === undefined ? undefined : path.resolve(io.cwd, parsed.values.channel);
  // Keep V8's young generation at its starting size in this process: analyze
  // makes a line's garbage at a time and keeps little, yet over a large
  // transcript V8 keeps doubling the nursery, which then makes up much of peak
  // RSS, and capping it costs no time (BENCHMARKS.md). V8 reads this flag at
  // each growth, so setting it now takes effect.
  v8.setFlagsFromString('--semi-space-growth-factor=1');
  // One thread reads: a read then seldom has to wake a sleeping pool thread,
  // which costs this thread time at every read it issues, so a cold index runs
  // faster than with libuv's four (BENCHMARKS.md).
  io.ioThreads?.(1);
  let analysis: TranscriptAnalysis;
  try {
    analysis = await analyzeTranscript({ path: file, channelPath: channel, files: io.files, clock: io.clock });
  } catch (err) {
    if (err instanceof AnalyzeInputError) {
      io.stderr(`transcript-lag analyze: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  if (parsed.values.json) {
    // In pieces, so a report of many calls is never one big string (see jsonPieces),
    // each taken in before the next: to a slow pipe reader, writes queue in
    // memory, several times the report's size.
    for (const piece of jsonPieces(analysis as unknown as Record<string, unknown>)) {
      io.stdout(jsonEscapingUnprintable(piece));
      await io.stdoutDrained?.();
    }
    io.stdout('\n');
  } else {
    io.stdout(renderTable(analysis));
  }
  return 0;
}

/**
 * The readable form: a summary, then one row per call. Every value from the transcript goes
 * through printable(): titles and tool names are the transcript's, and this lands on a terminal.
 */
export function renderTable(a: TranscriptAnalysis): string {
  const c = a.counts;
  const out: string[] = [];
  const row = (label: string, value: string) => out.push(`${label.padEnd(12)}${printable(value)}`);
  row('transcript', a.file);
  row('lines', `${a.lines} (${a.malformed} malformed)${a.partial_tail_bytes > 0 ? `, plus ${a.partial_tail_bytes} bytes of an unfinished line` : ''}, ${a.bytes} bytes`);
  row('session', a.session_ids.length > 1 ? `${a.session_id} (+${a.session_ids.length - 1} more)` : a.session_id ?? '-');
  if (a.title !== null) row('title', a.title);
  // What the compat runner measured of the session's version, where it decides what a hook sees (src/core/compat/).
  const known = claudeCodeSentences(a.claude_code_version);
  if (known.length > 0) row('claude code', known.join('; '));
  if (a.first_prompt !== null) row('prompt', JSON.stringify(oneLine(a.first_prompt, 80)));
  row('calls', `${c.calls}: ${c.before_result} before_result, ${c.with_result} with_result, ${c.unknown_shape} shape unknown, ${c.no_result} without result`);
  if (c.copied_calls > 0) row('forked', `${plural(c.copied_calls, 'call', 'calls')} copied from ${a.copied_from.join(', ')}: its history, not counted above`);
  row('trailers', `${c.trailers}, so ${plural(c.batches, 'inferred batch', 'inferred batches')}`);
  if (c.duplicate_tool_uses > 0 || c.orphan_results > 0) {
    row('oddities', `${c.duplicate_tool_uses} repeated tool_use records, ${c.orphan_results} results without a call`);
  }
  if (a.waits) {
    // The field report's table, for this session.
    out.push('');
    pushColumns(out, [
      ['session', 'waits that saw the call', 'waits that ended behind', 'errors'],
      [a.session_id ?? '-', String(a.waits.seen), String(a.waits.behind), String(a.waits.error)],
    ], []);
    if (a.waits.unmatched) out.push(`(${a.waits.unmatched} waits for calls not in this file)`);
  }
  if (a.channel) {
    if (a.channel.spooled > 0) row('spool', `${plural(a.channel.spooled, 'event', 'events')} read from the mod's spool, not folded into the channel yet`);
    // A record's lag is born -> on disk; a file holds no time of its writes, so offline it is unknown, never guessed.
    const births = a.channel.events.record;
    row('record lags', `unknown offline: no write times in a file (watch --json and the report measure them live)${births > 0 ? `; ${births} record births from the mod` : ''}`);
    if (a.channel.events.hook_run > 0) row('hook runs', hookRunsText(a.calls, a.channel.events.hook_run));
  }
  if (a.changes.length > 0) row('changed', a.changes.map((ch) => ch.kind).join(', ') + ' during the analysis');
  if (a.malformed_lines.length > 0) {
    row('malformed', a.malformed_lines.slice(0, 10).map((m) => `${m.line} (${m.reason})`).join(', ') + (a.malformed > 10 ? ', …' : ''));
  }
  if (a.calls.length > 0) {
    out.push('');
    const header = ['line', 'result', 'shape', 'block', 'tool', 'tool_use_id'];
    if (a.waits) header.push('held', 'wait');
    const rows = a.calls.map((call) => callRow(call, a.waits !== undefined));
    rows.unshift(header);
    pushColumns(out, rows, [0, 1, 3]);
    out.push('');
    out.push('shape: only what is proven. before_result: a trailer (run of metadata records) lies between the record');
    out.push('and its result, or (--channel) a seen wait or the call\'s own hook had the record on disk before the result.');
    out.push('with_result: both on one line, or (--channel) the watcher the call\'s PostToolUse hook left behind found');
    out.push('record and result in one look.');
    out.push('unknown: nothing proves it; Claude Code does not write a trailer after every batch.');
    if (a.waits) out.push('held: hook fired -> record on disk, bounded by what the hook saw at PreToolUse and PostToolUse and what its waits found.');
  }
  return out.join('\n') + '\n';
}

/** `5 reported: review.py 2 runs, 4.0s · lint.sh 3 runs, 600 ms`: each wrapped hook's runs of this file's calls, most time first. */
function hookRunsText(calls: readonly AnalyzedCall[], reported: number): string {
  const byHook = new Map<string, { runs: number; ms: number }>();
  for (const r of calls.flatMap((c) => c.hook_runs ?? [])) {
    const h = byHook.get(r.hook) ?? { runs: 0, ms: 0 };
    h.runs += 1;
    h.ms += r.ms;
    byHook.set(r.hook, h);
  }
  const each = [...byHook]
    .sort((a, b) => b[1].ms - a[1].ms || a[0].localeCompare(b[0]))
    .map(([hook, h]) => `${hook} ${plural(h.runs, 'run', 'runs')}, ${formatDuration(h.ms)}`)
    .join(' · ');
  return `${reported} reported${each ? `: ${each}` : ' (none of a call in this file)'}`;
}

function callRow(call: AnalyzedCall, withWaits: boolean): string[] {
  const cells = [
    String(call.line),
    call.result_line === null ? '-' : String(call.result_line),
    call.shape ?? '-',
    call.block_index === null ? '-' : String(call.block_index),
    oneLine(call.tool_name, 24) + (call.is_sidechain ? ' (sidechain)' : ''),
    call.tool_use_id,
  ];
  if (withWaits) {
    cells.push(heldText(call.held_ms));
    cells.push(call.waits?.map((w) => `${w.outcome} (${w.polls} polls)`).join(', ') ?? '-');
  }
  return cells;
}

/** In the views' words (boundsText): "≤ 346 ms", "400 ms–2.3s", "≥ 2.1s"; "-" when the hook saw nothing that bounds it. */
function heldText(held: AnalyzedCall['held_ms']): string {
  return held ? boundsText(held) : '-';
}

/**
 * Appends the rows to `out` as columns padded to their widest cell; the columns in `right` are
 * aligned right (numbers). One push per row: a spread of every row as arguments overflows the
 * stack at some 120,000 calls. Cells are made printable before they are measured.
 */
function pushColumns(out: string[], rows: string[][], right: number[]): void {
  const widths: number[] = [];
  for (const r of rows) {
    for (let i = 0; i < r.length; i++) {
      r[i] = printable(r[i]!);
      widths[i] = Math.max(widths[i] ?? 0, r[i]!.length);
    }
  }
  for (const r of rows) out.push(r.map((cell, i) => (right.includes(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join('  ').trimEnd());
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
