import * as vscode from 'vscode';

/**
 * The extension's diagnostics: a LogOutputChannel, so the user's "Set Log
 * Level…" applies and lines carry timestamps and levels.
 */
export function createLog(): vscode.LogOutputChannel {
  return vscode.window.createOutputChannel('Transcript Lag', { log: true });
}

/** An error's message for a log line, without a stack unless it is a bug. */
export function errorText(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
