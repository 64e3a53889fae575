import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { COMMANDS, REPLAY_VIEW_TYPE } from '../presentation/commandIds';
import { replayPageHtml, type ReplayTableData } from '../presentation/replayTable';
import { restoredReplay } from '../presentation/replayRestore';

/** What the panel shows now, for the test API: the table's data and the page it was drawn as. */
export interface ReplayView {
  data: ReplayTableData;
  html: string;
  /** The page said it keeps this data in its tab's state (what a reload restores). */
  kept: boolean;
}

/**
 * The replay's table (Replay Hook on Session…): a webview as the session report's is (our
 * stylesheets only, theme colours), but the page is made whole by src/presentation/replayTable.ts,
 * every text escaped, and no script draws it: a click on a call is a `command:` link, and Open Call in
 * Transcript is the one command the page may run. Its one script (media/replayState.js, by nonce) only
 * keeps the table in the tab's state, so a reload brings the tab back with it (restore).
 */
export class ReplayPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  /** The panel's script's nonce (media/replayState.js): one per panel, so drawing the same table again is the same page. */
  private nonce = '';
  private last: ReplayView | undefined;
  /** The data last handed to the page to keep: its `kept` answer is for that one. */
  private sent: ReplayTableData | undefined;
  private readonly closed = new vscode.EventEmitter<void>();
  /** The user closed the panel (its tab); the running replay stops then (src/vscode/replayCommand.ts). */
  readonly onDidClose = this.closed.event;

  constructor(private readonly extensionUri: vscode.Uri) {}

  /** Opens the panel (or brings it forward) with `data`. */
  show(data: ReplayTableData): void {
    if (this.panel) this.panel.reveal(undefined, false);
    else this.adopt(vscode.window.createWebviewPanel(REPLAY_VIEW_TYPE, 'Transcript Lag: Replay', vscode.ViewColumn.Active, this.options()));
    this.update(data);
  }

  /**
   * A replay tab VS Code brings back after a reload (src/vscode/panelRestore.ts): it shows what that
   * replay said, the table its script kept in the tab's state (media/replayState.js), checked as
   * hostile input; a replay that was running was stopped by the reload, and says so
   * (src/presentation/replayRestore.ts). One replay tab at a time: a second one restored is closed.
   */
  restore(panel: vscode.WebviewPanel, state: unknown): void {
    const data = restoredReplay(state);
    if (this.panel || data === undefined) {
      panel.dispose();
      return;
    }
    panel.webview.options = this.options();
    this.adopt(panel);
    this.update(data);
  }

  /** Our stylesheets and our one script only; the one command a link may run. */
  private options(): vscode.WebviewPanelOptions & vscode.WebviewOptions {
    return { enableScripts: true, enableCommandUris: [COMMANDS.openCall], localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'media')] };
  }

  private adopt(panel: vscode.WebviewPanel): void {
    this.nonce = randomBytes(16).toString('base64');
    // The page asks once it has loaded (each time its HTML is set): it is handed the table to keep.
    panel.webview.onDidReceiveMessage((m: unknown) => {
      if (this.panel !== panel || typeof m !== 'object' || m === null || !this.last) return;
      const type = (m as { type?: unknown }).type;
      if (type === 'ready') {
        this.sent = this.last.data;
        void panel.webview.postMessage({ type: 'state', data: this.last.data });
      } else if (type === 'kept' && this.sent === this.last.data) this.last = { ...this.last, kept: true };
    });
    panel.onDidDispose(() => {
      if (this.panel !== panel) return;
      this.panel = undefined;
      this.closed.fire();
    });
    this.panel = panel;
  }

  /** Draws `data` in the panel while it is open. */
  update(data: ReplayTableData): void {
    const panel = this.panel;
    if (!panel) {
      this.last = this.last && { ...this.last, data, kept: false };
      return;
    }
    const media = vscode.Uri.joinPath(this.extensionUri, 'media');
    const html = replayPageHtml(data, {
      cspSource: panel.webview.cspSource,
      stylesheets: ['report.css', 'replay.css'].map((f) => panel.webview.asWebviewUri(vscode.Uri.joinPath(media, f)).toString()),
      script: { src: panel.webview.asWebviewUri(vscode.Uri.joinPath(media, 'replayState.js')).toString(), nonce: this.nonce },
    });
    const title = `Replay: ${data.session}`;
    if (panel.title !== title) panel.title = title;
    // Setting the same page again would reload it for nothing (and lose the scroll position).
    const reload = this.last?.html !== html;
    this.last = { data, html, kept: false };
    if (reload) panel.webview.html = html;
    else {
      // The same page still open: it keeps the new table now (a new page asks once loaded).
      this.sent = data;
      void panel.webview.postMessage({ type: 'state', data });
    }
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
