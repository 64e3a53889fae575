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
 * input goes to its stdin and nowhere else.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { SAFE_SESSION_ID } from '../core/channel/constants';
import { projectSlug, resolveClaudeDir } from '../core/discovery';
import { heldMessagePath, MOD_CALLS_LISTED, modCallsPath } from '../core/modContract';
import { callsOf, type ReplayCall } from '../core/replay/calls';
import type { ChannelEvidence } from '../core/replay/channelEvidence';
import { answerOf } from '../core/replay/decision';
import { callDetailOf, detailLinesOf, heldMessageFor, preToolUseInput, type CallDetail } from '../core/replay/hookInput';
import { completeCut, liveCutOf, mainCutForSubagentCall, type LiveCut } from '../core/replay/liveCut';
import { matcherMatches } from '../core/replay/matcher';
import { summaryOf, verdictOf, type CallReport, type RunReport } from '../core/replay/report';
import { addSettingsHooks, hookLabel, hooksFor, type ReplayHook, type SettingsHooks } from '../core/replay/settingsHooks';
import { indexTranscript, MAX_FACTS_LINE_BYTES, type TranscriptIndex } from '../core/replay/transcriptIndex';
import { runCommandHook } from '../platform/commandHookRun';
import { PrefixCopy, SourceFile } from '../platform/prefixCopy';
import { jsonEscapingUnprintable, printable } from '../presentation/printable';
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
/** A settings file is a few KiB; past this it is not one. */
const MAX_SETTINGS_BYTES = 4 * 1024 * 1024;
const AGENT_FILE = /^agent-([A-Za-z0-9_-]{1,128})\.jsonl$/;
/** More subagent transcripts than a session makes: past it, the rest are not read. */
const MAX_SUBAGENT_FILES = 10_000;

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

/** The subagent transcripts of a session: `<session dir>/subagents/agent-<id>.jsonl`, regular files only. */
function subagentFiles(sessionFile: string): Array<{ agentId: string; path: string }> {
  const dir = path.join(path.dirname(sessionFile), path.basename(sessionFile, '.jsonl'), 'subagents');
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const out: Array<{ agentId: string; path: string }> = [];
  for (const name of names.sort()) {
    if (out.length === MAX_SUBAGENT_FILES) break;
    const m = AGENT_FILE.exec(name);
    if (!m) continue;
    const full = path.join(dir, name);
    try {
      if (fs.lstatSync(full).isFile()) out.push({ agentId: m[1]!, path: full });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** A settings file's text when it is a small regular file; undefined when there is none. */
function readSettingsText(file: string): string | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new Error(`${file}: not a regular file`);
    if (st.size > MAX_SETTINGS_BYTES) throw new Error(`${file}: over ${MAX_SETTINGS_BYTES >> 20} MiB`);
    const buf = Buffer.alloc(st.size);
    let got = 0;
    while (got < buf.length) {
      const n = fs.readSync(fd, buf, got, buf.length - got, got);
      if (n <= 0) break;
      got += n;
    }
    return buf.subarray(0, got).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/** The PreToolUse command hooks of the user's, the project's and the local settings. */
function settingsHooksOf(io: CliIo, projectDir: string | undefined): SettingsHooks {
  const found: SettingsHooks = { hooks: [], notes: [], disabled: false };
  const files: Array<[string, 'user' | 'project' | 'local']> = [[path.join(resolveClaudeDir(io.env, io.homedir), 'settings.json'), 'user']];
  if (projectDir !== undefined) {
    files.push([path.join(projectDir, '.claude', 'settings.json'), 'project'], [path.join(projectDir, '.claude', 'settings.local.json'), 'local']);
  } else found.notes.push("the session's records name no working directory: only the user settings are read");
  for (const [file, source] of files) {
    try {
      const text = readSettingsText(file);
      if (text !== undefined) addSettingsHooks(found, text, source);
    } catch (err) {
      found.notes.push(`${source} settings ${file}: ${err instanceof Error ? err.message : String(err)}; its hooks are not replayed`);
    }
  }
  return found;
}

function isDirectory(p: string | undefined): p is string {
  try {
    return p !== undefined && fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** Where the copies of one run (live or complete) live: a Claude dir of its own. */
class RunTree {
  readonly claudeDir: string;
  private readonly copies = new Map<string, PrefixCopy>();

  constructor(
    root: string,
    private readonly projectFolder: string,
    private readonly sessionId: string,
  ) {
    this.claudeDir = path.join(root, '.claude');
    fs.mkdirSync(path.join(this.claudeDir, 'projects', projectFolder), { recursive: true, mode: 0o700 });
  }

  transcriptPath(): string {
    return path.join(this.claudeDir, 'projects', this.projectFolder, `${this.sessionId}.jsonl`);
  }

  /** Where a file of the session is copied: the session's own, or a subagent's beside it. */
  pathOf(agentId: string | undefined): string {
    if (agentId === undefined) return this.transcriptPath();
    return path.join(this.claudeDir, 'projects', this.projectFolder, this.sessionId, 'subagents', `agent-${agentId}.jsonl`);
  }

  setLength(source: SourceFile, agentId: string | undefined, length: number): void {
    const dest = this.pathOf(agentId);
    let copy = this.copies.get(dest);
    if (copy === undefined) this.copies.set(dest, (copy = new PrefixCopy(source, dest)));
    copy.setLength(length);
  }
}

/** Writes a file only we may read, in a folder only we may enter. */
function writePrivate(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.chmodSync(path.dirname(file), 0o700);
  fs.writeFileSync(file, text, { mode: 0o600 });
}

interface Session {
  index: TranscriptIndex;
  source: SourceFile;
  agents: Map<string, { index: TranscriptIndex; source: SourceFile }>;
  sessionId: string;
  projectDir: string | undefined;
  projectFolder: string;
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

/** Where one call is replayed: its file, its transcript cuts, what it is given. */
interface CallPlan {
  call: ReplayCall;
  file: { index: TranscriptIndex; source: SourceFile };
  detail: CallDetail;
  live: LiveCut;
  /** For a subagent's call: how much of the session's own transcript both runs see. */
  mainCut?: number;
  /** Where the hook runs, and the `cwd` its input names. */
  cwd: string;
  recordedCwd: string;
}

/** One replay: the session, its two Claude dirs, and what the hooks are run with. */
class Replayer {
  readonly live: RunTree;
  readonly complete: RunTree;
  /** The mod's call list: the newest calls so far. */
  private readonly listed: string[] = [];

  constructor(
    tmp: string,
    private readonly session: Session,
    private readonly io: CliIo,
    private readonly stop: AbortSignal,
  ) {
    this.live = new RunTree(path.join(tmp, 'live'), session.projectFolder, session.sessionId);
    this.complete = new RunTree(path.join(tmp, 'complete'), session.projectFolder, session.sessionId);
  }

  /** The call is made: the mod lists it before its hooks run. */
  list(call: ReplayCall): void {
    this.listed.push(call.toolUseId);
    if (this.listed.length > MOD_CALLS_LISTED) this.listed.shift();
  }

  /** One run of a hook on a call, handed `tree`'s copy cut at `bytes`; with `mod`, the mod's held message and call list too. */
  async run(plan: CallPlan, hook: ReplayHook, timeoutMs: number, tree: RunTree, bytes: number, mod: boolean): Promise<RunReport> {
    const { call } = plan;
    const session = this.session;
    if (plan.mainCut !== undefined) tree.setLength(session.source, undefined, plan.mainCut);
    tree.setLength(plan.file.source, call.agentId, bytes);
    const held = mod ? heldMessagePath(tree.claudeDir, session.sessionId, call.toolUseId) : undefined;
    if (mod) {
      const list = modCallsPath(tree.claudeDir, session.sessionId);
      if (list !== undefined) writePrivate(list, JSON.stringify({ v: 1, calls: this.listed }));
      // The held message is read by another process, against the real clock.
      if (held !== undefined) writePrivate(held, JSON.stringify(heldMessageFor(call, plan.detail, session.sessionId, Date.now())));
    }
    const input = preToolUseInput(call, plan.detail, { sessionId: session.sessionId, transcriptPath: tree.transcriptPath(), cwd: plan.recordedCwd });
    const outcome = await runCommandHook(
      {
        command: hook.command,
        ...(hook.args !== undefined ? { args: hook.args } : {}),
        cwd: plan.cwd,
        env: { ...this.io.env, CLAUDE_PROJECT_DIR: isDirectory(session.projectDir) ? session.projectDir : plan.cwd, CLAUDE_CONFIG_DIR: tree.claudeDir },
        input: JSON.stringify(input),
        timeoutMs,
      },
      this.stop,
    );
    // The mod removes a call's held message once its record lands.
    if (held !== undefined) fs.rmSync(held, { force: true });
    const answer = answerOf(outcome);
    return { decision: answer.decision, reason: answer.reason, exit_code: outcome.exitCode, ms: outcome.ms, stdout: outcome.stdout, stderr: outcome.stderr, transcript_bytes: bytes };
  }
}

/** The hooks to replay: --hook's, else the settings' (each note said on stderr). */
function hooksToReplay(a: ReplayArgs, io: CliIo, session: Session, note: (text: string) => void): ReplayHook[] {
  if (a.hook !== undefined) return [{ command: a.hook, source: 'user' }];
  const found = settingsHooksOf(io, session.projectDir);
  for (const n of found.notes) note(n);
  if (found.disabled) note('disableAllHooks is set: Claude Code runs no hook, and neither does the replay');
  const hooks = found.disabled ? [] : found.hooks;
  if (hooks.length === 0) note('no PreToolUse command hook in the settings');
  return hooks;
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
  const note = (text: string) => io.stderr(`transcript-lag replay: ${printable(text)}\n`);
  const opened: SourceFile[] = [];
  let tmp: string | undefined;
  try {
    let session: Session;
    try {
      session = await openSession(a.session, io, opened);
    } catch (err) {
      // Missing, not a regular file, replaced while read (TranscriptReadError), unreadable.
      note(err instanceof Error ? err.message : String(err));
      return 1;
    }
    let evidence: ChannelEvidence | undefined;
    if (a.channel !== undefined) {
      const { readChannelEvidence } = require('../core/replay/channelEvidence') as typeof import('../core/replay/channelEvidence');
      try {
        evidence = await readChannelEvidence(a.channel, session.sessionId, io.files, io.clock);
      } catch (err) {
        note(`--channel: ${err instanceof Error ? err.message : String(err)}`);
        return 1;
      }
      if (evidence.events === 0) note(`--channel: no event of session ${session.sessionId}: every call's live copy follows the model`);
    }
    const settings = a.hook === undefined;
    const hooks = hooksToReplay(a, io, session, note);
    const calls = orderedCalls(session).filter((c) => a.tool === undefined || matcherMatches(a.tool, c.toolName));
    const oversize = [session, ...session.agents.values()].reduce((n, s) => n + s.index.oversizeLines, 0);
    if (oversize > 0) note(`${oversize} transcript line(s) over ${MAX_FACTS_LINE_BYTES >> 20} MiB were not read: a call among them is not replayed`);

    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'transcript-lag-replay-'));
    fs.chmodSync(tmp, 0o700);
    const stop = new AbortController();
    void io.stopSignal.then(() => stop.abort());
    const replayer = new Replayer(tmp, session, io, stop.signal);
    const reports: CallReport[] = [];
    const lacked: boolean[] = [];
    let skipped = 0;
    let unmatched = 0;
    const cwdNoted = new Set<string>();
    if (!a.json) io.stdout(header(settings));
    for (const call of calls) {
      if (stop.signal.aborted) break;
      const callHooks = settings ? hooksFor(hooks, call.toolName) : hooks;
      if (callHooks.length === 0) {
        unmatched += 1;
        continue;
      }
      const file = call.agentId === undefined ? session : session.agents.get(call.agentId)!;
      let detail: CallDetail;
      try {
        detail = callDetailOf(call.toolUseId, detailLinesOf(call).map((l) => file.source.read(l.start, l.end).toString('utf8')));
      } catch (err) {
        skipped += 1;
        note(`${call.toolUseId}: not replayed: ${err instanceof Error ? err.message : String(err)}`);
        continue;
      }
      const recordedCwd = call.context.cwd ?? session.projectDir;
      const cwd = isDirectory(recordedCwd) ? recordedCwd : io.cwd;
      if (cwd !== recordedCwd && !cwdNoted.has(recordedCwd ?? '')) {
        cwdNoted.add(recordedCwd ?? '');
        note(`the session's working directory ${recordedCwd ?? '(none recorded)'} is not a folder here: hooks run in ${io.cwd}`);
      }
      const plan: CallPlan = {
        call,
        file,
        detail,
        live: liveCutOf(call, evidence?.calls.get(call.toolUseId), evidence?.births ?? new Map(), file.source.size),
        ...(call.agentId !== undefined ? { mainCut: mainCutForSubagentCall(session.index, call) } : {}),
        cwd,
        recordedCwd: recordedCwd ?? cwd,
      };
      replayer.list(call);
      for (const hook of callHooks) {
        if (stop.signal.aborted) break;
        const timeoutMs = hook.timeoutSec !== undefined ? Math.round(hook.timeoutSec * 1000) : a.timeoutMs;
        const liveRun = await replayer.run(plan, hook, timeoutMs, replayer.live, plan.live.bytes, a.mod);
        if (stop.signal.aborted) break;
        const completeRun = await replayer.run(plan, hook, timeoutMs, replayer.complete, completeCut(call), false);
        const report: CallReport = {
          tool_use_id: call.toolUseId,
          tool_name: call.toolName,
          ...(call.agentId !== undefined ? { agent_id: call.agentId } : {}),
          ...(settings ? { hook: { command: hook.command, ...(hook.args !== undefined ? { args: hook.args } : {}), source: hook.source } } : {}),
          basis: plan.live.basis,
          live: liveRun,
          complete: completeRun,
          differs: liveRun.decision !== completeRun.decision,
        };
        reports.push(report);
        lacked.push(plan.live.bytes < call.record.end);
        io.stdout(a.json ? `${jsonEscapingUnprintable(JSON.stringify(report))}\n` : renderRow(report, settings));
        await io.stdoutDrained?.();
      }
    }
    if (unmatched > 0 && settings) note(`${unmatched} call(s) matched no hook`);
    if (a.json) io.stdout(`${JSON.stringify(summaryOf(reports, skipped))}\n`);
    else io.stdout(`\n${printable(verdictOf(reports, lacked, settings))}\n`);
    if (stop.signal.aborted) {
      note('interrupted');
      return 130;
    }
    return 0;
  } finally {
    for (const s of opened) s.close();
    if (tmp !== undefined) fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** Indexes the session's transcript and its subagents', and opens each for copying. */
async function openSession(file: string, io: CliIo, opened: SourceFile[]): Promise<Session> {
  const source = new SourceFile(file);
  opened.push(source);
  const index = await indexTranscript(file, io.files, io.clock);
  const agents = new Map<string, { index: TranscriptIndex; source: SourceFile }>();
  for (const sub of subagentFiles(file)) {
    try {
      const subSource = new SourceFile(sub.path);
      opened.push(subSource);
      agents.set(sub.agentId, { index: await indexTranscript(sub.path, io.files, io.clock), source: subSource });
    } catch (err) {
      io.stderr(`transcript-lag replay: ${printable(err instanceof Error ? err.message : String(err))}: its calls are not replayed\n`);
    }
  }
  const recorded = index.lines.find((l) => l.sessionId !== undefined && SAFE_SESSION_ID.test(l.sessionId))?.sessionId;
  const named = path.basename(file, '.jsonl');
  const sessionId = recorded ?? (SAFE_SESSION_ID.test(named) ? named : 'replay-session');
  const projectDir = index.lines.find((l) => l.cwd !== undefined)?.cwd;
  const parent = path.dirname(file);
  const projectFolder = path.basename(path.dirname(parent)) === 'projects' ? path.basename(parent) : projectSlug(projectDir ?? io.cwd);
  return { index, source, agents, sessionId, projectDir, projectFolder };
}

/** The session's calls and its subagents', in the order they were made (their records' creation times). */
function orderedCalls(session: Session): ReplayCall[] {
  const keyed: Array<{ call: ReplayCall; at: number; order: number }> = [];
  const add = (calls: ReplayCall[]) => {
    let last = 0;
    for (const call of calls) {
      last = call.record.timestampMs ?? last;
      keyed.push({ call, at: last, order: keyed.length });
    }
  };
  add(callsOf(session.index));
  for (const [agentId, sub] of session.agents) add(callsOf(sub.index, agentId));
  return keyed.sort((x, y) => x.at - y.at || x.order - y.order).map((k) => k.call);
}
