import * as vscode from 'vscode';
import { COMMANDS, REPLAY_VIEW_TYPE } from '../presentation/commandIds';
import { replayPageHtml, type ReplayTableData } from '../presentation/replayTable';

/** What the panel shows now, for the test API: the table's data and the page it was drawn as. */
export interface ReplayView {
  data: ReplayTableData;
  html: string;
}

/**
 * The replay's table (Replay Hook on Session…): a webview as the session report's is (our
 * stylesheets only, theme colours), but the page is made whole by src/presentation/replayTable.ts,
 * every text escaped, and runs no script: a click on a call is a `command:` link, and Open Call in
 * Transcript is the one command the page may run.
 */
export class ReplayPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private last: ReplayView | undefined;
  private readonly closed = new vscode.EventEmitter<void>();
  /** The user closed the panel (its tab); the running replay stops then (src/vscode/replayCommand.ts). */
  readonly onDidClose = this.closed.event;

  constructor(private readonly extensionUri: vscode.Uri) {}

  /** Opens the panel (or brings it forward) with `data`. */
  show(data: ReplayTableData): void {
    if (this.panel) this.panel.reveal(undefined, false);
    else {
      const media = vscode.Uri.joinPath(this.extensionUri, 'media');
      const panel = vscode.window.createWebviewPanel(REPLAY_VIEW_TYPE, 'Transcript Lag: Replay', vscode.ViewColumn.Active, {
        enableScripts: false,
        enableCommandUris: [COMMANDS.openCall],
        localResourceRoots: [media],
      });
      panel.onDidDispose(() => {
        if (this.panel !== panel) return;
        this.panel = undefined;
        this.closed.fire();
      });
      this.panel = panel;
    }
    this.update(data);
  }

  /** Draws `data` in the panel while it is open. */
  update(data: ReplayTableData): void {
    const panel = this.panel;
    if (!panel) {
      this.last = this.last && { ...this.last, data };
      return;
    }
    const media = vscode.Uri.joinPath(this.extensionUri, 'media');
    const html = replayPageHtml(data, {
      cspSource: panel.webview.cspSource,
      stylesheets: ['report.css', 'replay.css'].map((f) => panel.webview.asWebviewUri(vscode.Uri.joinPath(media, f)).toString()),
    });
    const title = `Replay: ${data.session}`;
    if (panel.title !== title) panel.title = title;
    // Setting the same page again would reload it for nothing (and lose the scroll position).
    if (this.last?.html !== html) panel.webview.html = html;
    this.last = { data, html };
  }

  isVisible(): boolean {
    return this.panel?.visible === true;
  }

  lastView(): ReplayView | undefined {
    return this.last;
  }

  dispose(): void {
    this.panel?.dispose();
    this.closed.dispose();
  }
}
