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
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { resolveClaudeDir } from '../core/discovery';
import { summaryOf, verdictOf, type CallReport } from '../core/replay/report';
import { hookLabel } from '../core/replay/settingsHooks';
import { replaySession, ReplayError, type NoteTopic } from '../platform/replaySession';
import { jsonEscapingUnprintable, printable } from '../rules/printable';
import type { CliIo } from './io';

export const usage = `Usage: transcript-lag replay SESSION.jsonl (--hook CMD | --settings) [--channel CHANNEL.jsonl]
                            [--tool NAME] [--timeout S] [--no-mod] [--json]

Runs a PreToolUse hook on every tool call of a recorded session (a subagent's calls from its own
transcript too), twice, as Claude Code runs it: "live", handed a copy of the transcript as it stood
when the hook fired, and "complete", handed a copy that holds the call's own record. Where the two
answers differ, the hook depends on its call being in the transcript.
  --hook CMD        the hook: a command line, run with sh -c, the PreToolUse JSON on stdin
  --settings        instead: the PreToolUse command hooks of the session's settings (user, project,
                    local), each on the calls its matcher takes
  --channel FILE    the session's transcript-lag channel file: when each hook fired and what was on
                    disk then (else the rule measured for the session's mode and build)
  --tool NAME       only calls of this tool (a matcher as in settings: Bash, Edit|Write, mcp__.*)
  --timeout S       seconds before a hook is killed with its process group (default 60, as Claude
                    Code's); with --settings a hook's own timeout wins
  --no-mod          as without the transcript-lag plugin: no held message in the live run
  --json            one JSON object a line per call, then a summary line
Nothing of yours is changed: the copies live in a private temp folder, removed at the end.
Exit 0 when the replay ran, whatever the hook decided; 2 for bad arguments, 1 when it could not run.
`;

const DEFAULT_TIMEOUT_S = 60;

interface ReplayArgs {
  session: string;
  hook?: string;
  settings: boolean;
  channel?: string;
  tool?: string;
  timeoutMs: number;
  mod: boolean;
  json: boolean;
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
        'no-mod': { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  const v = parsed.values;
  if (v.help) return 'help';
  if (parsed.positionals.length !== 1) return `expected one SESSION.jsonl, got ${parsed.positionals.length}`;
  if ((v.hook === undefined) === !v.settings) return 'give either --hook CMD or --settings';
  if (v.hook !== undefined && v.hook.trim() === '') return '--hook needs a command';
  let timeoutMs = DEFAULT_TIMEOUT_S * 1000;
  if (v.timeout !== undefined) {
    const s = Number(v.timeout);
    if (!Number.isFinite(s) || s <= 0 || s > 86_400) return `--timeout takes seconds (over 0, at most 86400), got '${v.timeout}'`;
    timeoutMs = Math.round(s * 1000);
  }
  return {
    session: path.resolve(cwd, parsed.positionals[0]!),
    ...(v.hook !== undefined ? { hook: v.hook } : {}),
    settings: v.settings === true,
    ...(v.channel !== undefined ? { channel: path.resolve(cwd, v.channel) } : {}),
    ...(v.tool !== undefined ? { tool: v.tool } : {}),
    timeoutMs,
    mod: v['no-mod'] !== true,
    json: v.json === true,
  };
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
  let result;
  try {
    result = await replaySession(
      {
        transcript: a.session,
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
        note,
        planned: ({ byMatcher }) => {
          if (!a.json) io.stdout(header(byMatcher));
        },
        replayed: async ({ report }) => {
          io.stdout(a.json ? `${jsonEscapingUnprintable(JSON.stringify(report))}\n` : renderRow(report, report.hook !== undefined));
          await io.stdoutDrained?.();
        },
      },
      stop.signal,
    );
  } catch (err) {
    if (!(err instanceof ReplayError)) throw err;
    note(err.message, err.source === 'channel' ? 'channel' : undefined);
    return 1;
  }
  if (a.json) io.stdout(`${JSON.stringify(summaryOf(result.reports, result.skipped))}\n`);
  else io.stdout(`\n${printable(verdictOf(result.reports, result.lacked, result.byMatcher))}\n`);
  if (result.interrupted) {
    note('interrupted');
    return 130;
  }
  return 0;
}
