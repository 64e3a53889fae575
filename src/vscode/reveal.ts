import * as vscode from 'vscode';
import type { SessionSnapshot } from '../core/snapshot';
import type { RevealTarget } from '../presentation/callChoice';
import { callDecoration, type CallDecoration } from '../presentation/decoration';
import { errorText } from './log';
import { printable } from '../rules/printable';

/** What the last "open at line" did, for the test API. */
export interface RevealRecord {
  transcript_path: string;
  tool_use_id: string;
  /** 1-based line the cursor was put on. */
  line: number;
  held: boolean;
  /** The after-line note as it stands now; undefined when the editor could not be decorated. */
  decoration?: CallDecoration;
  /** True when the file was too large for an extension to hold and VS Code opened it directly. */
  openedWithoutDocument: boolean;
  /** True when nothing was opened: the call's own transcript (a subagent's) was not found. */
  notFound?: boolean;
}

/**
 * Opens a transcript at a call's line and keeps an after-line note on it. The
 * transcript is opened by VS Code, never read here: the line number comes from
 * the engine's snapshot, so a multi-MB transcript costs one document open.
 */
export class Revealer implements vscode.Disposable {
  // The note goes before the line's text, not after it: transcript records are
  // hundreds to millions of characters long, so an end-of-line note is never in view.
  private readonly decorationType = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor('editor.rangeHighlightBackground'),
    overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.rangeHighlightForeground'),
    overviewRulerLane: vscode.OverviewRulerLane.Full,
    before: {
      margin: '0 1.5em 0 0',
      color: new vscode.ThemeColor('editorCodeLens.foreground'),
      fontStyle: 'italic',
    },
  });
  private tracked: { session_id: string; tool_use_id: string; uri: vscode.Uri } | undefined;
  private last: RevealRecord | undefined;
  private readonly editorsChanged: vscode.Disposable;

  constructor(
    private readonly session: (sessionId: string) => SessionSnapshot | undefined,
    private readonly now: () => number,
    private readonly log: vscode.LogOutputChannel,
  ) {
    // Re-apply when the transcript's editor comes back into view (decorations belong to editors),
    // and when VS Code reloads the document from disk: the record may only now be in it.
    this.editorsChanged = vscode.Disposable.from(
      vscode.window.onDidChangeVisibleTextEditors(() => this.refresh()),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (this.tracked && e.document.uri.toString() === this.tracked.uri.toString()) this.refresh();
      }),
    );
  }

  async reveal(target: RevealTarget): Promise<RevealRecord> {
    if (target.not_found) return this.notFound(target);
    const uri = vscode.Uri.file(target.transcript_path);
    const line0 = target.line - 1;
    let openedWithoutDocument = false;
    try {
      const doc = await vscode.workspace.openTextDocument(uri);
      // The document may trail the disk by a moment: never point past its end.
      const line = Math.min(line0, Math.max(0, doc.lineCount - 1));
      const pos = new vscode.Position(line, 0);
      await vscode.window.showTextDocument(doc, {
        selection: new vscode.Range(pos, pos),
        preview: true,
        preserveFocus: false,
      });
      const editor = vscode.window.activeTextEditor;
      editor?.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    } catch (err) {
      // Extensions cannot hold documents above VS Code's sync limit (50 MB); VS Code itself can open them.
      this.log.warn(`Opening ${target.transcript_path} as a document failed (${errorText(err)}); opening it directly`);
      const pos = new vscode.Position(line0, 0);
      await vscode.commands.executeCommand('vscode.open', uri, { selection: new vscode.Range(pos, pos), preview: true });
      openedWithoutDocument = true;
    }
    this.tracked = { session_id: target.session_id, tool_use_id: target.tool_use_id, uri };
    this.last = {
      transcript_path: target.transcript_path,
      tool_use_id: target.tool_use_id,
      line: target.line,
      held: target.held,
      openedWithoutDocument,
    };
    this.log.info(`Opened ${target.transcript_path} at line ${target.line} (${target.held ? 'held' : 'written'} ${target.tool_use_id})`);
    this.refresh();
    return this.lastReveal() as RevealRecord;
  }

  /**
   * A held subagent call whose own transcript was never seen: say so, and open
   * nothing, since the main transcript is not where its record will land.
   */
  private notFound(target: RevealTarget): RevealRecord {
    this.tracked = undefined;
    this.last = { transcript_path: target.transcript_path, tool_use_id: target.tool_use_id, line: target.line, held: target.held, openedWithoutDocument: false, notFound: true };
    const message = printable(`Transcript Lag: the subagent transcript of ${target.tool_use_id} was not found (expected ${target.transcript_path}).`);
    this.log.warn(message);
    void vscode.window.showWarningMessage(message);
    return this.lastReveal() as RevealRecord;
  }

  /** Moves or updates the note: the held age ticks, and once the record lands the note goes to its line. */
  refresh(): void {
    if (!this.tracked) return;
    const { session_id, tool_use_id, uri } = this.tracked;
    const deco = callDecoration(this.session(session_id), tool_use_id, this.now());
    if (this.last) this.last.decoration = deco;
    for (const editor of vscode.window.visibleTextEditors) {
      if (editor.document.uri.toString() !== uri.toString()) continue;
      if (!deco) {
        editor.setDecorations(this.decorationType, []);
        continue;
      }
      const line = Math.min(deco.line - 1, editor.document.lineCount - 1);
      const range = editor.document.lineAt(Math.max(0, line)).range;
      editor.setDecorations(this.decorationType, [
        { range, hoverMessage: deco.text, renderOptions: { before: { contentText: deco.text } } },
      ]);
    }
    if (!deco) this.tracked = undefined;
  }

  /** Whether the note needs its age to tick. */
  trackingHeld(): boolean {
    return this.last?.decoration?.held === true && this.tracked !== undefined;
  }

  lastReveal(): RevealRecord | undefined {
    return this.last ? { ...this.last } : undefined;
  }

  dispose(): void {
    this.editorsChanged.dispose();
    this.decorationType.dispose();
  }
}
