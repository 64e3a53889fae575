/**
 * The session's liveness file, `mod/<session>.live.json` (src/rules/modContract.ts): this mod runs the
 * session, as of its `at`; `transcript-lag message --json` says `mod` from it.
 */
import { MOD_LIVE_EVERY_MS, modLivePath, type ModLiveness } from '../rules/modContract';
import type { ModApi } from './api';
import { removeOrEmpty } from './heldMessage';
import { now, type ModState, type SessionPlace } from './state';

/**
 * Writes the session's liveness file (`mod/<session>.live.json`): this mod runs the session, as of
 * now. One write at a time, so an older one never lands after a newer one, or after the removal.
 */
export function writeAlive($: ModApi, s: ModState, p: SessionPlace): Promise<void> {
  const file = modLivePath(p.claudeDir, p.sessionId);
  if (file === undefined) return s.aliveWrites;
  const alive: ModLiveness = { v: 1, session_id: p.sessionId, at: Math.round(now()), every_ms: MOD_LIVE_EVERY_MS, keep_held_messages: s.keepHeldMessages };
  s.aliveWrites = s.aliveWrites.then(() => $.fs.write(file, JSON.stringify(alive))).catch(() => undefined);
  return s.aliveWrites;
}

/** Removes a session's liveness file once its writes are done: the session ended here, or this process left it. */
export function removeAlive($: ModApi, s: ModState, p: SessionPlace): Promise<void> {
  const file = modLivePath(p.claudeDir, p.sessionId);
  if (file === undefined) return Promise.resolve();
  s.aliveWrites = s.aliveWrites.then(() => removeOrEmpty($, file));
  return s.aliveWrites;
}

/** Keeps the current session's liveness file fresh until session.end. */
export function keepAlive($: ModApi, s: ModState): void {
  s.alive?.cancel();
  s.alive = $.clock.every(MOD_LIVE_EVERY_MS, () => {
    if (s.place !== undefined) void writeAlive($, s, s.place);
  });
}
