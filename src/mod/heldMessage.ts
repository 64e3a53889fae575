/**
 * The held message: the assistant message that carries a call, stored before the call's settings
 * hooks run (src/rules/modContract.ts, docs/HELD-MESSAGE.md), in a private folder, removed once the
 * call's record is on disk.
 */
import { cmdTakesAsIs } from '../rules/cmdArgument';
import {
  channelPath,
  HELD_DIR_NAME,
  HELD_MESSAGE_VERSION,
  heldDirOf,
  heldMessageOf,
  heldMessagePath,
  type ConversationRow,
  type HeldMessage,
} from '../rules/modContract';
import type { ModApi } from './api';
import type { HeldCall, ModState, SessionPlace } from './state';

/** Rows read back from the conversation for a call's message; more only when its message is longer. */
const ROWS = 64;

/**
 * Makes the held message's folder private (it holds assistant text), or finds it is; false where it
 * could not. Run before every write, not remembered: the user may delete `transcript-lag/` at any
 * time, and `$.fs.write` would make it anew with the default mode. `$.fs.stat` gives no mode, so the
 * check is `chmod 700` of the folders: it succeeds only when all are there, and leaves them private
 * (one process a write); when one is missing they are made first.
 */
export async function privateFolder($: ModApi, p: SessionPlace): Promise<boolean> {
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

/** Stores the message that carries the call, before the call's PreToolUse hooks can look for it. */
export async function storeHeldMessage($: ModApi, s: ModState, call: HeldCall): Promise<void> {
  if (!s.keepHeldMessages) return;
  const file = heldMessagePath(call.place.claudeDir, call.place.sessionId, call.id);
  if (file === undefined) return;
  // Checked for this write while the message is read (privateFolder never rejects).
  const privately = privateFolder($, call.place);
  let found: ReturnType<typeof heldMessageOf>;
  for (let last = ROWS; last <= 4096; last *= 4) {
    const { rows, all } = await newestRows($, s, call.agentId, last);
    if (!Array.isArray(rows)) return;
    found = heldMessageOf(rows as ConversationRow[], call.id);
    if (all || found === undefined || found.complete || rows.length < last) break;
  }
  // If it cannot be made private, no file (docs/HELD-MESSAGE.md).
  if (found === undefined || !(await privately)) return;
  const version = await claudeCodeVersionOf($, s);
  const message: HeldMessage = {
    v: HELD_MESSAGE_VERSION,
    tool_use_id: call.id,
    session_id: call.place.sessionId,
    ...(call.agentId !== undefined ? { agent_id: call.agentId } : {}),
    at: call.at,
    text_blocks: found.text_blocks,
    tool_use: found.tool_use,
    blocks: found.blocks,
    ...(version !== undefined ? { version } : {}),
  };
  await $.fs.write(file, JSON.stringify(message));
  call.heldFile = file;
  call.heldKept = true;
  // Its record landed (or the session ended) while this was written: it must not stay.
  if (!s.held.has(call.id)) dropHeldMessage($, call);
}

/**
 * The conversation's newest `last` rows, or, on a build whose `$.session.messages` refuses `last` (2.1.325
 * and before: "takes { agentId, as } or nothing (not last)", so no held message was ever kept there), the
 * whole conversation (`all`), asked bare from then on. Such rows carry no `uuid`: the held message's blocks then
 * have none either, as where a row lacks it (heldMessageOf).
 */
async function newestRows($: ModApi, s: ModState, agentId: string | undefined, last: number): Promise<{ rows: unknown; all: boolean }> {
  if (s.messagesTakeLast !== false) {
    try {
      const rows = await $.session.messages(agentId !== undefined ? { agentId, last } : { last });
      s.messagesTakeLast = true;
      return { rows, all: false };
    } catch (err) {
      // Once taken, a refusal is something else (a deny is an answer, not a throw): not a reason to ask bare;
      // nor is another error than the builds' refusal of `last` (a bare ask pulls the whole conversation).
      if (s.messagesTakeLast === true || !/\blast\b/.test(String((err as { message?: unknown })?.message ?? err))) throw err;
      s.messagesTakeLast = false;
    }
  }
  return { rows: await (agentId !== undefined ? $.session.messages({ agentId }) : $.session.messages()), all: true };
}

/**
 * How long a held message waits for the build's version: it must be on disk before the call's hooks
 * look, and a build whose `$.session.version()` never answered would otherwise hold back every held
 * message of the session (one wait: the answer, or none, is kept).
 */
export const VERSION_WAIT_MS = 100;

/** The build's version, asked once a loaded mod; undefined where the build does not answer `$.session.version()` within VERSION_WAIT_MS. */
function claudeCodeVersionOf($: ModApi, s: ModState): Promise<string | undefined> {
  s.claudeCodeVersion ??= new Promise<string | undefined>((resolve) => {
    let timer: { cancel(): void } | undefined;
    const done = (v: string | undefined) => {
      timer?.cancel();
      resolve(v);
    };
    try {
      timer = $.clock.after(VERSION_WAIT_MS, () => done(undefined));
      // Called, never looked at: the engine refuses a mod that reads a `$` call as a value (2.1.332's validator).
      $.session.version().then(
        (r) => {
          const v = r?.version;
          done(typeof v === 'string' && /^[0-9A-Za-z.+-]{1,64}$/.test(v) ? v : undefined);
        },
        () => done(undefined),
      );
    } catch {
      done(undefined);
    }
  });
  return s.claudeCodeVersion;
}

/**
 * Removes a held message: `rm`, or on Windows (a path with backslashes) cmd's `del`, for a path cmd
 * takes as it is (cmdTakesAsIs; another is only emptied). Whatever is still there after is emptied:
 * the text is what must not stay.
 */
export function dropHeldMessageNow($: ModApi, call: HeldCall): Promise<void> {
  const file = call.heldFile;
  if (file === undefined) return Promise.resolve();
  call.heldFile = undefined;
  return removeOrEmpty($, file);
}

export function dropHeldMessage($: ModApi, call: HeldCall): void {
  void dropHeldMessageNow($, call);
}

/** Removes a file of ours (there is no `$.fs` remove), else empties it; never rejects. */
export function removeOrEmpty($: ModApi, file: string): Promise<void> {
  const windows = file.includes('\\');
  // Not through cmd a path it would not take as it is: at a `,` del would delete the files of the folder before it, `&` split the command, `%` expand.
  const remove = !windows ? ['rm', '-f', file] : cmdTakesAsIs(file) ? ['cmd.exe', '/d', '/c', 'del', '/f', '/q', file] : undefined;
  const removed = remove === undefined ? Promise.resolve() : $.process.run(remove, { timeoutMs: 1000 }).then(() => undefined, () => undefined);
  return removed
    .then(() => $.fs.exists(file))
    .then((left) => (left ? $.fs.write(file, '') : undefined))
    .catch(() => $.fs.write(file, '').catch(() => undefined));
}
