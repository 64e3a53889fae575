/**
 * A minimal stand-in for the `vscode` module, for timing the extension's
 * activation in a plain Node process (benchmark only: the extension's real
 * tests run in a real VS Code host). Concrete where values matter (Uri,
 * EventEmitter, configuration defaults, workspace folders); everything else is
 * an inert stub that accepts any call, so activation runs its real code path.
 */
import * as path from 'node:path';

type AnyFn = (...args: unknown[]) => unknown;

/** Callable, constructible, any property: returns more of itself. Not a thenable. */
export function inert(): unknown {
  const target = function () {} as unknown as AnyFn;
  return new Proxy(target, {
    get(_t, prop) {
      if (prop === 'then') return undefined;
      if (prop === Symbol.toPrimitive) return () => '';
      if (prop === Symbol.iterator) return function* () {};
      if (prop === 'dispose') return () => undefined;
      return inert();
    },
    apply: () => inert(),
    construct: () => inert() as object,
  });
}

class Uri {
  constructor(readonly scheme: string, readonly fsPath: string) {}
  get path(): string {
    return this.fsPath;
  }
  static file(p: string): Uri {
    return new Uri('file', p);
  }
  static parse(s: string): Uri {
    return new Uri(s.split(':')[0], s.replace(/^file:\/\//, ''));
  }
  static joinPath(base: Uri, ...parts: string[]): Uri {
    return new Uri(base.scheme, path.join(base.fsPath, ...parts));
  }
  with(change: { path?: string }): Uri {
    return new Uri(this.scheme, change.path ?? this.fsPath);
  }
  toString(): string {
    return `${this.scheme}://${this.fsPath}`;
  }
}

class Disposable {
  constructor(private readonly fn: () => void = () => undefined) {}
  static from(...items: { dispose(): unknown }[]): Disposable {
    return new Disposable(() => items.forEach((i) => i.dispose()));
  }
  dispose(): void {
    this.fn();
  }
}

class EventEmitter<T> {
  private listeners: ((e: T) => void)[] = [];
  event = (listener: (e: T) => void) => {
    this.listeners.push(listener);
    return new Disposable(() => (this.listeners = this.listeners.filter((l) => l !== listener)));
  };
  fire(e: T): void {
    for (const l of this.listeners) l(e);
  }
  dispose(): void {
    this.listeners = [];
  }
}

class Plain {
  constructor(...args: unknown[]) {
    Object.assign(this, { args });
  }
}

class TreeItem {
  constructor(public label: unknown, public collapsibleState?: number) {}
}

class MarkdownString {
  isTrusted = false;
  supportThemeIcons = false;
  constructor(public value = '') {}
  appendMarkdown(s: string): this {
    this.value += s;
    return this;
  }
  appendText(s: string): this {
    this.value += s;
    return this;
  }
  appendCodeblock(s: string): this {
    this.value += s;
    return this;
  }
}

const event = () => () => new Disposable();

/**
 * The bundle imports vscode through esbuild's __toESM, which copies the
 * module's own keys: a name the shim lacks is undefined, not a stub. So every
 * `vscode.Name` the extension's sources mention is given at least an inert stub.
 */
export function createVscodeShim(workspaceFolder: string, namesUsed: string[] = []): Record<string, unknown> {
  const configuration = { get: (_k: string, d?: unknown) => d, has: () => false, inspect: () => undefined, update: async () => undefined };
  const api: Record<string, unknown> = {
    version: '1.90.0',
    Uri,
    Disposable,
    EventEmitter,
    TreeItem,
    MarkdownString,
    ThemeColor: Plain,
    ThemeIcon: Plain,
    Range: Plain,
    Position: Plain,
    Selection: Plain,
    StatusBarAlignment: { Left: 1, Right: 2 },
    TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
    ViewColumn: { Active: -1, Beside: -2, One: 1, Two: 2 },
    TextEditorRevealType: { Default: 0, InCenter: 1, InCenterIfOutsideViewport: 2, AtTop: 3 },
    ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
    OverviewRulerLane: { Left: 1, Center: 2, Right: 4, Full: 7 },
    ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
    LogLevel: { Off: 0, Trace: 1, Debug: 2, Info: 3, Warning: 4, Error: 5 },
    UIKind: { Desktop: 1, Web: 2 },
    DecorationRangeBehavior: { OpenOpen: 0, ClosedClosed: 1, OpenClosed: 2, ClosedOpen: 3 },
    ExtensionMode: { Production: 1, Development: 2, Test: 3 },
    window: new Proxy(
      {
        createStatusBarItem: () => ({ show() {}, hide() {}, dispose() {} }),
        createOutputChannel: () => inert(),
        showInformationMessage: async () => undefined,
        showWarningMessage: async () => undefined,
        showErrorMessage: async () => undefined,
        visibleTextEditors: [],
        activeTextEditor: undefined,
      } as Record<string | symbol, unknown>,
      { get: (t, p) => (p in t ? t[p] : typeof p === 'string' && p.startsWith('onDid') ? event() : inert()) },
    ),
    workspace: new Proxy(
      {
        workspaceFolders: [{ uri: Uri.file(workspaceFolder), name: path.basename(workspaceFolder), index: 0 }],
        getConfiguration: () => configuration,
      } as Record<string | symbol, unknown>,
      { get: (t, p) => (p in t ? t[p] : typeof p === 'string' && p.startsWith('onDid') ? event() : inert()) },
    ),
    commands: { registerCommand: () => new Disposable(), executeCommand: async () => undefined, getCommands: async () => [] },
    env: { appName: 'bench', language: 'en', uiKind: 1, remoteName: undefined, clipboard: { writeText: async () => undefined } },
    l10n: { t: (s: string) => s },
  };
  for (const name of namesUsed) if (!(name in api)) api[name] = inert();
  return new Proxy(api, { get: (t, p) => (p in t ? t[p as string] : inert()) });
}
