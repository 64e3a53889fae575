import * as vscode from 'vscode';
import type { SessionSnapshot } from '../core/snapshot';
import { COMMANDS, TOOLTIP_COMMANDS } from '../presentation/commandIds';
import { statusView, type StatusView } from '../presentation/statusView';

/**
 * The status bar item (left). Hidden until a session is active; all texts
 * and colours come from src/presentation/statusView.ts.
 */
export class StatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private last: StatusView | undefined;

  constructor(
    private readonly sessions: () => SessionSnapshot[],
    private readonly warnAfterMs: () => number,
    private readonly now: () => number,
  ) {
    this.item = vscode.window.createStatusBarItem('transcriptLag.status', vscode.StatusBarAlignment.Left, 100);
    this.item.name = 'Transcript Lag';
    this.item.command = COMMANDS.openHeldLine;
  }

  render(): void {
    const v = statusView(this.sessions(), this.now(), { warnAfterMs: this.warnAfterMs() });
    const prev = this.last?.visible ? this.last : undefined;
    this.last = v;
    if (!v.visible) {
      if (prev) this.item.hide();
      return;
    }
    // Each property set is a message to the workbench: set only what changed.
    if (v.text !== prev?.text) this.item.text = v.text;
    if (v.accessibilityLabel !== prev?.accessibilityLabel) {
      this.item.accessibilityInformation = { label: v.accessibilityLabel, role: 'button' };
    }
    if (v.background !== prev?.background || !prev) {
      this.item.backgroundColor = v.background ? new vscode.ThemeColor(v.background) : undefined;
    }
    if (v.tooltip !== prev?.tooltip) {
      const md = new vscode.MarkdownString(v.tooltip, true);
      md.isTrusted = { enabledCommands: [...TOOLTIP_COMMANDS] };
      this.item.tooltip = md;
    }
    if (!prev) this.item.show();
  }

  /** True while the text shows an age that must tick (the composition root re-renders on a timer). */
  ticking(): boolean {
    return this.last?.ticking === true;
  }

  /** For the test API: the item's accessibility label as set; undefined while hidden. */
  accessibilityLabel(): string | undefined {
    return this.last?.visible ? this.item.accessibilityInformation?.label : undefined;
  }

  /** For the test API: what the item shows now; undefined while hidden. */
  state(): StatusView | undefined {
    return this.last?.visible ? this.last : undefined;
  }

  dispose(): void {
    this.item.dispose();
  }
}
