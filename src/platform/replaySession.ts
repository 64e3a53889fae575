/**
 * One replay of a recorded session: every tool call's PreToolUse hook run twice, as Claude Code runs
 * it, **live** (handed a copy of the transcript as it stood when the hook fired: the channel's
 * evidence, else the field suite's rule for the session's mode and build, src/core/replay/liveCut.ts;
 * with the mod's held message for the call as the session had it: none where its evidence shows the mod
 * did not run or its build handed hooks none, else one; `mod` decides instead) and **complete** (handed a copy that
 * holds everything up to and including the call's record). What `transcript-lag replay` runs
 * (src/cli/replay.ts) and what VS Code's Replay Hook on Session… runs (src/vscode/replayCommand.ts):
 * one orchestration, each caller saying the results its own way.
 *
 * Never the user's files: the copies, the held messages and the Claude dir the hook is pointed at
 * (`CLAUDE_CONFIG_DIR`) live in a private temp folder, removed at the end, interrupted or not. Hooks
 * run one at a time, each in a process group of its own, cut at its timeout and killed with its group
 * when `stop` aborts (src/platform/commandHookRun.ts). The hook's input goes to its stdin and nowhere
 * else.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CHANNEL_DIR_NAME, CHANNEL_FILE_SUFFIX, MESSAGE_TOOL_FILE_NAME, SAFE_SESSION_ID, SPOOL_DIR_NAME } from '../rules/channelConstants';
import type { Clock } from '../rules/clock';
import { projectSlug } from '../core/discovery';
import type { FileAccess } from '../core/fileAccess';
import { heldMessagePath, MOD_CALLS_LISTED, modCallsPath } from '../rules/modContract';
import type { ReplayCall } from '../core/replay/calls';
import type { ChannelEvidence } from '../core/replay/channelEvidence';
import { answerOf } from '../core/replay/decision';
import { callDetailOf, detailLinesOf, heldMessageFor, preToolUseInput, type CallDetail } from '../core/replay/hookInput';
import { CLAUDE_CODE, knownOf, type BehaviourTable, type Known } from '../core/compat/claudeCode';
import { completeCut, liveTimelineOf, mainCutForSubagentCall, type LiveTimeline, type RecordAt } from '../core/replay/liveCut';
import { matcherMatches } from '../core/replay/matcher';
import { ReplayTally, verdictOfRuns, type CallReport, type LiveRunReport, type RunReport } from '../core/replay/replayReport';
import { hooksFor, type ReplayHook } from '../core/replay/replayHooks';
import { firstSessionId, indexTranscript, MAX_FACTS_LINE_BYTES, type TranscriptIndex } from '../core/replay/transcriptIndex';
import { runCommandHook } from './commandHookRun';
import { undoAtExit } from './exitCleanup';
import { landAfter, readsShowIn, type FirstReadWatch } from './firstRead';
import { SourceFile } from './prefixCopy';
import { messageToolSource, RunTree, writePrivate } from './replayRunTree';
import { settingsHooksOf } from './replaySettings';

// The replay module as the extension loads it from dist/engine.js (src/vscode/replayCommand.ts): the settings' hooks too.
export { projectHooksRefusal, settingsHooksOf } from './replaySettings';

const AGENT_FILE = /^agent-([A-Za-z0-9_-]{1,128})\.jsonl$/;
/** More subagent transcripts than a session makes: past it, the rest are not read. */
const MAX_SUBAGENT_FILES = 10_000;

/** Which hooks to replay. */
export type HookChoice =
  /** One command line (`sh -c`), on every call, with the request's timeout. */
  | { command: string }
  /**
   * The PreToolUse command hooks of the settings, read when the session is: the user's (this Claude
   * dir's) and the session's project's (see projectHooksRefusal; `within`: the folders a project may be in).
   */
  | { settingsOf: string; within?: readonly string[] }
  /** Hooks already read from the settings (settingsHooksOf): each on the calls its matcher takes, with its own timeout. */
  | { configured: ReplayHook[] };

export interface ReplayRequest {
  /** The session's transcript; its subagents' transcripts are found beside it. */
  transcript: string;
  hooks: HookChoice;
  /**
   * The session's channel file: when each hook fired and what was on disk then. Default: the one beside
   * the transcript's Claude dir (channelBeside) and the mod's spool there, when they exist; else the model.
   * A file named here must exist.
   */
  channel?: string;
  /** Only the calls of tools this matcher takes. */
  tool?: string;
  /** A hook's timeout, unless its settings give one. */
  timeoutMs: number;
  /**
   * As with the transcript-lag plugin: the mod's held message and call list in the live run, and in
   * both runs the message tool where the plugin keeps it (`<claude dir>/transcript-lag/bin/`), the path
   * the README's reviewing hooks build from `CLAUDE_CONFIG_DIR`. Undefined: as the session ran, by
   * its evidence (modRanIn): without where it shows the mod did not run, else with.
   */
  mod: boolean | undefined;
  /** The message tool's file (one bundle, `transcript-lag message` on its own); default: messageToolSource(). */
  messageTool?: string;
  /** The hooks' environment; CLAUDE_PROJECT_DIR and CLAUDE_CONFIG_DIR are set over it. */
  env: NodeJS.ProcessEnv;
  /** Where hooks run (and the project folder named) when the session's working directory is not a folder here. */
  fallbackCwd: string;
  files: FileAccess;
  clock: Clock;
}

/** What a note is about: `channel` when it is about the channel file the request named. */
export type NoteTopic = 'channel' | undefined;

export interface ReplayListener {
  /** Something the user should know (a file not read, hooks left out): raw text, not yet made printable. */
  note(text: string, topic?: NoteTopic): void;
  /** The hooks are chosen and the calls listed; before the first hook runs. `byMatcher`: settings hooks, each on the calls its matcher takes. */
  planned?(plan: { calls: number; byMatcher: boolean }): void;
  /** A call's hooks are about to run (`index` among the planned calls). */
  calling?(index: number, call: ReplayCall): void;
  /** One call replayed with one hook. Awaited before the next run. The replay keeps nothing of it but its tally (ReplayResult.tally): keep what you show. */
  replayed(call: ReplayedCall): void | Promise<void>;
}

export interface ReplayedCall {
  report: CallReport;
  /** The live copy lacked the call's record. */
  liveLacksRecord: boolean;
  /** The call's record: the file that holds it (a subagent's own for its calls) and its 1-based line there. */
  record: { path: string; line: number };
}

export interface ReplayResult {
  /**
   * The reports folded (the summary, the verdict): each went to the listener as it was made, and is
   * not kept, its outputs with it.
   */
  tally: ReplayTally;
  /** Calls that could not be replayed (each said in a note). */
  skipped: number;
  /** Settings hooks were replayed, each on the calls its matcher takes. */
  byMatcher: boolean;
  /** `stop` aborted it: the tally is of the reports made before. */
  interrupted: boolean;
}

/** One call could not be replayed as it should (said in a note, the call skipped). */
class CallNotReplayed extends Error {
  override name = 'CallNotReplayed';
}

/** The replay could not run: the session (`source: 'session'`) or the channel file could not be read. */
export class ReplayError extends Error {
  override name = 'ReplayError';
  constructor(
    message: string,
    readonly source: 'session' | 'channel',
  ) {
    super(message);
  }
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

function isDirectory(p: string | undefined): p is string {
  try {
    return p !== undefined && fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * How long a hook may take to read a copy of `bytes` once it has begun: 50 ms, and 50 ms a MB (20 MB/s, a
 * shell loop or a JSON parse line by line; a plain read is ten times faster). A reader slower still may
 * meet the record it appended.
 */
export function readingTimeMs(bytes: number): number {
  return 50 + Math.ceil((bytes / (1024 * 1024)) * 50);
}

interface Session {
  index: TranscriptIndex;
  source: SourceFile;
  agents: Map<string, { index: TranscriptIndex; source: SourceFile }>;
  sessionId: string;
  projectDir: string | undefined;
  projectFolder: string;
}

/** Where one call is replayed: its file, its transcript cuts, what it is given. */
interface CallPlan {
  call: ReplayCall;
  file: { index: TranscriptIndex; source: SourceFile };
  detail: CallDetail;
  live: LiveTimeline;
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
    private readonly env: NodeJS.ProcessEnv,
    private readonly stop: AbortSignal,
    messageTool: string | undefined,
  ) {
    this.live = new RunTree(path.join(tmp, 'live'), session.projectFolder, session.sessionId, messageTool);
    this.complete = new RunTree(path.join(tmp, 'complete'), session.projectFolder, session.sessionId, messageTool);
  }

  /** The call is made: the mod lists it before its hooks run. */
  list(call: ReplayCall): void {
    this.listed.push(call.toolUseId);
    if (this.listed.length > MOD_CALLS_LISTED) this.listed.shift();
  }

  /**
   * One run of a hook on a call, handed `tree`'s copy cut at `bytes`; with `mod`, the mod's held
   * message and call list too. `grow`: the copy grows to `bytes` at `atMs` after the hook starts (the
   * record landing while it runs); with `afterFirstRead`, not before the hook's first read of it
   * (./firstRead.ts): `waitedForRead` when it had not been read by `atMs`, then when it grew
   * (`grewAtMs`; null: the hook never read it).
   */
  async run(
    plan: CallPlan,
    hook: ReplayHook,
    timeoutMs: number,
    tree: RunTree,
    bytes: number,
    mod: boolean,
    grow?: { atMs: number; bytes: number; afterFirstRead?: boolean },
  ): Promise<RunReport & { waitedForRead?: { grewAtMs: number | null } }> {
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
    const input = JSON.stringify(preToolUseInput(call, plan.detail, { sessionId: session.sessionId, transcriptPath: tree.transcriptPath(), cwd: plan.recordedCwd }));
    const env = { ...this.env, CLAUDE_PROJECT_DIR: isDirectory(session.projectDir) ? session.projectDir : plan.cwd, CLAUDE_CONFIG_DIR: tree.claudeDir };
    // Set just before the hook is spawned (runCommandHook spawns at once): its delay counts from the hook's start.
    let growError: unknown;
    let grewAtMs: number | undefined;
    let watch: FirstReadWatch | undefined;
    try {
      watch = grow?.afterFirstRead === true ? tree.watchFirstRead(call.agentId) : undefined;
    } catch {
      // Its times could not be set (a file system that refuses it): the landing stays at its time.
    }
    const started = performance.now();
    const growNow = () => {
      try {
        tree.setLength(plan.file.source, call.agentId, grow!.bytes);
        grewAtMs = Math.round(performance.now() - started);
      } catch (err) {
        growError = err;
      }
    };
    // Not read by its time: the record lands just after the hook's first read, as it would live had the hook read sooner.
    const growth = grow === undefined ? undefined : landAfter(grow.atMs, watch, readingTimeMs(bytes), growNow);
    const outcome = await runCommandHook(
      {
        command: hook.command,
        ...(hook.args !== undefined ? { args: hook.args } : {}),
        cwd: plan.cwd,
        env,
        input,
        timeoutMs,
      },
      this.stop,
    );
    growth?.cancel();
    // The copy could not grow (the session's file truncated meanwhile): the run did not see what it should have.
    if (growError !== undefined) throw new CallNotReplayed(`the live copy could not grow: ${growError instanceof Error ? growError.message : String(growError)}`);
    // The mod removes a call's held message once its record lands.
    if (held !== undefined) fs.rmSync(held, { force: true });
    const answer = answerOf(outcome);
    const report = { decision: answer.decision, reason: answer.reason, exit_code: outcome.exitCode, ms: outcome.ms, stdout: outcome.stdout, stderr: outcome.stderr, transcript_bytes: bytes };
    // Grown as the hook ended or after (its output still being read): not while it ran.
    const grewWhileRunning = grewAtMs !== undefined && grewAtMs < outcome.ms ? grewAtMs : null;
    return growth?.waitedForRead() === true ? { ...report, waitedForRead: { grewAtMs: grewWhileRunning } } : report;
  }

  /**
   * The live run with the record landing `recordAt` after the hook starts (0: there from the start; null:
   * not while it runs). `afterFirstRead`: not before the hook's first read (the latest landing: a hook
   * that starts faster live than here reads before it); then `record_at_ms` says when it did land.
   */
  async runLive(plan: CallPlan, hook: ReplayHook, timeoutMs: number, recordAt: RecordAt, mod: boolean, afterFirstRead = false): Promise<LiveRunReport> {
    const { bytes, landedBytes } = plan.live;
    const start = recordAt === 0 ? Math.max(bytes, landedBytes) : bytes;
    const grow = recordAt !== null && recordAt > 0 && landedBytes > start ? { atMs: recordAt, bytes: landedBytes, afterFirstRead } : undefined;
    const { waitedForRead, ...run } = await this.run(plan, hook, timeoutMs, this.live, start, mod, grow);
    if (waitedForRead === undefined) return { record_at_ms: recordAt, ...run };
    // It waited for the hook's read (or the hook never read the copy: then it never landed while it ran).
    return { record_at_ms: waitedForRead.grewAtMs, after_first_read: true, ...run };
  }
}

/** The hooks to replay, and whether each runs only on the calls its matcher takes (each note said). */
function hooksToReplay(choice: HookChoice, session: Session, note: (text: string) => void): { hooks: ReplayHook[]; byMatcher: boolean } {
  if ('command' in choice) return { hooks: [{ command: choice.command, source: 'user' }], byMatcher: false };
  if ('configured' in choice) return { hooks: choice.configured, byMatcher: true };
  const found = settingsHooksOf(choice.settingsOf, session.projectDir, choice.within);
  for (const n of found.notes) note(n);
  if (found.disabled) note('disableAllHooks is set: Claude Code runs no hook, and neither does the replay');
  const hooks = found.disabled ? [] : found.hooks;
  if (hooks.length === 0) note('no PreToolUse command hook in the settings');
  return { hooks, byMatcher: true };
}

/**
 * Replays the session. Throws ReplayError when the session or the channel cannot be read; a call that
 * cannot be replayed is skipped with a note. `stop` kills the running hook's group and ends the replay
 * (`interrupted`); the temp folder is removed either way.
 */
export async function replaySession(req: ReplayRequest, listener: ReplayListener, stop: AbortSignal): Promise<ReplayResult> {
  const note = (text: string, topic?: NoteTopic) => listener.note(text, topic);
  const opened: SourceFile[] = [];
  let tmp: string | undefined;
  let forgetTmp = () => {};
  try {
    // Missing, not a regular file, replaced while read (TranscriptReadError), unreadable.
    const sessionError = (err: unknown) => new ReplayError(err instanceof Error ? err.message : String(err), 'session');
    let source: SourceFile;
    let sessionId: string;
    try {
      source = new SourceFile(req.transcript);
      opened.push(source);
      sessionId = await sessionIdOf(req);
    } catch (err) {
      throw sessionError(err);
    }
    let evidence: ChannelEvidence | undefined;
    let modRan: boolean | undefined;
    // The session's evidence where the plugin and our hooks leave it, beside the transcript's Claude dir
    // (its channel file, and the mod's spool, unfolded); or the channel file named, which must exist. Read
    // before the transcripts are indexed: the births it holds are what the index keeps of their lines.
    const channel = req.channel ?? channelBeside(req.transcript, sessionId);
    if (req.channel !== undefined) {
      const st = await req.files.stat(req.channel);
      if (st === undefined) throw new ReplayError(`${req.channel}: no such file`, 'channel');
    }
    if (channel !== undefined && (req.channel !== undefined || (await hasEvidence(channel, req.files)))) {
      // The channel reader (zod) only when there is a channel: the CLI takes it from dist/engine.js.
      const { readChannelEvidence, modRanIn } = require('../core/replay/channelEvidence') as typeof import('../core/replay/channelEvidence');
      try {
        evidence = await readChannelEvidence(channel, sessionId, req.files, req.clock);
        modRan = modRanIn(evidence);
      } catch (err) {
        throw new ReplayError(err instanceof Error ? err.message : String(err), 'channel');
      }
      if (evidence.events === 0 && req.channel !== undefined) note(`no event of session ${sessionId}: every call's live run follows the model`, 'channel');
    }
    const births = evidence?.births ?? new Map<string, number>();
    // As the session ran (liveHeldMessage): no held message live where its evidence or its build's measures
    // say none reached a hook there; --mod / --no-mod decide instead.
    const noted = new Set<string>();
    const noteOnce = (text: string) => {
      // Not a note on --channel (the CLI prefixes those): on what the session's evidence and build say.
      if (!noted.has(text)) note(text);
      noted.add(text);
    };
    const liveModFor = (version: string | undefined, kept: boolean | null | undefined): boolean => {
      if (req.mod !== undefined) return req.mod;
      const { live, note: why } = liveHeldMessage(version, { modRan, kept });
      if (why !== undefined) noteOnce(why);
      return live;
    };
    let session: Session;
    try {
      session = await openSession(req, source, sessionId, births, opened, note);
    } catch (err) {
      throw sessionError(err);
    }
    const { hooks, byMatcher } = hooksToReplay(req.hooks, session, note);
    const calls = orderedCalls(session).filter((c) => req.tool === undefined || matcherMatches(req.tool, c.toolName));
    const oversize = [session, ...session.agents.values()].reduce((n, s) => n + s.index.oversizeLines, 0);
    if (oversize > 0) note(`${oversize} transcript line(s) over ${MAX_FACTS_LINE_BYTES >> 20} MiB were not read: a call among them is not replayed`);

    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'transcript-lag-replay-'));
    fs.chmodSync(tmp, 0o700);
    // The copies of the transcript go whatever ends us: a closed pipe exits through process.exit.
    const made = tmp;
    forgetTmp = undoAtExit(() => fs.rmSync(made, { recursive: true, force: true }));
    // Without the plugin (--no-mod) there is no message tool either: the hook gets what it gets then, in both runs.
    let messageTool: string | undefined;
    if (req.mod !== false) {
      messageTool = req.messageTool ?? messageToolSource();
      if (messageTool === undefined) note(`the message tool (${MESSAGE_TOOL_FILE_NAME}) is not beside this replay: a hook that asks it gets no answer`);
    }
    const replayer = new Replayer(tmp, session, req.env, stop, messageTool);
    const readsShow = readsShowIn(replayer.live.claudeDir);
    if (!readsShow) {
      note("this file system does not tell when a hook reads its transcript (no access times): a run's latest landing stays at its time, so a hook that reads later here than it did live may be said to find its call");
    }
    const result: ReplayResult = { tally: new ReplayTally(), skipped: 0, byMatcher, interrupted: false };
    let unmatched = 0;
    const cwdNoted = new Set<string>();
    listener.planned?.({ calls: calls.length, byMatcher });
    for (const [i, call] of calls.entries()) {
      if (stop.aborted) break;
      const callHooks = byMatcher ? hooksFor(hooks, call.toolName) : hooks;
      if (callHooks.length === 0) {
        unmatched += 1;
        continue;
      }
      listener.calling?.(i, call);
      const file = call.agentId === undefined ? session : session.agents.get(call.agentId)!;
      let detail: CallDetail;
      try {
        detail = callDetailOf(call.toolUseId, detailLinesOf(call).map((l) => file.source.read(l.start, l.end).toString('utf8')));
      } catch (err) {
        result.skipped += 1;
        note(`${call.toolUseId}: not replayed: ${err instanceof Error ? err.message : String(err)}`);
        continue;
      }
      const recordedCwd = call.context.cwd ?? session.projectDir;
      const cwd = isDirectory(recordedCwd) ? recordedCwd : req.fallbackCwd;
      if (cwd !== recordedCwd && !cwdNoted.has(recordedCwd ?? '')) {
        cwdNoted.add(recordedCwd ?? '');
        note(`the session's working directory ${recordedCwd ?? '(none recorded)'} is not a folder here: hooks run in ${req.fallbackCwd}`);
      }
      const plan: CallPlan = {
        call,
        file,
        detail,
        live: liveTimelineOf(call, evidence?.calls.get(call.toolUseId), births, file.source.size),
        ...(call.agentId !== undefined ? { mainCut: mainCutForSubagentCall(session.index, call) } : {}),
        cwd,
        recordedCwd: recordedCwd ?? cwd,
      };
      replayer.list(call);
      for (const hook of callHooks) {
        if (stop.aborted) break;
        const timeoutMs = hook.timeoutSec !== undefined ? Math.round(hook.timeoutSec * 1000) : req.timeoutMs;
        const timings: LiveRunReport[] = [];
        try {
          // The latest landing, where none is "not while it runs", comes after the hook's first read, however late that is here.
          const latest = plan.live.timings.includes(null) || !readsShow ? undefined : Math.max(...plan.live.timings.map((t) => t ?? 0));
          for (const recordAt of plan.live.timings) {
            if (stop.aborted) break;
            timings.push(await replayer.runLive(plan, hook, timeoutMs, recordAt, liveModFor(call.context.version, evidence?.calls.get(call.toolUseId)?.heldMessage), recordAt === latest && recordAt! > 0));
          }
        } catch (err) {
          if (!(err instanceof CallNotReplayed)) throw err;
          result.skipped += 1;
          note(`${call.toolUseId}: not replayed: ${err.message}`);
          continue;
        }
        if (stop.aborted) break;
        const completeRun = await replayer.run(plan, hook, timeoutMs, replayer.complete, completeCut(call), false);
        const live = timings[plan.live.timings.indexOf(plan.live.likely)] ?? timings[0]!;
        const report: CallReport = {
          tool_use_id: call.toolUseId,
          tool_name: call.toolName,
          ...(call.agentId !== undefined ? { agent_id: call.agentId } : {}),
          ...(byMatcher ? { hook: { command: hook.command, ...(hook.args !== undefined ? { args: hook.args } : {}), source: hook.source } } : {}),
          basis: plan.live.basis,
          live,
          live_timings: timings,
          complete: completeRun,
          ...verdictOfRuns(timings, completeRun),
        };
        // The likely run never had the record: it was not in the transcript while the hook ran.
        const liveLacksRecord = live.record_at_ms === null && live.transcript_bytes < call.record.end;
        result.tally.add(report, liveLacksRecord);
        await listener.replayed({ report, liveLacksRecord, record: { path: file.index.path, line: call.record.line } });
      }
    }
    if (unmatched > 0 && byMatcher) note(`${unmatched} call(s) matched no hook`);
    result.interrupted = stop.aborted;
    return result;
  } finally {
    for (const s of opened) s.close();
    if (tmp !== undefined) fs.rmSync(tmp, { recursive: true, force: true });
    forgetTmp();
  }
}

/**
 * The session's channel file where our hooks and the plugin keep it: `<claude dir>/transcript-lag/<session>.jsonl`
 * for a transcript at `<claude dir>/projects/<project>/<session>.jsonl`; undefined elsewhere.
 */
export function channelBeside(transcript: string, sessionId: string): string | undefined {
  const projects = path.dirname(path.dirname(transcript));
  if (path.basename(projects) !== 'projects' || !SAFE_SESSION_ID.test(sessionId)) return undefined;
  return path.join(path.dirname(projects), CHANNEL_DIR_NAME, `${sessionId}${CHANNEL_FILE_SUFFIX}`);
}

/** Whether a channel file, or the mod's spool beside it, is there to read. */
async function hasEvidence(channel: string, files: FileAccess): Promise<boolean> {
  if ((await files.stat(channel)) !== undefined) return true;
  return (await files.stat(path.join(path.dirname(channel), SPOOL_DIR_NAME))) !== undefined;
}

/** The session's id: the first its records name (read from the transcript's first lines), else the file's name if it may be one. */
async function sessionIdOf(req: ReplayRequest): Promise<string> {
  const recorded = await firstSessionId(req.transcript, req.files, req.clock, (id) => SAFE_SESSION_ID.test(id));
  const named = path.basename(req.transcript, '.jsonl');
  return recorded ?? (SAFE_SESSION_ID.test(named) ? named : 'replay-session');
}

/**
 * Indexes the session's transcript and its subagents', and opens each for copying: the subagents'
 * first, so the session's own is read once, answering where each subagent call's cut of it lies as
 * its lines go by (mainCutForSubagentCall).
 */
async function openSession(req: ReplayRequest, source: SourceFile, sessionId: string, births: ReadonlyMap<string, number>, opened: SourceFile[], note: (text: string) => void): Promise<Session> {
  const file = req.transcript;
  const agents = new Map<string, { index: TranscriptIndex; source: SourceFile }>();
  const subagentTimes: number[] = [];
  for (const sub of subagentFiles(file)) {
    try {
      const subSource = new SourceFile(sub.path);
      opened.push(subSource);
      const index = await indexTranscript(sub.path, req.files, req.clock, { agentId: sub.agentId, births });
      agents.set(sub.agentId, { index, source: subSource });
      for (const call of index.calls) if (call.record.timestampMs !== undefined) subagentTimes.push(call.record.timestampMs);
    } catch (err) {
      note(`${err instanceof Error ? err.message : String(err)}: its calls are not replayed`);
    }
  }
  const index = await indexTranscript(file, req.files, req.clock, { births, createdAfter: subagentTimes });
  const projectDir = index.firstCwd;
  const parent = path.dirname(file);
  const projectFolder = path.basename(path.dirname(parent)) === 'projects' ? path.basename(parent) : projectSlug(projectDir ?? req.fallbackCwd);
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
  add(session.index.calls);
  for (const sub of session.agents.values()) add(sub.index.calls);
  return keyed.sort((x, y) => x.at - y.at || x.order - y.order).map((k) => k.call);
}

/** What a session's evidence says of the mod: whether it ran in the session, whether it kept this call's held message. */
export interface HeldMessageEvidence {
  modRan: boolean | undefined;
  /** The mod's `post` for the call says whether it kept the call's held message (`held_message`); null: its post does not say; undefined: no such post. */
  kept?: boolean | null;
}

/**
 * Whether a call's live runs get the mod's held message, as the session ran (without --mod / --no-mod),
 * and the note that says why: as the session's mod said it did for the call, where it said; else not where
 * its evidence shows the mod did not run, nor where its build is measured not to load the mod or to hand no
 * held message to a hook (npm run compat, docs/COMPATIBILITY.md), of the version itself or the measured
 * versions around it; where those disagree (a version between a measured yes and a measured no) it is
 * unknown for this version, said so, and the live runs get none: unknown is not yes.
 */
export function liveHeldMessage(version: string | undefined, { modRan, kept }: HeldMessageEvidence, t: BehaviourTable = CLAUDE_CODE): { live: boolean; note?: string } {
  // The call's own evidence is worth more than any measure of its build.
  if (kept === true) return { live: true };
  if (kept === false) {
    return { live: false, note: "the session's mod said it kept no held message for some calls: their live runs get none, as in that session (--mod: as if it had)" };
  }
  // A mod from before its posts said so: on some builds it kept none (2.1.286–2.1.325 in print mode), so unknown, not yes.
  if (kept === null) {
    return { live: false, note: "the session's mod is older than its word on the held message (its posts do not say whether it kept one): live runs get none, so a hook that needs it is not called safe (--mod: as if it had)" };
  }
  if (modRan === false) {
    return { live: false, note: "the session's evidence shows the transcript-lag mod did not run in it (its calls were reported by the command hook alone): live runs get no held message, as in that session (--mod: as if it had)" };
  }
  // From what was measured (docs/COMPATIBILITY.md): of the version itself, or the measured versions around it.
  const from = (k: Known) => (k.how === 'measured' ? 'measured' : k.how === 'between' ? `as ${k.below} and ${k.above} measured` : 'by the rule the measured versions give');
  const mods = knownOf(version, 'mods', t);
  // The session's evidence that the mod ran is worth more than the measure of its build.
  if (mods?.value === false && modRan !== true) {
    return { live: false, note: `Claude Code ${version} does not load the plugin's mod (${from(mods)}: docs/COMPATIBILITY.md): live runs get no held message, as in that session (--mod: as if it had)` };
  }
  const heldText = knownOf(version, 'held_text', t);
  if (heldText?.value === false) {
    return { live: false, note: `Claude Code ${version} did not hand a hook every call's held message (${from(heldText)}: docs/COMPATIBILITY.md): live runs get none, as a hook there cannot count on it (--mod: as if it had)` };
  }
  // Unknown is not yes: a hook that needs the message is not called safe on a build that may not give it.
  if (heldText?.how === 'unknown' || (mods?.how === 'unknown' && modRan !== true)) {
    return { live: false, note: `whether Claude Code ${version} hands a hook the mod's held message is unknown for this version (not measured; the measured versions around it disagree: docs/COMPATIBILITY.md): live runs get none, so a hook that needs it is not called safe (--mod: as if it had)` };
  }
  if (modRan === true) return { live: true };
  return { live: true, note: 'no evidence of whether the transcript-lag mod ran in this session: live runs get the held message, as with the plugin (--no-mod: as without it)' };
}
