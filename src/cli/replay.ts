/**
 * `transcript-lag replay SESSION.jsonl --hook CMD | --settings [...]`: runs a PreToolUse hook on every
 * tool call of a recorded session twice, as Claude Code runs it, and says where its answers differ:
 * **live**, handed a copy of the transcript as it stood when the hook fired (the channel's evidence,
 * else the field suite's rule for the session's mode and build: src/core/replay/liveCut.ts), with the
 * mod's held message for the call (`transcript-lag message` answers from it) unless --no-mod; and
 * **complete**, handed a copy that holds everything up to and including the call's record, as a hook
 * would see it if Claude Code wrote first.
 *
 * Never the user's files: the copies, the held messages and the Claude dir the hook is pointed at
 * (`CLAUDE_CONFIG_DIR`) live in a private temp folder, removed at the end. Hooks run one at a time,
 * each in a process group of its own, cut at its timeout (src/platform/commandHookRun.ts). The hook's
 * input goes to its stdin and nowhere else. The replay itself is src/platform/replaySession.ts, which
 * VS Code's Replay Hook on Session… runs too; this module reads the arguments and prints.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { resolveClaudeDir } from '../core/discovery';
import { CLAUDE_CODE_HOOK_TIMEOUT_S } from '../core/replay/hookTimeout';
import { liveTimingsText, ReplayTally, type CallReport } from '../core/replay/replayReport';
import { hookLabel } from '../core/replay/replayHooks';
import { replaySession, ReplayError, type NoteTopic } from '../platform/replaySession';
import { sinceText } from '../core/compat/claudeCode';
import { jsonEscapingUnprintable, printable } from '../rules/printable';
import type { CliIo } from './io';

export const usage = `Usage: transcript-lag replay SESSION.jsonl|FOLDER... (--hook CMD | --settings) [--channel CHANNEL.jsonl]
                            [--tool NAME] [--timeout S] [--mod | --no-mod] [--json] [--check]

Runs a PreToolUse hook on every tool call of a recorded session (a subagent's calls from its own
transcript too) as Claude Code runs it: "live", handed the transcript as it moved while the hook ran
(as it stood at the fire, then the call's record appended when it landed: at each time it may land),
and "complete", handed a copy that holds the call's own record. Where a live answer differs from the
complete one, the hook depends on its call being in the transcript; where the live answers differ
from each other, on when it reads.
  --hook CMD        the hook: a command line, run with sh -c, the PreToolUse JSON on stdin
  --settings        instead: the PreToolUse command hooks of the session's settings (user, project,
                    local), each on the calls its matcher takes
  --channel FILE    the session's transcript-lag channel file, when it is not where the plugin and
                    install-hook keep it (<claude dir>/transcript-lag/, read with the mod's spool
                    without a flag): when each hook fired and what was on disk then
  --tool NAME       only calls of this tool (a matcher as in settings: Bash, Edit|Write, mcp__.*)
  --timeout S       seconds before a hook is killed with its process group (default ${CLAUDE_CODE_HOOK_TIMEOUT_S}, as Claude
                    Code's); with --settings a hook's own timeout wins
  --mod             as with the transcript-lag plugin's mod (it hands hooks held messages on Claude
                    Code ${sinceText('held_text') ?? '(no version measured yet)'}): each live run has the call's held message, so
                    \`transcript-lag message\` and \`complete\` answer; by default as the session ran: with
                    it unless its evidence shows it did not run, or its version is measured to hand none
  --no-mod          as without the transcript-lag plugin: no held message, no message tool
  --json            one JSON object a line per call, then a summary line
  --check           for CI: exit 1 when any call differs or depends on timing, or when
                    nothing was checked (no call replayed, a call skipped, a run that
                    ended in an error or a timeout), else 0
A FOLDER replays every session in it (its *.jsonl, and those of its folders one level down).
Nothing of yours is changed: the copies live in a private temp folder, removed at the end.
Exit 0 when the replay ran, whatever the hook decided (with --check: 1 when a call differs or
depends on timing); 2 for bad arguments, 1 when it could not run.
`;

interface ReplayArgs {
  sessions: string[];
  hook?: string;
  settings: boolean;
  channel?: string;
  tool?: string;
  timeoutMs: number;
  mod: boolean | undefined;
  json: boolean;
  check: boolean;
}

function parseReplayArgs(args: string[], cwd: string): ReplayArgs | 'help' | string {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        hook: { type: 'string' },
        settings: { type: 'boolean', default: false },
        channel: { type: 'string' },
        tool: { type: 'string' },
        timeout: { type: 'string' },
        mod: { type: 'boolean', default: false },
        'no-mod': { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        check: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  const v = parsed.values;
  if (v.help) return 'help';
  if (parsed.positionals.length === 0) return 'expected a SESSION.jsonl or a folder of them';
  if ((v.hook === undefined) === !v.settings) return 'give either --hook CMD or --settings';
  if (v.hook !== undefined && v.hook.trim() === '') return '--hook needs a command';
  if (v.mod === true && v['no-mod'] === true) return 'give --mod or --no-mod, not both';
  if (v.channel !== undefined && parsed.positionals.length > 1) return '--channel names one session\'s channel: give one SESSION.jsonl with it';
  let timeoutMs = CLAUDE_CODE_HOOK_TIMEOUT_S * 1000;
  if (v.timeout !== undefined) {
    const s = Number(v.timeout);
    if (!Number.isFinite(s) || s <= 0 || s > 86_400) return `--timeout takes seconds (over 0, at most 86400), got '${v.timeout}'`;
    timeoutMs = Math.round(s * 1000);
  }
  return {
    sessions: parsed.positionals.map((p) => path.resolve(cwd, p)),
    ...(v.hook !== undefined ? { hook: v.hook } : {}),
    settings: v.settings === true,
    ...(v.channel !== undefined ? { channel: path.resolve(cwd, v.channel) } : {}),
    ...(v.tool !== undefined ? { tool: v.tool } : {}),
    timeoutMs,
    mod: v.mod === true ? true : v['no-mod'] === true ? false : undefined,
    json: v.json === true,
    check: v.check === true,
  };
}

/** More sessions than a folder of a user's holds: past it, the rest are not replayed (said). */
const MAX_SESSIONS = 10_000;

/**
 * The session files a path names: itself when it is not a folder; a folder's `*.jsonl` (regular files,
 * sorted), and those of its folders one level down (a projects folder's), not a session's own folder
 * (its subagents, which the replay finds itself).
 */
function sessionFiles(p: string): string[] {
  let st: fs.Stats;
  try {
    st = fs.statSync(p);
  } catch {
    return [p];
  }
  if (!st.isDirectory()) return [p];
  const out: string[] = [];
  const walk = (dir: string, depth: number) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const sessions = new Set(entries.filter((e) => e.isFile() && e.name.endsWith('.jsonl')).map((e) => e.name.slice(0, -'.jsonl'.length)));
    for (const e of entries) {
      if (out.length >= MAX_SESSIONS) return;
      if (e.isFile() && e.name.endsWith('.jsonl')) out.push(path.join(dir, e.name));
      else if (e.isDirectory() && depth === 0 && !sessions.has(e.name) && e.name !== 'subagents') walk(path.join(dir, e.name), depth + 1);
    }
  };
  walk(p, 0);
  return out;
}

function renderRow(r: CallReport, withHook: boolean): string {
  const cell = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s.padEnd(n));
  const bytes = `${r.live.transcript_bytes}/${r.complete.transcript_bytes}`;
  const row = [
    cell(printable(r.tool_use_id), 30),
    cell(printable(r.agent_id === undefined ? r.tool_name : `${r.tool_name} (agent)`), 14),
    cell(r.basis, 7),
    cell(bytes, 17),
    cell(r.live.decision, 8),
    cell(r.complete.decision, 8),
    cell(r.differs ? 'differs' : '', 7),
  ].join(' ');
  const lines = [withHook && r.hook ? `${row}  ${printable(hookLabel(r.hook))}` : row.trimEnd()];
  // Where the hook decided otherwise on some landing times: each, in words.
  if (r.timing_dependent) lines.push(`    record landed: ${liveTimingsText(r.live_timings)}`);
  if (r.differs) {
    for (const [name, run] of [['live', r.live], ['complete', r.complete]] as const) {
      if (run.reason !== null) lines.push(`    ${name}: ${cell(printable(run.reason), 110).trimEnd()}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

function header(withHook: boolean): string {
  const cells = ['call'.padEnd(30), 'tool'.padEnd(14), 'basis'.padEnd(7), 'bytes live/compl.', 'live'.padEnd(8), 'complete'.padEnd(8)];
  return `${withHook ? `${cells.join(' ')} ${''.padEnd(7)}  hook` : cells.join(' ').trimEnd()}\n`;
}

export async function run(args: string[], io: CliIo): Promise<number> {
  const a = parseReplayArgs(args, io.cwd);
  if (a === 'help') {
    io.stdout(usage);
    return 0;
  }
  if (typeof a === 'string') {
    io.stderr(`transcript-lag replay: ${a}\n\n${usage}`);
    return 2;
  }
  const note = (text: string, topic?: NoteTopic) => io.stderr(`transcript-lag replay: ${printable(topic === 'channel' ? `--channel: ${text}` : text)}\n`);
  const stop = new AbortController();
  // Ctrl-C, a kill, or the terminal closing: the hook's group is killed and the temp folder removed.
  void io.stopSignal.then(() => stop.abort());
  void io.hangupSignal?.then(() => stop.abort());
  const sessions = a.sessions.flatMap(sessionFiles);
  if (sessions.length === 0) {
    note(`no session file (*.jsonl) in ${a.sessions.join(', ')}`);
    return 1;
  }
  const several = sessions.length > 1;
  // Every session's reports folded as they are printed: none is kept, its hook's outputs with it.
  const all = new ReplayTally();
  let skipped = 0;
  let failed = false;
  let ran = 0;
  for (const session of sessions) {
    if (stop.signal.aborted) break;
    if (several && !a.json) io.stdout(`\n== ${printable(session)}\n`);
    let result;
    try {
      result = await replaySession(
        {
          transcript: session,
          hooks: a.hook !== undefined ? { command: a.hook } : { settingsOf: resolveClaudeDir(io.env, io.homedir) },
          ...(a.channel !== undefined ? { channel: a.channel } : {}),
          ...(a.tool !== undefined ? { tool: a.tool } : {}),
          timeoutMs: a.timeoutMs,
          mod: a.mod,
          env: io.env,
          fallbackCwd: io.cwd,
          files: io.files,
          clock: io.clock,
        },
        {
          note: (text, topic) => note(several ? `${path.basename(session)}: ${text}` : text, topic),
          planned: ({ byMatcher }) => {
            if (!a.json) io.stdout(header(byMatcher));
          },
          replayed: async ({ report, liveLacksRecord }) => {
            all.add(report, liveLacksRecord);
            const line = several ? { transcript: session, ...report } : report;
            io.stdout(a.json ? `${jsonEscapingUnprintable(JSON.stringify(line))}\n` : renderRow(report, report.hook !== undefined));
            await io.stdoutDrained?.();
          },
        },
        stop.signal,
      );
    } catch (err) {
      if (!(err instanceof ReplayError)) throw err;
      note(several ? `${path.basename(session)}: ${err.message}` : err.message, err.source === 'channel' ? 'channel' : undefined);
      failed = true;
      continue;
    }
    ran += 1;
    skipped += result.skipped;
    if (!a.json) {
      const next = result.tally.nextStep();
      io.stdout(`\n${printable(result.tally.verdict(result.byMatcher))}\n${next === '' ? '' : `${next}\n`}`);
    }
  }
  if (a.json && ran > 0) io.stdout(`${JSON.stringify({ ...all.summary(skipped), ...(several ? { sessions: sessions.length } : {}) })}\n`);
  if (stop.signal.aborted) {
    note('interrupted');
    return 130;
  }
  if (failed) return 1;
  if (a.check) {
    // A check that ran nothing, or runs that decided nothing, proves nothing: it fails, saying why.
    const s = all.summary(skipped);
    const why = [
      s.differs > 0 ? `${s.differs} of ${s.calls} ${s.calls === 1 ? 'call' : 'calls'} decided differently live, or depending on timing` : '',
      s.calls === 0 ? 'no call was replayed' : '',
      s.skipped > 0 ? `${s.skipped} call(s) could not be replayed` : '',
      s.errors + s.timeouts > 0 ? `${s.errors + s.timeouts} call(s) had a run that ended in an error or a timeout` : '',
    ].filter(Boolean);
    if (why.length > 0) {
      note(`--check: ${why.join('; ')}`);
      return 1;
    }
  }
  return 0;
}
