/**
 * What a transcript line is for one call: its record (the assistant line with
 * the call's tool_use block), its result (the user line with a tool_result for
 * it), or neither. The one rule for "the call's record is on disk", read by the
 * hook's on-disk check (src/hook/onDiskCheck.ts), by the mod that watches its
 * calls land (src/mod/) and by `transcript-lag message`. Plain strings only.
 */

export type LineKind = 'record' | 'result' | 'other';

/** Lines longer than this are judged by the keys Claude Code writes first, not parsed. */
export const PARSE_LINE_CHARS = 1024 * 1024;

/**
 * `partial`: only the line's first part is given (the rest was too long to
 * keep). A long line is a tool result with its output inline, a record with a
 * large input, or text quoting the id: judged by the compact keys as they sit
 * near the line's start.
 */
export function lineKindOf(line: string, id: string, partial = false): LineKind {
  if (partial || line.length > PARSE_LINE_CHARS) {
    const quoted = JSON.stringify(id);
    if (line.includes(`"tool_use_id":${quoted}`) && line.includes('"role":"user"')) return 'result';
    if (line.includes(`"type":"tool_use","id":${quoted}`) && line.includes('"role":"assistant"')) return 'record';
    return 'other';
  }
  let rec: { type?: unknown; message?: { content?: unknown } };
  try {
    rec = JSON.parse(line);
  } catch {
    return 'other';
  }
  const content = rec?.message?.content;
  if (!Array.isArray(content)) return 'other';
  for (const b of content) {
    if (!b || typeof b !== 'object') continue;
    if (rec.type === 'assistant' && b.type === 'tool_use' && b.id === id) return 'record';
    if (rec.type === 'user' && b.type === 'tool_result' && b.tool_use_id === id) return 'result';
  }
  return 'other';
}
