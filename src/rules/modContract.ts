/**
 * What the transcript-lag mod (src/mod/, run inside Claude Code) and everything
 * outside it agree on: where it keeps a call's held message and its spooled
 * channel events, and how the held message is cut from the conversation. No
 * imports beyond plain constants: the mod bundle, the hook and the CLI all
 * take it, and the mod has no Node APIs (paths are joined by hand, with the
 * separator the transcript path itself uses, so Windows paths stay Windows).
 */
import { CHANNEL_DIR_NAME, SAFE_SESSION_ID, SPOOL_DIR_NAME } from './channelConstants';

/** Subfolder of the channel folder (`<claude dir>/transcript-lag/`) for held messages, one folder per session. */
export const HELD_DIR_NAME = 'held';

/** Subfolder of the channel folder where the mod lists, per session, the calls it reports. */
export const MOD_CALLS_DIR_NAME = 'mod';

/** How many of its newest calls the mod lists: more than a message holds, so none drops out while its hooks run. */
export const MOD_CALLS_LISTED = 64;

/** Format version of a held-message file (`v`). */
export const HELD_MESSAGE_VERSION = 1;

/**
 * A held message is deleted once its call's record is on disk; one whose record
 * never lands (the session ended, the mod was reloaded) is deleted this long
 * after it was written, by the mod or by the next reader that finds it.
 */
export const HELD_MESSAGE_TTL_MS = 10 * 60_000;

/** Tool use ids that may name a file: Claude Code's are `toolu_` plus base62. */
export const SAFE_TOOL_USE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,199}$/;

/**
 * The assistant message that carries a call, as the mod stores it before the
 * call's PreToolUse hooks run (README, "A reviewing hook that sees the message").
 */
export interface HeldMessage {
  v: typeof HELD_MESSAGE_VERSION;
  tool_use_id: string;
  session_id: string;
  agent_id?: string;
  prompt_id?: string;
  /** When the mod stored it (ms since epoch): `tool.call`, before `next`. */
  at: number;
  /** The message's text blocks, in order, as the transcript will hold them. */
  text_blocks: string[];
  tool_use: { id: string; name: string; input: unknown };
  /**
   * Added within v1 (a reader must not need it): the message's blocks in order, text and tool_use,
   * up to and including the call's, each with the uuid Claude Code gave its row (the uuid its record
   * will have) and the uuid of the row before it in the message, where `$.session.messages()` gave
   * them. What `transcript-lag complete` writes the held records from.
   */
  blocks?: HeldBlock[];
  /**
   * Added within v1: the Claude Code build holding the message, as `$.session.version()` gives it
   * (the `version` its records will carry); absent where the build does not say.
   */
  version?: string;
}

/** One content block of a held message, with its row's ids where known (absent, never guessed). */
export type HeldBlock =
  | { type: 'text'; text: string; uuid?: string; parent_uuid?: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown; uuid?: string; parent_uuid?: string };

/** The separator a path uses: a Windows transcript path keeps its backslashes. */
function separatorOf(path: string): string {
  return path.lastIndexOf('\\') > path.lastIndexOf('/') ? '\\' : '/';
}

function parentOf(path: string): string | undefined {
  const cut = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return cut <= 0 ? undefined : path.slice(0, cut);
}

/**
 * The file that holds a call's record: a subagent's calls are written to
 * `<session dir>/subagents/agent-<agent_id>.jsonl` beside the main transcript
 * the hook input names. An agent id that could name another path is refused.
 */
export function recordFileOf(transcriptPath: string, sessionId: string, agentId: string | undefined): string | undefined {
  if (agentId === undefined) return transcriptPath;
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(agentId) || !SAFE_SESSION_ID.test(sessionId)) return undefined;
  const dir = parentOf(transcriptPath);
  if (dir === undefined) return undefined;
  const sep = separatorOf(transcriptPath);
  return [dir, sessionId, 'subagents', `agent-${agentId}.jsonl`].join(sep);
}

/** `<claude dir>` of a transcript at `<claude dir>/projects/<slug>/<session>.jsonl`. */
export function claudeDirOfTranscript(transcriptPath: string): string | undefined {
  const slug = parentOf(transcriptPath);
  const projects = slug && parentOf(slug);
  const name = projects?.slice(Math.max(projects.lastIndexOf('/'), projects.lastIndexOf('\\')) + 1);
  return name === 'projects' ? parentOf(projects!) : undefined;
}

/** The session id a transcript file is named for. */
export function sessionIdOfTranscript(transcriptPath: string): string | undefined {
  const name = transcriptPath.slice(Math.max(transcriptPath.lastIndexOf('/'), transcriptPath.lastIndexOf('\\')) + 1);
  const id = name.endsWith('.jsonl') ? name.slice(0, -'.jsonl'.length) : '';
  return SAFE_SESSION_ID.test(id) ? id : undefined;
}

/** A path under the channel folder, joined with the Claude dir's own separator. */
export function channelPath(claudeDir: string, ...parts: string[]): string {
  const sep = separatorOf(claudeDir);
  return [claudeDir, CHANNEL_DIR_NAME, ...parts].join(sep);
}

/** The folder of a session's held messages (0700: they hold assistant text). */
export function heldDirOf(claudeDir: string, sessionId: string): string | undefined {
  return SAFE_SESSION_ID.test(sessionId) ? channelPath(claudeDir, HELD_DIR_NAME, sessionId) : undefined;
}

/** The file of one call's held message, or undefined for ids that could name another path. */
export function heldMessagePath(claudeDir: string, sessionId: string, toolUseId: string): string | undefined {
  const dir = heldDirOf(claudeDir, sessionId);
  return dir && SAFE_TOOL_USE_ID.test(toolUseId) ? `${dir}${separatorOf(claudeDir)}${toolUseId}.json` : undefined;
}

/**
 * The mod's list of the calls it reports for a session (`{"v":1,"calls":[ids…]}`), written
 * before each call's settings hooks run: a command hook in announce mode finds its call there
 * and stands aside, so each call is reported once, by the mod, with the real fire time.
 */
export function modCallsPath(claudeDir: string, sessionId: string): string | undefined {
  return SAFE_SESSION_ID.test(sessionId) ? channelPath(claudeDir, MOD_CALLS_DIR_NAME, `${sessionId}.json`) : undefined;
}

/** How often the mod rewrites a session's liveness file while the session lives. */
export const MOD_LIVE_EVERY_MS = 5000;

/**
 * A liveness file whose `at` is this far from now (either way) or more is stale: the mod that wrote
 * it missed three refreshes, so it is gone (Claude Code was killed) or not running this session.
 */
export const MOD_LIVE_FRESH_MS = 3 * MOD_LIVE_EVERY_MS;

/**
 * The mod's liveness file of a session (`mod/<session_id>.live.json`): written at session start,
 * every MOD_LIVE_EVERY_MS while the session lives, and removed when it ends, so a reviewing hook can
 * tell a session with the mod running from one without (`transcript-lag message --json`'s `mod`).
 * A session id has no dot, so the name cannot be another session's call list.
 */
export interface ModLiveness {
  v: 1;
  session_id: string;
  /** When the mod last wrote it (ms since the epoch). */
  at: number;
  /** How often it is rewritten. */
  every_ms: number;
  /** The plugin option: false when the mod keeps no held messages. */
  keep_held_messages: boolean;
}

export function modLivePath(claudeDir: string, sessionId: string): string | undefined {
  return SAFE_SESSION_ID.test(sessionId) ? channelPath(claudeDir, MOD_CALLS_DIR_NAME, modLiveFileName(sessionId)) : undefined;
}

/** The liveness file's name in `mod/`; only for an id that passed SAFE_SESSION_ID. */
export function modLiveFileName(sessionId: string): string {
  return `${sessionId}.live.json`;
}

/** The liveness file's text if it is the mod's for this session and fresh at `now`; else undefined (a reader's check, never a throw). */
export function freshModLiveness(text: string | undefined, sessionId: string, now: number): ModLiveness | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const l = value as Partial<ModLiveness> | null;
  if (!l || typeof l !== 'object' || l.v !== 1 || l.session_id !== sessionId || typeof l.at !== 'number') return undefined;
  const age = now - l.at;
  return Number.isFinite(age) && Math.abs(age) < MOD_LIVE_FRESH_MS ? (l as ModLiveness) : undefined;
}

/** Whether the mod's list (its file's text) names the call. */
export function modListNames(listText: string | undefined, toolUseId: string): boolean {
  if (listText === undefined) return false;
  try {
    const calls = (JSON.parse(listText) as { v?: unknown; calls?: unknown } | null)?.calls;
    return Array.isArray(calls) && calls.includes(toolUseId);
  } catch {
    return false;
  }
}

/** `<session>.<instance>.<seq>.json`: a name sort is the write order within one loaded copy of the mod. */
export function spoolFileName(sessionId: string, instance: string, seq: number): string {
  return `${sessionId}.${instance}.${String(seq).padStart(8, '0')}.json`;
}

/** The spool's folder, joined as the Claude dir is (channelPaths.ts's spoolDirOf, without node:path). */
export function spoolDirPath(claudeDir: string): string {
  return channelPath(claudeDir, SPOOL_DIR_NAME);
}

/** Where one spooled event goes. */
export function spoolFilePath(claudeDir: string, sessionId: string, instance: string, seq: number): string {
  return channelPath(claudeDir, SPOOL_DIR_NAME, spoolFileName(sessionId, instance, seq));
}

/** One row of `$.session.messages()` (Claude Code's SessionMessage), as far as it is read here. */
export interface ConversationRow {
  role: 'user' | 'assistant';
  text: string;
  toolUses: ReadonlyArray<{ tool_use_id: string; tool: string; input?: unknown }>;
  /** The row's id, the uuid of its transcript record: given on a read that names `last` (2.1.332). */
  uuid?: string;
}

/**
 * The message that carries `toolUseId`, from the conversation's newest rows:
 * Claude Code keeps one row per content block, so the message is the run of
 * assistant rows that holds the call's row, back to the row before it that is
 * not the assistant's (a prompt or a tool result). Rows after the call's are
 * blocks of the same message too, when they are already there (a later call
 * of a parallel pair); they are taken up to the next non-assistant row.
 * `complete`: the run starts inside the rows given (a cut at `rows[0]` may
 * hide earlier blocks, so the caller asks for more).
 */
export function heldMessageOf(
  rows: readonly ConversationRow[],
  toolUseId: string,
): { text_blocks: string[]; tool_use: HeldMessage['tool_use']; blocks: HeldBlock[]; complete: boolean } | undefined {
  const at = rows.findIndex((r) => r.role === 'assistant' && r.toolUses.some((t) => t.tool_use_id === toolUseId));
  if (at === -1) return undefined;
  let first = at;
  while (first > 0 && rows[first - 1].role === 'assistant') first--;
  let last = at;
  while (last + 1 < rows.length && rows[last + 1].role === 'assistant') last++;
  const run = rows.slice(first, last + 1);
  const use = rows[at].toolUses.find((t) => t.tool_use_id === toolUseId)!;
  return {
    text_blocks: run.filter((r) => r.text !== '').map((r) => r.text),
    tool_use: { id: use.tool_use_id, name: use.tool, input: use.input ?? {} },
    blocks: blocksUpTo(rows, first, at, toolUseId),
    complete: first > 0,
  };
}

const uuidOf = (row: ConversationRow | undefined): string | undefined => (typeof row?.uuid === 'string' && row.uuid !== '' ? row.uuid : undefined);

/**
 * The blocks of rows `first`..`at` (the call's row), in order, the call's last. Claude Code chains
 * a message's records, each block's `parentUuid` the record before it, so a row's parent is the row
 * before it in the run; the run's first row gets none: what precedes it in the transcript (a
 * prompt, a tool result, an attachment the rows do not show) is not known here. A row's uuid goes
 * to its block only when the row is one block.
 */
function blocksUpTo(rows: readonly ConversationRow[], first: number, at: number, toolUseId: string): HeldBlock[] {
  const out: HeldBlock[] = [];
  for (let i = first; i <= at; i++) {
    const row = rows[i];
    const uses = i === at ? row.toolUses.slice(0, row.toolUses.findIndex((t) => t.tool_use_id === toolUseId) + 1) : row.toolUses;
    const one = (row.text !== '' ? 1 : 0) + row.toolUses.length === 1;
    const uuid = one ? uuidOf(row) : undefined;
    const parent = one && i > first ? uuidOf(rows[i - 1]) : undefined;
    const ids = { ...(uuid !== undefined ? { uuid } : {}), ...(parent !== undefined ? { parent_uuid: parent } : {}) };
    if (row.text !== '') out.push({ type: 'text', text: row.text, ...ids });
    for (const t of uses) out.push({ type: 'tool_use', id: t.tool_use_id, name: t.tool, input: t.input ?? {}, ...ids });
  }
  return out;
}

/** Whether a held-message file's text is one the mod wrote for this call (a reader's check, never a throw). */
export function parseHeldMessage(text: string, toolUseId: string): HeldMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const m = value as Partial<HeldMessage> | null;
  if (!m || typeof m !== 'object' || m.v !== HELD_MESSAGE_VERSION || m.tool_use_id !== toolUseId) return undefined;
  if (!Array.isArray(m.text_blocks) || !m.text_blocks.every((t) => typeof t === 'string') || typeof m.at !== 'number') return undefined;
  return m as HeldMessage;
}
