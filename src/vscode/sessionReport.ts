import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { SessionSnapshot } from '../core/snapshot';
import { REPORT_VIEW_TYPE } from '../presentation/commandIds';
import type { LagSample } from '../presentation/lagSamples';
import { buildReport, type ReportData } from '../presentation/reportModel';
import { sessionName } from '../presentation/sessionLabel';

/** Messages from media/report.js. */
type FromWebview = { type: 'ready' } | { type: 'openLine'; line: number; tool_use_id?: string } | { type: 'kept'; session_id: string };

/**
 * The session report: a webview with local assets only (media/report.js,
 * media/report.css), a strict CSP with a per-load nonce, theme colours through
 * VS Code's CSS variables. The data is posted as JSON; the page draws the
 * histogram and the batch timeline itself as SVG.
 */
export class SessionReport implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private sessionId: string | undefined;
  private lastPosted: ReportData | undefined;
  /** The session the page last said it keeps in its tab's state. */
  private kept: string | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly session: (sessionId: string) => SessionSnapshot | undefined,
    private readonly samples: (sessionId: string) => LagSample[],
    private readonly now: () => number,
    /** Opens `transcriptPath` (the row's own file: a subagent call's is the subagent's transcript) at `line`. */
    private readonly openLine: (session: SessionSnapshot, line: number, transcriptPath: string) => Promise<void>,
    private readonly sessions: () => SessionSnapshot[],
    /** Whether the engine has indexed the history it found at start: until then a session not shown may be one still to come. */
    private readonly historyIndexed: () => boolean = () => true,
  ) {}

  show(sessionId: string): void {
    this.sessionId = sessionId;
    const title = this.titleFor(sessionId);
    if (this.panel) {
      this.panel.title = title;
      this.panel.reveal(undefined, false);
      this.post();
      return;
    }
    const panel = vscode.window.createWebviewPanel(REPORT_VIEW_TYPE, title, vscode.ViewColumn.Active, {
      enableScripts: true,
      localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'media')],
    });
    this.adopt(panel);
  }

  /**
   * A report tab VS Code brings back after a reload (src/vscode/panelRestore.ts): its state names the
   * session it reported (media/report.js keeps it), and the report is drawn again from the engine, as
   * the tree is. One report at a time: a second tab restored is closed.
   */
  restore(panel: vscode.WebviewPanel, state: unknown): void {
    const sessionId = restoredSessionId(state);
    if (this.panel || sessionId === undefined) {
      panel.dispose();
      return;
    }
    this.sessionId = sessionId;
    panel.webview.options = { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'media')] };
    this.adopt(panel);
  }

  private adopt(panel: vscode.WebviewPanel): void {
    const media = vscode.Uri.joinPath(this.extensionUri, 'media');
    panel.webview.html = this.html(panel.webview, media);
    panel.webview.onDidReceiveMessage((m: FromWebview) => this.receive(m));
    // A hidden webview loses its page; it asks again with 'ready' when shown.
    panel.onDidDispose(() => {
      if (this.panel !== panel) return;
      this.panel = undefined;
      this.lastPosted = undefined;
    });
    this.panel = panel;
  }

  /** Posts fresh data while the panel is visible; called through the refresh coalescer. */
  refresh(): void {
    if (this.panel?.visible) this.post();
  }

  isOpen(): boolean {
    return this.panel !== undefined;
  }

  /** For the test API: the session the page last said it keeps in its tab's state (what a reload restores). */
  keptSessionId(): string | undefined {
    return this.panel ? this.kept : undefined;
  }

  /** For the test API: the data last posted to the page. */
  lastData(): ReportData | undefined {
    return this.lastPosted;
  }

  /** The session's name as the tree and the picker give it: like-named sessions stay apart. */
  private nameOf(s: SessionSnapshot): string {
    return sessionName(s, this.sessions(), this.now());
  }

  private titleFor(sessionId: string): string {
    const s = this.session(sessionId);
    return `Transcript Lag: ${s ? this.nameOf(s) : sessionId.slice(0, 8)}`;
  }

  private receive(m: FromWebview): void {
    if (m.type === 'ready') this.post();
    else if (m.type === 'kept' && typeof m.session_id === 'string') this.kept = m.session_id;
    else if (m.type === 'openLine' && this.sessionId && Number.isInteger(m.line) && m.line > 0) {
      const s = this.session(this.sessionId);
      if (!s) return;
      const sample = typeof m.tool_use_id === 'string' ? this.samples(s.session_id).find((x) => x.tool_use_id === m.tool_use_id) : undefined;
      void this.openLine(s, m.line, sample?.transcript_path ?? s.transcript_path);
    }
  }

  private post(): void {
    if (!this.panel || !this.sessionId) return;
    const s = this.session(this.sessionId);
    if (!s) {
      // Right after a reload the engine may not have indexed the session yet: the page keeps saying it is loading.
      if (this.historyIndexed()) void this.panel.webview.postMessage({ type: 'gone', session_id: this.sessionId });
      return;
    }
    const name = this.nameOf(s);
    const title = `Transcript Lag: ${name}`;
    if (this.panel.title !== title) this.panel.title = title;
    this.lastPosted = buildReport(s, this.samples(s.session_id), this.now(), name);
    void this.panel.webview.postMessage({ type: 'report', data: this.lastPosted });
  }

  private html(webview: vscode.Webview, media: vscode.Uri): string {
    const nonce = randomBytes(16).toString('base64');
    const script = webview.asWebviewUri(vscode.Uri.joinPath(media, 'report.js'));
    const style = webview.asWebviewUri(vscode.Uri.joinPath(media, 'report.css'));
    // Nothing remote, nothing inline: only our script (by nonce) and our stylesheet.
    const csp = [
      "default-src 'none'",
      `style-src ${webview.cspSource}`,
      `script-src 'nonce-${nonce}'`,
      `img-src ${webview.cspSource}`,
    ].join('; ');
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style}">
<title>Transcript Lag report</title>
</head>
<body>
<main id="report" aria-live="polite"><p class="muted">Loading…</p></main>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
  }

  dispose(): void {
    this.panel?.dispose();
  }
}

/** The session id a restored report tab's state names (what media/report.js keeps); undefined for anything else. */
export function restoredSessionId(state: unknown): string | undefined {
  if (typeof state !== 'object' || state === null) return undefined;
  const id = (state as { session_id?: unknown }).session_id;
  return typeof id === 'string' && id.length > 0 && id.length <= 200 ? id : undefined;
}
