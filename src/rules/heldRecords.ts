/**
 * The held message as transcript records: what `transcript-lag complete` appends to its private copy
 * of the transcript, so a PreToolUse hook that reads the transcript finds its call's message there
 * before Claude Code has written it. Written as Claude Code writes them: one `assistant` record per
 * content block (the text blocks, then the tool_use blocks up to and including the call's), each a
 * line of compact JSON, marked `"transcriptLag":"held"`. A field the held message does not know is
 * left out, never made up: `message.id`, `model`, `timestamp` are not in it (the mod is not given
 * them), `version` only where the build told the mod, `uuid` and `parentUuid` only where the mod's
 * rows gave them.
 */
import type { HeldBlock, HeldMessage } from './modContract';

/** The one key that marks a record we wrote, not Claude Code. */
export const HELD_RECORD_MARK = { transcriptLag: 'held' } as const;

/** What the hook input adds: the session's id and folder, as Claude Code writes them on each record. */
export interface RecordContext {
  sessionId: string;
  cwd?: string;
  agentId?: string;
}

function isBlock(b: unknown): b is HeldBlock {
  if (!b || typeof b !== 'object') return false;
  const x = b as Record<string, unknown>;
  const ids = (x.uuid === undefined || typeof x.uuid === 'string') && (x.parent_uuid === undefined || typeof x.parent_uuid === 'string');
  if (x.type === 'text') return ids && typeof x.text === 'string';
  return ids && x.type === 'tool_use' && typeof x.id === 'string' && typeof x.name === 'string';
}

/**
 * The message's blocks up to the call's: the held message's `blocks` when it has them and they end
 * with the call; else (a file from an older mod) its text blocks then the call's tool_use, without
 * ids (an earlier call of the same message is then missing: that file does not hold it).
 */
export function heldBlocks(held: HeldMessage): HeldBlock[] {
  const blocks = held.blocks;
  if (Array.isArray(blocks) && blocks.every(isBlock)) {
    const last = blocks[blocks.length - 1];
    if (last?.type === 'tool_use' && last.id === held.tool_use_id) return blocks;
  }
  return [
    ...held.text_blocks.map((text): HeldBlock => ({ type: 'text', text })),
    { type: 'tool_use', id: held.tool_use.id, name: held.tool_use.name, input: held.tool_use.input ?? {} },
  ];
}

/** One record per block, as Claude Code writes them (its key order), each a line with its newline. */
export function heldRecordLines(held: HeldMessage, ctx: RecordContext): string {
  let out = '';
  for (const b of heldBlocks(held)) {
    const block = b.type === 'text' ? { type: 'text', text: b.text } : { type: 'tool_use', id: b.id, name: b.name, input: b.input ?? {} };
    const record = {
      ...(b.parent_uuid !== undefined ? { parentUuid: b.parent_uuid } : {}),
      isSidechain: ctx.agentId !== undefined,
      ...(ctx.cwd !== undefined ? { cwd: ctx.cwd } : {}),
      sessionId: ctx.sessionId,
      ...(typeof held.version === 'string' ? { version: held.version } : {}),
      ...(ctx.agentId !== undefined ? { agentId: ctx.agentId } : {}),
      message: { role: 'assistant', content: [block] },
      type: 'assistant',
      ...(b.uuid !== undefined ? { uuid: b.uuid } : {}),
      ...HELD_RECORD_MARK,
    };
    out += `${JSON.stringify(record)}\n`;
  }
  return out;
}
