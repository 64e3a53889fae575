/**
 * What the mod keeps: one object per `register` (one loaded copy of the mod), and the calls and
 * sessions it is about.
 */
import type { HeldBounds, HooksTimed } from '../rules/hookEvidence';
import type { LineCursor } from '../rules/lineCursor';
import { claudeDirOfTranscript, sessionIdOfTranscript } from '../rules/modContract';

/** Calls held at once, at most: past it a call goes on unreported by the mod (the command hooks report it). */
export const MAX_CALLS = 500;

/** The session the mod reports for: its transcript, id and Claude dir. */
export interface SessionPlace {
  transcriptPath: string;
  sessionId: string;
  claudeDir: string;
}

/** A call whose record is not on disk yet. */
export interface HeldCall {
  id: string;
  tool: string;
  at: number;
  agentId?: string;
  place: SessionPlace;
  recordPath: string;
  /**
   * The call's held message was written (kept true once its file is gone, and where the record landed while it
   * was written, so no hook read it: the record was on disk for them): its post says so.
   */
  heldKept?: boolean;
  heldFile?: string;
  /** When a look last found the record not on disk: bounds the hold from below. */
  missedAt?: number;
  /** `next` settled: the tool ran, its result is on its way. */
  ran?: boolean;
  /** In the call list (the command hooks stand aside for it): its events are spooled even at the bound. */
  listed: boolean;
  /** Its settings PreToolUse hooks as the mod timed them (classic.PreToolUse), once they settled. */
  hooks?: HooksTimed;
}


/** The looks at held calls' files (./looks.ts): where each file is read to, what came in which look, their ticker. */
export interface LookState {
  /** What the ticker has read of each transcript it looks at. */
  cursors: Map<string, LineCursor>;
  /** In which look each call's record and result came in: a call may fire after its record is on disk. */
  recordsSeen: Map<string, number>;
  resultsSeen: Map<string, number>;
  /** Looks made so far. */
  count: number;
  ticker?: { cancel(): void };
  tickerMs: number;
  /** A look is under way: a tick during it makes none. */
  looking: boolean;
  /**
   * Whether `$.fs.read` honours offset and length: undefined until a file of 2 bytes or more was asked;
   * false on builds before 2.1.326, which give the whole file (npm run compat, "mod API").
   */
  rangedReads?: boolean;
  /** Files over WHOLE_READ_MAX on a build that gives whole files: not read again (./looks.ts). */
  tooBig: Set<string>;
}

/** This copy's spool files (./channelOut.ts): bounded when nothing folds them. */
export interface SpoolCount {
  /** Files written: the last one's seq. */
  spooled: number;
  /** Files left unfolded, as last counted (plus those written since). */
  unfolded: number;
  /** A count of the spool is running; when the last began. */
  recounting: boolean;
  recountedAt: number;
}

/**
 * Everything the mod keeps, one object per `register` (one loaded copy of the mod): not
 * module variables, so a copy's state is all in one place and a test can load a fresh one.
 */
export interface ModState {
  keepHeldMessages: boolean;
  /** Names this copy's spool files: a name sort is the write order within it. */
  instance: string;
  /** Calls held now, and the lags of those that landed (for their tool rows), both bounded. */
  held: Map<string, HeldCall>;
  /**
   * The calls the mod reports whose tool.call `next` has not settled, held or not (a record on disk
   * before its call's hooks ran releases the call early): classic.PreToolUse finds its call here.
   */
  calling: Map<string, HeldCall>;
  lags: Map<string, HeldBounds>;
  /** The looks at the held calls' files (./looks.ts). */
  looks: LookState;
  /** This copy's spool files: written, and left unfolded as last counted (./channelOut.ts). */
  spool: SpoolCount;
  place?: SessionPlace;
  receiver?: { url: string; secret: string };
  /** The newest calls this copy reports, per session: written whole before each call's hooks run (modContract.ts). */
  listed?: { sessionId: string; calls: string[] };
  listWrites: Promise<void>;
  /** Rewrites the session's liveness file every MOD_LIVE_EVERY_MS while the session lives (modContract.ts); its writes one at a time. */
  alive?: { cancel(): void };
  aliveWrites: Promise<void>;
  /** The Claude Code build, asked once (`$.session.version()`), for the held messages' records. */
  claudeCodeVersion?: Promise<string | undefined>;
  /**
   * Whether `$.session.messages` takes `last`: undefined until asked; false on a build that refuses it
   * (2.1.325 and before: "takes { agentId, as } or nothing (not last)"), which is then asked bare.
   */
  messagesTakeLast?: boolean;
}

export function newState(options: Readonly<Record<string, unknown>>): ModState {
  return {
    keepHeldMessages: asBool(options?.keepHeldMessages, true),
    instance: crypto.randomUUID().replace(/-/g, '').slice(0, 8),
    held: new Map(),
    calling: new Map(),
    lags: new Map(),
    looks: { cursors: new Map(), recordsSeen: new Map(), resultsSeen: new Map(), count: 0, tickerMs: 0, looking: false, tooBig: new Set() },
    spool: { spooled: 0, unfolded: 0, recounting: false, recountedAt: -Infinity },
    listWrites: Promise.resolve(),
    aliveWrites: Promise.resolve(),
  };
}

/** A plugin option as Claude Code hands it: a boolean, or its text. */
function asBool(value: unknown, fallback: boolean): boolean {
  if (typeof value === 'boolean') return value;
  if (value === 'false') return false;
  if (value === 'true') return true;
  return fallback;
}

export function placeOf(transcriptPath: string | undefined): SessionPlace | undefined {
  if (!transcriptPath) return undefined;
  const sessionId = sessionIdOfTranscript(transcriptPath);
  const claudeDir = claudeDirOfTranscript(transcriptPath);
  return sessionId && claudeDir ? { transcriptPath, sessionId, claudeDir } : undefined;
}

/**
 * Ms since epoch, read in the mod's own realm: every awaited `$` call costs a turn of Claude Code's
 * event loop (3–20 ms measured, docs/benchmarks/transports.md), too much for a time stamp.
 */
export const now = () => Date.now();
