/**
 * What a replayed hook is given, as Claude Code gives it: the PreToolUse input on stdin, and, in the
 * live run with the mod, the held message the mod would have stored for the call before any settings
 * hook ran (docs/HELD-MESSAGE.md, src/rules/modContract.ts).
 */
import { HELD_MESSAGE_VERSION, type HeldMessage } from '../../rules/modContract';
import type { ReplayCall } from './calls';

/** The call's own tool_use block and its message's text up to it, read again from its lines. */
export interface CallDetail {
  toolInput: unknown;
  /** The message's non-empty text blocks, in file order, up to the call's block (what the mod holds when the call fires). */
  textBlocks: string[];
}

interface AssistantLine {
  uuid?: unknown;
  message?: { content?: unknown };
}

function parse(text: string): AssistantLine | undefined {
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' ? (v as AssistantLine) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The detail from the texts of the call's message's lines up to and including its record (in file
 * order; the record last). A block of another uuid already taken is a duplicate line, taken once,
 * as `transcript-lag message` takes them.
 */
export function callDetailOf(toolUseId: string, messageTexts: readonly string[]): CallDetail {
  const textBlocks: string[] = [];
  let toolInput: unknown = {};
  const seen = new Set<string>();
  for (const text of messageTexts) {
    const rec = parse(text);
    if (typeof rec?.uuid === 'string') {
      if (seen.has(rec.uuid)) continue;
      seen.add(rec.uuid);
    }
    const content = rec?.message?.content;
    if (!Array.isArray(content)) continue;
    for (const b of content as Array<Record<string, unknown> | null>) {
      if (b?.type === 'text' && typeof b.text === 'string' && b.text !== '') textBlocks.push(b.text);
      if (b?.type === 'tool_use' && b.id === toolUseId) toolInput = b.input ?? {};
    }
  }
  return { toolInput, textBlocks };
}

/** The lines whose text callDetailOf needs: the call's message up to and including its record. */
export function detailLinesOf(call: ReplayCall): Array<{ start: number; end: number }> {
  const lines = call.message.filter((l) => l.start <= call.record.start);
  return lines.includes(call.record) ? lines : [...lines, call.record];
}

export interface InputPlace {
  sessionId: string;
  /** The transcript copy the hook is handed. */
  transcriptPath: string;
  /** The working directory the call was made in. */
  cwd: string;
}

/** The PreToolUse input, its keys in Claude Code's order; `agent_id` for a subagent's call. */
export function preToolUseInput(call: ReplayCall, detail: CallDetail, place: InputPlace): Record<string, unknown> {
  return {
    session_id: place.sessionId,
    transcript_path: place.transcriptPath,
    cwd: place.cwd,
    permission_mode: call.context.permissionMode ?? 'default',
    hook_event_name: 'PreToolUse',
    tool_name: call.toolName,
    tool_input: detail.toolInput,
    tool_use_id: call.toolUseId,
    ...(call.agentId !== undefined ? { agent_id: call.agentId } : {}),
  };
}

/** The held message the mod would have stored for the call, `at` now. */
export function heldMessageFor(call: ReplayCall, detail: CallDetail, sessionId: string, at: number): HeldMessage {
  return {
    v: HELD_MESSAGE_VERSION,
    tool_use_id: call.toolUseId,
    session_id: sessionId,
    ...(call.agentId !== undefined ? { agent_id: call.agentId } : {}),
    ...(call.context.promptId !== undefined ? { prompt_id: call.context.promptId } : {}),
    at,
    text_blocks: detail.textBlocks,
    tool_use: { id: call.toolUseId, name: call.toolName, input: detail.toolInput },
  };
}
