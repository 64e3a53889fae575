import type { TranscriptLagEngine } from '../core/engine';
import type { ReportData } from '../presentation/reportModel';
import type { LagSample } from '../presentation/lagSamples';
import type { StatusView } from '../presentation/statusView';
import type { TreeNodeView } from '../presentation/treeModel';
import type { ReplayView } from './replayPanel';
import type { RevealRecord } from './reveal';

/**
 * What `activate()` returns: a small, read-mostly window onto the extension for
 * the host tests (test/host) and for anyone scripting it. Get it with
 * `await vscode.extensions.getExtension('transcript-lag.transcript-lag')!.activate()`.
 * Everything here reflects what the user sees; nothing bypasses the views.
 */
export interface TranscriptLagApi {
  /** The running engine; undefined while there is no Claude dir (or before it started). */
  engine(): TranscriptLagEngine | undefined;
  /** The http hooks' receiver in this window: `serving:PORT`, `served-elsewhere:PORT` or `off`. */
  httpHooks(): string;
  /** Where this window serves /metrics (`host:port`); '' when off. */
  metricsAddress(): string;
  /** The Claude dir in use, resolved (setting, else $CLAUDE_CONFIG_DIR, else ~/.claude). */
  claudeDir(): string;
  /** Status bar text as shown (e.g. `$(watch) 1 held · 2.3s`); undefined while the item is hidden. */
  statusBarText(): string | undefined;
  /** `statusBarItem.warningBackground` / `statusBarItem.errorBackground`, or undefined. */
  statusBarBackground(): string | undefined;
  /** The tooltip's markdown source; undefined while hidden. */
  statusBarTooltip(): string | undefined;
  /** The whole status view (text, background, reason, held count, ages). */
  statusView(): StatusView | undefined;
  /** The tree as data: sessions with their held and written calls (same ids and texts as the view). */
  treeItems(): TreeNodeView[];
  /** Whether the tree's view is shown (VS Code's `TreeView.visible`): hidden, it skips its refreshes. */
  treeVisible(): boolean;
  /** Each row of the tree as handed to VS Code (label, description, hover text), sessions then their calls. */
  renderedTreeItems(): { id: string; label: string; description: string; tooltip: string }[];
  /** The view badge value (calls held); undefined when no badge. */
  badge(): number | undefined;
  /** The badge's hover text as set on the view; undefined when no badge. */
  badgeTooltip(): string | undefined;
  /** The status bar item's accessibility label as set; undefined while hidden. */
  statusBarAccessibilityLabel(): string | undefined;
  /** The last "open at line": path, line (1-based), held or not, the after-line decoration now. */
  lastReveal(): RevealRecord | undefined;
  /** Every call seen since activation, as Export Lag Samples writes them. */
  samples(): LagSample[];
  /** The data last posted to the report webview; undefined when it was never shown. */
  reportData(): ReportData | undefined;
  /** The session the report's page last said it keeps in its tab's state (for a reload); undefined before it said. */
  reportKept(): string | undefined;
  /** Replay Hook on Session…'s table: its data and the page last drawn from it; undefined before the first replay. */
  replayView(): ReplayView | undefined;
  /**
   * Replay Hook on Session…'s hook picker while it is open: the labels it lists now, and its box's text,
   * which `type` sets as typing there does (the workbench then filters and reports the change back).
   */
  hookPicker(): { items(): string[]; placeholder(): string; type(text: string): void } | undefined;
  /** Stops the running replay as its notification's Cancel does; false when none runs. */
  cancelReplay(): boolean;
  /** Polls the engine once and re-renders every view at once (no coalescing delay). */
  refresh(): Promise<void>;
}
