import * as vscode from 'vscode';
import type { EngineEvent } from '../core/engineEvents';
import { printable } from '../rules/printable';

/**
 * The extension's diagnostics: a LogOutputChannel, so the user's "Set Log
 * Level…" applies and lines carry timestamps and levels.
 */
export function createLog(): vscode.LogOutputChannel {
  return vscode.window.createOutputChannel('Transcript Lag', { log: true });
}

export { errorText } from './errorText';

/** Held and wait outcomes at info (they are what users ask about); the rest at trace. Names and ids from transcripts go in printable. */
export function logEvent(log: vscode.LogOutputChannel, e: EngineEvent): void {
  switch (e.event) {
    case 'held':
      log.info(printable(`held ${e.tool_name ?? ''} ${e.tool_use_id} (session ${e.session_id.slice(0, 8)})`));
      break;
    case 'written':
      log.debug(`written ${printable(e.tool_use_id)} line ${e.line} lag ${e.lag_ms ?? '-'} ms${e.lag_bounds ? ` (held ${e.lag_bounds.min_ms}–${e.lag_bounds.max_ms ?? '?'} ms by its hooks' looks)` : ''} ${e.shape}`);
      break;
    case 'revised':
      log.debug(`revised ${printable(e.tool_use_id)}: its hooks' look found the record before the engine's read; held ${e.lag_bounds ? `${e.lag_bounds.min_ms}–${e.lag_bounds.max_ms ?? '?'} ms` : 'unbounded'} ${e.shape}`);
      break;
    case 'wait':
      (e.outcome === 'seen' ? log.info : log.warn).call(log, printable(`wait ${e.outcome} for ${e.tool_use_id} after ${e.polls} polls, ${e.waited_ms} ms`));
      break;
    case 'tail':
      log.warn(`transcript ${e.change}: ${printable(e.transcript_path)} (generation ${e.generation})`);
      break;
    case 'partial':
      log.debug(`partial line ${e.line} (${e.bytes} bytes) in ${printable(e.transcript_path)}`);
      break;
    case 'session':
      log.debug(printable(`session ${e.session_id.slice(0, 8)}: ${e.title ?? ''}`));
      break;
    case 'record':
      log.trace(`record ${e.uuid} line ${e.line} lag ${e.lag_ms ?? '-'} ms (born by ${e.born_from ?? 'nothing known'})`);
      break;
    default:
      log.trace(printable(`${e.event} ${e.tool_use_id}`));
  }
}
