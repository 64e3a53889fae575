/**
 * What a transcript line is for one call: its record (the assistant line with
 * the call's tool_use block), its result (the user line with a tool_result for
 * it), or neither. The one rule for "the call's record is on disk", read by the
 * hook's on-disk check (src/rules/onDiskCheck.ts), by the mod that watches its
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

/**
 * Every call a line is the record or the result of, by the same rule as lineKindOf (one parse for
 * the whole line: the mod reads every line its looks bring in). `partial`: only the line's first
 * part is given, as for lineKindOf.
 */
export function callsOfLine(line: string, partial = false): { records: string[]; results: string[] } {
  const out = { records: [] as string[], results: [] as string[] };
  if (!line.includes('"tool_use"') && !line.includes('"tool_result"')) return out;
  if (partial || line.length > PARSE_LINE_CHARS) {
    const isUser = line.includes('"role":"user"');
    const isAssistant = line.includes('"role":"assistant"');
    for (const m of line.matchAll(/"tool_use_id":("(?:[^"\\]|\\.){1,400}")/g)) if (isUser) out.results.push(JSON.parse(m[1]) as string);
    for (const m of line.matchAll(/"type":"tool_use","id":("(?:[^"\\]|\\.){1,400}")/g)) if (isAssistant) out.records.push(JSON.parse(m[1]) as string);
    return out;
  }
  let rec: { type?: unknown; message?: { content?: unknown } };
  try {
    rec = JSON.parse(line);
  } catch {
    return out;
  }
  const content = rec?.message?.content;
  if (!Array.isArray(content)) return out;
  for (const b of content) {
    if (!b || typeof b !== 'object') continue;
    if (rec.type === 'assistant' && b.type === 'tool_use' && typeof b.id === 'string') out.records.push(b.id);
    if (rec.type === 'user' && b.type === 'tool_result' && typeof b.tool_use_id === 'string') out.results.push(b.tool_use_id);
  }
  return out;
}
