import * as os from 'node:os';
import * as vscode from 'vscode';
import type { Scheduler } from '../rules/clock';
import type { FileAccess } from '../core/fileAccess';
import { hookLabel } from '../core/replay/hookLabel';
import { CLAUDE_CODE_HOOK_TIMEOUT_S } from '../core/replay/hookTimeout';
import type { SessionSnapshot } from '../core/snapshot';
import type * as ReplayModule from '../platform/replaySession';
import { createCoalescer } from '../presentation/coalesce';
import { hookPickItems, hookPickPlaceholder, type HookPickItem } from '../presentation/replayHookPick';
import type { ReplayHook } from '../core/replay/replayHooks';
import { oneLine, ReplayedCalls, replayTable, type ReplayProgress, type ReplayTableData } from '../presentation/replayTable';
import { printable } from '../rules/printable';
import { sessionName, sessionPickItems } from '../presentation/sessionLabel';
import { errorText } from './errorText';
import type { ReplayPanel } from './replayPanel';

/** As Claude Code's default hook timeout, and `replay`'s. */
const DEFAULT_TIMEOUT_MS = CLAUDE_CODE_HOOK_TIMEOUT_S * 1000;
/** The table is drawn again at most this often while calls come in. */
const RENDER_INTERVAL_MS = 250;

export interface ReplayCommandDeps {
  sessions(): SessionSnapshot[];
  session(id: string): SessionSnapshot | undefined;
  now(): number;
  /** The Claude dir the views follow: its settings.json is the user settings, its channel the session's. */
  claudeDir(): string;
  /** src/platform/replaySession.ts, from the engine's bundle (loaded when the command runs). */
  replay(): typeof ReplayModule;
  panel: ReplayPanel;
  log: vscode.LogOutputChannel;
  files: FileAccess;
  clock: Scheduler;
}

/**
 * What the command may be given instead of asking: the tree passes its session node (`session_id`);
 * tests and scripts may also name the hook: a `command` line, or `configured`: `'all'` or the index
 * of one of the session's configured hooks (as the picker lists them).
 */
export interface ReplayCommandArgs {
  session_id?: string;
  command?: string;
  configured?: 'all' | number;
}

function argsOf(arg: unknown): ReplayCommandArgs {
  if (!arg || typeof arg !== 'object') return {};
  const a = arg as Record<string, unknown>;
  return {
    ...(typeof a.session_id === 'string' ? { session_id: a.session_id } : {}),
    ...(typeof a.command === 'string' ? { command: a.command } : {}),
    ...(a.configured === 'all' || typeof a.configured === 'number' ? { configured: a.configured } : {}),
  };
}

interface ChosenHooks {
  choice: ReplayModule.HookChoice;
  /** What ran, for the table's heading and the progress notification. */
  label: string;
}

/** The hooks' environment: this window's, less what only the extension host is run with. */
function hookEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  // Desktop VS Code runs its extension host as Node through this; a hook's own `code` or Electron app must not.
  delete env.ELECTRON_RUN_AS_NODE;
  return env;
}

/**
 * Transcript Lag: Replay Hook on Session…: `transcript-lag replay` in the editor. Pick a session the
 * views show and a hook (a command, one of the session's configured PreToolUse command hooks, or all
 * of them); the CLI's replay (src/platform/replaySession.ts) runs it on every call, live and complete,
 * under a progress notification whose Cancel kills the running hook's process group and removes the
 * temp folder; the table (src/vscode/replayPanel.ts) lists the calls decided differently first, each
 * a link to its record's line. Closing the table's tab stops the replay as Cancel does: no hook runs
 * on unseen. It runs commands, so only in a trusted workspace.
 */
export class ReplayHookCommand implements vscode.Disposable {
  private running: AbortController | undefined;
  /** The last command typed, offered again. */
  private lastCommand = '';
  /** The hook picker while it is shown. */
  private picker: vscode.QuickPick<vscode.QuickPickItem & { item: HookPickItem }> | undefined;
  private readonly panelClosed: vscode.Disposable;

  constructor(private readonly deps: ReplayCommandDeps) {
    this.panelClosed = deps.panel.onDidClose(() => this.running?.abort());
  }

  /** Stops the running replay, as the notification's Cancel does. False when none runs. */
  cancel(): boolean {
    if (!this.running) return false;
    this.running.abort();
    return true;
  }

  /** Runs the command; resolves to the table as it ended (undefined when nothing ran). */
  async run(arg?: unknown): Promise<ReplayTableData | undefined> {
    if (!vscode.workspace.isTrusted) return this.untrusted();
    if (this.running) {
      void vscode.window.showInformationMessage('Transcript Lag: a replay is running. Cancel it from its notification first.');
      return undefined;
    }
    const a = argsOf(arg);
    const s = await this.chooseSession(a.session_id);
    if (!s) {
      if (a.session_id === undefined) void vscode.window.showInformationMessage('Transcript Lag: no active Claude Code session to replay.');
      else void vscode.window.showWarningMessage(`Transcript Lag: session ${printable(a.session_id)} is not among the sessions shown.`);
      return undefined;
    }
    const replay = this.deps.replay();
    const hooks = await this.chooseHooks(replay, s, a);
    if (!hooks) return undefined;
    // Asked again: the picks took time, and what follows runs commands.
    if (!vscode.workspace.isTrusted) return this.untrusted();
    return this.replay(replay, s, hooks);
  }

  private untrusted(): undefined {
    void vscode.window.showWarningMessage('Transcript Lag: Replay Hook runs commands, so it runs only in a trusted workspace.');
    return undefined;
  }

  private async chooseSession(sessionId: string | undefined): Promise<SessionSnapshot | undefined> {
    if (sessionId !== undefined) return this.deps.session(sessionId);
    const sessions = this.deps.sessions();
    if (sessions.length <= 1) return sessions[0];
    const pick = await vscode.window.showQuickPick(sessionPickItems(sessions, this.deps.now()), {
      title: 'Transcript Lag: replay a hook on which session?',
      matchOnDescription: true,
      matchOnDetail: true,
    });
    return pick ? this.deps.session(pick.session_id) : undefined;
  }

  private async chooseHooks(replay: typeof ReplayModule, s: SessionSnapshot, a: ReplayCommandArgs): Promise<ChosenHooks | undefined> {
    if (a.command !== undefined) return a.command.trim() === '' ? undefined : { choice: { command: a.command }, label: a.command };
    const claudeDir = this.deps.claudeDir();
    // As `replay --settings` reads them: the user's (this Claude dir's) and the session's project's,
    // here only from a folder of this (trusted) workspace.
    const within = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
    const configured = replay.settingsHooksOf(claudeDir, s.cwd, within);
    const all: ChosenHooks = { choice: { settingsOf: claudeDir, within }, label: 'All configured hooks' };
    const one = (index: number): ChosenHooks | undefined => {
      const hook = configured.hooks[index];
      return hook && { choice: { configured: [hook] }, label: hookLabel(hook) };
    };
    if (a.configured === 'all') return all;
    if (typeof a.configured === 'number') return one(a.configured);
    const item = await this.pickHook(configured);
    if (!item) return undefined;
    if (item.kind === 'all') return all;
    if (item.kind === 'one') return one(item.index);
    if (item.kind === 'typed') {
      this.lastCommand = item.command;
      return { choice: { command: item.command }, label: item.command };
    }
    const command = await vscode.window.showInputBox({
      title: 'Transcript Lag: replay a hook command',
      prompt: 'Run with sh -c, the PreToolUse JSON on stdin, as Claude Code runs a command hook',
      placeHolder: 'sh ~/.claude/hooks/review.sh',
      value: this.lastCommand,
      ignoreFocusOut: true,
      validateInput: (v) => (v.trim() === '' ? 'Type the command line your hook runs' : undefined),
    });
    if (command === undefined || command.trim() === '') return undefined;
    this.lastCommand = command;
    return { choice: { command }, label: command };
  }

  /**
   * The hook picker: a command typed into its box is an item of its own, first, so Enter runs it (the
   * box filters the other items by what is typed: a command matched none of them); "Type a command…"
   * asks for one in an input box; a configured hook, or all of them.
   */
  private pickHook(configured: { hooks: readonly ReplayHook[]; disabled: boolean }): Promise<HookPickItem | undefined> {
    type Item = vscode.QuickPickItem & { item: HookPickItem };
    const picker = vscode.window.createQuickPick<Item>();
    picker.title = 'Transcript Lag: replay which PreToolUse hook?';
    picker.placeholder = hookPickPlaceholder(configured.hooks.length);
    picker.matchOnDescription = true;
    picker.ignoreFocusOut = true;
    // `kind` is the QuickPickItem's own field (separators): the pick's kind goes along as `item`.
    const show = (typed: string) => {
      picker.items = hookPickItems(configured, typed).map((item) => ({
        label: item.label,
        ...('description' in item ? { description: item.description } : {}),
        ...('detail' in item && item.detail !== undefined ? { detail: item.detail } : {}),
        // The typed command's item is not filtered away by the text that made it.
        ...(item.kind === 'typed' ? { alwaysShow: true } : {}),
        item,
      }));
    };
    show('');
    this.picker = picker;
    return new Promise((resolve) => {
      let chosen: HookPickItem | undefined;
      picker.onDidChangeValue(show);
      picker.onDidAccept(() => {
        // Enter on a box whose text matched nothing still runs what was typed.
        chosen = picker.selectedItems[0]?.item ?? picker.activeItems[0]?.item ?? (picker.value.trim() !== '' ? hookPickItems(configured, picker.value)[0] : undefined);
        picker.hide();
      });
      picker.onDidHide(() => {
        if (this.picker === picker) this.picker = undefined;
        picker.dispose();
        resolve(chosen);
      });
      picker.show();
    });
  }

  /** The hook picker while it is open (for the test API); undefined otherwise. */
  openPicker(): vscode.QuickPick<vscode.QuickPickItem> | undefined {
    return this.picker;
  }

  private async replay(replay: typeof ReplayModule, s: SessionSnapshot, hooks: ChosenHooks): Promise<ReplayTableData> {
    const { deps } = this;
    const stop = new AbortController();
    this.running = stop;
    const progress: ReplayProgress & { notes: string[] } = {
      session_id: s.session_id,
      session: sessionName(s, deps.sessions(), deps.now()),
      transcript_path: s.transcript_path,
      hooks: hooks.label,
      started_at: deps.now(),
      state: 'running',
      progress: '',
      notes: [],
      byMatcher: !('command' in hooks.choice),
      replayed: new ReplayedCalls(s.session_id, s.transcript_path),
    };
    const render = createCoalescer(() => deps.panel.update(replayTable(progress)), RENDER_INTERVAL_MS, deps.clock);
    deps.panel.show(replayTable(progress));
    deps.log.info(`Replaying ${printable(hooks.label)} on session ${s.session_id} (${printable(s.transcript_path)})`);
    try {
      const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Transcript Lag: replaying ${oneLine(hooks.label, 80)}`, cancellable: true },
        async (report, token) => {
          token.onCancellationRequested(() => stop.abort());
          let total = 0;
          let done = 0;
          return replay.replaySession(
            {
              transcript: s.transcript_path,
              hooks: hooks.choice,
              timeoutMs: DEFAULT_TIMEOUT_MS,
              // As the session ran: with the mod unless its evidence shows it did not run.
              mod: undefined,
              env: hookEnv(),
              fallbackCwd: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? os.homedir(),
              files: deps.files,
              clock: deps.clock,
            },
            {
              note: (text, topic) => {
                const said = printable(topic === 'channel' ? `channel file: ${text}` : text);
                progress.notes.push(said);
                deps.log.info(`Replay: ${said}`);
                render.request();
              },
              planned: ({ calls }) => {
                total = calls;
              },
              calling: (index) => {
                progress.progress = `call ${index + 1} of ${total}`;
                const increment = total > 0 ? ((index - done) / total) * 100 : 0;
                done = index;
                report.report({ message: progress.progress, increment });
                render.request();
              },
              replayed: (call) => {
                progress.replayed.add(call, call.liveLacksRecord);
                render.request();
              },
            },
            stop.signal,
          );
        },
      );
      progress.state = result.interrupted ? 'cancelled' : 'done';
    } catch (err) {
      progress.state = 'failed';
      progress.notes.push(printable(errorText(err)));
      deps.log.error(`Replay failed: ${printable(errorText(err))}`);
    } finally {
      this.running = undefined;
      render.dispose();
    }
    progress.progress = '';
    const data = replayTable(progress);
    deps.panel.update(data);
    this.tell(data);
    return data;
  }

  /** The outcome in a notification too: the panel may be closed or behind another tab. */
  private tell(data: ReplayTableData): void {
    const { deps } = this;
    if (data.state === 'failed') {
      void vscode.window.showErrorMessage(`Transcript Lag: could not replay: ${data.notes.at(-1) ?? 'unknown error'}`);
      return;
    }
    deps.log.info(`Replay ${data.state}: ${data.verdict}`);
    const show = 'Show Table';
    void vscode.window.showInformationMessage(`Transcript Lag: ${data.verdict}`, ...(deps.panel.isVisible() ? [] : [show])).then((pick) => {
      if (pick === show) deps.panel.show(deps.panel.lastView()?.data ?? data);
    });
  }

  dispose(): void {
    this.running?.abort();
    this.panelClosed.dispose();
  }
}
