import { LineCursor, type LinePieces } from '../rules/lineCursor';

/**
 * Finds the line of the assistant record holding a tool_use block with a given
 * id, fed the transcript's lines in pieces by a LineCursor (a reviewing hook reads
 * only the new bytes at each poll, so the id can straddle two reads). Memory is
 * bounded: only lines up to SMALL_LINE_BYTES are buffered, for an exact JSON
 * check; longer lines are judged by markers seen while they stream past.
 */

const SMALL_LINE_BYTES = 1024 * 1024;
/** Latin-1 characters kept from the end of the previous chunk so markers split across chunks still match. */
const CARRY_CHARS = 1024;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export class ToolUseFinder implements LinePieces<Buffer> {
  /** Complete lines consumed so far. */
  linesDone = 0;
  /** 1-based line of the record, once found. */
  foundLine: number | undefined;

  private readonly id: string;
  private readonly idKey: RegExp;
  private readonly assistant = /(?:^|[^\\])"(?:type|role)"\s*:\s*"assistant"/;
  private readonly toolUse = /(?:^|[^\\])"type"\s*:\s*"tool_use"/;
  private carry = '';
  private hasId = false;
  private isAssistant = false;
  private hasToolUse = false;
  private small: Buffer[] = [];
  private lineBytes = 0;
  /** Splits what `push` is given. */
  private own: LineCursor | undefined;

  constructor(toolUseId: string) {
    this.id = toolUseId;
    // Bytes are matched as Latin-1 text, so the id is turned into its UTF-8 bytes read as Latin-1.
    const idText = Buffer.from(JSON.stringify(toolUseId), 'utf8').toString('latin1');
    // `"id": "<id>"` as a key, not `"tool_use_id": "<id>"` (a result) and not inside an escaped string.
    this.idKey = new RegExp(`(?:^|[^\\\\])"id"\\s*:\\s*${escapeRegExp(idText)}`);
  }

  /** Feeds the file's bytes from its start, in order; returns the found line as soon as its newline has been read. */
  push(chunk: Buffer): number | undefined {
    if (this.foundLine === undefined) (this.own ??= new LineCursor()).take(chunk, this);
    return this.foundLine;
  }

  part(chunk: Buffer, from: number, to: number): void {
    if (this.foundLine === undefined) this.consume(chunk.subarray(from, to));
  }

  line(chunk: Buffer, from: number, to: number): void {
    if (this.foundLine !== undefined) return;
    if (to > from) this.consume(chunk.subarray(from, to));
    this.endLine();
  }

  /** The file was truncated or replaced: start over from its first byte. */
  reset(): void {
    this.linesDone = 0;
    this.own?.restart();
    this.startLine();
  }

  private consume(part: Buffer): void {
    this.lineBytes += part.length;
    if (this.lineBytes <= SMALL_LINE_BYTES) this.small.push(Buffer.from(part));
    else this.small = [];
    const text = this.carry + part.toString('latin1');
    if (!this.hasId && this.idKey.test(text)) this.hasId = true;
    if (!this.isAssistant && this.assistant.test(text)) this.isAssistant = true;
    if (!this.hasToolUse && this.toolUse.test(text)) this.hasToolUse = true;
    this.carry = text.length > CARRY_CHARS ? text.slice(text.length - CARRY_CHARS) : text;
  }

  private endLine(): void {
    this.linesDone += 1;
    if (this.hasId && this.isAssistant && this.hasToolUse && this.confirm()) this.foundLine = this.linesDone;
    this.startLine();
  }

  private confirm(): boolean {
    if (this.lineBytes > SMALL_LINE_BYTES) return true; // judged by the markers alone
    try {
      const rec = JSON.parse(Buffer.concat(this.small).toString('utf8')) as {
        type?: unknown;
        message?: { content?: unknown };
      };
      const content = rec?.message?.content;
      return (
        rec.type === 'assistant' &&
        Array.isArray(content) &&
        content.some((b) => b && typeof b === 'object' && b.type === 'tool_use' && b.id === this.id)
      );
    } catch {
      return false; // a malformed line never counts as the record
    }
  }

  private startLine(): void {
    this.carry = '';
    this.hasId = false;
    this.isAssistant = false;
    this.hasToolUse = false;
    this.small = [];
    this.lineBytes = 0;
  }
}
