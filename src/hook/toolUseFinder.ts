import { LineCursor, type LinePieces } from '../rules/lineCursor';
import { HEAD_BYTES, kindOfFacts, LineHeadScanner } from '../rules/recordLine';

/**
 * Finds the line of the assistant record holding a tool_use block with a given id, fed the
 * transcript's lines in pieces by a LineCursor (a reviewing hook reads only the new bytes at each
 * poll, so the id can straddle two reads). Each line is read by the rules' one reading
 * (src/rules/recordLine.ts) as its pieces stream past: memory is the scanner's, whatever the line's
 * length, and a line longer than HEAD_BYTES is judged by its head, as every other reader judges it.
 */
export class ToolUseFinder implements LinePieces<Buffer> {
  /** Complete lines consumed so far. */
  linesDone = 0;
  /** 1-based line of the record, once found. */
  foundLine: number | undefined;

  private readonly id: string;
  private readonly scanner = new LineHeadScanner();
  private lineBytes = 0;
  /** Splits what `push` is given. */
  private own: LineCursor | undefined;

  constructor(toolUseId: string) {
    this.id = toolUseId;
  }

  /** Feeds the file's bytes from its start, in order; returns the found line as soon as its newline has been read. */
  push(chunk: Buffer): number | undefined {
    if (this.foundLine === undefined) (this.own ??= new LineCursor()).take(chunk, this);
    return this.foundLine;
  }

  part(chunk: Buffer, from: number, to: number): void {
    if (this.foundLine === undefined) this.consume(chunk, from, to);
  }

  line(chunk: Buffer, from: number, to: number): void {
    if (this.foundLine !== undefined) return;
    if (to > from) this.consume(chunk, from, to);
    this.endLine();
  }

  /** The file was truncated or replaced: start over from its first byte. */
  reset(): void {
    this.linesDone = 0;
    this.own?.restart();
    this.startLine();
  }

  private consume(chunk: Buffer, from: number, to: number): void {
    this.lineBytes += to - from;
    if (this.scanner.bytesRead < HEAD_BYTES) this.scanner.feed(chunk, from, to);
  }

  private endLine(): void {
    this.linesDone += 1;
    if (kindOfFacts(this.scanner.end(true), this.id, this.lineBytes, true) === 'record') this.foundLine = this.linesDone;
    this.startLine();
  }

  private startLine(): void {
    this.scanner.reset();
    this.lineBytes = 0;
  }
}
