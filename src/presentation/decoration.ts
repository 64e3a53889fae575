import { shownAsHeld, type SessionSnapshot } from '../core/snapshot';
import { findCall, heldLineOf } from './callChoice';
import { callLagText, callShapeText, formatDuration } from './format';
import { toolLabel } from './sessionLabel';

/**
 * The note in the transcript editor for the call a user opened.
 * While held it sits on the held line (the last line on disk: the record lands
 * after it) and its age ticks; once the record lands it moves to the record's line.
 */
export interface CallDecoration {
  /** 1-based. */
  line: number;
  text: string;
  held: boolean;
}

export function callDecoration(session: SessionSnapshot | undefined, toolUseId: string, now: number): CallDecoration | undefined {
  if (!session) return undefined;
  const call = findCall(session, toolUseId);
  if (!call) return undefined;
  const name = toolLabel(call.tool_name);
  if (shownAsHeld(call)) {
    const age = call.fired_at === undefined ? 0 : now - call.fired_at;
    return {
      line: Math.max(1, heldLineOf(session, call) ?? 1),
      text: `${name} held ${formatDuration(age)} — its record will land after this line ▸`,
      held: true,
    };
  }
  return {
    line: call.line as number, // shownAsHeld: a call not shown held has its line
    text: `${name} written here · ${callLagText(call)} · ${callShapeText(call.shape)} ▸`,
    held: false,
  };
}
