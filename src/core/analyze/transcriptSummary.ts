import { type ScannedRecord, type ScanResult, copiedFrom, NO_PER_CALL } from '../records';
import { countShapes, shapeFromFile } from './shapes';
import type { AnalyzedCall, InferredBatch, TrailerRun, TranscriptAnalysis } from './types';

const MALFORMED_LINES_KEPT = 100;
const SESSION_IDS_KEPT = 100;

/** Folds scanned lines, in file order, into `analyze`'s report; holds per-call and per-trailer facts, never lines, so memory follows the calls, not the file. */
export class TranscriptSummary {
  private lines = 0;
  private malformed = 0;
  private readonly malformedLines: Array<{ line: number; reason: string }> = [];
  private records = 0;
  /** Lines per record type; a counter object per type, so a line costs one lookup. */
  private readonly recordTypes = new Map<string, { lines: number }>();
  private readonly sessionIds = new Set<string>();
  /** The session id last added: the lines of a session repeat it, and most skip the Set. */
  private lastSessionId: string | undefined;
  private title: string | undefined;
  /** The Claude Code version of the last call's record (`version`): what is known of its behaviour goes with it (src/core/compat/). */
  private version: string | undefined;
  private firstUserPrompt: string | undefined;
  private firstLastPrompt: string | undefined;
  private readonly calls: AnalyzedCall[] = [];
  private readonly callsById = new Map<string, AnalyzedCall>();
  /** tool_result ids seen before any call with that id: the call may come later (odd, but keep the line). */
  private readonly earlyResults = new Map<string, number>();
  private results = 0;
  private duplicateToolUses = 0;
  /** Ids of the calls a fork copied from its parent: not this session's calls (see counts.copied_calls). */
  private readonly copiedIds = new Set<string>();
  private readonly copiedFrom: string[] = [];
  private readonly trailers: TrailerRun[] = [];
  private run: TrailerRun | undefined;
  /** The current run's types, copied to the run when it closes: runs are kept to the end, and a pushed array keeps spare room. */
  private readonly runTypes: string[] = [];
  /** One string per record type, tool name and stop reason, shared by all trailers and calls. */
  private readonly names = new Map<string, string>();
  /** The message id of the last call: the calls of one message share one string. */
  private lastMessageId: string | null = null;

  /** The next newline-terminated line, numbered from 1 in file order. */
  add(line: number, scan: ScanResult): void {
    this.lines = line;
    if (scan.kind === 'malformed') {
      this.malformed += 1;
      if (this.malformedLines.length < MALFORMED_LINES_KEPT) this.malformedLines.push({ line, reason: scan.reason });
      this.closeRun();
      return;
    }
    this.records += 1;
    const type = scan.type ?? '(none)';
    const counter = this.recordTypes.get(type);
    if (counter === undefined) this.recordTypes.set(type, { lines: 1 });
    else counter.lines += 1;
    const sessionId = scan.sessionId;
    if (sessionId !== undefined && sessionId !== this.lastSessionId && this.sessionIds.size < SESSION_IDS_KEPT) {
      this.sessionIds.add(sessionId);
      this.lastSessionId = sessionId;
    }
    if (scan.title !== undefined) this.title = scan.title; // titles are rewritten as the session goes: the last one holds
    if (scan.prompt !== undefined) {
      if (scan.type === 'last-prompt') this.firstLastPrompt ??= scan.prompt;
      else this.firstUserPrompt ??= scan.prompt;
    }
    if (scan.isMetadata) {
      const name = this.shared(type);
      if (this.run) this.run.last_line = line;
      else this.run = { first_line: line, last_line: line, types: [] };
      this.runTypes.push(name);
    } else {
      this.closeRun();
    }
    // Indexed loops: most lines share one frozen empty array, which for-of would iterate through an iterator object each.
    const uses = scan.toolUses;
    if (uses.length > 0 && scan.version !== undefined) this.version = scan.version;
    if (uses.length > 0 && scan.requestSessionId !== undefined) {
      const origin = copiedFrom(scan);
      if (origin !== undefined) this.addCopies(scan, origin);
      else this.addCalls(line, scan);
    } else if (uses.length > 0) {
      this.addCalls(line, scan);
    }
    const results = scan.toolResults;
    for (let i = 0; i < results.length; i++) {
      const id = results[i]!;
      const call = this.callsById.get(id);
      if (call) {
        this.results += 1;
        call.result_line ??= line;
      } else if (this.copiedIds.size > 0 && this.copiedIds.has(id)) {
        // The copied result of a copied call: history too.
      } else {
        this.results += 1;
        if (!this.earlyResults.has(id)) this.earlyResults.set(id, line);
      }
    }
  }

  /** A fork's copy of its parent's calls: kept apart, never as calls of this session. */
  private addCopies(scan: ScannedRecord, origin: string): void {
    if (!this.copiedFrom.includes(origin) && this.copiedFrom.length < SESSION_IDS_KEPT) this.copiedFrom.push(origin);
    for (const use of scan.toolUses) {
      if (this.callsById.has(use.id) || this.copiedIds.has(use.id)) {
        this.duplicateToolUses += 1;
        continue;
      }
      this.copiedIds.add(use.id);
      // Its result came first (odd order): a copy's, not this session's, nor an orphan.
      if (this.earlyResults.delete(use.id)) this.results -= 1;
    }
  }

  private addCalls(line: number, scan: ScannedRecord): void {
    const uses = scan.toolUses;
    for (let i = 0; i < uses.length; i++) {
      const use = uses[i]!;
      if (this.callsById.has(use.id)) {
        this.duplicateToolUses += 1;
        continue;
      }
      const call: AnalyzedCall = {
        tool_use_id: use.id,
        tool_name: this.shared(use.name),
        line,
        result_line: null,
        message_id: this.messageId(scan.messageId),
        block_index: scan.apiBlockIndex ?? null,
        timestamp: scan.timestamp ?? null,
        stop_reason: scan.stopReason == null ? null : this.shared(scan.stopReason),
        is_sidechain: scan.isSidechain === true,
        record: scan.perCall ?? NO_PER_CALL,
        shape: null,
      };
      if (scan.agentId !== undefined) call.agent_id = scan.agentId;
      // Results before their call are rare: most calls skip two lookups.
      if (this.earlyResults.size > 0) {
        const early = this.earlyResults.get(use.id);
        if (early !== undefined) {
          call.result_line = early;
          this.earlyResults.delete(use.id);
        }
      }
      this.calls.push(call);
      this.callsById.set(use.id, call);
    }
  }

  /** Whether a prompt can still change first_prompt; a scanner may then leave later prompts out (RecordScannerOptions.prompts). */
  get wantsPrompt(): boolean {
    return this.firstUserPrompt === undefined;
  }

  call(toolUseId: string): AnalyzedCall | undefined {
    return this.callsById.get(toolUseId);
  }

  /** Everything but the file facts and the channel join, which the caller adds. */
  finish(): Omit<TranscriptAnalysis, 'file' | 'bytes' | 'partial_tail_bytes' | 'changes'> {
    this.closeRun();
    const batches = inferBatches(this.trailers, this.lines);
    for (const call of this.calls) {
      const known = shapeFromFile(call, this.trailers);
      call.shape = known?.shape ?? null;
      if (known?.evidence !== undefined) call.shape_evidence = known.evidence;
    }
    const sessionIds = [...this.sessionIds];
    return {
      lines: this.lines,
      malformed: this.malformed,
      malformed_lines: this.malformedLines,
      records: this.records,
      record_types: Object.fromEntries([...this.recordTypes].map(([type, counter]) => [type, counter.lines] as const).sort((a, b) => b[1] - a[1])),
      session_id: sessionIds[0] ?? null,
      session_ids: sessionIds,
      copied_from: this.copiedFrom,
      title: this.title ?? null,
      claude_code_version: this.version ?? null,
      first_prompt: this.firstUserPrompt ?? this.firstLastPrompt ?? null,
      counts: {
        calls: this.calls.length,
        results: this.results,
        ...countShapes(this.calls),
        no_result: this.calls.filter((c) => c.result_line === null).length,
        duplicate_tool_uses: this.duplicateToolUses,
        orphan_results: this.earlyResults.size,
        copied_calls: this.copiedIds.size,
        sidechain_calls: this.calls.filter((c) => c.is_sidechain).length,
        trailers: this.trailers.length,
        batches: batches.length,
      },
      calls: this.calls,
      trailers: this.trailers,
      batches,
    };
  }

  private closeRun(): void {
    if (this.run) {
      this.run.types = this.runTypes.slice();
      this.runTypes.length = 0;
      this.trailers.push(this.run);
    }
    this.run = undefined;
  }

  /**
   * Calls are held for the whole file: sharing their repeated strings keeps promoted bytes, and so
   * V8's young generation and peak RSS, down (see src/cli/analyze.ts). Names are few; past 1000, kept as is.
   */
  private shared(text: string): string {
    let name = this.names.get(text);
    if (name === undefined) {
      name = text;
      if (this.names.size < 1000) this.names.set(text, name);
    }
    return name;
  }

  private messageId(id: string | undefined): string | null {
    if (id === undefined) return null;
    if (id !== this.lastMessageId) this.lastMessageId = id;
    return this.lastMessageId;
  }
}

/** A batch ends with each trailer; lines after the last trailer form a batch not closed by one. */
export function inferBatches(trailers: readonly TrailerRun[], lines: number): InferredBatch[] {
  const batches: InferredBatch[] = [];
  let first = 1;
  for (const t of trailers) {
    batches.push({ first_line: first, last_line: t.last_line, closed_by_trailer: true });
    first = t.last_line + 1;
  }
  if (first <= lines) batches.push({ first_line: first, last_line: lines, closed_by_trailer: false });
  return batches;
}
