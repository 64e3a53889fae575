/**
 * The call list, `mod/<session>.json` (src/rules/modContract.ts): the calls this mod reports, written
 * before each call's settings hooks run, so the command hooks and the receiver stand aside for them.
 */
import { MOD_CALLS_LISTED, modCallsPath } from '../rules/modContract';
import type { ModApi } from './api';
import type { HeldCall, ModState } from './state';

/** Lists the call as reported by the mod, so the command hooks stand aside for it. */
export async function listCall($: ModApi, s: ModState, call: HeldCall): Promise<void> {
  const file = modCallsPath(call.place.claudeDir, call.place.sessionId);
  if (file === undefined) return;
  if (s.listed?.sessionId !== call.place.sessionId) s.listed = { sessionId: call.place.sessionId, calls: [] };
  s.listed.calls = [...s.listed.calls, call.id].slice(-MOD_CALLS_LISTED);
  const list = s.listed;
  // One write at a time, each of the newest list: parallel calls' writes cannot land out of order.
  s.listWrites = s.listWrites.then(() => $.fs.write(file, JSON.stringify({ v: 1, calls: list.calls }))).catch(() => undefined);
  await s.listWrites;
}
