import * as vscode from 'vscode';
import type { SessionSnapshot } from '../core/snapshot';
import { COMMANDS, TREE_VIEW_ID } from '../presentation/commandIds';
import { heldBadge, treeModel, type TreeNodeView } from '../presentation/treeModel';

/**
 * The "Transcript Lag" view: sessions → held calls, then recent written calls.
 * Nodes come from src/presentation/treeModel.ts; ids are stable so VS Code
 * keeps expansion and selection across refreshes.
 */
export class HeldCallsTree implements vscode.TreeDataProvider<TreeNodeView>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<TreeNodeView | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly view: vscode.TreeView<TreeNodeView>;
  private readonly visibility: vscode.Disposable;
  /** The model last handed to VS Code, and its serialisation to detect changes. */
  private roots: TreeNodeView[] | undefined;
  private shownKey: string | undefined;

  constructor(
    private readonly sessions: () => SessionSnapshot[],
    private readonly now: () => number,
  ) {
    this.view = vscode.window.createTreeView(TREE_VIEW_ID, { treeDataProvider: this, showCollapseAll: true });
    // Ages tick (and events show) only while the view is visible; becoming visible catches up at once.
    this.visibility = this.view.onDidChangeVisibility(() => this.refresh());
  }

  /**
   * Rebuilds the model and tells VS Code only when something it shows changed:
   * the engine ticks every second, and re-rendering an unchanged tree would
   * only cost work and swallow a click that lands mid-render.
   */
  refresh(): void {
    const sessions = this.sessions();
    // Value and hover text together: the hover must never speak of a badge that is gone.
    const badge = heldBadge(sessions);
    if (badge?.value !== this.view.badge?.value || badge?.tooltip !== this.view.badge?.tooltip) this.view.badge = badge;
    // Hidden views skip the work: becoming visible refreshes (see the constructor).
    if (!this.view.visible) {
      this.shownKey = undefined;
      return;
    }
    const roots = treeModel(sessions, this.now());
    const key = JSON.stringify(roots);
    if (key === this.shownKey) return;
    this.shownKey = key;
    this.roots = roots;
    this.changed.fire(undefined);
  }

  getTreeItem(node: TreeNodeView): vscode.TreeItem {
    const item = new vscode.TreeItem(
      node.label,
      // Sessions are always expandable: an id keeps its state, and a session with no calls yet will have some.
      node.kind === 'session' ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None,
    );
    item.id = node.id;
    item.description = node.description;
    item.tooltip = node.tooltip;
    item.iconPath = new vscode.ThemeIcon(node.icon);
    item.contextValue = node.contextValue;
    // Calls open on click; a session's click only expands it (its context menu opens the transcript).
    if (node.target && node.kind !== 'session') item.command = { command: COMMANDS.openCall, title: 'Open Transcript', arguments: [node.target] };
    return item;
  }

  getChildren(node?: TreeNodeView): TreeNodeView[] {
    if (!node) {
      this.roots ??= treeModel(this.sessions(), this.now());
      return this.roots;
    }
    return node.children;
  }

  /** For the test API. */
  nodes(): TreeNodeView[] {
    return treeModel(this.sessions(), this.now());
  }

  /** For the test API: each row as VS Code is handed it (getTreeItem), sessions then their calls, top to bottom. */
  renderedItems(): { id: string; label: string; description: string; tooltip: string }[] {
    return this.nodes().flatMap((session) => [session, ...session.children]).map((node) => {
      const item = this.getTreeItem(node);
      return { id: String(item.id), label: String(item.label), description: String(item.description), tooltip: String(item.tooltip) };
    });
  }

  /** For the test API: the view is shown. */
  visible(): boolean {
    return this.view.visible;
  }

  badge(): number | undefined {
    return this.view.badge?.value;
  }

  /** The badge's hover text as set on the view; undefined when there is no badge. */
  badgeTooltip(): string | undefined {
    return this.view.badge?.tooltip;
  }

  dispose(): void {
    this.visibility.dispose();
    this.view.dispose();
    this.changed.dispose();
  }
}
