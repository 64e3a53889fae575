/**
 * How the mod's channel events go out: to the receiver `install-hook --http` set up when one answers,
 * else one file each into the spool, which is bounded for when nothing folds it.
 */
import { HTTP_CONFIG_FILE, MOD_SOURCE } from '../rules/channelConstants';
import { channelEventHead } from '../rules/channelEvent';
import { MAX_HTTP_CONFIG_BYTES, parseHttpHookConfig } from '../rules/httpConfigText';
import { channelPath, spoolDirPath, spoolFilePath } from '../rules/modContract';
import type { ModApi } from './api';
import { now, type ModState, type SessionPlace } from './state';

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

/** A channel event of the mod's: the common head, its own fields, the subagent's id when a subagent's. */
export function modEvent(p: SessionPlace, kind: string, at: number, agentId: string | undefined, fields: Record<string, unknown>) {
  return {
    ...channelEventHead(kind, at, p.sessionId, p.transcriptPath),
    ...fields,
    ...(agentId !== undefined ? { agent_id: agentId } : {}),
    source: MOD_SOURCE,
  };
}

/** Whether the spool is at its bound (then its events are dropped); if so, a recount is asked for. */
export function spoolFull($: ModApi, s: ModState, p: SessionPlace): boolean {
  if (s.spool.unfolded < MAX_UNFOLDED) return false;
  recountSpool($, s, p, true);
  return true;
}

/** How many spool files are left (watch or a window folds and removes them): the bound is on what is left. */
function recountSpool($: ModApi, s: ModState, p: SessionPlace, full: boolean): void {
  const at = now();
  if (s.spool.recounting || (full && at - s.spool.recountedAt < CAPPED_RECOUNT_MS)) return;
  s.spool.recounting = true;
  s.spool.recountedAt = at;
  const dir = spoolDirPath(p.claudeDir);
  $.fs
    .list(dir)
    .then(
      (entries) => void (s.spool.unfolded = entries.length),
      // A spool folder that is gone (transcript-lag/ deleted) holds nothing.
      () => $.fs.exists(dir).then((there) => void (there ? undefined : (s.spool.unfolded = 0))),
    )
    .catch(() => undefined)
    .finally(() => (s.spool.recounting = false));
}

/**
 * Reports one channel event without making anybody wait: the receiver if one answers, else the spool.
 * At the spool's bound the event is dropped, unless `listed`: an event of a call in the call list, for
 * which the command hooks stand aside (calls are listed only while the spool has room, so past the bound
 * go at most the events of the calls then in flight).
 */
export function report($: ModApi, s: ModState, p: SessionPlace, ev: object, listed = false): void {
  const body = JSON.stringify(ev);
  let sent = false;
  const spool = () => {
    if (sent) return;
    sent = true;
    if (!listed && spoolFull($, s, p)) return;
    s.spool.spooled += 1;
    s.spool.unfolded += 1;
    $.fs.write(spoolFilePath(p.claudeDir, p.sessionId, s.instance, s.spool.spooled), body).catch(() => undefined);
    if (s.spool.spooled % SPOOL_RECOUNT === 0) recountSpool($, s, p, false);
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

/** The receiver `install-hook --http` set up, when there is one: the mod posts to it while it runs. */
export async function findReceiver($: ModApi, s: ModState, p: SessionPlace): Promise<void> {
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
