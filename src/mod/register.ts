/**
 * The transcript-lag mod: run inside Claude Code 2.1.287+ (plugin/hooks/hooks.json
 * `"modules"`), bundled to plugin/hooks/transcript-lag-mod.js by scripts/plugin-hook.mjs.
 *
 * - At `tool.call`, before `next` (so before every settings PreToolUse hook), it
 *   stores the assistant message that carries the call where a reviewing hook can
 *   read it (src/rules/modContract.ts) and reports `pre` with the real fire time.
 * - `post` when `next` settles, a `record` event per row at `session.append` (its birth).
 * - While a call's record is not on disk it shows "held" on the spinner, then
 *   the call's lag on its tool row.
 *
 * Before `next`, a call waits only for what its settings hooks rely on: the list of
 * calls the mod reports (so the command hooks stand aside) and the held message
 * (the conversation's newest rows, one write). Reports go out unawaited, to the
 * receiver when one runs, else to the spool.
 *
 * Claude Code's loader checks this file statically: `$` is only ever spelled
 * `$.noun.event(...)` and handed to top-level functions of this file, which the
 * bundle keeps as written. The API is the one Claude Code writes to
 * `.claude-plugin/types/claude-code/index.d.ts` (checked against 2.1.332).
 */
import { HTTP_CONFIG_FILE, MOD_SOURCE, SPOOL_DIR_NAME } from '../rules/channelConstants';
import { channelEventHead } from '../rules/channelEvent';
import { boundsText, formatDuration } from '../rules/durationText';
import { verdictFromHook, type HeldBounds } from '../rules/hookEvidence';
import { MAX_HTTP_CONFIG_BYTES, parseHttpHookConfig } from '../rules/httpHookConfigText';
import {
  claudeDirOfTranscript,
  HELD_MESSAGE_TTL_MS,
  HELD_MESSAGE_VERSION,
  heldDirOf,
  heldMessageOf,
  heldMessagePath,
  MOD_CALLS_LISTED,
  MOD_LIVE_EVERY_MS,
  modCallsPath,
  modLivePath,
  type ModLiveness,
  recordFileOf,
  channelPath,
  HELD_DIR_NAME,
  sessionIdOfTranscript,
  spoolFilePath,
  type ConversationRow,
  type HeldMessage,
} from '../rules/modContract';
import { LineCursor } from '../rules/lineCursor';
import { callsOfLine, PARSE_LINE_CHARS } from '../rules/recordLine';
import { cmdTakesAsIs } from '../rules/cmdArgument';
import type { ModApi, On, RenderEvent, ToolCallEvent, AppendEvent } from './api';

interface SessionPlace {
  transcriptPath: string;
  sessionId: string;
  claudeDir: string;
}

/** A call whose record is not on disk yet. */
interface HeldCall {
  id: string;
  tool: string;
  at: number;
  agentId?: string;
  place: SessionPlace;
  recordPath: string;
  heldFile?: string;
  /** When a look last found the record not on disk: bounds the hold from below. */
  missedAt?: number;
  /** `next` settled: the tool ran, its result is on its way. */
  ran?: boolean;
  /** In the call list (the command hooks stand aside for it): its events are spooled even at the bound. */
  listed: boolean;
}

const MAX_CALLS = 500;
const MAX_LAGS = 200;
/** Redraw rate while a call is held (the issue asks ≥ 4 a second) and how often its file is looked at. */
const TICK_MS = 100;
/** How often, once a held call has run (its result may land with its record). */
const RAN_TICK_MS = 10;
/** At most this much of a transcript is read per look; a bigger jump is skipped (its calls stay "held" until their TTL). */
const READ_LIMIT = 4 * 1024 * 1024;
/**
 * Spool files left unfolded at most (counted by this copy, recounted every SPOOL_RECOUNT): bounded when
 * nothing folds it. At the bound, recounted at most every CAPPED_RECOUNT_MS, one count at a time: nothing
 * is spooled then, so only a count sees `watch` or a window empty it.
 */
const MAX_UNFOLDED = 20_000;
const SPOOL_RECOUNT = 1000;
const CAPPED_RECOUNT_MS = 1000;
/** How long a post to the receiver may take before its event goes to the spool. */
const POST_TIMEOUT_MS = 2000;
/** Rows read back from the conversation for a call's message; more only when its message is longer. */
const ROWS = 64;
const MAX_SEEN = 1000;
/** Files looked at (a session and its subagents'): the oldest is forgotten past this. */
const MAX_CURSORS = 64;

/** The bytes `$.fs.read(…, { as: 'bytes' })` gives, from their base64. */
function bytesOf(base64: string): Uint8Array {
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

function remember(seen: Map<string, number>, id: string, lookNo: number): void {
  if (seen.has(id)) return;
  seen.set(id, lookNo);
  if (seen.size > MAX_SEEN) seen.delete(seen.keys().next().value as string);
}

/**
 * Ms since epoch, read in the mod's own realm: every awaited `$` call costs a turn of Claude Code's
 * event loop (3–20 ms measured, docs/benchmarks/transports.md), too much for a time stamp.
 */
const now = () => Date.now();

/**
 * Everything the mod keeps, one object per `register` (one loaded copy of the mod): not
 * module variables, so a copy's state is all in one place and a test can load a fresh one.
 */
interface ModState {
  keepHeldMessages: boolean;
  /** Names this copy's spool files: a name sort is the write order within it. */
  instance: string;
  /** Calls held now, and the lags of those that landed (for their tool rows), both bounded. */
  held: Map<string, HeldCall>;
  lags: Map<string, HeldBounds>;
  /** What the ticker has read of each transcript it looks at. */
  cursors: Map<string, LineCursor>;
  /** In which look each call's record and result came in: a call may fire after its record is on disk. */
  recordsSeen: Map<string, number>;
  resultsSeen: Map<string, number>;
  looks: number;
  spooled: number;
  unfolded: number;
  /** A count of the spool is running; when the last began. */
  recounting: boolean;
  recountedAt: number;
  place?: SessionPlace;
  receiver?: { url: string; secret: string };
  ticker?: { cancel(): void };
  tickerMs: number;
  looking: boolean;
  /** The newest calls this copy reports, per session: written whole before each call's hooks run (modContract.ts). */
  listed?: { sessionId: string; calls: string[] };
  listWrites: Promise<void>;
  /** Rewrites the session's liveness file every MOD_LIVE_EVERY_MS while the session lives (modContract.ts); its writes one at a time. */
  alive?: { cancel(): void };
  aliveWrites: Promise<void>;
}

function newState(options: Readonly<Record<string, unknown>>): ModState {
  return {
    keepHeldMessages: asBool(options?.keepHeldMessages, true),
    instance: crypto.randomUUID().replace(/-/g, '').slice(0, 8),
    held: new Map(),
    lags: new Map(),
    cursors: new Map(),
    recordsSeen: new Map(),
    resultsSeen: new Map(),
    looks: 0,
    spooled: 0,
    unfolded: 0,
    recounting: false,
    recountedAt: -Infinity,
    tickerMs: 0,
    looking: false,
    listWrites: Promise.resolve(),
    aliveWrites: Promise.resolve(),
  };
}

function placeOf(transcriptPath: string | undefined): SessionPlace | undefined {
  if (!transcriptPath) return undefined;
  const sessionId = sessionIdOfTranscript(transcriptPath);
  const claudeDir = claudeDirOfTranscript(transcriptPath);
  return sessionId && claudeDir ? { transcriptPath, sessionId, claudeDir } : undefined;
}

function event(p: SessionPlace, kind: string, at: number, agentId: string | undefined, fields: Record<string, unknown>) {
  return {
    ...channelEventHead(kind, at, p.sessionId, p.transcriptPath),
    ...fields,
    ...(agentId !== undefined ? { agent_id: agentId } : {}),
    source: MOD_SOURCE,
  };
}

/** Whether the spool is at its bound (then its events are dropped); if so, a recount is asked for. */
function spoolFull($: ModApi, s: ModState, p: SessionPlace): boolean {
  if (s.unfolded < MAX_UNFOLDED) return false;
  recountSpool($, s, p, true);
  return true;
}

/** How many spool files are left (watch or a window folds and removes them): the bound is on what is left. */
function recountSpool($: ModApi, s: ModState, p: SessionPlace, full: boolean): void {
  const at = now();
  if (s.recounting || (full && at - s.recountedAt < CAPPED_RECOUNT_MS)) return;
  s.recounting = true;
  s.recountedAt = at;
  const dir = spoolDirOf(p);
  $.fs
    .list(dir)
    .then(
      (entries) => void (s.unfolded = entries.length),
      // A spool folder that is gone (transcript-lag/ deleted) holds nothing.
      () => $.fs.exists(dir).then((there) => void (there ? undefined : (s.unfolded = 0))),
    )
    .catch(() => undefined)
    .finally(() => (s.recounting = false));
}

/**
 * Reports one channel event without making anybody wait: the receiver if one answers, else the spool.
 * At the spool's bound the event is dropped, unless `listed`: an event of a call in the call list, for
 * which the command hooks stand aside (calls are listed only while the spool has room, so past the bound
 * go at most the events of the calls then in flight).
 */
function report($: ModApi, s: ModState, p: SessionPlace, ev: object, listed = false): void {
  const body = JSON.stringify(ev);
  let sent = false;
  const spool = () => {
    if (sent) return;
    sent = true;
    if (!listed && spoolFull($, s, p)) return;
    s.spooled += 1;
    s.unfolded += 1;
    $.fs.write(spoolFilePath(p.claudeDir, p.sessionId, s.instance, s.spooled), body).catch(() => undefined);
    if (s.spooled % SPOOL_RECOUNT === 0) recountSpool($, s, p, false);
  };
  const receiver = s.receiver;
  if (receiver === undefined) return spool();
  // A receiver that takes the connection and never answers: the event goes to the spool after POST_TIMEOUT_MS.
  const timer = $.clock.after(POST_TIMEOUT_MS, spool);
  $.http
    .fetch(receiver.url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-transcript-lag-secret': receiver.secret }, body })
    .then((res) => {
      timer.cancel();
      if (res.ok) sent = true;
      else spool();
    })
    .catch(() => {
      timer.cancel();
      spool();
    });
}

function spoolDirOf(p: SessionPlace): string {
  return channelPath(p.claudeDir, SPOOL_DIR_NAME);
}

/** The receiver `install-hook --http` set up, when there is one: the mod posts to it while it runs. */
async function findReceiver($: ModApi, s: ModState, p: SessionPlace): Promise<void> {
  const file = channelPath(p.claudeDir, HTTP_CONFIG_FILE);
  try {
    // A regular file of our size only: anything else (a FIFO, a huge file) is not read.
    const st = await $.fs.stat(file);
    const config = st.kind === 'file' && !st.isLink && st.size <= MAX_HTTP_CONFIG_BYTES ? parseHttpHookConfig(await $.fs.read(file)) : undefined;
    if (config !== undefined) {
      s.receiver = { url: `http://127.0.0.1:${config.port}/mod`, secret: config.secret };
      return;
    }
  } catch {
    // no http hooks installed: the spool it is
  }
  s.receiver = undefined;
}

/**
 * Makes the held message's folder private (it holds assistant text), or finds it is; false where it
 * could not. Run before every write, not remembered: the user may delete `transcript-lag/` at any
 * time, and `$.fs.write` would make it anew with the default mode. `$.fs.stat` gives no mode, so the
 * check is `chmod 700` of the folders: it succeeds only when all are there, and leaves them private
 * (one process a write); when one is missing they are made first.
 */
async function privateFolder($: ModApi, p: SessionPlace): Promise<boolean> {
  const dir = heldDirOf(p.claudeDir, p.sessionId);
  if (dir === undefined) return false;
  if (dir.includes('\\')) return true; // Windows: the profile folder's ACL already keeps it the user's
  // `mkdir -p -m` sets the mode of the last folder only: the channel folder and held/ too.
  const lock = ['chmod', '700', channelPath(p.claudeDir), channelPath(p.claudeDir, HELD_DIR_NAME), dir];
  try {
    if ((await $.process.run(lock, { timeoutMs: 2000 })).exitCode === 0) return true;
    const made = await $.process.run(['mkdir', '-p', '-m', '700', dir], { timeoutMs: 2000 });
    if (made.exitCode !== 0) return false;
    return (await $.process.run(lock, { timeoutMs: 2000 })).exitCode === 0;
  } catch {
    return false;
  }
}

/** Lists the call as reported by the mod, so the command hooks stand aside for it. */
async function listCall($: ModApi, s: ModState, call: HeldCall): Promise<void> {
  const file = modCallsPath(call.place.claudeDir, call.place.sessionId);
  if (file === undefined) return;
  if (s.listed?.sessionId !== call.place.sessionId) s.listed = { sessionId: call.place.sessionId, calls: [] };
  s.listed.calls = [...s.listed.calls, call.id].slice(-MOD_CALLS_LISTED);
  const list = s.listed;
  // One write at a time, each of the newest list: parallel calls' writes cannot land out of order.
  s.listWrites = s.listWrites.then(() => $.fs.write(file, JSON.stringify({ v: 1, calls: list.calls }))).catch(() => undefined);
  await s.listWrites;
}

/** Stores the message that carries the call, before the call's PreToolUse hooks can look for it. */
async function storeHeldMessage($: ModApi, s: ModState, call: HeldCall): Promise<void> {
  if (!s.keepHeldMessages) return;
  const file = heldMessagePath(call.place.claudeDir, call.place.sessionId, call.id);
  if (file === undefined) return;
  // Checked for this write while the message is read (privateFolder never rejects).
  const privately = privateFolder($, call.place);
  let found: ReturnType<typeof heldMessageOf>;
  for (let last = ROWS; last <= 4096; last *= 4) {
    const rows = await $.session.messages(call.agentId !== undefined ? { agentId: call.agentId, last } : { last });
    if (!Array.isArray(rows)) return;
    found = heldMessageOf(rows as ConversationRow[], call.id);
    if (found === undefined || found.complete || rows.length < last) break;
  }
  // If it cannot be made private, no file (docs/HELD-MESSAGE.md).
  if (found === undefined || !(await privately)) return;
  const message: HeldMessage = {
    v: HELD_MESSAGE_VERSION,
    tool_use_id: call.id,
    session_id: call.place.sessionId,
    ...(call.agentId !== undefined ? { agent_id: call.agentId } : {}),
    at: call.at,
    text_blocks: found.text_blocks,
    tool_use: found.tool_use,
  };
  await $.fs.write(file, JSON.stringify(message));
  call.heldFile = file;
  // Its record landed (or the session ended) while this was written: it must not stay.
  if (!s.held.has(call.id)) dropHeldMessage($, call);
}

/**
 * Removes a held message: `rm`, or on Windows (a path with backslashes) cmd's `del`, for a path cmd
 * takes as it is (cmdTakesAsIs; another is only emptied). Whatever is still there after is emptied:
 * the text is what must not stay.
 */
function dropHeldMessageNow($: ModApi, call: HeldCall): Promise<void> {
  const file = call.heldFile;
  if (file === undefined) return Promise.resolve();
  call.heldFile = undefined;
  return removeOrEmpty($, file);
}

/** Removes a file of ours (there is no `$.fs` remove), else empties it; never rejects. */
function removeOrEmpty($: ModApi, file: string): Promise<void> {
  const windows = file.includes('\\');
  // Not through cmd a path it would not take as it is: at a `,` del would delete the files of the folder before it, `&` split the command, `%` expand.
  const remove = !windows ? ['rm', '-f', file] : cmdTakesAsIs(file) ? ['cmd.exe', '/d', '/c', 'del', '/f', '/q', file] : undefined;
  const removed = remove === undefined ? Promise.resolve() : $.process.run(remove, { timeoutMs: 1000 }).then(() => undefined, () => undefined);
  return removed
    .then(() => $.fs.exists(file))
    .then((left) => (left ? $.fs.write(file, '') : undefined))
    .catch(() => $.fs.write(file, '').catch(() => undefined));
}

/**
 * Writes the session's liveness file (`mod/<session>.live.json`): this mod runs the session, as of
 * now. One write at a time, so an older one never lands after a newer one, or after the removal.
 */
function writeAlive($: ModApi, s: ModState, p: SessionPlace): Promise<void> {
  const file = modLivePath(p.claudeDir, p.sessionId);
  if (file === undefined) return s.aliveWrites;
  const alive: ModLiveness = { v: 1, session_id: p.sessionId, at: Math.round(now()), every_ms: MOD_LIVE_EVERY_MS, keep_held_messages: s.keepHeldMessages };
  s.aliveWrites = s.aliveWrites.then(() => $.fs.write(file, JSON.stringify(alive))).catch(() => undefined);
  return s.aliveWrites;
}

/** Removes a session's liveness file once its writes are done: the session ended here, or this process left it. */
function removeAlive($: ModApi, s: ModState, p: SessionPlace): Promise<void> {
  const file = modLivePath(p.claudeDir, p.sessionId);
  if (file === undefined) return Promise.resolve();
  s.aliveWrites = s.aliveWrites.then(() => removeOrEmpty($, file));
  return s.aliveWrites;
}

/** Keeps the current session's liveness file fresh until session.end. */
function keepAlive($: ModApi, s: ModState): void {
  s.alive?.cancel();
  s.alive = $.clock.every(MOD_LIVE_EVERY_MS, () => {
    if (s.place !== undefined) void writeAlive($, s, s.place);
  });
}

function dropHeldMessage($: ModApi, call: HeldCall): void {
  void dropHeldMessageNow($, call);
}

/** The call left the held set: its record is on disk (`held`: how long, as its looks bound it), or it is given up on. */
function release($: ModApi, s: ModState, call: HeldCall, held: HeldBounds | undefined): void {
  s.held.delete(call.id);
  dropHeldMessage($, call);
  if (held === undefined) return;
  s.lags.set(call.id, held);
  if (s.lags.size > MAX_LAGS) s.lags.delete(s.lags.keys().next().value as string);
}

/** Reads what each held call's file gained since the last look and releases the calls whose record is there. */
async function look($: ModApi, s: ModState): Promise<void> {
  const started = now();
  const byFile = new Map<string, HeldCall[]>();
  for (const call of s.held.values()) {
    if (started - call.at > HELD_MESSAGE_TTL_MS) release($, s, call, undefined);
    else byFile.set(call.recordPath, [...(byFile.get(call.recordPath) ?? []), call]);
  }
  for (const [file, calls] of byFile) {
    const cursor = s.cursors.get(file);
    if (cursor === undefined) continue;
    let size = cursor.offset;
    try {
      size = (await $.fs.stat(file)).size;
    } catch {
      // not written yet
    }
    // Smaller than read: truncated or replaced, read again (`$.fs.stat` gives no inode, so a larger replacement goes unseen).
    // Past READ_LIMIT new bytes, only the last READ_LIMIT are read: the calls in what is skipped stay "held" until their TTL.
    cursor.look(size);
    const lines: Array<{ text: string; cut: boolean }> = [];
    const range = cursor.nextRead(READ_LIMIT);
    if (range !== undefined) {
      // Bytes, not text: the cursor carries a line cut inside a UTF-8 character whole to the next look.
      const bytes = bytesOf((await $.fs.read(file, { as: 'bytes', ...range })).base64);
      const utf8 = new TextDecoder();
      cursor.takeLines(bytes, (line, cut) => lines.push({ text: utf8.decode(line), cut }));
    }
    const lookNo = ++s.looks;
    for (const { text, cut } of lines) {
      const { records, results } = callsOfLine(text, cut);
      for (const id of records) remember(s.recordsSeen, id, lookNo);
      for (const id of results) remember(s.resultsSeen, id, lookNo);
    }
    const seenAt = now();
    for (const call of calls) {
      const recordLook = s.recordsSeen.get(call.id);
      if (recordLook === undefined) {
        call.missedAt = started;
        continue;
      }
      // The look that found the record found its result too: one write, as far as a reader can tell.
      const withResult = s.resultsSeen.get(call.id) === recordLook;
      const p = call.place;
      report($, s, p, event(p, 'landed', seenAt, call.agentId, {
        tool_use_id: call.id,
        tool_name: call.tool,
        with_result: withResult,
        watched_from: 'pre',
        fired_at: Math.round(call.at),
        ...(call.missedAt !== undefined ? { missed_at: Math.round(call.missedAt) } : {}),
        ...(call.recordPath !== p.transcriptPath ? { record_path: call.recordPath } : {}),
      }), call.listed);
      // The bound the views give this landing (src/rules/hookEvidence.ts), so the row and the views say one number.
      const landing = { at: seenAt, with_result: withResult, watched_from: 'pre' as const, fired_at: call.at, ...(call.missedAt !== undefined ? { missed_at: call.missedAt } : {}) };
      release($, s, call, verdictFromHook(undefined, undefined, landing).held);
    }
  }
  if (s.held.size === 0) {
    s.ticker?.cancel();
    s.ticker = undefined;
  } else watchHeld($, s);
  $.ui.invalidate('ui.render');
}

/** Starts looking at the held calls' files, TICK_MS apart, until none is held. */
function watchHeld($: ModApi, s: ModState): void {
  // Once a call has run, its result may be written any moment: looks as close as the hook's landing
  // watcher's, so "found with its result" means one write to within them (src/rules/hookEvidence.ts).
  const every = [...s.held.values()].some((c) => c.ran) ? RAN_TICK_MS : TICK_MS;
  if (s.ticker !== undefined && s.tickerMs === every) return;
  s.ticker?.cancel();
  s.tickerMs = every;
  s.ticker = $.clock.every(every, () => {
    if (s.looking) return;
    s.looking = true;
    look($, s)
      .catch(() => undefined)
      .finally(() => (s.looking = false));
  });
}

/** A file's first look starts this far back, so a record written before its call fired is still found. */
const FIRST_LOOK_BACK = 1024 * 1024;

/** Where the looks at a file start: a little before its end now (a partial first line is no record). */
async function cursorAt($: ModApi, s: ModState, file: string): Promise<void> {
  if (s.cursors.has(file)) return;
  let size = 0;
  try {
    size = (await $.fs.stat(file)).size;
  } catch {
    // not there yet: everything it will hold is new
  }
  const from = Math.max(0, size - FIRST_LOOK_BACK);
  // A line longer than PARSE_LINE_CHARS is judged by its first keys: only its head is kept.
  s.cursors.set(file, new LineCursor({ from, maxLineBytes: PARSE_LINE_CHARS, readLimit: READ_LIMIT, overLimit: 'skip' }));
  if (s.cursors.size > MAX_CURSORS) s.cursors.delete(s.cursors.keys().next().value as string);
}

function asBool(value: unknown, fallback: boolean): boolean {
  if (typeof value === 'boolean') return value;
  if (value === 'false') return false;
  if (value === 'true') return true;
  return fallback;
}

export function register(on: On, options: Readonly<Record<string, unknown>>) {
  const s = newState(options);

  on('session.start', async ($, e, next) => {
    const info = await $.session.info();
    s.place = placeOf(info.transcriptPath);
    if (s.place !== undefined) {
      await findReceiver($, s, s.place);
      // Made now, so each call's check finds it there (one chmod).
      if (s.keepHeldMessages) await privateFolder($, s.place);
      // Before any hook of the session runs: a reviewing hook can tell the mod runs (message --json's `mod`).
      await writeAlive($, s, s.place);
    }
    keepAlive($, s);
    return next(e);
  });

  // Leaving: no held message may outlive the session (it has 1.5 s for every mod's session.end).
  on('session.end', async ($, e, next) => {
    const dropping = [...s.held.values()].map((call) => dropHeldMessageNow($, call));
    s.held.clear();
    s.alive?.cancel();
    s.alive = undefined;
    if (s.place !== undefined) dropping.push(removeAlive($, s, s.place));
    await Promise.all(dropping);
    return next(e);
  });

  // /clear, /resume and a fork start another session (another transcript) in the same process.
  on('classic.SessionStart', async ($, e: { transcript_path?: string }, next) => {
    const before = s.place;
    s.place = placeOf(e.transcript_path) ?? s.place;
    if (s.place !== undefined && s.keepHeldMessages) await privateFolder($, s.place);
    // The session this process left is not the mod's any more; the one it runs now is.
    if (before !== undefined && before.sessionId !== s.place?.sessionId) void removeAlive($, s, before);
    if (s.place !== undefined) await writeAlive($, s, s.place);
    return next(e);
  });

  on('tool.call', async ($, e: ToolCallEvent, next) => {
    const at = now();
    // Known from session.start or the last SessionStart; asked for only when it is not.
    const p = s.place ?? placeOf((await $.session.info()).transcriptPath);
    if (p === undefined || s.held.size >= MAX_CALLS) return next(e);
    s.place = p;
    const recordPath = recordFileOf(p.transcriptPath, p.sessionId, e.agentId);
    if (recordPath === undefined) return next(e);
    // Listed only while the spool has room: at its bound the call's events could be dropped, and a call in
    // the list is one the command hooks leave to the mod. Unlisted, they report it too (it counts once).
    const listed = !spoolFull($, s, p);
    const call: HeldCall = { id: e.tool_use_id, tool: e.tool, at, agentId: e.agentId, place: p, recordPath, listed };
    // Reported first, so nothing below delays it; then what the call's settings hooks rely on, before they run.
    report($, s, p, event(p, 'pre', at, e.agentId, { tool_use_id: call.id, tool_name: call.tool, transport: 'mod' }), listed);
    s.held.set(call.id, call);
    await Promise.all([
      cursorAt($, s, recordPath),
      listed ? listCall($, s, call).catch(() => undefined) : undefined,
      // The held message is a convenience: the call goes on without it.
      storeHeldMessage($, s, call).catch(() => undefined),
    ]);
    watchHeld($, s);
    const post = () => {
      report($, s, p, event(p, 'post', now(), e.agentId, { tool_use_id: call.id, tool_name: call.tool, transport: 'mod' }), listed);
      call.ran = true;
      if (s.held.has(call.id)) watchHeld($, s);
    };
    try {
      const ran = await next(e);
      post();
      return ran;
    } catch (err) {
      post();
      throw err;
    }
  });

  on('session.append', async ($, e: AppendEvent, next) => {
    const p = s.place;
    if (p !== undefined) {
      // Nothing awaited before next: a row is appended on the session's own path.
      const at = now();
      const ids: string[] = [];
      for (const b of e.message.content ?? []) {
        if (b?.type === 'tool_use' && typeof b.id === 'string') ids.push(b.id);
        else if (b?.type === 'tool_result' && typeof b.tool_use_id === 'string') ids.push(b.tool_use_id);
      }
      report($, s, p, event(p, 'record', at, e.agentId, { uuid: e.uuid, record_type: e.message.type, ...(ids.length > 0 ? { tool_use_ids: ids } : {}) }));
    }
    return next(e);
  });

  // "held 2.1s" after the spinner's word while the oldest held call waits for its record.
  on('ui.render', { component: 'Spinner' }, async ($, e: RenderEvent, next) => {
    if (s.held.size === 0) return next(e);
    let oldest = Infinity;
    for (const call of s.held.values()) oldest = Math.min(oldest, call.at);
    const more = s.held.size > 1 ? ` (${s.held.size} calls)` : '';
    const room = Math.max(0, (e.viewport?.columns ?? 80) - String(e.props.word ?? '').length - 20);
    const suffix = ` · held ${formatDuration(now() - oldest)}${more}`.slice(0, room);
    return next({ ...e, props: { ...e.props, suffix: `${e.props.suffix ?? ''}${suffix}` } });
  });

  // Once its record is on disk: how long the call was held, under its row.
  on('ui.render', { component: 'ToolUse' }, async ($, e: RenderEvent, next) => {
    const id = e.props.tool_use_id;
    const lag = typeof id === 'string' ? s.lags.get(id) : undefined;
    const theirs = await next(e);
    if (lag === undefined) return theirs;
    const { Box, Text } = $.ui.resolve(e);
    return Box({ flexDirection: 'column', children: [theirs, Text({ dimColor: true, wrap: 'truncate-end', children: [`  ⎿ transcript lag ${boundsText(lag)}`] })] });
  });

  // A folded run of calls ("Ran 2 shell commands"): the longest lag among its calls that landed.
  on('ui.render', { component: 'ToolGroup' }, async ($, e: RenderEvent, next) => {
    const calls = Array.isArray(e.props.calls) ? (e.props.calls as Array<{ tool_use_id?: unknown }>) : [];
    const landed = calls.map((c) => (typeof c.tool_use_id === 'string' ? s.lags.get(c.tool_use_id) : undefined)).filter((l): l is HeldBounds => l !== undefined);
    const theirs = await next(e);
    if (e.props.isExpanded === true || landed.length === 0) return theirs;
    const { Box, Text } = $.ui.resolve(e);
    const which = landed.length === calls.length ? '' : ` (${landed.length} of ${calls.length} calls)`;
    return Box({ flexDirection: 'column', children: [theirs, Text({ dimColor: true, wrap: 'truncate-end', children: [`  ⎿ transcript lag ≤ ${formatDuration(Math.max(...landed.map((l) => l.max_ms ?? l.min_ms)))}${which}`] })] });
  });
}
