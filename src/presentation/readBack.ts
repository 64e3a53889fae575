import type { CallSnapshot } from '../core/snapshot';

/**
 * The tooltip's line for a call whose lag and shape were read back (`read_back`): measured live by an
 * engine before this one (the window before a reload, another window, `watch`) and kept in the
 * session's channel file. The label says the same figure it said while that engine watched; this
 * line says where it comes from, since this window did not see the record land.
 */
export function readBackNote(call: Pick<CallSnapshot, 'read_back'>): string | undefined {
  return call.read_back ? 'Measured live by an earlier window or watch, kept in the channel and read back (not seen landing by this window).' : undefined;
}
